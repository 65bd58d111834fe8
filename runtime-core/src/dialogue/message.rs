//! FIPA messages: an [`Envelope`] is a [`Header`] (the dialogue reference, the message id, the target it
//! answers, the sender and the receiver) around the generated `Message`, which is the performative with its
//! typed contents; a [`Delivery`] is what every hook of a dialogue machine sees of it as `t.profile`.

use std::fmt::{self, Display, Formatter};

/// An agent's address: who sends and who receives a message (an agent's public key in TAC).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address(String);

impl Address {
    /// The address `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self(name.into())
    }

    /// The address as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // `pad`, so `{:<8}` lines addresses up in traces.
        f.pad(&self.0)
    }
}

impl From<&str> for Address {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

impl From<String> for Address {
    fn from(name: String) -> Self {
        Self(name)
    }
}

/// A message's number within its dialogue.
pub type MessageId = u32;

/// The id of a dialogue's first message: FIPA counts from 1.
pub const FIRST_MESSAGE_ID: MessageId = 1;

/// The target of a dialogue's first message, which answers nothing.
pub const NO_TARGET: MessageId = 0;

/// Names one dialogue for both parties: the agent that opened it and a nonce that agent never reuses.
///
/// FIPA leaves the form open (AEA uses a pair of nonces, one per party, plus the addresses in its labels).
/// An opener's own counter is unique among its dialogues, and addresses are unique among agents, so the pair
/// names the dialogue everywhere without a second round trip.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DialogueReference {
    /// The agent that sent the opening performative.
    pub initiator: Address,
    /// The initiator's number for the dialogue.
    pub nonce: u64,
}

impl DialogueReference {
    /// The reference of `initiator`'s dialogue number `nonce`.
    pub fn new(initiator: impl Into<Address>, nonce: u64) -> Self {
        Self {
            initiator: initiator.into(),
            nonce,
        }
    }
}

impl Display for DialogueReference {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.initiator, self.nonce)
    }
}

/// Everything a FIPA message says besides its performative and contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The dialogue the message belongs to.
    pub dialogue: DialogueReference,
    /// The message's number: one more than the message before it in the dialogue.
    pub message_id: MessageId,
    /// The id of the message this one answers ([`NO_TARGET`] for the first).
    pub target: MessageId,
    /// Who sent it.
    pub sender: Address,
    /// Who it is for.
    pub to: Address,
}

/// A FIPA message: its header and the generated `Message` (the performative with its typed contents).
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope<M> {
    /// Dialogue reference, message id, target, sender and receiver.
    pub header: Header,
    /// The performative and its contents.
    pub message: M,
}

/// Which end of a message a dialogue copy is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// This agent sends the message.
    Sent,
    /// This agent receives the message.
    Received,
}

/// What a dialogue's transition carries besides its message: the header, whether the agent running the hooks
/// sent or received the message, and the role it plays in the dialogue (`R`, the generated `Role`). Every hook
/// of a dialogue machine sees it as `t.profile`.
///
/// Both parties fire the same transition for each message, each on its own copy of the dialogue; the side
/// tells which half of the protocol step runs (the spec's `sender do` and `receiver do` actions run on one side
/// only), and the role which party's business it is (the buyer pays, whoever opened).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery<'a, R> {
    header: &'a Header,
    side: Side,
    role: Option<R>,
}

/// The header of a message fired outside any dialogue (`State::fire` without a delivery): no dialogue, no
/// parties, message id 0, which no dialogue message has.
static NO_DIALOGUE: Header = Header {
    dialogue: DialogueReference {
        initiator: Address(String::new()),
        nonce: 0,
    },
    message_id: NO_TARGET,
    target: NO_TARGET,
    sender: Address(String::new()),
    to: Address(String::new()),
};

/// Outside any dialogue: what `State::fire` passes when the protocol machine is driven directly, without a
/// [`Dialogue`](super::Dialogue) (its header is empty, its message id 0, and it has no role).
impl<R> Default for Delivery<'_, R> {
    fn default() -> Self {
        Self {
            header: &NO_DIALOGUE,
            side: Side::Sent,
            role: None,
        }
    }
}

impl<'a, R: Copy> Delivery<'a, R> {
    /// The delivery of the message with `header` at `side`, to the party playing `role`.
    pub const fn new(header: &'a Header, side: Side, role: R) -> Self {
        Self {
            header,
            side,
            role: Some(role),
        }
    }

    /// The role of the agent running the hooks; `None` outside any dialogue.
    pub const fn role(&self) -> Option<R> {
        self.role
    }

    /// The message's header.
    pub const fn header(&self) -> &'a Header {
        self.header
    }

    /// Whether the message travels in a dialogue (false for [`Delivery::default`]).
    pub const fn in_dialogue(&self) -> bool {
        self.header.message_id != NO_TARGET
    }

    /// Whether this agent sent or received the message.
    pub const fn side(&self) -> Side {
        self.side
    }

    /// Whether this agent sent the message.
    pub const fn is_sent(&self) -> bool {
        matches!(self.side, Side::Sent)
    }

    /// The dialogue the message belongs to.
    pub const fn dialogue(&self) -> &'a DialogueReference {
        &self.header.dialogue
    }

    /// The message's id.
    pub const fn message_id(&self) -> MessageId {
        self.header.message_id
    }

    /// The id of the message it answers.
    pub const fn target(&self) -> MessageId {
        self.header.target
    }

    /// The agent running the hooks.
    pub const fn me(&self) -> &'a Address {
        match self.side {
            Side::Sent => &self.header.sender,
            Side::Received => &self.header.to,
        }
    }

    /// The other party.
    pub const fn counterparty(&self) -> &'a Address {
        match self.side {
            Side::Sent => &self.header.to,
            Side::Received => &self.header.sender,
        }
    }
}
