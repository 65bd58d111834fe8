//! The seam between an app and whatever orders its transactions, and the node loop that drives one replica.

use std::fmt::{self, Display, Formatter};

use std::sync::Arc;
use std::task::Waker;

use super::behaviour::{Acted, Drive, Pending, Polled, poll};
use super::block::{AgentId, AppHash, Block};
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

    /// Checks a transaction as the engine's other nodes will check it, before it is submitted: one they would
    /// refuse (too large, say) is never submitted, and the behaviour's work for the round ends as
    /// [`Acted::Abstained`] with the reason returned here, instead of a payload that can never be ordered.
    /// Every transaction passes by default.
    fn check(&mut self, _tx: &[u8]) -> Result<(), String> {
        Ok(())
    }

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
}

impl<E: Display> Display for NodeError<E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Engine(e) => write!(f, "consensus engine: {e}"),
            Self::App(e) => write!(f, "app: {e}"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for NodeError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Engine(e) => Some(e),
            Self::App(e) => Some(e),
        }
    }
}

impl<E> From<AppError> for NodeError<E> {
    fn from(e: AppError) -> Self {
        NodeError::App(e)
    }
}

/// What one [`Node::step`] did: the blocks it applied and what became of its behaviour's work.
#[derive(Debug)]
pub struct Stepped<S: AppSpec> {
    /// A report per block applied, in order.
    pub blocks: Vec<BlockReport<S>>,
    /// What became of the behaviour's work: submitted, abstained, panicked or cancelled.
    pub acted: Vec<Acted>,
}

/// One agent instance: its replica of the app and its own behaviour, driven by an engine.
///
/// [`Node::step`] applies every block the engine has ready and reports each app hash; then, when this agent is
/// expected to submit in the current round and has not, it starts its behaviour's work for the round (an
/// asynchronous function of a [`Context`](super::Context)) and polls it. The work runs across blocks: every
/// step polls it again, until it returns (its payload is submitted, or it abstained) or its round ends (it is
/// dropped). A behaviour that panics is reported, and the node goes on. An engine that can be woken sets a
/// waker ([`Node::set_waker`]) so that work waiting on I/O asks for the next step when it can go on.
pub struct Node<S: AppSpec, B: ?Sized> {
    app: App<S>,
    me: AgentId,
    agent: Arc<B>,
    work: Option<(u64, Pending)>,
    acted_in: Option<u64>,
    waker: Waker,
}

impl<S: AppSpec, B: ?Sized> Node<S, B> {
    /// A node for agent `me`, running `agent`'s behaviour on the replica `app`.
    pub fn new(app: App<S>, me: impl Into<AgentId>, agent: Arc<B>) -> Self {
        Node {
            app,
            me: me.into(),
            agent,
            work: None,
            acted_in: None,
            waker: Waker::noop().clone(),
        }
    }

    /// The waker the behaviour's work wakes when it can go on; the engine's loop then calls [`Node::step`].
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = waker;
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
    pub fn agent(&self) -> &Arc<B> {
        &self.agent
    }

    /// Whether the behaviour is working on a payload it has not returned yet.
    pub fn is_working(&self) -> bool {
        self.work.is_some()
    }
}

impl<S: Drive<B>, B: ?Sized + Send + Sync + 'static> Node<S, B> {
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

    /// Applies the blocks the engine has ready, then works on this round's payload.
    pub fn step<C: ConsensusLayer>(
        &mut self,
        engine: &mut C,
    ) -> Result<Stepped<S>, NodeError<C::Error>> {
        let mut blocks = Vec::new();
        while let Some(block) = engine.next_block().map_err(NodeError::Engine)? {
            let report = self.app.deliver_block(&block)?;
            engine
                .commit(report.height, report.app_hash)
                .map_err(NodeError::Engine)?;
            blocks.push(report);
        }
        let acted = self.act(engine)?;
        Ok(Stepped { blocks, acted })
    }

    /// Works on this round's payload: drops work for a round that has ended, starts the behaviour for the
    /// current round when this agent is expected to submit and has not, polls the work once, and submits the
    /// payload it returns if the engine's [`ConsensusLayer::check`] passes it.
    pub fn act<C: ConsensusLayer>(
        &mut self,
        engine: &mut C,
    ) -> Result<Vec<Acted>, NodeError<C::Error>> {
        let mut acted = Vec::new();
        let round = self.app.round_count();
        if let Some((started, _)) = &self.work
            && (*started != round || self.app.is_finished())
        {
            acted.push(Acted::Cancelled { round: *started });
            self.work = None;
        }
        if self.work.is_none() && self.acted_in != Some(round) && self.app.expects(&self.me) {
            self.acted_in = Some(round);
            let work = self
                .app
                .context(&self.me)
                .and_then(|ctx| S::act(&self.agent, ctx));
            self.work = work.map(|w| (round, w));
        }
        let Some((round, work)) = &mut self.work else {
            return Ok(acted);
        };
        let round = *round;
        match poll(work, &self.waker) {
            Polled::Pending => return Ok(acted),
            Polled::Ready(Ok(payload)) => {
                let tx = self.app.submission(payload);
                match engine.check(&tx) {
                    Ok(()) => {
                        engine.submit(tx).map_err(NodeError::Engine)?;
                        acted.push(Acted::Submitted { round });
                    }
                    Err(why) => acted.push(Acted::Abstained {
                        round,
                        reason: format!("the engine refused its payload: {why}"),
                    }),
                }
            }
            Polled::Ready(Err(why)) => acted.push(Acted::Abstained {
                round,
                reason: why.reason().to_string(),
            }),
            Polled::Panicked(message) => acted.push(Acted::Panicked { round, message }),
        }
        self.work = None;
        Ok(acted)
    }
}
