//! An agent's ledger, after TAC's transaction manager: the stores of pending proposals, pending initial
//! acceptances and locked transactions, each entry stamped with when it was made so that stale ones expire.

use super::message::{DialogueReference, MessageId};
use super::transaction::{Holdings, Tick, TransactionId, TransactionRequest};
use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// Which of an [`AgentLedger`]'s stores an operation used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LedgerStore {
    /// Transactions the agent committed to and awaits the counterparty's or the controller's answer on.
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

/// Why an [`AgentLedger`] operation failed: the two parties' views of a dialogue diverged, or an entry it
/// names expired.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LedgerError {
    /// Adding a key the store already holds.
    Duplicate {
        /// The store.
        store: LedgerStore,
        /// The key, as text.
        key: String,
    },
    /// Popping a key the store does not hold.
    Unknown {
        /// The store.
        store: LedgerStore,
        /// The key, as text.
        key: String,
    },
}

impl Display for LedgerError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Duplicate { store, key } => write!(f, "`{key}` is already in {}", store.name()),
            Self::Unknown { store, key } => write!(f, "`{key}` is not in {}", store.name()),
        }
    }
}

impl Error for LedgerError {}

/// A proposal or acceptance, keyed as TAC keys them: by dialogue and message id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct MessageKey(DialogueReference, MessageId);

impl Display for MessageKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.0, self.1)
    }
}

/// An entry of a store: the transaction, when it was made, and (for a lock) whether its settlement was
/// requested from the controller.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry<G: Ord> {
    tx: TransactionRequest<G>,
    at: Tick,
    requested: bool,
}

/// An entry [`AgentLedger::expire`] removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expired<G: Ord> {
    /// The store it was in.
    pub store: LedgerStore,
    /// The transaction.
    pub tx: TransactionRequest<G>,
    /// When it was made.
    pub at: Tick,
}

fn add<K: Ord + Display, G: Ord>(
    map: &mut BTreeMap<K, Entry<G>>,
    store: LedgerStore,
    key: K,
    tx: TransactionRequest<G>,
    at: Tick,
) -> Result<(), LedgerError> {
    if map.contains_key(&key) {
        return Err(LedgerError::Duplicate {
            store,
            key: key.to_string(),
        });
    }
    let requested = false;
    map.insert(key, Entry { tx, at, requested });
    Ok(())
}

fn pop<K: Ord + Display, G: Ord>(
    map: &mut BTreeMap<K, Entry<G>>,
    store: LedgerStore,
    key: &K,
) -> Result<TransactionRequest<G>, LedgerError> {
    map.remove(key)
        .map(|e| e.tx)
        .ok_or_else(|| LedgerError::Unknown {
            store,
            key: key.to_string(),
        })
}

/// Removes the entries of `map` made `timeout` ticks or more before `now` (but locks whose settlement was
/// requested: the controller answers those), adding them to `out`.
fn expire_from<K: Ord, G: Ord>(
    map: &mut BTreeMap<K, Entry<G>>,
    store: LedgerStore,
    now: Tick,
    timeout: Tick,
    out: &mut Vec<Expired<G>>,
) {
    let stale = |e: &Entry<G>| !e.requested && now.saturating_sub(e.at) >= timeout;
    let (gone, kept): (BTreeMap<K, Entry<G>>, BTreeMap<K, Entry<G>>) =
        std::mem::take(map).into_iter().partition(|(_, e)| stale(e));
    *map = kept;
    out.extend(gone.into_values().map(|e| Expired {
        store,
        tx: e.tx,
        at: e.at,
    }));
}

/// One agent's negotiation state (TAC's transaction manager): pending proposals and pending initial
/// acceptances by dialogue and message id, and locked transactions by transaction id (at most one per
/// dialogue, which settles at most one transaction).
///
/// Adding a key twice or popping one that is absent is an error, never an overwrite or a panic: either
/// means the parties' views of a dialogue diverged, which the agent must hear about.
///
/// Entries are stamped with the tick they were made at. With a timeout ([`AgentLedger::with_timeout`]),
/// [`AgentLedger::expire`] removes those a counterparty left unanswered for that long, as TAC's agents clean up
/// pending transactions: a lock no longer holds the agent's goods or money for ever. A lock whose settlement the
/// agent requested ([`AgentLedger::mark_requested`]) is the controller's to answer, and stays until it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentLedger<G: Ord> {
    proposals: BTreeMap<MessageKey, Entry<G>>,
    initial_acceptances: BTreeMap<MessageKey, Entry<G>>,
    locked: BTreeMap<TransactionId, Entry<G>>,
    /// The lock of each dialogue that has one.
    locked_in: BTreeMap<DialogueReference, TransactionId>,
    timeout: Option<Tick>,
}

impl<G: Ord + Clone + AsRef<str>> AgentLedger<G> {
    /// An empty ledger whose entries never expire.
    pub const fn new() -> Self {
        Self {
            proposals: BTreeMap::new(),
            initial_acceptances: BTreeMap::new(),
            locked: BTreeMap::new(),
            locked_in: BTreeMap::new(),
            timeout: None,
        }
    }

    /// The same ledger, whose entries expire `timeout` ticks after they were made.
    pub fn with_timeout(mut self, timeout: Tick) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long an entry lasts unanswered, if entries expire.
    pub fn timeout(&self) -> Option<Tick> {
        self.timeout
    }

    /// Stores the proposal sent as message `id` of `dialogue` at tick `at`, until the counterparty answers it.
    pub fn add_pending_proposal(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
        tx: TransactionRequest<G>,
        at: Tick,
    ) -> Result<(), LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        add(&mut self.proposals, LedgerStore::Proposals, key, tx, at)
    }

    /// Removes and returns the proposal sent as message `id` of `dialogue` (what an accept or decline
    /// targets).
    pub fn pop_pending_proposal(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        pop(&mut self.proposals, LedgerStore::Proposals, &key)
    }

    /// The proposal sent as message `id` of `dialogue`, if it is pending.
    pub fn pending_proposal(
        &self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Option<&TransactionRequest<G>> {
        let key = MessageKey(dialogue.clone(), id);
        self.proposals.get(&key).map(|e| &e.tx)
    }

    /// Records the initial accept sent as message `id` of `dialogue` at tick `at`, so the answer to it is
    /// known to be the matching accept.
    pub fn add_pending_initial_acceptance(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
        tx: TransactionRequest<G>,
        at: Tick,
    ) -> Result<(), LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        let store = LedgerStore::InitialAcceptances;
        add(&mut self.initial_acceptances, store, key, tx, at)
    }

    /// Removes and returns the initial accept sent as message `id` of `dialogue` (what a matching accept or
    /// a decline targets).
    pub fn pop_pending_initial_acceptance(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        let store = LedgerStore::InitialAcceptances;
        pop(&mut self.initial_acceptances, store, &key)
    }

    /// The initial accept sent as message `id` of `dialogue`, if it is pending.
    pub fn pending_initial_acceptance(
        &self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Option<&TransactionRequest<G>> {
        let key = MessageKey(dialogue.clone(), id);
        self.initial_acceptances.get(&key).map(|e| &e.tx)
    }

    /// Locks `tx` at tick `at`: the agent has committed to it, and counts it in its forward-looking state
    /// until the counterparty or the controller answers. A dialogue has at most one lock.
    pub fn add_locked_tx(
        &mut self,
        tx: TransactionRequest<G>,
        at: Tick,
    ) -> Result<(), LedgerError> {
        if self.locked_in.contains_key(&tx.dialogue) {
            return Err(LedgerError::Duplicate {
                store: LedgerStore::Locked,
                key: tx.dialogue.to_string(),
            });
        }
        let id = tx.id();
        let dialogue = tx.dialogue.clone();
        add(&mut self.locked, LedgerStore::Locked, id, tx, at)?;
        self.locked_in.insert(dialogue, id);
        Ok(())
    }

    /// Unlocks and returns transaction `id` (on the controller's confirmation or refusal).
    pub fn pop_locked_tx(
        &mut self,
        id: &TransactionId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        let tx = pop(&mut self.locked, LedgerStore::Locked, id)?;
        self.locked_in.remove(&tx.dialogue);
        Ok(tx)
    }

    /// Unlocks and returns the transaction locked in `dialogue` (on a decline).
    pub fn pop_locked_in(
        &mut self,
        dialogue: &DialogueReference,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        match self.locked_in.get(dialogue).copied() {
            Some(id) => self.pop_locked_tx(&id),
            None => Err(LedgerError::Unknown {
                store: LedgerStore::Locked,
                key: dialogue.to_string(),
            }),
        }
    }

    /// Records that the agent asked the controller to settle locked transaction `id`: from now on only the
    /// controller's answer releases it. Returns the transaction, to send as the request.
    pub fn mark_requested(
        &mut self,
        id: &TransactionId,
    ) -> Result<&TransactionRequest<G>, LedgerError> {
        match self.locked.get_mut(id) {
            Some(e) => {
                e.requested = true;
                Ok(&e.tx)
            }
            None => Err(LedgerError::Unknown {
                store: LedgerStore::Locked,
                key: id.to_string(),
            }),
        }
    }

    /// The locked transaction `id`, if any.
    pub fn locked_tx(&self, id: &TransactionId) -> Option<&TransactionRequest<G>> {
        self.locked.get(id).map(|e| &e.tx)
    }

    /// The transaction locked in `dialogue`, if any.
    pub fn locked_in(&self, dialogue: &DialogueReference) -> Option<&TransactionRequest<G>> {
        self.locked_in
            .get(dialogue)
            .and_then(|id| self.locked_tx(id))
    }

    /// The locked transactions, in id order.
    pub fn locked_txs(&self) -> impl Iterator<Item = &TransactionRequest<G>> {
        self.locked.values().map(|e| &e.tx)
    }

    /// The pending proposals: (dialogue, message id, transaction).
    pub fn pending_proposals(
        &self,
    ) -> impl Iterator<Item = (&DialogueReference, MessageId, &TransactionRequest<G>)> {
        self.proposals
            .iter()
            .map(|(MessageKey(d, id), e)| (d, *id, &e.tx))
    }

    /// The pending initial acceptances: (dialogue, message id, transaction).
    pub fn pending_initial_acceptances(
        &self,
    ) -> impl Iterator<Item = (&DialogueReference, MessageId, &TransactionRequest<G>)> {
        self.initial_acceptances
            .iter()
            .map(|(MessageKey(d, id), e)| (d, *id, &e.tx))
    }

    /// Whether every store is empty.
    pub fn is_empty(&self) -> bool {
        self.proposals.is_empty() && self.initial_acceptances.is_empty() && self.locked.is_empty()
    }

    /// Removes every entry made `timeout` ticks or more before `now` and left unanswered (every store; a lock
    /// only if its settlement was not requested), and returns them, oldest store first: proposals, initial
    /// acceptances, locks. Nothing expires in a ledger without a timeout.
    pub fn expire(&mut self, now: Tick) -> Vec<Expired<G>> {
        let Some(timeout) = self.timeout else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let stores = [LedgerStore::Proposals, LedgerStore::InitialAcceptances];
        for (map, store) in [&mut self.proposals, &mut self.initial_acceptances]
            .into_iter()
            .zip(stores)
        {
            expire_from(map, store, now, timeout, &mut out);
        }
        let before = out.len();
        expire_from(
            &mut self.locked,
            LedgerStore::Locked,
            now,
            timeout,
            &mut out,
        );
        for e in out.get(before..).unwrap_or_default() {
            self.locked_in.remove(&e.tx.dialogue);
        }
        out
    }

    /// The forward-looking state (TAC's): `holdings` with every locked transaction applied, as if the
    /// controller had settled them all; `None` if the locks together overcommit the holdings.
    pub fn forward_state(&self, holdings: &Holdings<G>) -> Option<Holdings<G>> {
        self.locked
            .values()
            .try_fold(holdings.clone(), |h, e| h.apply(&e.tx))
    }
}

impl<G: Ord + Clone + AsRef<str>> Default for AgentLedger<G> {
    fn default() -> Self {
        Self::new()
    }
}
