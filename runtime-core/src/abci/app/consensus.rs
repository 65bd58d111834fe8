//! The seam between an app and whatever orders its transactions, and the node loop that drives one replica.

use std::fmt::{self, Display, Formatter};

use super::block::{AgentId, AppHash, Block, EncodeError};
use super::replica::{App, AppError, BlockReport};
use super::spec::AppSpec;

/// What an app needs from a consensus engine, and all it needs: a way to submit transactions and the
/// totally ordered, gap-free sequence of committed blocks.
///
/// Rules that keep engines interchangeable (an in-process simulation and a BFT engine implement the same
/// trait, and the app cannot tell them apart):
///
/// * [`next_block`](ConsensusLayer::next_block) yields heights `resume + 1, resume + 2, …` with no gap, and
///   every replica receives the same block at the same height. The block's time never decreases; it is the
///   app's only clock.
/// * The engine authenticates the sender of each transaction (a signature, or the simulation's own
///   bookkeeping) and checks only stateless things; whether a transaction fits the app's current round is
///   decided by the app, deterministically, when it applies the block.
/// * [`commit`](ConsensusLayer::commit) is called after each block is applied, with the resulting app hash.
///   An engine may refuse to hand out the next block before it (back-pressure), and compares the hash with
///   the other replicas' to detect divergence.
pub trait ConsensusLayer {
    /// What can go wrong in the engine.
    type Error: std::error::Error + 'static;

    /// Hands a transaction (an encoded [`Submission`](super::Submission)) to the engine for a later block.
    /// Does not wait for it to be committed; the engine may deduplicate.
    fn submit(&mut self, tx: Vec<u8>) -> Result<(), Self::Error>;

    /// The next committed block, or `None` if none is ready yet. May wait a little (an engine in another
    /// thread), but not indefinitely, so the caller can do other work between blocks.
    fn next_block(&mut self) -> Result<Option<Block>, Self::Error>;

    /// Reports that block `height` was applied and the app hash it produced.
    fn commit(&mut self, height: u64, app_hash: AppHash) -> Result<(), Self::Error>;
}

/// Why a node stopped.
#[derive(Debug)]
pub enum NodeError<E> {
    /// The engine failed.
    Engine(E),
    /// The engine handed over a block the app cannot take.
    App(AppError),
    /// The behaviour's payload could not be encoded.
    Encode(EncodeError),
}

impl<E: Display> Display for NodeError<E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Engine(e) => write!(f, "consensus engine: {e}"),
            Self::App(e) => write!(f, "app: {e}"),
            Self::Encode(e) => Display::fmt(e, f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for NodeError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Engine(e) => Some(e),
            Self::App(e) => Some(e),
            Self::Encode(e) => Some(e),
        }
    }
}

impl<E> From<AppError> for NodeError<E> {
    fn from(e: AppError) -> Self {
        NodeError::App(e)
    }
}

/// One agent instance: its replica of the app and its own behaviour, driven by an engine.
///
/// [`Node::step`] applies every block the engine has ready, reports each app hash, then runs the
/// behaviour once for the current round if this agent is expected to submit and has not yet.
pub struct Node<S: AppSpec> {
    app: App<S>,
    me: AgentId,
    agent: Box<S::Agent>,
    acted_in: Option<u64>,
}

impl<S: AppSpec> Node<S> {
    /// A node for agent `me`, running `agent` on the replica `app`.
    pub fn new(app: App<S>, me: impl Into<AgentId>, agent: Box<S::Agent>) -> Self {
        Node {
            app,
            me: me.into(),
            agent,
            acted_in: None,
        }
    }

    /// Re-applies blocks this node applied before a restart (from its own durable store), without
    /// reporting them to the engine again: the replica comes back to the state and hash it had.
    pub fn replay<'b>(
        &mut self,
        blocks: impl IntoIterator<Item = &'b Block>,
    ) -> Result<AppHash, AppError> {
        for block in blocks {
            self.app.deliver_block(block)?;
        }
        Ok(self.app.app_hash())
    }

    /// Applies the blocks the engine has ready, then acts.
    pub fn step<C: ConsensusLayer>(
        &mut self,
        engine: &mut C,
    ) -> Result<Vec<BlockReport<S>>, NodeError<C::Error>> {
        let mut reports = Vec::new();
        while let Some(block) = engine.next_block().map_err(NodeError::Engine)? {
            let report = self.app.deliver_block(&block)?;
            engine
                .commit(report.height, report.app_hash)
                .map_err(NodeError::Engine)?;
            reports.push(report);
        }
        self.act(engine)?;
        Ok(reports)
    }

    /// Runs the behaviour for the current round and submits its payload, once per round.
    pub fn act<C: ConsensusLayer>(&mut self, engine: &mut C) -> Result<bool, NodeError<C::Error>> {
        let round = self.app.round_count();
        if self.acted_in == Some(round) {
            return Ok(false);
        }
        let tx = self
            .app
            .act(&self.me, &mut self.agent)
            .map_err(NodeError::Encode)?;
        self.acted_in = Some(round);
        match tx {
            Some(tx) => {
                engine.submit(tx).map_err(NodeError::Engine)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The replica.
    pub fn app(&self) -> &App<S> {
        &self.app
    }

    /// This node's agent.
    pub fn me(&self) -> &AgentId {
        &self.me
    }

    /// The behaviour.
    pub fn agent(&self) -> &S::Agent {
        &self.agent
    }

    /// The behaviour, to change it (tests use this to make an agent misbehave).
    pub fn agent_mut(&mut self) -> &mut S::Agent {
        &mut self.agent
    }
}
