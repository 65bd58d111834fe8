//! The mempool: transactions waiting for a block, and the ids of those already committed, so a late copy is
//! not ordered twice.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{MAX_BLOCK_BYTES, MAX_BLOCK_TXS};
use crate::types::{Address, SignedTx};

/// The most transactions waiting in the mempool; more are dropped (their senders forward them again).
const MAX_MEMPOOL: usize = 20_000;
/// How many committed transaction ids are remembered to drop late copies.
const COMMITTED_WINDOW: usize = 100_000;

/// Transactions waiting for a block, in arrival order, without duplicates, minus those already committed.
#[derive(Default)]
pub(super) struct Mempool {
    pending: BTreeMap<u64, SignedTx>,
    ids: BTreeMap<[u8; 32], u64>,
    committed: BTreeSet<[u8; 32]>,
    committed_order: VecDeque<[u8; 32]>,
    next: u64,
}

impl Mempool {
    /// Adds `tx` unless it is pending or committed already, or the mempool is full; says whether it has room
    /// for more.
    pub(super) fn add(&mut self, tx: SignedTx) -> bool {
        if self.pending.len() >= MAX_MEMPOOL {
            return false;
        }
        let id = tx.id();
        if self.ids.contains_key(&id) || self.committed.contains(&id) {
            return true;
        }
        self.next = self.next.wrapping_add(1);
        self.ids.insert(id, self.next);
        self.pending.insert(self.next, tx);
        true
    }

    /// The oldest pending transactions that fit in a block (they stay pending until committed).
    pub(super) fn block(&self) -> Vec<SignedTx> {
        let mut bytes = 0usize;
        self.pending
            .values()
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
            if let Some(seq) = self.ids.remove(&id) {
                self.pending.remove(&seq);
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
            .filter(|tx| matches(&tx.data))
            .map(|tx| tx.sender)
            .collect()
    }

    /// The pending transactions sent by `who`.
    pub(super) fn from(&self, who: &Address) -> Vec<SignedTx> {
        self.pending
            .values()
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
        let mut pool = Mempool::default();
        let (a, b, c) = (tx(1, b"a"), tx(2, b"b"), tx(1, b"c"));
        for t in [&a, &b, &a, &c, &b] {
            assert!(pool.add(t.clone()));
        }
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
        assert!(pool.add(a.clone()));
        assert_eq!(pool.block(), vec![c.clone()]);
    }

    #[test]
    fn a_full_mempool_takes_no_more() {
        let mut pool = Mempool::default();
        for i in 0..MAX_MEMPOOL {
            assert!(pool.add(tx(1, &i.to_le_bytes())));
        }
        assert!(!pool.add(tx(2, b"one too many")));
        assert_eq!(pool.block().len(), MAX_BLOCK_TXS);
    }
}
