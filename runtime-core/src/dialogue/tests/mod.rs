//! The dialogue runtime on a hand-written stand-in for a generated protocol: a call for proposals (from a
//! buyer) or an offer (from a seller), a proposal, an accept and a matching accept, with a decline at the
//! responder's turns; and the TAC ledger, controller and directory.

mod protocol;
#[cfg(feature = "tac")]
mod tac;

use super::*;
use crate::transition::{InvalidTransition, Machine, Reason, ValidationError};
use std::fmt::{self, Display, Formatter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum S {
    Idle,
    Called,
    Proposed,
    Accepted,
    Done,
    Declined,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum E {
    Cfp,
    Offer,
    Propose,
    Accept,
    MatchAccept,
    Decline,
}

#[derive(Debug, Clone, PartialEq)]
enum Msg {
    Cfp { good: &'static str },
    Offer { good: &'static str },
    Propose { price: u64 },
    Accept,
    MatchAccept,
    Decline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Buyer,
    Seller,
}

impl Display for S {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Display for E {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl Display for Role {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Buyer => "buyer",
            Role::Seller => "seller",
        })
    }
}

/// What the hooks of this stand-in see: every transition taken, and a validator that can refuse prices.
trait Hooks {
    fn validate(&mut self, message: &Msg) -> Result<(), ValidationError>;
    fn took(&mut self, from: S, event: E, to: S, delivery: &Delivery<'_, Role>);
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Log {
    max_price: Option<u64>,
    taken: Vec<(S, E, S, Side, MessageId)>,
    /// The role each transition ran as.
    roles: Vec<Role>,
}

impl Hooks for Log {
    fn validate(&mut self, message: &Msg) -> Result<(), ValidationError> {
        match (message, self.max_price) {
            (Msg::Propose { price }, Some(max)) if *price > max => {
                Err(ValidationError::new("too expensive"))
            }
            _ => Ok(()),
        }
    }

    fn took(&mut self, from: S, event: E, to: S, d: &Delivery<'_, Role>) {
        self.taken.push((from, event, to, d.side(), d.message_id()));
        self.roles.extend(d.role());
    }
}

fn event_of(m: &Msg) -> E {
    match m {
        Msg::Cfp { .. } => E::Cfp,
        Msg::Offer { .. } => E::Offer,
        Msg::Propose { .. } => E::Propose,
        Msg::Accept => E::Accept,
        Msg::MatchAccept => E::MatchAccept,
        Msg::Decline => E::Decline,
    }
}

impl Machine for S {
    type Event = E;
    type Message = Msg;
    type Hooks = dyn Hooks;
    const ALL: &'static [Self] = &[
        S::Idle,
        S::Called,
        S::Proposed,
        S::Accepted,
        S::Done,
        S::Declined,
    ];

    fn next(self, event: E) -> Result<S, InvalidTransition<S, E>> {
        match (self, event) {
            (S::Idle, E::Cfp | E::Offer) => Ok(S::Called),
            (S::Called, E::Propose) => Ok(S::Proposed),
            (S::Proposed, E::Accept) => Ok(S::Accepted),
            (S::Accepted, E::MatchAccept) => Ok(S::Done),
            (S::Called | S::Accepted, E::Decline) => Ok(S::Declined),
            _ => Err(InvalidTransition::for_state(self, event)),
        }
    }

    fn fire(self, message: &Msg, _: &mut Self::Hooks) -> Result<S, InvalidTransition<S, E>> {
        self.next(event_of(message))
    }

    fn is_final(self) -> bool {
        matches!(self, S::Done | S::Declined)
    }

    fn accepted(self) -> &'static [E] {
        match self {
            S::Idle => &[E::Cfp, E::Offer],
            S::Called => &[E::Propose, E::Decline],
            S::Proposed => &[E::Accept],
            S::Accepted => &[E::MatchAccept, E::Decline],
            S::Done | S::Declined => &[],
        }
    }

    fn name(self) -> &'static str {
        match self {
            S::Idle => "Idle",
            S::Called => "Called",
            S::Proposed => "Proposed",
            S::Accepted => "Accepted",
            S::Done => "Done",
            S::Declined => "Declined",
        }
    }
}

impl Protocol for S {
    type Role = Role;
    const START: S = S::Idle;

    fn performative(message: &Msg) -> E {
        event_of(message)
    }

    // A buyer opens with a call, a seller with an offer; every reply is the initiator's or the responder's,
    // whichever role that is. The decline is the responder's, so every turn has one sender.
    fn sender(p: E) -> Option<Sender<Role>> {
        Some(match p {
            E::Cfp => Sender::Role(Role::Buyer),
            E::Offer => Sender::Role(Role::Seller),
            E::Accept => Sender::Initiator,
            E::Propose | E::MatchAccept | E::Decline => Sender::Responder,
        })
    }

    fn other_role(r: Role) -> Role {
        match r {
            Role::Buyer => Role::Seller,
            Role::Seller => Role::Buyer,
        }
    }

    fn deliver(
        self,
        message: &Msg,
        delivery: &Delivery<'_, Role>,
        hooks: &mut Self::Hooks,
    ) -> Result<S, InvalidTransition<S, E>> {
        let event = event_of(message);
        let to = self.next(event)?;
        hooks
            .validate(message)
            .map_err(|e| InvalidTransition::new(self, event, Reason::Rejected(e)))?;
        hooks.took(self, event, to, delivery);
        Ok(to)
    }
}

type Store = Dialogues<S>;

fn open(buyer: &mut Store, log: &mut Log, seller: &str) -> Envelope<Msg> {
    buyer.open(seller, Msg::Cfp { good: "apple" }, log).unwrap()
}

/// Asserts `result` is an error and that the store and the hooks' log are as they were.
fn refused<T: std::fmt::Debug>(
    result: Result<T, ErrorOf<S>>,
    store: &Store,
    before: &Store,
    log: &Log,
    log_before: &Log,
) -> ErrorOf<S> {
    let err = result.unwrap_err();
    assert_eq!(store, before, "{err}: the store changed");
    assert_eq!(log, log_before, "{err}: the hooks ran");
    err
}
