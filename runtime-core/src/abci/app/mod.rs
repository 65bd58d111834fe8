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
//! * [`replay`] feeds an app the blocks of a counterexample of `fsmc verify`: the driver of the tests
//!   `fsmc verify --emit-test` writes.
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

// What generated code provides, and what it calls here (the contract with the code generator; the paths are
// fixed, since generated code names them):
//
// * `Spec`, a unit struct implementing `AppSpec`: the spec's facts (`NAME`, `START`, `state_name`, `next`,
//   `is_final`), its `State`, `Event` and `Data`, its `Round` enum and `dyn Behaviour` as `Agent`; and the
//   driver's hooks: `rules` (a static table of `Rules` with each round's `Role`, `reset` and timeout),
//   `outcome_event`, `start_round` (a round kind over the eligible `Participants`), `carry` (the cross-period
//   keys) and `act` (the behaviour's payload, through `encode`).
// * `Round` implements `AppRound`: `deliver` reads a payload with `decode` (`Rejection::BadPayload` when it
//   does not decode), checks a keeper election's candidate against the `KeeperPool` and submits to the round
//   kind; `end_block` writes a `Done` value as the spec's `writes` says and returns the `Decision`.
// * Its aliases and the `Behaviour` trait name `App`, `Node`, `Context` and `AgentId`.
//
// `AppRound`, `Rules`, `Role`, `Decision`, `KeeperPool`, `encode`, `decode` and the driver's hooks of `AppSpec`
// are hidden from the documentation: only generated code and the driver use them.

mod behaviour;
mod block;
mod bounds;
mod consensus;
mod context;
#[cfg(test)]
mod node_tests;
pub mod replay;
#[cfg(test)]
mod replay_tests;
mod replica;
#[cfg(test)]
mod snapshot_tests;
mod spec;
#[cfg(test)]
mod tests;

pub use behaviour::{Abstain, Acted, Drive, Pending, now_or_never};
pub use block::{AgentId, AppHash, Block, EncodeError, Submission, Tx, decode, encode};
pub use bounds::{Key, Payload};
pub use consensus::{ConsensusLayer, Node, NodeError, Stepped};
pub use context::Context;
pub use replica::{App, AppError, AppStep, BlockReport, Cause, Genesis, Rejected};
pub use spec::{
    AppRound, AppSpec, BlockEnd, Deciding, Decision, KeeperPool, NoRounds, Rejection, Role, Rules,
};
