//! What a behaviour sees: a snapshot of this replica's state when its round opened, owned, so that the
//! behaviour can keep it across the blocks it waits through.

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::sync::Arc;

use super::block::AgentId;
use super::spec::AppSpec;
use crate::abci::data::Periods;
use crate::abci::rounds::threshold;

/// The replicated state a behaviour runs against, from the point of view of one agent, as it stood when the
/// round opened (or when the behaviour started, later in the round).
///
/// Everything here is the same on every replica at the same height, except [`Context::me`]: a behaviour
/// whose payload must agree with the others' (a collect-same round, a vote) computes it from these, not from
/// local clocks or randomness. Cloning it is cheap (the snapshot is shared).
pub struct Context<S: AppSpec> {
    me: AgentId,
    shared: Arc<Snapshot<S>>,
}

impl<S: AppSpec> Clone for Context<S> {
    fn clone(&self) -> Self {
        Context {
            me: self.me.clone(),
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S: AppSpec> std::fmt::Debug for Context<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("me", &self.me)
            .field("state", &self.shared.state)
            .field("round_count", &self.shared.round_count)
            .field("period", &self.shared.periods.period())
            .finish_non_exhaustive()
    }
}

/// A replica's state, as a context shows it. The replica fills it in; a context reads no replica.
pub(crate) struct Snapshot<S: AppSpec> {
    pub state: S::State,
    pub periods: Periods<S::Data>,
    pub round_count: u64,
    pub participants: BTreeSet<AgentId>,
    pub eligible: BTreeSet<AgentId>,
    pub keeper: Option<AgentId>,
    pub failed_keepers: BTreeSet<AgentId>,
    pub time_ms: u64,
    pub round_started_ms: u64,
    pub visited: Vec<S::State>,
}

impl<S: AppSpec> Context<S> {
    pub(crate) fn new(snapshot: Snapshot<S>, me: AgentId) -> Self {
        Context {
            me,
            shared: Arc::new(snapshot),
        }
    }

    /// The agent this behaviour runs for.
    pub fn me(&self) -> &AgentId {
        &self.me
    }

    /// The current state (the round the payload is for).
    pub fn state(&self) -> S::State {
        self.shared.state
    }

    /// The current period's synchronized data.
    pub fn data(&self) -> &S::Data {
        self.shared.periods.current()
    }

    /// Every kept period's data, oldest first, ending with the current one.
    pub fn history(&self) -> &Periods<S::Data> {
        &self.shared.periods
    }

    /// The current period.
    pub fn period(&self) -> u64 {
        self.shared.periods.period()
    }

    /// The current round's number: the same on every replica, a fine seed for agreed pseudo-randomness.
    pub fn round_count(&self) -> u64 {
        self.shared.round_count
    }

    /// The time of the last block applied before the snapshot, in milliseconds: the agents' common clock
    /// (upstream's block timestamp). It does not move while the behaviour runs; the block time the round ends
    /// at is another block's.
    pub fn time_ms(&self) -> u64 {
        self.shared.time_ms
    }

    /// The time of the block that opened the round.
    pub fn round_started_ms(&self) -> u64 {
        self.shared.round_started_ms
    }

    /// The states entered in this period, in order, the current one last.
    pub fn visited(&self) -> &[S::State] {
        &self.shared.visited
    }

    /// The participants.
    pub fn participants(&self) -> &BTreeSet<AgentId> {
        &self.shared.participants
    }

    /// The consensus threshold of the current round: ⌈(2N+1)/3⌉ of the agents it takes payloads from.
    pub fn threshold(&self) -> usize {
        threshold(self.shared.eligible.len())
    }

    /// The keeper elected in this period, if any.
    pub fn keeper(&self) -> Option<&AgentId> {
        self.shared.keeper.as_ref()
    }

    /// Whether this agent is the keeper.
    pub fn is_keeper(&self) -> bool {
        self.keeper() == Some(&self.me)
    }

    /// The keepers that failed in this period.
    pub fn failed_keepers(&self) -> &BTreeSet<AgentId> {
        &self.shared.failed_keepers
    }

    /// The keeper to propose in a keeper election, from randomness the agents agreed on.
    ///
    /// The participants are put in an order drawn from `seed` (by the SHA-256 of the seed and the
    /// agent); the first that may be elected wins, or, when a keeper was already elected in this period,
    /// the first after it, so a failed keeper's successor is the next in the same order (as upstream
    /// rotates). Agents that failed as keeper in this period are skipped: the app would reject them.
    /// Every replica computes the same answer from the same seed.
    pub fn next_keeper(&self, seed: &[u8]) -> Option<AgentId> {
        let mut order: Vec<([u8; 32], &AgentId)> = self
            .participants()
            .iter()
            .map(|p| {
                let mut h = Sha256::new();
                h.update(seed);
                h.update(p.as_bytes());
                (h.finalize().into(), p)
            })
            .collect();
        order.sort();
        let start = self
            .keeper()
            .and_then(|k| order.iter().position(|(_, p)| *p == k))
            .map_or(0, |i| i.saturating_add(1));
        let failed = self.failed_keepers();
        order
            .iter()
            .cycle()
            .skip(start)
            .take(order.len())
            .map(|(_, p)| *p)
            .find(|p| !failed.contains(*p))
            .cloned()
    }
}
