//! Transactions and an agent's ledger, after TAC's transaction manager: holdings, the transaction requests
//! agents send the controller, and the stores of pending proposals, pending initial acceptances and locked
//! transactions.

use super::message::{Address, DialogueReference, MessageId};
use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// Names one transaction for both parties and the controller: the dialogue it was negotiated in. A dialogue
/// ends with at most one transaction, so each party derives the id from its own copy of the dialogue (as TAC
/// derives it from the dialogue label); it never travels as contents a counterparty could get wrong.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransactionId(pub DialogueReference);

impl Display for TransactionId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A transaction as one party sees it, and the request it sends the controller to settle it: TAC's
/// `Transaction` (id, sender, counterparty, whether the sender buys, amount, quantities by good).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransactionRequest<G: Ord> {
    /// The transaction.
    pub id: TransactionId,
    /// The party this is the view of, which sends the request.
    pub sender: Address,
    /// The other party.
    pub counterparty: Address,
    /// Whether the sender buys (pays `amount` and receives the goods) or sells.
    pub is_sender_buyer: bool,
    /// The money the buyer pays the seller.
    pub amount: u64,
    /// The goods the seller hands the buyer, by good.
    pub quantities: BTreeMap<G, u64>,
}

impl<G: Ord + Clone> TransactionRequest<G> {
    /// Whether `other` is the counterparty's request for the same transaction, as TAC's controller decides:
    /// same id, senders and counterparties swapped, one buyer and one seller, same amount and quantities.
    pub fn matches(&self, other: &Self) -> bool {
        self.id == other.id
            && self.sender == other.counterparty
            && self.counterparty == other.sender
            && self.is_sender_buyer != other.is_sender_buyer
            && self.amount == other.amount
            && self.quantities == other.quantities
    }

    /// The same transaction as the counterparty sees it.
    pub fn mirror(&self) -> Self {
        Self {
            id: self.id.clone(),
            sender: self.counterparty.clone(),
            counterparty: self.sender.clone(),
            is_sender_buyer: !self.is_sender_buyer,
            amount: self.amount,
            quantities: self.quantities.clone(),
        }
    }
}

impl<G: Ord + Display> Display for TransactionRequest<G> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (verb, dir) = if self.is_sender_buyer {
            ("buys", "from")
        } else {
            ("sells", "to")
        };
        write!(f, "{} {verb} ", self.sender)?;
        for (i, (good, n)) in self.quantities.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} {good}")?;
        }
        write!(f, " {dir} {} for {}", self.counterparty, self.amount)
    }
}

/// An agent's money and goods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Holdings<G: Ord> {
    /// Money.
    pub money: u64,
    /// Quantity held of each good.
    pub goods: BTreeMap<G, u64>,
}

impl<G: Ord + Clone> Holdings<G> {
    /// Holdings of `money` and `goods`.
    pub fn new(money: u64, goods: impl IntoIterator<Item = (G, u64)>) -> Self {
        Self {
            money,
            goods: goods.into_iter().collect(),
        }
    }

    /// The quantity held of `good`.
    pub fn quantity(&self, good: &G) -> u64 {
        self.goods.get(good).copied().unwrap_or(0)
    }

    /// These holdings after `tx` settles, for its sender; `None` when they cannot cover it (a buyer short of
    /// money, a seller short of a good) or a total would overflow.
    pub fn apply(&self, tx: &TransactionRequest<G>) -> Option<Self> {
        let mut next = self.clone();
        next.money = if tx.is_sender_buyer {
            self.money.checked_sub(tx.amount)?
        } else {
            self.money.checked_add(tx.amount)?
        };
        for (good, &n) in &tx.quantities {
            let held = self.quantity(good);
            let after = if tx.is_sender_buyer {
                held.checked_add(n)?
            } else {
                held.checked_sub(n)?
            };
            next.goods.insert(good.clone(), after);
        }
        Some(next)
    }
}

/// Which of an [`AgentLedger`]'s stores an operation used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LedgerStore {
    /// Transactions the agent committed to and awaits the controller's answer on.
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

/// Why an [`AgentLedger`] operation failed: the two parties' views of a dialogue diverged.
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

fn add<K: Ord + Display, V>(
    map: &mut BTreeMap<K, V>,
    store: LedgerStore,
    key: K,
    value: V,
) -> Result<(), LedgerError> {
    if map.contains_key(&key) {
        return Err(LedgerError::Duplicate {
            store,
            key: key.to_string(),
        });
    }
    map.insert(key, value);
    Ok(())
}

fn pop<K: Ord + Display, V>(
    map: &mut BTreeMap<K, V>,
    store: LedgerStore,
    key: &K,
) -> Result<V, LedgerError> {
    map.remove(key).ok_or_else(|| LedgerError::Unknown {
        store,
        key: key.to_string(),
    })
}

/// One agent's negotiation state (TAC's transaction manager): pending proposals and pending initial
/// acceptances by dialogue and message id, and locked transactions by transaction id.
///
/// Adding a key twice or popping one that is absent is an error, never an overwrite or a panic: either
/// means the parties' views of a dialogue diverged, which the agent must hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentLedger<G: Ord> {
    proposals: BTreeMap<MessageKey, TransactionRequest<G>>,
    initial_acceptances: BTreeMap<MessageKey, TransactionRequest<G>>,
    locked: BTreeMap<TransactionId, TransactionRequest<G>>,
}

impl<G: Ord + Clone> AgentLedger<G> {
    /// An empty ledger.
    pub const fn new() -> Self {
        Self {
            proposals: BTreeMap::new(),
            initial_acceptances: BTreeMap::new(),
            locked: BTreeMap::new(),
        }
    }

    /// Stores the proposal sent as message `id` of `dialogue`, until the counterparty answers it.
    pub fn add_pending_proposal(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
        tx: TransactionRequest<G>,
    ) -> Result<(), LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        add(&mut self.proposals, LedgerStore::Proposals, key, tx)
    }

    /// Removes and returns the proposal sent as message `id` of `dialogue` (what an accept or decline
    /// targets).
    pub fn pop_pending_proposal(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        pop(
            &mut self.proposals,
            LedgerStore::Proposals,
            &MessageKey(dialogue.clone(), id),
        )
    }

    /// The proposal sent as message `id` of `dialogue`, if it is pending.
    pub fn pending_proposal(
        &self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Option<&TransactionRequest<G>> {
        self.proposals.get(&MessageKey(dialogue.clone(), id))
    }

    /// Records the initial accept sent as message `id` of `dialogue`, so the answer to it is known to be the
    /// matching accept.
    pub fn add_pending_initial_acceptance(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
        tx: TransactionRequest<G>,
    ) -> Result<(), LedgerError> {
        let key = MessageKey(dialogue.clone(), id);
        add(
            &mut self.initial_acceptances,
            LedgerStore::InitialAcceptances,
            key,
            tx,
        )
    }

    /// Removes and returns the initial accept sent as message `id` of `dialogue` (what a matching accept or
    /// a decline targets).
    pub fn pop_pending_initial_acceptance(
        &mut self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        pop(
            &mut self.initial_acceptances,
            LedgerStore::InitialAcceptances,
            &MessageKey(dialogue.clone(), id),
        )
    }

    /// The initial accept sent as message `id` of `dialogue`, if it is pending.
    pub fn pending_initial_acceptance(
        &self,
        dialogue: &DialogueReference,
        id: MessageId,
    ) -> Option<&TransactionRequest<G>> {
        self.initial_acceptances
            .get(&MessageKey(dialogue.clone(), id))
    }

    /// Locks `tx`: the agent has committed to it, and counts it in its forward-looking state until the
    /// controller answers.
    pub fn add_locked_tx(&mut self, tx: TransactionRequest<G>) -> Result<(), LedgerError> {
        add(&mut self.locked, LedgerStore::Locked, tx.id.clone(), tx)
    }

    /// Unlocks and returns transaction `id` (on the controller's confirmation or refusal, or a decline).
    pub fn pop_locked_tx(
        &mut self,
        id: &TransactionId,
    ) -> Result<TransactionRequest<G>, LedgerError> {
        pop(&mut self.locked, LedgerStore::Locked, id)
    }

    /// The locked transaction `id`, if any.
    pub fn locked_tx(&self, id: &TransactionId) -> Option<&TransactionRequest<G>> {
        self.locked.get(id)
    }

    /// The locked transactions, in id order.
    pub fn locked_txs(&self) -> impl Iterator<Item = &TransactionRequest<G>> {
        self.locked.values()
    }

    /// The pending proposals: (dialogue, message id, transaction).
    pub fn pending_proposals(
        &self,
    ) -> impl Iterator<Item = (&DialogueReference, MessageId, &TransactionRequest<G>)> {
        self.proposals
            .iter()
            .map(|(MessageKey(d, id), tx)| (d, *id, tx))
    }

    /// The pending initial acceptances: (dialogue, message id, transaction).
    pub fn pending_initial_acceptances(
        &self,
    ) -> impl Iterator<Item = (&DialogueReference, MessageId, &TransactionRequest<G>)> {
        self.initial_acceptances
            .iter()
            .map(|(MessageKey(d, id), tx)| (d, *id, tx))
    }

    /// Whether every store is empty.
    pub fn is_empty(&self) -> bool {
        self.proposals.is_empty() && self.initial_acceptances.is_empty() && self.locked.is_empty()
    }

    /// The forward-looking state (TAC's): `holdings` with every locked transaction applied, as if the
    /// controller had settled them all; `None` if the locks together overcommit the holdings.
    pub fn forward_state(&self, holdings: &Holdings<G>) -> Option<Holdings<G>> {
        self.locked
            .values()
            .try_fold(holdings.clone(), |h, tx| h.apply(tx))
    }
}

impl<G: Ord + Clone> Default for AgentLedger<G> {
    fn default() -> Self {
        Self::new()
    }
}
