//! The mempool: transactions waiting for a block, and the ids of those already committed, so a late copy is
//! not ordered twice.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{MAX_BLOCK_BYTES, MAX_BLOCK_TXS};
use crate::types::{Address, SignedTx};

/// The most transactions waiting in the mempool; more are dropped (their senders forward them again).
const MAX_MEMPOOL: usize = 20_000;
/// How many committed transaction ids are remembered to drop late copies.
const COMMITTED_WINDOW: usize = 100_000;

/// What [`Mempool::add`] did with a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Added {
    /// It waits for a block now.
    Taken,
    /// It was pending or committed already.
    Known,
    /// The mempool is full: nothing more is taken.
    Full,
    /// Its sender has as many transactions waiting as one sender may.
    OverQuota,
}

/// Transactions waiting for a block, in arrival order, without duplicates, minus those already committed; at
/// most `per_sender` of one sender, each dropped `ttl` heights after it arrived.
pub(super) struct Mempool {
    /// Each pending transaction with the last committed height when it arrived.
    pending: BTreeMap<u64, (SignedTx, u64)>,
    ids: BTreeMap<[u8; 32], u64>,
    per_sender: BTreeMap<Address, usize>,
    committed: BTreeSet<[u8; 32]>,
    committed_order: VecDeque<[u8; 32]>,
    next: u64,
    height: u64,
    quota: usize,
    ttl: u64,
}

impl Mempool {
    /// An empty mempool taking at most `quota` transactions per sender, each for `ttl` heights.
    pub(super) fn new(quota: usize, ttl: u64) -> Mempool {
        Mempool {
            pending: BTreeMap::new(),
            ids: BTreeMap::new(),
            per_sender: BTreeMap::new(),
            committed: BTreeSet::new(),
            committed_order: VecDeque::new(),
            next: 0,
            height: 0,
            quota,
            ttl,
        }
    }

    /// Adds `tx` unless it is pending or committed already, the mempool is full or its sender's quota is.
    pub(super) fn add(&mut self, tx: SignedTx) -> Added {
        if self.pending.len() >= MAX_MEMPOOL {
            return Added::Full;
        }
        let id = tx.id();
        if self.ids.contains_key(&id) || self.committed.contains(&id) {
            return Added::Known;
        }
        let count = self.per_sender.entry(tx.sender).or_default();
        if *count >= self.quota {
            return Added::OverQuota;
        }
        *count += 1;
        self.next = self.next.wrapping_add(1);
        self.ids.insert(id, self.next);
        self.pending.insert(self.next, (tx, self.height));
        Added::Taken
    }

    /// How many transactions wait.
    pub(super) fn len(&self) -> usize {
        self.pending.len()
    }

    fn remove(&mut self, seq: u64) {
        if let Some((tx, _)) = self.pending.remove(&seq) {
            self.ids.remove(&tx.id());
            if let Some(count) = self.per_sender.get_mut(&tx.sender) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    self.per_sender.remove(&tx.sender);
                }
            }
        }
    }

    /// Height `height` was committed: drops the transactions that have waited `ttl` heights; says how many.
    pub(super) fn expire(&mut self, height: u64) -> usize {
        self.height = height;
        let old: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, (_, since))| height.saturating_sub(*since) >= self.ttl)
            .map(|(&seq, _)| seq)
            .collect();
        for &seq in &old {
            self.remove(seq);
        }
        old.len()
    }

    /// The oldest pending transactions that fit in a block (they stay pending until committed).
    pub(super) fn block(&self) -> Vec<SignedTx> {
        let mut bytes = 0usize;
        self.pending
            .values()
            .map(|(tx, _)| tx)
            .take(MAX_BLOCK_TXS)
            .take_while(|tx| {
                bytes = bytes.saturating_add(tx.data.len());
                bytes <= MAX_BLOCK_BYTES
            })
            .cloned()
            .collect()
    }

    /// Forgets the pending copies of `txs` and remembers them as committed.
    pub(super) fn commit<'a>(&mut self, txs: impl IntoIterator<Item = &'a SignedTx>) {
        for tx in txs {
            let id = tx.id();
            if let Some(&seq) = self.ids.get(&id) {
                self.remove(seq);
            }
            if self.committed.insert(id) {
                self.committed_order.push_back(id);
            }
        }
        while self.committed_order.len() > COMMITTED_WINDOW {
            if let Some(old) = self.committed_order.pop_front() {
                self.committed.remove(&old);
            }
        }
    }

    /// Whether `tx` is pending or was committed.
    pub(super) fn knows(&self, tx: &SignedTx) -> bool {
        let id = tx.id();
        self.ids.contains_key(&id) || self.committed.contains(&id)
    }

    /// Who sent the pending transactions whose data `matches`.
    pub(super) fn senders(&self, matches: impl Fn(&[u8]) -> bool) -> BTreeSet<Address> {
        self.pending
            .values()
            .map(|(tx, _)| tx)
            .filter(|tx| matches(&tx.data))
            .map(|tx| tx.sender)
            .collect()
    }

    /// The pending transactions sent by `who`.
    pub(super) fn from(&self, who: &Address) -> Vec<SignedTx> {
        self.pending
            .values()
            .map(|(tx, _)| tx)
            .filter(|tx| tx.sender == *who)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::PrivateKey;

    fn tx(seed: u8, data: &[u8]) -> SignedTx {
        SignedTx::sign("test", &PrivateKey::from_bytes([seed; 32]), data.to_vec())
    }

    #[test]
    fn the_mempool_keeps_arrival_order_and_drops_copies() {
        let mut pool = Mempool::new(10, 10);
        let (a, b, c) = (tx(1, b"a"), tx(2, b"b"), tx(1, b"c"));
        let added: Vec<Added> = [&a, &b, &a, &c, &b]
            .iter()
            .map(|t| pool.add((*t).clone()))
            .collect();
        use Added::{Known, Taken};
        assert_eq!(added, [Taken, Taken, Known, Taken, Known]);
        assert_eq!(pool.block(), vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(pool.from(&a.sender), vec![a.clone(), c.clone()]);
        assert_eq!(
            pool.senders(|data| data == b"b"),
            BTreeSet::from([b.sender])
        );
        assert!(pool.knows(&a) && !pool.knows(&tx(3, b"d")));
        // Committed: gone, and a late copy is not taken again.
        pool.commit([&a, &b]);
        assert!(pool.knows(&a));
        assert_eq!(pool.add(a.clone()), Added::Known);
        assert_eq!(pool.block(), vec![c.clone()]);
    }

    #[test]
    fn a_full_mempool_takes_no_more() {
        let mut pool = Mempool::new(MAX_MEMPOOL, 10);
        for i in 0..MAX_MEMPOOL {
            assert_eq!(pool.add(tx(1, &i.to_le_bytes())), Added::Taken);
        }
        assert_eq!(pool.add(tx(2, b"one too many")), Added::Full);
        assert_eq!(pool.block().len(), MAX_BLOCK_TXS);
    }

    #[test]
    fn one_sender_fills_its_quota_only() {
        let mut pool = Mempool::new(3, 10);
        for i in 0..3u8 {
            assert_eq!(pool.add(tx(1, &[i])), Added::Taken);
        }
        assert_eq!(pool.add(tx(1, b"fourth")), Added::OverQuota);
        // Another sender still gets in; a committed transaction frees its sender's place.
        assert_eq!(pool.add(tx(2, b"other")), Added::Taken);
        pool.commit([&tx(1, &[0])]);
        assert_eq!(pool.add(tx(1, b"fourth")), Added::Taken);
        assert_eq!(pool.len(), 4);
    }

    #[test]
    fn a_transaction_is_dropped_after_its_time_to_live() {
        let mut pool = Mempool::new(10, 5);
        assert_eq!(pool.add(tx(1, b"old")), Added::Taken);
        assert_eq!(pool.expire(3), 0);
        assert_eq!(pool.add(tx(1, b"new")), Added::Taken);
        // "old" arrived before height 1 and "new" after height 3: at 5 only "old" has waited 5 heights.
        assert_eq!(pool.expire(5), 1);
        assert_eq!(pool.block(), vec![tx(1, b"new")]);
        assert_eq!(pool.expire(8), 1);
        assert_eq!(pool.len(), 0);
        // Dropped, not committed: the same transaction may come again.
        assert_eq!(pool.add(tx(1, b"old")), Added::Taken);
    }
}
