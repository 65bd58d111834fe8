//! Replicated fsmc apps as separate OS processes over a real Byzantine-fault-tolerant engine: Malachite, a
//! Rust implementation of Tendermint consensus.
//!
//! Each agent instance is one node process. Its replica of the app is the runtime's [`fsmc_runtime::app::Node`],
//! unchanged; this crate implements the runtime's [`fsmc_runtime::app::ConsensusLayer`] on Malachite's
//! channel API, so an app runs here exactly as it runs over the in-process simulation.
//!
//! * [`types`]: the engine's context for our apps: a block is the decided value, carrying its time (the
//!   proposer's clock, after the parent's), its proposer, the app hash it builds on, and its transactions.
//! * [`signing`]: Ed25519 keys and signatures for votes, proposals, proposal parts and transactions.
//! * [`codec`]: one Borsh codec for the wire, value sync and the write-ahead log.
//! * [`store`]: the durable block store (block, certificate and app hash per height) replayed at start.
//! * [`config`]: home directories, genesis, keys, and the generator for a local network.
//! * [`run_node`]: one node: replay the store, start the engine, feed the replica.
//! * [`launch`]: node processes for supervisors and tests (killed on drop), and the trace they print.
//! * [`observe`]: the Prometheus endpoint (the engine's metrics and ours) and the JSON `/status` endpoint.
//! * [`local`]: a local network of node processes under a test's control, and the checks of what they committed.
//! * [`cli`]: the command line of a node program for any app (`init`, `genesis`, `testnet`, `start`, `run`,
//!   `inspect`): `NodeCli::<Spec, Agent>::new(|node, _| Ok(Agent::new(node.index))).main()`.
//!
//! The engine authenticates senders (transactions are signed with the node's key; the sender's name in the
//! app is its validator address) and checks only stateless things; the app decides whether a transaction fits.
//! A node whose store is damaged, or whose app hash differs from the one the other validators built on, stops
//! with an error instead of going on.

mod claim;
pub mod cli;
pub mod codec;
pub mod config;
mod host;
pub mod launch;
pub mod local;
mod node;
pub mod observe;
pub mod signing;
pub mod statesync;
pub mod store;
pub mod types;

pub use host::HostError;
pub use node::{
    EngineLayer, Halted, Observer, RunError, app_block, node_address, run_home, run_node,
    stored_hashes,
};

/// Installs the log output on standard error: warnings from the engine, and this crate's own progress at
/// `level`. `FSMC_LOG` adds directives in the form `target=level,target=level` (for instance
/// `malachitebft_core_consensus=debug` to follow the engine's steps); a malformed value is ignored.
pub fn init_logging(level: tracing::Level) {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let extra: Targets = std::env::var("FSMC_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_default();
    let filter = Targets::new()
        .with_default(tracing::Level::WARN)
        .with_target("fsmc_malachite", level)
        .with_targets(extra);
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter)
        .try_init();
}

#[cfg(test)]
mod tests;
