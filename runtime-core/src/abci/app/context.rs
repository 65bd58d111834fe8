//! What a behaviour sees: this replica's view of the replicated state, read-only.

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

use super::block::AgentId;
use super::replica::App;
use super::spec::AppSpec;
use crate::abci::data::Periods;
use crate::abci::rounds::threshold;

/// The replicated state a behaviour runs against, from the point of view of one agent.
///
/// Everything here is the same on every replica at the same height, except [`Context::me`]: a behaviour
/// whose payload must agree with the others' (a collect-same round, a vote) computes it from these, not
/// from local clocks or randomness.
pub struct Context<'a, S: AppSpec> {
    app: &'a App<S>,
    me: &'a AgentId,
}

impl<'a, S: AppSpec> Context<'a, S> {
    pub(crate) fn new(app: &'a App<S>, me: &'a AgentId) -> Self {
        Context { app, me }
    }

    /// The agent this behaviour runs for.
    pub fn me(&self) -> &'a AgentId {
        self.me
    }

    /// The current state (the round the payload is for).
    pub fn state(&self) -> S::State {
        self.app.state()
    }

    /// The current period's synchronized data.
    pub fn data(&self) -> &'a S::Data {
        self.app.data()
    }

    /// Every kept period's data, oldest first, ending with the current one.
    pub fn history(&self) -> &'a Periods<S::Data> {
        self.app.periods()
    }

    /// The current period.
    pub fn period(&self) -> u64 {
        self.app.period()
    }

    /// The current round's number: the same on every replica, a fine seed for agreed pseudo-randomness.
    pub fn round_count(&self) -> u64 {
        self.app.round_count()
    }

    /// The participants.
    pub fn participants(&self) -> &'a BTreeSet<AgentId> {
        self.app.participants()
    }

    /// The consensus threshold of the current round: ⌈(2N+1)/3⌉ of the agents it takes payloads from.
    pub fn threshold(&self) -> usize {
        threshold(self.app.eligible().len())
    }

    /// The keeper elected in this period, if any.
    pub fn keeper(&self) -> Option<&'a AgentId> {
        self.app.keeper()
    }

    /// Whether this agent is the keeper.
    pub fn is_keeper(&self) -> bool {
        self.keeper() == Some(self.me)
    }

    /// The keepers that failed in this period.
    pub fn failed_keepers(&self) -> &'a BTreeSet<AgentId> {
        self.app.failed_keepers()
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
