//! One party's copy of a dialogue: the `Protocol` a generated dialogue machine implements, and the
//! [`Dialogue`] that checks each message against it before the generated transition fires.

use super::message::{
    Address, Delivery, DialogueReference, Envelope, Header, MessageId, NO_TARGET, Side,
};
use crate::transition::{InvalidTransition, Machine};
use std::error::Error;
use std::fmt::{self, Debug, Display, Formatter};

/// Who sends a performative (`by …` in the spec): a role, or a party named by who opened the dialogue.
///
/// A performative sent `by initiator` or `by responder` is sent by whichever role that party plays, so the same
/// protocol runs whoever opens: a buyer calling for proposals, or a seller offering. The role each party plays is
/// fixed by the opening performative, which is always sent by a role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sender<R> {
    /// `by buyer`: the party that plays this role.
    Role(R),
    /// `by initiator`: the party that sent the opening performative.
    Initiator,
    /// `by responder`: the party that received it.
    Responder,
}

impl<R: Display> Display for Sender<R> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Role(r) => write!(f, "{r}"),
            Self::Initiator => f.write_str("initiator"),
            Self::Responder => f.write_str("responder"),
        }
    }
}

/// What a generated dialogue machine's `State` adds to [`Machine`]: its roles, the performative of a message,
/// and the transition run with a [`Delivery`]. Generated code implements it; [`Dialogue`] and
/// [`Dialogues`](super::Dialogues) run on it.
#[doc(hidden)]
pub trait Protocol:
    Machine<Event: Eq + Debug + Display, Message: Sized> + Eq + Debug + Display
{
    /// The generated `Role` enum: the two parties.
    type Role: Copy + Eq + Debug + Display + 'static;

    /// The state every dialogue starts in (the spec's default start state).
    const START: Self;

    /// The performative of `message`.
    fn performative(message: &Self::Message) -> Self::Event;

    /// Who sends `performative` (`by …` in the spec; every performative of a checked dialogue says, and every
    /// opening one names a role).
    fn sender(performative: Self::Event) -> Option<Sender<Self::Role>>;

    /// The other party's role.
    fn other_role(role: Self::Role) -> Self::Role;

    /// Fires `message`, running `hooks` in the documented order with `delivery` as every hook's `t.profile`;
    /// a refusal changes nothing.
    fn deliver(
        self,
        message: &Self::Message,
        delivery: &Delivery<'_, Self::Role>,
        hooks: &mut Self::Hooks,
    ) -> Result<Self, InvalidTransition<Self, Self::Event>>;
}

/// Why a dialogue refused a message. A refused message changes nothing: not the dialogue's state, not its
/// history, not the hooks' context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogueError<S: 'static, E: 'static, R> {
    /// No dialogue has this reference, and the message does not open one.
    UnknownDialogue(DialogueReference),
    /// An opening message for a dialogue that already exists.
    DuplicateDialogue(DialogueReference),
    /// The message belongs to another dialogue.
    WrongDialogue {
        /// This dialogue's reference.
        expected: DialogueReference,
        /// The message's.
        got: DialogueReference,
    },
    /// The message is addressed to someone other than the party that must receive it.
    NotAddressed {
        /// Who the message is for.
        to: Address,
        /// Who should receive it.
        expected: Address,
    },
    /// The sender is not the party that sends at this end of the dialogue.
    NotAParty {
        /// Who sent the message.
        sender: Address,
        /// The party that can send it.
        expected: Address,
    },
    /// The sender plays a role that does not send this performative.
    WrongRole {
        /// The performative.
        performative: E,
        /// Who sent it.
        sender: Address,
        /// The sender's role in the dialogue.
        role: R,
        /// The role that sends the performative in this dialogue.
        expected: R,
        /// Who sends the performative, as the spec says it (`by initiator` sends by `expected` here).
        by: Sender<R>,
    },
    /// The performative has no sending role, or opens a dialogue without saying which role opens it (only an
    /// unchecked spec can produce either).
    NoRole {
        /// The performative.
        performative: E,
    },
    /// The message id does not follow the dialogue's last message.
    MessageId {
        /// The message's id.
        got: MessageId,
        /// The next id of the dialogue.
        expected: MessageId,
    },
    /// The message does not answer the dialogue's last message.
    Target {
        /// The id the message answers.
        got: MessageId,
        /// The id of the last message, which the next one must answer.
        expected: MessageId,
    },
    /// The dialogue has used every message id.
    Exhausted(DialogueReference),
    /// An agent cannot open a dialogue with itself.
    SelfDialogue(Address),
    /// A peer tried to open one dialogue more than an agent lets one peer keep open with it.
    TooManyDialogues {
        /// The peer.
        peer: Address,
        /// How many open dialogues a peer may have with the agent.
        limit: usize,
    },
    /// The protocol refused the performative: it is not a reply to the last one (the dialogue's state does
    /// not accept it, or the dialogue has ended), or a validator or guard refused it.
    Refused(InvalidTransition<S, E>),
}

impl<S: Display, E: Display, R: Display> Display for DialogueError<S, E, R> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownDialogue(r) => {
                write!(f, "no dialogue `{r}`, and the message does not open one")
            }
            Self::DuplicateDialogue(r) => write!(f, "dialogue `{r}` is already open"),
            Self::WrongDialogue { expected, got } => {
                write!(
                    f,
                    "the message belongs to dialogue `{got}`, not `{expected}`"
                )
            }
            Self::NotAddressed { to, expected } => {
                write!(f, "the message is addressed to `{to}`, not `{expected}`")
            }
            Self::NotAParty { sender, expected } => {
                write!(f, "`{sender}` cannot send here; only `{expected}` can")
            }
            Self::WrongRole {
                performative,
                sender,
                role,
                expected,
                by,
            } => {
                write!(
                    f,
                    "`{sender}` is the {role} of this dialogue, but `{performative}` is sent by the "
                )?;
                match by {
                    Sender::Role(_) => write!(f, "{expected}"),
                    turn => write!(f, "{turn}, the {expected}"),
                }
            }
            Self::NoRole { performative } => {
                write!(f, "performative `{performative}` has no sending role")
            }
            Self::MessageId { got, expected } => {
                write!(
                    f,
                    "message id {got} is out of sequence; the next is {expected}"
                )
            }
            Self::Target { got, expected } => write!(
                f,
                "the message answers message {got}, but the dialogue is waiting for an answer to {expected}"
            ),
            Self::Exhausted(r) => write!(f, "dialogue `{r}` has used every message id"),
            Self::SelfDialogue(a) => write!(f, "`{a}` cannot open a dialogue with itself"),
            Self::TooManyDialogues { peer, limit } => write!(
                f,
                "`{peer}` already has {limit} open dialogues with this agent, the most one peer may have"
            ),
            Self::Refused(e) => write!(f, "{e}"),
        }
    }
}

impl<S: Display + Debug, E: Display + Debug, R: Display + Debug> Error for DialogueError<S, E, R> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Refused(e) => Some(e),
            _ => None,
        }
    }
}

/// The error type of a protocol's dialogues.
pub type ErrorOf<P> = DialogueError<P, <P as Machine>::Event, <P as Protocol>::Role>;

/// A message a dialogue took: its header and performative, in the order taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<E> {
    /// The message's header.
    pub header: Header,
    /// Its performative.
    pub performative: E,
    /// Whether this party sent or received it.
    pub side: Side,
}

/// One party's copy of one dialogue: who it is with, the role it plays, the protocol state and the messages
/// taken so far.
///
/// A message is taken only if it belongs to this dialogue, travels between its two parties in the right
/// direction, is sent by the role that sends its performative, has the next message id, answers the last
/// message (its target), and is a reply the protocol allows in the current state; then the transition fires
/// with its hooks. Anything else is a [`DialogueError`] and leaves the dialogue as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dialogue<P: Protocol> {
    reference: DialogueReference,
    me: Address,
    counterparty: Address,
    role: P::Role,
    state: P,
    last: MessageId,
    history: Vec<Record<P::Event>>,
}

impl<P: Protocol> Dialogue<P> {
    /// `me`'s copy of dialogue `reference` with `counterparty`, in which `me` plays `role`; nothing sent yet.
    pub fn new(
        reference: DialogueReference,
        me: Address,
        counterparty: Address,
        role: P::Role,
    ) -> Self {
        Self {
            reference,
            me,
            counterparty,
            role,
            state: P::START,
            last: NO_TARGET,
            history: Vec::new(),
        }
    }

    /// The dialogue's reference.
    pub fn reference(&self) -> &DialogueReference {
        &self.reference
    }

    /// The agent whose copy this is.
    pub fn me(&self) -> &Address {
        &self.me
    }

    /// The other party.
    pub fn counterparty(&self) -> &Address {
        &self.counterparty
    }

    /// The role this party plays.
    pub fn role(&self) -> P::Role {
        self.role
    }

    /// The role the other party plays.
    pub fn counterparty_role(&self) -> P::Role {
        P::other_role(self.role)
    }

    /// Whether this party opened the dialogue.
    pub fn is_self_initiated(&self) -> bool {
        self.reference.initiator == self.me
    }

    /// The role of the party that opened the dialogue.
    pub fn initiator_role(&self) -> P::Role {
        if self.is_self_initiated() {
            self.role
        } else {
            self.counterparty_role()
        }
    }

    /// The role that sends `performative` in this dialogue: its role in the spec, or the role of the party
    /// that sends it (the initiator's or the responder's).
    pub fn role_sending(&self, performative: P::Event) -> Result<P::Role, ErrorOf<P>> {
        match P::sender(performative) {
            None => Err(DialogueError::NoRole { performative }),
            Some(Sender::Role(role)) => Ok(role),
            Some(Sender::Initiator) => Ok(self.initiator_role()),
            Some(Sender::Responder) => Ok(P::other_role(self.initiator_role())),
        }
    }

    /// The protocol state.
    pub fn state(&self) -> P {
        self.state
    }

    /// Whether the dialogue has ended (its state is final: no performative replies to the last one).
    pub fn is_ended(&self) -> bool {
        self.state.is_final()
    }

    /// The id of the last message taken ([`NO_TARGET`] before the first).
    pub fn last_message_id(&self) -> MessageId {
        self.last
    }

    /// Every message taken, oldest first.
    pub fn history(&self) -> &[Record<P::Event>] {
        &self.history
    }

    /// The header of the message this party sends next: the next id, answering the last message.
    pub fn next_header(&self) -> Result<Header, ErrorOf<P>> {
        let message_id = self
            .last
            .checked_add(1)
            .ok_or_else(|| DialogueError::Exhausted(self.reference.clone()))?;
        Ok(Header {
            dialogue: self.reference.clone(),
            message_id,
            target: self.last,
            sender: self.me.clone(),
            to: self.counterparty.clone(),
        })
    }

    /// Checks that `envelope` fits the dialogue at `side` (everything but the hooks), and returns its
    /// performative.
    pub fn check(
        &self,
        envelope: &Envelope<P::Message>,
        side: Side,
    ) -> Result<P::Event, ErrorOf<P>> {
        let h = &envelope.header;
        if h.dialogue != self.reference {
            return Err(DialogueError::WrongDialogue {
                expected: self.reference.clone(),
                got: h.dialogue.clone(),
            });
        }
        let (from, to, sender_role) = match side {
            Side::Sent => (&self.me, &self.counterparty, self.role),
            Side::Received => (&self.counterparty, &self.me, self.counterparty_role()),
        };
        if h.to != *to {
            return Err(DialogueError::NotAddressed {
                to: h.to.clone(),
                expected: to.clone(),
            });
        }
        if h.sender != *from {
            return Err(DialogueError::NotAParty {
                sender: h.sender.clone(),
                expected: from.clone(),
            });
        }
        let performative = P::performative(&envelope.message);
        let expected = self.role_sending(performative)?;
        if expected != sender_role {
            return Err(DialogueError::WrongRole {
                performative,
                sender: h.sender.clone(),
                role: sender_role,
                expected,
                by: P::sender(performative).unwrap_or(Sender::Role(expected)),
            });
        }
        let expected = self
            .last
            .checked_add(1)
            .ok_or_else(|| DialogueError::Exhausted(self.reference.clone()))?;
        if h.message_id != expected {
            return Err(DialogueError::MessageId {
                got: h.message_id,
                expected,
            });
        }
        if h.target != self.last {
            return Err(DialogueError::Target {
                got: h.target,
                expected: self.last,
            });
        }
        // The reply relation: the performatives that may answer the last message are the ones its state accepts.
        if !self.state.accepts(performative) {
            return Err(DialogueError::Refused(InvalidTransition::for_state(
                self.state,
                performative,
            )));
        }
        Ok(performative)
    }

    /// Takes `envelope` at `side`: checks it, fires the transition with its hooks, and records it.
    fn take(
        &mut self,
        envelope: &Envelope<P::Message>,
        side: Side,
        hooks: &mut P::Hooks,
    ) -> Result<P, ErrorOf<P>> {
        let performative = self.check(envelope, side)?;
        let delivery = Delivery::new(&envelope.header, side, self.role);
        let next = self
            .state
            .deliver(&envelope.message, &delivery, hooks)
            .map_err(DialogueError::Refused)?;
        self.state = next;
        self.last = envelope.header.message_id;
        self.history.push(Record {
            header: envelope.header.clone(),
            performative,
            side,
        });
        Ok(next)
    }

    /// Sends `message` as this party's next message: builds its header, takes it (running the hooks with
    /// [`Side::Sent`]) and returns the envelope to deliver to the counterparty.
    pub fn send(
        &mut self,
        message: P::Message,
        hooks: &mut P::Hooks,
    ) -> Result<Envelope<P::Message>, ErrorOf<P>> {
        let envelope = Envelope {
            header: self.next_header()?,
            message,
        };
        self.take(&envelope, Side::Sent, hooks)?;
        Ok(envelope)
    }

    /// Receives `envelope` from the counterparty (running the hooks with [`Side::Received`]); returns the
    /// new state.
    pub fn receive(
        &mut self,
        envelope: &Envelope<P::Message>,
        hooks: &mut P::Hooks,
    ) -> Result<P, ErrorOf<P>> {
        self.take(envelope, Side::Received, hooks)
    }
}
