//! Negotiation support (seeds 002, 003): the transaction controller and an agent's ledger.
//!
//! The protocol itself (performatives, roles, the reply relation) is generated per spec; what is
//! the same for every negotiation lives here. Both types are generic over the transaction type
//! `Tx` and the agent or id type, so they fit whatever the spec's contents are.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// The controller's answer to an accepted transaction request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ControllerReply<Tx, A> {
    /// The first of the two requests: held until the counterparty sends a matching one.
    Pending,
    /// Both parties sent the same transaction: it is confirmed and settled.
    Confirmed {
        /// The transaction.
        tx: Tx,
        /// The agent that requested first, then the one whose request matched it.
        parties: [A; 2],
    },
}

/// Why the controller rejected a transaction request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControllerError {
    /// The same agent already requested this transaction and it is still pending.
    DuplicateRequest,
    /// This transaction was already confirmed; settling it twice would spend twice.
    AlreadyConfirmed,
}

impl Display for ControllerError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::DuplicateRequest => "the agent already requested this transaction",
            Self::AlreadyConfirmed => "the transaction is already confirmed",
        })
    }
}

impl Error for ControllerError {}

/// Confirms a transaction once both parties have requested it.
///
/// Two requests match when their transactions are equal, so `Tx` must carry everything both
/// sides must agree on, including a unique transaction id (otherwise two identical trades would
/// look like a replay). A request with no match, including one that differs from the
/// counterparty's in any field, stays pending.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransactionController<Tx: Ord, A> {
    pending: BTreeMap<Tx, A>,
    confirmed: BTreeMap<Tx, [A; 2]>,
}

impl<Tx: Ord + Clone, A: Ord + Clone> TransactionController<Tx, A> {
    /// A controller with nothing pending or confirmed.
    pub const fn new() -> Self {
        Self {
            pending: BTreeMap::new(),
            confirmed: BTreeMap::new(),
        }
    }

    /// Handles `agent`'s request to settle `tx`.
    pub fn request(&mut self, agent: A, tx: Tx) -> Result<ControllerReply<Tx, A>, ControllerError> {
        if self.confirmed.contains_key(&tx) {
            return Err(ControllerError::AlreadyConfirmed);
        }
        match self.pending.entry(tx) {
            Entry::Vacant(slot) => {
                slot.insert(agent);
                Ok(ControllerReply::Pending)
            }
            Entry::Occupied(slot) if *slot.get() == agent => Err(ControllerError::DuplicateRequest),
            Entry::Occupied(slot) => {
                let (tx, first) = slot.remove_entry();
                let parties = [first, agent];
                self.confirmed.insert(tx.clone(), parties.clone());
                Ok(ControllerReply::Confirmed { tx, parties })
            }
        }
    }

    /// Transactions waiting for their counterparty, with the agent that requested each.
    pub fn pending(&self) -> impl Iterator<Item = (&Tx, &A)> {
        self.pending.iter()
    }

    /// The parties of `tx` if it was confirmed.
    pub fn confirmed(&self, tx: &Tx) -> Option<&[A; 2]> {
        self.confirmed.get(tx)
    }
}

impl<Tx: Ord + Clone, A: Ord + Clone> Default for TransactionController<Tx, A> {
    fn default() -> Self {
        Self::new()
    }
}

/// Which of an [`AgentLedger`]'s stores an id was looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LedgerStore {
    /// Transactions the agent committed to and awaits confirmation of.
    Locked,
    /// Proposals the agent sent and awaits an answer to.
    Proposals,
    /// Acceptances the agent sent first and awaits the matching accept for.
    InitialAcceptances,
}

impl LedgerStore {
    /// The store's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Locked => "locked transactions",
            Self::Proposals => "pending proposals",
            Self::InitialAcceptances => "pending initial acceptances",
        }
    }
}

/// Why an [`AgentLedger`] operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LedgerError<K> {
    /// Adding an id that the store already holds.
    DuplicateId {
        /// The store.
        store: LedgerStore,
        /// The id.
        id: K,
    },
    /// Popping an id that the store does not hold.
    UnknownId {
        /// The store.
        store: LedgerStore,
        /// The id.
        id: K,
    },
}

impl<K: Display> Display for LedgerError<K> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateId { store, id } => {
                write!(f, "id `{id}` is already in {}", store.name())
            }
            Self::UnknownId { store, id } => write!(f, "id `{id}` is not in {}", store.name()),
        }
    }
}

impl<K: Display + fmt::Debug> Error for LedgerError<K> {}

/// One agent's negotiation state: locked transactions, pending proposals and pending initial
/// acceptances, each keyed by an id of type `K` (a `u64` unless the spec says otherwise).
///
/// Adding an id twice or popping one that is absent is an error, never a silent overwrite or a
/// panic: either means the two agents' views of the dialogue diverged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AgentLedger<Tx, K: Ord = u64> {
    locked: BTreeMap<K, Tx>,
    proposals: BTreeMap<K, Tx>,
    initial_acceptances: BTreeMap<K, Tx>,
}

impl<Tx, K: Ord + Clone> AgentLedger<Tx, K> {
    /// An empty ledger.
    pub const fn new() -> Self {
        Self {
            locked: BTreeMap::new(),
            proposals: BTreeMap::new(),
            initial_acceptances: BTreeMap::new(),
        }
    }

    fn store_mut(&mut self, store: LedgerStore) -> &mut BTreeMap<K, Tx> {
        match store {
            LedgerStore::Locked => &mut self.locked,
            LedgerStore::Proposals => &mut self.proposals,
            LedgerStore::InitialAcceptances => &mut self.initial_acceptances,
        }
    }

    fn add(&mut self, store: LedgerStore, id: K, tx: Tx) -> Result<(), LedgerError<K>> {
        let map = self.store_mut(store);
        if map.contains_key(&id) {
            return Err(LedgerError::DuplicateId { store, id });
        }
        map.insert(id, tx);
        Ok(())
    }

    fn pop(&mut self, store: LedgerStore, id: &K) -> Result<Tx, LedgerError<K>> {
        self.store_mut(store)
            .remove(id)
            .ok_or_else(|| LedgerError::UnknownId {
                store,
                id: id.clone(),
            })
    }

    /// Locks `tx`: the agent has committed to it and awaits the controller's confirmation.
    pub fn add_locked_tx(&mut self, id: K, tx: Tx) -> Result<(), LedgerError<K>> {
        self.add(LedgerStore::Locked, id, tx)
    }

    /// Unlocks and returns the transaction `id` (on confirmation or cancellation).
    pub fn pop_locked_tx(&mut self, id: &K) -> Result<Tx, LedgerError<K>> {
        self.pop(LedgerStore::Locked, id)
    }

    /// Stores a proposal the agent sent, to recover it when the counterparty accepts.
    pub fn store_proposal(&mut self, id: K, tx: Tx) -> Result<(), LedgerError<K>> {
        self.add(LedgerStore::Proposals, id, tx)
    }

    /// Removes and returns the proposal `id`, which an acceptance refers to.
    pub fn pop_pending_proposal(&mut self, id: &K) -> Result<Tx, LedgerError<K>> {
        self.pop(LedgerStore::Proposals, id)
    }

    /// Records that the agent sent the first accept for `id`, so a later accept for it is known
    /// to be the matching accept rather than a new initial one.
    pub fn add_pending_initial_acceptance(&mut self, id: K, tx: Tx) -> Result<(), LedgerError<K>> {
        self.add(LedgerStore::InitialAcceptances, id, tx)
    }

    /// Removes and returns the initial acceptance `id`, on receiving its matching accept.
    pub fn pop_pending_initial_acceptance(&mut self, id: &K) -> Result<Tx, LedgerError<K>> {
        self.pop(LedgerStore::InitialAcceptances, id)
    }

    /// Whether `id` is in `store`; e.g. tells a matching accept from an initial one.
    pub fn contains(&self, store: LedgerStore, id: &K) -> bool {
        match store {
            LedgerStore::Locked => self.locked.contains_key(id),
            LedgerStore::Proposals => self.proposals.contains_key(id),
            LedgerStore::InitialAcceptances => self.initial_acceptances.contains_key(id),
        }
    }

    /// The locked transactions in id order: what the agent's holdings are committed to.
    pub fn locked_txs(&self) -> impl Iterator<Item = (&K, &Tx)> {
        self.locked.iter()
    }
}

impl<Tx, K: Ord + Clone> Default for AgentLedger<Tx, K> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
    struct Tx {
        id: u64,
        price: u32,
    }

    #[test]
    fn controller_confirms_matching_requests_once() {
        let mut c = TransactionController::new();
        let tx = Tx { id: 1, price: 10 };
        assert_eq!(
            c.request("seller", tx.clone()),
            Ok(ControllerReply::Pending)
        );
        assert_eq!(
            c.request("seller", tx.clone()),
            Err(ControllerError::DuplicateRequest)
        );
        assert_eq!(
            c.request("buyer", tx.clone()),
            Ok(ControllerReply::Confirmed {
                tx: tx.clone(),
                parties: ["seller", "buyer"]
            })
        );
        assert_eq!(c.confirmed(&tx), Some(&["seller", "buyer"]));
        assert_eq!(c.pending().count(), 0);
        assert_eq!(
            c.request("buyer", tx),
            Err(ControllerError::AlreadyConfirmed)
        );
    }

    #[test]
    fn controller_keeps_mismatch_pending() {
        let mut c = TransactionController::new();
        c.request("seller", Tx { id: 1, price: 10 }).unwrap();
        let reply = c.request("buyer", Tx { id: 1, price: 9 }).unwrap();
        assert_eq!(reply, ControllerReply::Pending);
        let pending: Vec<_> = c.pending().map(|(tx, a)| (tx.price, *a)).collect();
        assert_eq!(pending, [(9, "buyer"), (10, "seller")]);
    }

    #[test]
    fn ledger_round_trip() {
        let mut l: AgentLedger<&str> = AgentLedger::new();
        l.store_proposal(7, "offer").unwrap();
        assert!(l.contains(LedgerStore::Proposals, &7));
        assert_eq!(l.pop_pending_proposal(&7), Ok("offer"));
        l.add_locked_tx(7, "offer").unwrap();
        l.add_pending_initial_acceptance(7, "offer").unwrap();
        assert_eq!(l.locked_txs().collect::<Vec<_>>(), [(&7, &"offer")]);
        assert_eq!(l.pop_pending_initial_acceptance(&7), Ok("offer"));
        assert_eq!(l.pop_locked_tx(&7), Ok("offer"));
        assert!(!l.contains(LedgerStore::Locked, &7));
    }

    #[test]
    fn ledger_errors_instead_of_panics() {
        let mut l: AgentLedger<u8, String> = AgentLedger::default();
        l.add_locked_tx("a".into(), 1).unwrap();
        let dup = l.add_locked_tx("a".into(), 2).unwrap_err();
        assert_eq!(dup.to_string(), "id `a` is already in locked transactions");
        assert_eq!(l.pop_locked_tx(&"a".into()), Ok(1), "the original was kept");
        let missing = l.pop_pending_proposal(&"b".into()).unwrap_err();
        assert_eq!(
            missing,
            LedgerError::UnknownId {
                store: LedgerStore::Proposals,
                id: "b".into()
            }
        );
        assert_eq!(missing.to_string(), "id `b` is not in pending proposals");
        assert!(l.pop_pending_initial_acceptance(&"a".into()).is_err());
    }
}
