//! The start of the next height. With a block interval, a height lasts at least that long (the engine's target
//! time), and the payloads every replica submits after a block reach the next proposer meanwhile. At block
//! interval 0 the next proposer would be asked for its block the moment the last one is decided, before those
//! payloads arrive: each round would take two heights, one for the payloads of the fastest agents and one for
//! the rest.
//!
//! The proposer cannot wait for them inside the engine's request for its block: the engine hands the host one
//! message at a time, so nothing else (no forwarded transaction) arrives until the request is answered. What
//! arrives while the host holds its answer to `Finalized` is delivered before the next height's requests,
//! though. So the node that proposes next holds that answer for a while after its replica applied the block
//! (every replica applies it at about that time, and sends its payload right after), unless the payloads its
//! replica awaits are pending already; the other nodes start the next height at once and wait for its proposal.
//!
//! How long: long enough for most payloads, as this node has seen them arrive when it was not proposing (then
//! nothing holds the engine's messages back, and their arrival times are true), and never longer than
//! `tx_wait_ms`. On an idle machine a payload crosses the loopback interface and the engine in 1–3 ms; on a busy
//! one, or when behaviours wait on I/O, in many more. A payload that never comes (its agent is down, or
//! abstained) is never seen, so it does not lengthen the wait.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;
use tokio::time::Instant;

use fsmc_runtime::app::Submission;
use malachitebft_app_channel::Reply;
use malachitebft_app_channel::app::engine::host::Next;
use malachitebft_app_channel::app::types::core::Round;

use super::Host;
use crate::types::{Address, FsmcContext, Height, SignedTx};

/// The payloads a replica awaits after applying block `height`: one for its round `round` from each of
/// `agents`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Awaited {
    pub(crate) height: u64,
    pub(crate) round: u64,
    pub(crate) agents: BTreeSet<Address>,
}

/// How many arrivals the wait is learned from.
const ARRIVALS: usize = 64;
/// Fewer arrivals than this say too little: the wait is `tx_wait_ms`.
const MIN_ARRIVALS: usize = 8;
/// Added to the slowest arrival of nine in ten, for the variation an estimate misses.
const MARGIN: Duration = Duration::from_millis(1);

/// When the payloads of other agents arrived, after this replica applied the block that opened their round.
#[derive(Debug, Default)]
pub(crate) struct Arrivals {
    recent: VecDeque<Duration>,
}

impl Arrivals {
    /// A payload for the current round arrived `after` the block was applied here.
    pub(crate) fn record(&mut self, after: Duration) {
        if self.recent.len() == ARRIVALS {
            self.recent.pop_front();
        }
        self.recent.push_back(after);
    }

    /// How long the next proposer holds the next height: the time by which nine in ten payloads arrived, plus a
    /// margin, at most `max` (and `max` until enough arrivals have been seen).
    pub(crate) fn wait(&self, max: Duration) -> Duration {
        if self.recent.len() < MIN_ARRIVALS {
            return max;
        }
        let mut sorted: Vec<Duration> = self.recent.iter().copied().collect();
        sorted.sort_unstable();
        let index = (sorted.len() * 9 / 10).min(sorted.len() - 1);
        sorted
            .get(index)
            .map_or(max, |d| d.saturating_add(MARGIN).min(max))
    }
}

/// The answer to `Finalized`, held until `until`.
pub(crate) struct Held {
    reply: Reply<Next<FsmcContext>>,
    next: Next<FsmcContext>,
    until: Instant,
}

impl Held {
    /// When the answer goes.
    pub(crate) fn until(&self) -> Instant {
        self.until
    }
}

impl Host {
    /// Answers `Finalized` with `next`, at once or, when this node proposes the next height and payloads it
    /// awaits are missing, `tx_wait_ms` after its replica applied the block below.
    pub(super) fn start_next(&mut self, next: Next<FsmcContext>, reply: Reply<Next<FsmcContext>>) {
        let wait = self
            .arrivals
            .wait(Duration::from_millis(self.settings.tx_wait_ms));
        let at = match &next {
            Next::Start(height, _) => *height,
            Next::Restart(..) => {
                let _ = reply.send(next);
                return;
            }
        };
        let proposes = self
            .validators
            .proposer(at, Round::new(0))
            .is_some_and(|v| v.address == self.me);
        if self.settings.block_interval_ms > 0 || wait.is_zero() || !proposes || self.awaited_in(at)
        {
            let _ = reply.send(next);
            return;
        }
        let since = match self.applied {
            Some((height, when)) if height.saturating_add(1) == at.0 => when,
            _ => Instant::now(),
        };
        self.held = Some(Held {
            reply,
            next,
            until: since + wait,
        });
    }

    /// Sends the held answer to `Finalized`: the next height starts.
    pub(super) fn release(&mut self) {
        if let Some(held) = self.held.take() {
            let _ = held.reply.send(held.next);
        }
    }

    /// Notes when a payload from another agent arrived, if it is the first copy of one the replica awaits for
    /// the round the last block opened (a copy sent again a second later is no arrival), and nothing held the
    /// engine's messages back.
    pub(super) fn note_arrival(&mut self, tx: &SignedTx) {
        let (Some(awaited), Some((height, applied))) = (&self.awaited, self.applied) else {
            return;
        };
        if self.held.is_some()
            || awaited.height != height
            || tx.sender == self.me
            || !awaited.agents.contains(&tx.sender)
            || self.mempool.knows(tx)
        {
            return;
        }
        if Submission::decode(&tx.data).is_some_and(|s| s.round == awaited.round) {
            self.arrivals.record(applied.elapsed());
        }
    }

    /// Whether a payload is pending from every other agent the replica awaits after the block below `height`,
    /// for the round it is in. Until the replica has said what it awaits after that block, no.
    fn awaited_in(&self, height: Height) -> bool {
        let Some(awaited) = &self.awaited else {
            return false;
        };
        if awaited.height.saturating_add(1) != height.0 {
            return false;
        }
        let pending = self
            .mempool
            .senders(|data| Submission::decode(data).is_some_and(|s| s.round == awaited.round));
        awaited
            .agents
            .iter()
            .all(|a| *a == self.me || pending.contains(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_wait_is_learned_from_first_arrivals_and_capped() {
        let max = ms(10);
        let mut arrivals = Arrivals::default();
        assert_eq!(arrivals.wait(max), max, "nothing seen yet");
        for _ in 0..MIN_ARRIVALS - 1 {
            arrivals.record(ms(2));
        }
        assert_eq!(arrivals.wait(max), max, "too few seen");
        for _ in 0..4 {
            for n in [2, 3, 4] {
                arrivals.record(ms(n));
            }
        }
        // Nine in ten arrived by 4 ms: that, plus the margin.
        assert_eq!(arrivals.wait(max), ms(5));
        // Slow arrivals raise it, never past the cap; only the last ARRIVALS count.
        for _ in 0..ARRIVALS {
            arrivals.record(ms(40));
        }
        assert_eq!(arrivals.wait(max), max);
        for _ in 0..ARRIVALS {
            arrivals.record(ms(1));
        }
        assert_eq!(arrivals.wait(max), ms(2));
    }
}
