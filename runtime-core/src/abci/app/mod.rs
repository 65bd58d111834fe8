//! Replicated FSM apps, as Open Autonomy runs them: every agent instance holds its own replica of the app, and
//! a consensus engine feeds every replica the same ordered blocks.
//!
//! An `abci` machine or composed app generates an [`AppSpec`] (its `Spec` type) and the user writes its
//! `Behaviour`; everything else happens here, once for every app:
//!
//! * [`App`] is one replica: state, current round, synchronized data with periods, participants, keeper.
//!   [`App::deliver_block`] applies a block as Open Autonomy does — the round's timeout if the block's time
//!   has passed it, each transaction in order (rejecting, deterministically, those that do not fit), then the
//!   round's end-of-block evaluation — and writes a decided value into the synchronized data as the spec's
//!   `writes` says. After every block, [`App::app_hash`] digests the replicated state over its canonical
//!   encoding: replicas fed the same blocks agree bit for bit.
//! * [`Context`] is what a behaviour sees; [`Node`] runs one agent's behaviour against its replica, driven
//!   by a [`ConsensusLayer`]: the seam to an engine, implemented by an in-process simulation and by a BFT
//!   engine alike.
//!
//! The rules, with upstream's names:
//!
//! * **Registration.** A `registration;` round takes payloads from every agent of the [`Genesis`]; when it
//!   is done, the agents it collected are the participants (`participants`). The consensus threshold of a
//!   round is ⌈(2N+1)/3⌉ of the agents it takes payloads from.
//! * **Keepers.** An `elects_keeper;` round agrees on a keeper (`most_voted_keeper_address`), which must be
//!   a participant that has not failed as keeper in this period. An `only_keeper_sends` round takes a
//!   payload from that keeper only; if it fails or times out, the keeper is marked failed for the rest of
//!   the period (upstream's blacklist), so the next election picks another one.
//! * **Time.** Block time is the only clock: a round's timeout fires in the first block whose time is at
//!   least the time the round started (the time of the block that opened it) plus the duration, even a block
//!   with no transactions.
//! * **Periods.** A `reset;` round that ends with `DONE` starts a new period: only cross-period keys carry
//!   over, the keeper and the failed keepers are forgotten, and history is pruned to
//!   [`Genesis::history_depth`] periods.

mod block;
mod consensus;
mod context;
mod replica;
mod spec;
#[cfg(test)]
mod tests;

pub use block::{AgentId, AppHash, Block, EncodeError, Submission, Tx, decode, encode};
pub use consensus::{ConsensusLayer, Node, NodeError};
pub use context::Context;
pub use replica::{App, AppError, BlockReport, Cause, Genesis, Rejected, Step};
pub use spec::{AppRound, AppSpec, Decision, KeeperPool, Rejection, Role, Rules};
