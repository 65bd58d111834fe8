//! The TAC controller: the authoritative holdings of every agent, and settlement of a transaction once both
//! parties have sent their own, matching, requests for it.

use super::ledger::{Holdings, TransactionId, TransactionRequest};
use super::message::Address;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Display, Formatter};

/// Why the controller refused a transaction request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// The sender or the counterparty is not a registered agent.
    UnknownAgent(Address),
    /// The sender names itself as the counterparty.
    SelfTrade,
    /// The sender already requested this transaction, and it still waits for the counterparty.
    Duplicate,
    /// The transaction was settled already; settling it twice would spend twice.
    AlreadySettled,
    /// The transaction was refused already.
    AlreadyRefused,
    /// The two parties' requests differ: the transaction is off.
    Mismatch,
    /// This party cannot cover the transaction with its holdings.
    Infeasible(Address),
}

impl Refusal {
    /// Whether the refusal ends the transaction (its parties unlock it), as opposed to rejecting one stray
    /// request while the transaction stands (a duplicate, or a request for one already settled).
    pub const fn ends_transaction(&self) -> bool {
        !matches!(self, Self::Duplicate | Self::AlreadySettled)
    }
}

impl Display for Refusal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownAgent(a) => write!(f, "`{a}` is not a registered agent"),
            Self::SelfTrade => f.write_str("an agent cannot trade with itself"),
            Self::Duplicate => f.write_str("the request was already sent"),
            Self::AlreadySettled => f.write_str("the transaction is already settled"),
            Self::AlreadyRefused => f.write_str("the transaction was already refused"),
            Self::Mismatch => f.write_str("the parties' requests do not match"),
            Self::Infeasible(a) => write!(f, "`{a}` cannot cover the transaction"),
        }
    }
}

/// What the controller tells an agent about a transaction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Notice {
    /// Settled: both parties pop their locked transaction and update their holdings.
    Confirmed(TransactionId),
    /// Refused.
    Refused {
        /// The transaction.
        id: TransactionId,
        /// Why.
        reason: Refusal,
    },
}

impl Notice {
    /// The transaction the notice is about.
    pub const fn id(&self) -> &TransactionId {
        match self {
            Self::Confirmed(id) | Self::Refused { id, .. } => id,
        }
    }
}

impl Display for Notice {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Confirmed(id) => write!(f, "transaction {id} confirmed"),
            Self::Refused { id, reason } => write!(f, "transaction {id} refused: {reason}"),
        }
    }
}

/// The controller of a TAC game.
///
/// A transaction settles only when both of its parties have sent a request for it, each built by that party
/// from its own ledger, and the two match ([`TransactionRequest::matches`]); the controller then checks
/// both can cover it against its own, authoritative, holdings, updates them, and confirms it to both. A
/// mismatch, or a transaction a party cannot cover, is refused to both parties and the transaction is off
/// for good (its first request does not linger). A stray request (a duplicate, from an unknown agent, for a
/// settled or refused transaction) is refused to its sender alone and changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller<G: Ord> {
    holdings: BTreeMap<Address, Holdings<G>>,
    pending: BTreeMap<TransactionId, TransactionRequest<G>>,
    settled: Vec<TransactionRequest<G>>,
    settled_ids: BTreeSet<TransactionId>,
    refused: BTreeSet<TransactionId>,
}

impl<G: Ord + Clone> Controller<G> {
    /// A controller for agents with these initial holdings.
    pub fn new(agents: impl IntoIterator<Item = (Address, Holdings<G>)>) -> Self {
        Self {
            holdings: agents.into_iter().collect(),
            pending: BTreeMap::new(),
            settled: Vec::new(),
            settled_ids: BTreeSet::new(),
            refused: BTreeSet::new(),
        }
    }

    /// Handles `request` and returns the notices to deliver, each with its addressee: none while the
    /// request waits for its counterparty's.
    pub fn request(&mut self, request: TransactionRequest<G>) -> Vec<(Address, Notice)> {
        let id = request.id.clone();
        let to_sender = |reason| {
            vec![(
                request.sender.clone(),
                Notice::Refused {
                    id: id.clone(),
                    reason,
                },
            )]
        };
        for party in [&request.sender, &request.counterparty] {
            if !self.holdings.contains_key(party) {
                return to_sender(Refusal::UnknownAgent(party.clone()));
            }
        }
        if request.sender == request.counterparty {
            return to_sender(Refusal::SelfTrade);
        }
        if self.settled_ids.contains(&id) {
            return to_sender(Refusal::AlreadySettled);
        }
        if self.refused.contains(&id) {
            return to_sender(Refusal::AlreadyRefused);
        }
        let Some(first) = self.pending.get(&id) else {
            // The first request of the two: held if both parties can cover it now.
            return match self.infeasible(&request) {
                Some(reason) => self.refuse(&id, [&request.sender, &request.counterparty], reason),
                None => {
                    self.pending.insert(id, request);
                    Vec::new()
                }
            };
        };
        if first.sender == request.sender {
            return to_sender(Refusal::Duplicate);
        }
        let Some(first) = self.pending.remove(&id) else {
            return Vec::new();
        };
        // Both senders are told: the one that requested first may not be the request's counterparty when the
        // requests disagree on who trades.
        let parties = [&first.sender, &request.sender];
        if !first.matches(&request) {
            return self.refuse(&id, parties, Refusal::Mismatch);
        }
        let settled = self
            .holdings
            .get(&first.sender)
            .and_then(|h| h.apply(&first))
            .zip(
                self.holdings
                    .get(&request.sender)
                    .and_then(|h| h.apply(&request)),
            );
        let Some((a, b)) = settled else {
            let reason = self.infeasible(&first).unwrap_or(Refusal::Mismatch);
            return self.refuse(&id, parties, reason);
        };
        self.holdings.insert(first.sender.clone(), a);
        self.holdings.insert(request.sender.clone(), b);
        self.settled_ids.insert(id.clone());
        let notices = vec![
            (first.sender.clone(), Notice::Confirmed(id.clone())),
            (request.sender.clone(), Notice::Confirmed(id)),
        ];
        self.settled.push(first);
        notices
    }

    /// The party of `request` that cannot cover it, if one cannot.
    fn infeasible(&self, request: &TransactionRequest<G>) -> Option<Refusal> {
        let mirror = request.mirror();
        [request, &mirror].into_iter().find_map(|view| {
            let covered = self
                .holdings
                .get(&view.sender)
                .and_then(|h| h.apply(view))
                .is_some();
            (!covered).then(|| Refusal::Infeasible(view.sender.clone()))
        })
    }

    /// Refuses transaction `id` to both `parties`; it can no longer settle.
    fn refuse(
        &mut self,
        id: &TransactionId,
        parties: [&Address; 2],
        reason: Refusal,
    ) -> Vec<(Address, Notice)> {
        self.refused.insert(id.clone());
        parties
            .into_iter()
            .map(|party| {
                let notice = Notice::Refused {
                    id: id.clone(),
                    reason: reason.clone(),
                };
                (party.clone(), notice)
            })
            .collect()
    }

    /// The holdings of `agent`, as the controller settled them.
    pub fn holdings(&self, agent: &Address) -> Option<&Holdings<G>> {
        self.holdings.get(agent)
    }

    /// Requests waiting for their counterparty's, in transaction id order.
    pub fn pending(&self) -> impl Iterator<Item = &TransactionRequest<G>> {
        self.pending.values()
    }

    /// Settled transactions in the order they settled (each as its first requester saw it).
    pub fn settled(&self) -> &[TransactionRequest<G>] {
        &self.settled
    }

    /// Whether transaction `id` was refused.
    pub fn is_refused(&self, id: &TransactionId) -> bool {
        self.refused.contains(id)
    }
}
