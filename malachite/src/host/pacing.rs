//! The start of the next height. With a block interval, a height lasts at least that long (the engine's target
//! time), and the payloads every replica submits after a block reach the next proposer meanwhile. At block
//! interval 0 the next proposer would be asked for its block the moment the last one is decided, before those
//! payloads arrive: each round would take two heights, one for the payloads of the fastest agents and one for
//! the rest.
//!
//! The proposer cannot wait for them inside the engine's request for its block: the engine hands the host one
//! message at a time, so nothing else (no forwarded transaction) arrives until the request is answered. What
//! arrives while the host holds its answer to `Finalized` is delivered before the next height's requests,
//! though. So the node that proposes next holds that answer for `tx_wait_ms`, unless the payloads its replica
//! awaits are pending already; the other nodes start the next height at once and wait for its proposal.

use std::collections::BTreeSet;
use std::time::Duration;
use tokio::time::Instant;

use fsmc_runtime::app::Submission;
use malachitebft_app_channel::Reply;
use malachitebft_app_channel::app::engine::host::Next;
use malachitebft_app_channel::app::types::core::Round;

use super::Host;
use crate::types::{Address, FsmcContext, Height};

/// The payloads a replica awaits after applying block `height`: one for its round `round` from each of
/// `agents`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Awaited {
    pub(crate) height: u64,
    pub(crate) round: u64,
    pub(crate) agents: BTreeSet<Address>,
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
    /// awaits are missing, after `tx_wait_ms`.
    pub(super) fn start_next(&mut self, next: Next<FsmcContext>, reply: Reply<Next<FsmcContext>>) {
        let wait = Duration::from_millis(self.settings.tx_wait_ms);
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
        self.held = Some(Held {
            reply,
            next,
            until: Instant::now() + wait,
        });
    }

    /// Sends the held answer to `Finalized`: the next height starts.
    pub(super) fn release(&mut self) {
        if let Some(held) = self.held.take() {
            let _ = held.reply.send(held.next);
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
