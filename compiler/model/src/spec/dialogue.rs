//! What a dialogue (`machine M: dialogue`, FIPA's, after the AEA framework) adds to the model: performatives
//! sent by a party named by who opened the dialogue, and actions run by one party's copy of it.

use fsmc_base::source::Span;

/// The party that sends a performative when the spec names it by who opened the dialogue rather than by role
/// (`by initiator`, `by responder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Turn {
    /// The party that sent the opening performative.
    Initiator,
    /// The other party.
    Responder,
}

impl Turn {
    /// The word the spec writes after `by`.
    pub const fn name(self) -> &'static str {
        match self {
            Turn::Initiator => "initiator",
            Turn::Responder => "responder",
        }
    }

    /// The turn a spec writes as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Turn> {
        [Turn::Initiator, Turn::Responder]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

/// Which party's copy of a dialogue runs an action (`sender do a`, `receiver do b`): each party fires every
/// message on its own copy, the sender as it sends and the receiver as it receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActionSide {
    /// The copy of the party that sends the message.
    Sender,
    /// The copy of the party that receives it.
    Receiver,
}

impl ActionSide {
    /// The word the spec writes before `do`.
    pub const fn name(self) -> &'static str {
        match self {
            ActionSide::Sender => "sender",
            ActionSide::Receiver => "receiver",
        }
    }

    /// The side a spec writes as `name`, if it is one.
    pub fn parse(name: &str) -> Option<ActionSide> {
        [ActionSide::Sender, ActionSide::Receiver]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// Where a side was written, with the side.
pub type SideAt = (ActionSide, Span);
