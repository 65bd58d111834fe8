//! The TAC controller: the authoritative holdings of every agent, and settlement of a transaction once both
//! parties have sent their own, matching, requests for it.

use super::message::{Address, DialogueReference};
use super::transaction::{Holdings, Tick, TransactionId, TransactionRequest};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Display, Formatter};

/// Why the controller refused a transaction request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// The sender or the counterparty is not a registered agent.
    UnknownAgent(Address),
    /// The request names a sender other than the agent that sent it.
    Forged {
        /// Who really sent it.
        origin: Address,
    },
    /// Neither party opened the dialogue the request names: a transaction is negotiated between a dialogue's
    /// two parties.
    NotInDialogue,
    /// The sender names itself as the counterparty.
    SelfTrade,
    /// The request's fee is not the game's.
    WrongFee {
        /// The fee every transaction pays.
        fee: u64,
    },
    /// The sender already requested this transaction, and it still waits for the counterparty.
    Duplicate,
    /// The transaction was settled already; settling it twice would spend twice.
    AlreadySettled,
    /// The negotiation's transaction was refused already.
    AlreadyRefused,
    /// The two parties' requests differ: the transaction is off.
    Mismatch,
    /// This party cannot cover the transaction with its holdings.
    Infeasible(Address),
    /// The counterparty did not send its request in time.
    Expired,
}

impl Refusal {
    /// Whether the refusal ends the transaction for the agent it is sent to (it unlocks it), as opposed to
    /// rejecting one stray request while the transaction stands (a duplicate, a request for one already
    /// settled, or one that names another agent as its sender).
    pub const fn ends_transaction(&self) -> bool {
        !matches!(
            self,
            Self::Duplicate | Self::AlreadySettled | Self::Forged { .. }
        )
    }
}

impl Display for Refusal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownAgent(a) => write!(f, "`{a}` is not a registered agent"),
            Self::Forged { origin } => {
                write!(f, "`{origin}` sent a request in another agent's name")
            }
            Self::NotInDialogue => {
                f.write_str("neither party opened the dialogue the request names")
            }
            Self::SelfTrade => f.write_str("an agent cannot trade with itself"),
            Self::WrongFee { fee } => write!(f, "the transaction fee is {fee}"),
            Self::Duplicate => f.write_str("the request was already sent"),
            Self::AlreadySettled => f.write_str("the transaction is already settled"),
            Self::AlreadyRefused => f.write_str("the transaction was already refused"),
            Self::Mismatch => f.write_str("the parties' requests do not match"),
            Self::Infeasible(a) => write!(f, "`{a}` cannot cover the transaction"),
            Self::Expired => f.write_str("the counterparty's request did not come in time"),
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
        /// The transaction, as the addressee's request (or its counterparty's) names it.
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

/// One negotiation as the controller keys it: the dialogue and its two parties, in address order. Only the two
/// parties can send requests for it, so no third agent can take its place.
type Slot = (DialogueReference, Address, Address);

fn slot<G: Ord>(r: &TransactionRequest<G>) -> Slot {
    let (a, b) = if r.sender <= r.counterparty {
        (&r.sender, &r.counterparty)
    } else {
        (&r.counterparty, &r.sender)
    };
    (r.dialogue.clone(), a.clone(), b.clone())
}

/// A first request, waiting for its counterparty's since tick `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Held<G: Ord> {
    request: TransactionRequest<G>,
    at: Tick,
}

/// Notices to deliver, each with its addressee.
pub type Notices = Vec<(Address, Notice)>;

/// The controller of a TAC game.
///
/// A transaction settles only when both of its parties have sent a request for it, each built by that party
/// from its own ledger, and the two match ([`TransactionRequest::matches`]); the controller then checks
/// both can cover it against its own, authoritative, holdings, updates them, collects the fee from the buyer
/// and confirms it to both. A mismatch, a transaction a party cannot cover, or a first request whose
/// counterparty's does not come within the timeout, is refused to both parties, and the negotiation is off for
/// good. A stray request (a duplicate, from an unknown agent, for a settled or refused transaction) is refused
/// to its sender alone and changes nothing.
///
/// Who sent a request is what the transport says (`origin`), not what the request claims: a request whose
/// sender is not its origin is refused to the origin. Requests are keyed by their dialogue and their two
/// parties, one of which opened the dialogue, and transactions by their ids, digests of their terms: a third
/// agent can neither settle a trade in two others' names nor take the place of one's request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller<G: Ord> {
    holdings: BTreeMap<Address, Holdings<G>>,
    fee: u64,
    collected: u64,
    timeout: Option<Tick>,
    now: Tick,
    pending: BTreeMap<Slot, Held<G>>,
    /// Negotiations settled or refused: nothing more is settled in them.
    closed: BTreeSet<Slot>,
    settled: Vec<TransactionRequest<G>>,
    settled_ids: BTreeSet<TransactionId>,
    refused: BTreeSet<TransactionId>,
}

impl<G: Ord + Clone + AsRef<str>> Controller<G> {
    /// A controller for agents with these initial holdings: no fee, and first requests wait for ever.
    pub fn new(agents: impl IntoIterator<Item = (Address, Holdings<G>)>) -> Self {
        Self {
            holdings: agents.into_iter().collect(),
            fee: 0,
            collected: 0,
            timeout: None,
            now: 0,
            pending: BTreeMap::new(),
            closed: BTreeSet::new(),
            settled: Vec::new(),
            settled_ids: BTreeSet::new(),
            refused: BTreeSet::new(),
        }
    }

    /// The same controller, charging the buyer of every transaction `fee` (TAC's `tx_fee`).
    pub fn with_fee(mut self, fee: u64) -> Self {
        self.fee = fee;
        self
    }

    /// The same controller, refusing a first request to both parties once its counterparty's has not come for
    /// `timeout` ticks ([`Controller::advance`]).
    pub fn with_timeout(mut self, timeout: Tick) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The fee every transaction pays.
    pub fn fee(&self) -> u64 {
        self.fee
    }

    /// The fees collected so far.
    pub fn fees_collected(&self) -> u64 {
        self.collected
    }

    /// The controller's clock: the last tick it was advanced to.
    pub fn now(&self) -> Tick {
        self.now
    }

    /// Moves the clock to `now` (never back) and refuses, to both parties, every first request whose
    /// counterparty's has not come within the timeout. Returns the notices to deliver.
    pub fn advance(&mut self, now: Tick) -> Notices {
        self.now = self.now.max(now);
        let Some(timeout) = self.timeout else {
            return Vec::new();
        };
        let expired: Vec<Slot> = self
            .pending
            .iter()
            .filter(|(_, held)| self.now.saturating_sub(held.at) >= timeout)
            .map(|(s, _)| s.clone())
            .collect();
        let mut notices = Vec::new();
        for s in expired {
            if let Some(held) = self.pending.remove(&s) {
                let r = &held.request;
                let (id, parties) = (r.id(), [&r.sender, &r.counterparty]);
                notices.extend(self.refuse(&s, &id, parties, Refusal::Expired));
            }
        }
        notices
    }

    /// Handles `request`, sent by `origin`, and returns the notices to deliver, each with its addressee: none
    /// while the request waits for its counterparty's.
    pub fn request(&mut self, origin: &Address, request: TransactionRequest<G>) -> Notices {
        let id = request.id();
        let to_origin = |reason| vec![(origin.clone(), Notice::Refused { id, reason })];
        if !self.holdings.contains_key(origin) {
            return to_origin(Refusal::UnknownAgent(origin.clone()));
        }
        if request.sender != *origin {
            let origin = origin.clone();
            return to_origin(Refusal::Forged { origin });
        }
        if !self.holdings.contains_key(&request.counterparty) {
            return to_origin(Refusal::UnknownAgent(request.counterparty.clone()));
        }
        if request.sender == request.counterparty {
            return to_origin(Refusal::SelfTrade);
        }
        let initiator = &request.dialogue.initiator;
        if *initiator != request.sender && *initiator != request.counterparty {
            return to_origin(Refusal::NotInDialogue);
        }
        if request.fee != self.fee {
            return to_origin(Refusal::WrongFee { fee: self.fee });
        }
        let s = slot(&request);
        if self.closed.contains(&s) {
            return to_origin(if self.settled_ids.contains(&id) {
                Refusal::AlreadySettled
            } else {
                Refusal::AlreadyRefused
            });
        }
        match self.pending.get(&s) {
            None => self.hold(s, id, request),
            Some(first) if first.request.sender == request.sender => to_origin(Refusal::Duplicate),
            Some(_) => self.settle(s, id, request),
        }
    }

    /// The first request of a negotiation: held if both parties can cover it now, refused to both otherwise.
    fn hold(&mut self, s: Slot, id: TransactionId, request: TransactionRequest<G>) -> Notices {
        match self.infeasible(&request) {
            Some(reason) => {
                let parties = [&request.sender, &request.counterparty];
                self.refuse(&s, &id, parties, reason)
            }
            None => {
                let at = self.now;
                self.pending.insert(s, Held { request, at });
                Vec::new()
            }
        }
    }

    /// The counterparty's request: settles the negotiation's transaction if the two match and both parties
    /// can cover it, and refuses it to both otherwise; either way the negotiation is closed.
    fn settle(&mut self, s: Slot, id: TransactionId, request: TransactionRequest<G>) -> Notices {
        let Some(Held { request: first, .. }) = self.pending.remove(&s) else {
            return Vec::new();
        };
        let parties = [&first.sender, &request.sender];
        if !first.matches(&request) {
            // Each party is told about its own request: the two name different transactions.
            let mut notices = self.refuse(&s, &first.id(), [&first.sender], Refusal::Mismatch);
            notices.extend(self.refuse(&s, &id, [&request.sender], Refusal::Mismatch));
            return notices;
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
            return self.refuse(&s, &id, parties, reason);
        };
        self.holdings.insert(first.sender.clone(), a);
        self.holdings.insert(request.sender.clone(), b);
        self.collected = self.collected.saturating_add(first.fee);
        self.settled_ids.insert(id);
        self.closed.insert(s);
        let notices = vec![
            (first.sender.clone(), Notice::Confirmed(id)),
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

    /// Refuses transaction `id` to `parties` and closes negotiation `s`: nothing more settles in it.
    fn refuse<'p>(
        &mut self,
        s: &Slot,
        id: &TransactionId,
        parties: impl IntoIterator<Item = &'p Address>,
        reason: Refusal,
    ) -> Notices {
        self.refused.insert(*id);
        self.closed.insert(s.clone());
        parties
            .into_iter()
            .map(|party| {
                let notice = Notice::Refused {
                    id: *id,
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

    /// Requests waiting for their counterparty's, in negotiation order (dialogue, then parties).
    pub fn pending(&self) -> impl Iterator<Item = &TransactionRequest<G>> {
        self.pending.values().map(|h| &h.request)
    }

    /// Settled transactions in the order they settled (each as its first requester saw it).
    pub fn settled(&self) -> &[TransactionRequest<G>] {
        &self.settled
    }

    /// Whether transaction `id` was settled.
    pub fn is_settled(&self, id: &TransactionId) -> bool {
        self.settled_ids.contains(id)
    }

    /// Whether transaction `id` was refused.
    pub fn is_refused(&self, id: &TransactionId) -> bool {
        self.refused.contains(id)
    }
}
