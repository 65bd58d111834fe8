//! The engine's side of a node: answers every request Malachite makes of the application, keeps the mempool,
//! forwards transactions, and hands each decided block to the replica, waiting for its app hash before the
//! next height starts.
//!
//! What reaches the replica is only the block content (height, time, transactions with their senders); rounds,
//! proposers, certificates and arrival order stay here.

mod mempool;
mod messages;
mod pacing;
mod statesync;

use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Display, Formatter};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

use fsmc_runtime::app::{AppHash, Block};
use malachitebft_app_channel::app::engine::host::HeightParams;
use malachitebft_app_channel::app::streaming::{StreamContent, StreamId, StreamMessage};
use malachitebft_app_channel::app::types::ProposedValue;
use malachitebft_app_channel::app::types::core::{LinearTimeouts, Round, Validity};
use malachitebft_app_channel::{Channels, NetworkMsg, NetworkRequest};

use crate::config::{NodeSettings, now_ms};
use crate::observe::Probe;
use crate::signing::{PrivateKey, hex};
use crate::store::{BlockStore, StoreError, StoredSnapshot};
use crate::types::{
    Address, BlockValue, ChainHello, FsmcContext, Height, ProposalPart, SignedBlock, SignedTx,
    ValidatorSet, ValueId,
};
use malachitebft_engine::node::NodeRef;
use mempool::{Added, Mempool};
pub(crate) use pacing::Awaited;
use pacing::{Arrivals, Held};
use statesync::CatchUp;

/// The most transactions one block holds.
const MAX_BLOCK_TXS: usize = 1_000;
/// The most bytes of transaction data one block holds.
const MAX_BLOCK_BYTES: usize = 1 << 20;
/// The most bytes one transaction holds.
const MAX_TX_BYTES: usize = 64 << 10;
/// The most decided values served in one sync answer.
const MAX_SYNC_BATCH: u64 = 64;

/// What the engine side hands the replica.
pub(crate) enum ToApp {
    /// The next decided block.
    Block(Block),
    /// The node must stop, for this reason.
    Halt(String),
    /// The behaviour's work can go on (its waker was woken): the replica should step.
    Wake,
    /// A peer's snapshot, verified against a certificate: the replica restores it (which recomputes its app
    /// hash) and says whether it took it.
    Restore(StoredSnapshot, RestoreReply),
}

/// Where the replica says whether it restored a peer's snapshot, or why not.
pub(crate) type RestoreReply = tokio::sync::oneshot::Sender<Result<(), String>>;

/// What the replica hands the engine side besides app hashes, in the order it happened: the payloads it
/// submitted after a block come before what it says it awaits after that block.
pub(crate) enum FromApp {
    /// A payload to order (an encoded submission), signed and checked as peers check it.
    Tx(SignedTx),
    /// The payloads the replica awaits now.
    Awaiting(Awaited),
    /// The replica's state at a height, to store once that height's block is stored.
    Snapshot(StoredSnapshot),
}

/// The replica's side of the channels, as the host holds them.
pub(crate) struct AppPort {
    pub(crate) blocks: std::sync::mpsc::Sender<ToApp>,
    pub(crate) commits: mpsc::UnboundedReceiver<(u64, AppHash)>,
    pub(crate) from_app: mpsc::UnboundedReceiver<FromApp>,
}

/// Why the node stops.
#[derive(Debug)]
pub enum HostError {
    /// The replica's app hash differs from the one the other validators built on.
    Diverged {
        /// The height whose app hash differs.
        height: u64,
        /// This replica's hash there.
        ours: String,
        /// The hash the decided block at the next height names.
        theirs: String,
        /// Who proposed that block.
        proposer: String,
    },
    /// The block store failed or is damaged.
    Store(StoreError),
    /// The engine or the replica stopped, or consensus broke a promise.
    Stopped(String),
}

impl Display for HostError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Diverged {
                height,
                ours,
                theirs,
                proposer,
            } => write!(
                f,
                "app hash diverged at height {height}: this replica has {ours}, but the block the validators \
                 decided at height {} (proposed by {proposer}) builds on {theirs}; halting",
                height.saturating_add(1)
            ),
            Self::Store(e) => write!(f, "{e}; halting"),
            Self::Stopped(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for HostError {}

impl From<StoreError> for HostError {
    fn from(e: StoreError) -> Self {
        HostError::Store(e)
    }
}

/// The checks every node makes of a transaction, its own included, before it is forwarded, pooled or voted
/// for in a block: its size, and its signature by a genesis validator for this chain.
pub(crate) fn check_tx(
    chain_id: &str,
    validators: &ValidatorSet,
    tx: &SignedTx,
) -> Result<(), String> {
    if tx.data.len() > MAX_TX_BYTES {
        return Err(format!(
            "a transaction from {} is {} bytes, over the limit of {MAX_TX_BYTES}",
            tx.sender,
            tx.data.len()
        ));
    }
    let validator = validators
        .get(&tx.sender)
        .ok_or_else(|| format!("a transaction from {}, not a validator", tx.sender))?;
    if !tx.verify(chain_id, &validator.public_key) {
        return Err(format!(
            "a transaction from {} is not signed by it for chain {chain_id:?}",
            tx.sender
        ));
    }
    Ok(())
}

/// The last committed block: what the next one builds on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tip {
    pub(crate) height: u64,
    pub(crate) time_ms: u64,
    pub(crate) app_hash: [u8; 32],
}

/// A value seen for the current height: its verdict, and the signed part that carried it (to restream).
struct Candidate {
    value: ProposedValue<FsmcContext>,
    part: Option<SignedBlock>,
}

/// A node that found itself on another chain than too many validators, halting: it says so a few more ticks,
/// so that every validator hears it before it stops.
struct Halting {
    why: String,
    /// Resend ticks left before it halts whether or not every validator was heard.
    ticks_left: u32,
    /// Whether its word went out at a tick after every validator was heard.
    spoke: bool,
}

/// At most how many resend ticks a halting node keeps saying which chain it is on.
const HALT_TICKS: u32 = 10;

/// The engine side of one node.
pub(crate) struct Host {
    chain_id: String,
    /// The spec fingerprint the genesis names, in hex.
    spec: String,
    me: Address,
    key: PrivateKey,
    validators: ValidatorSet,
    settings: NodeSettings,
    timeouts: LinearTimeouts,
    store: BlockStore,
    /// A snapshot the replica sent before its block was stored.
    snapshot: Option<StoredSnapshot>,
    tip: Tip,
    candidates: BTreeMap<(u64, ValueId), Candidate>,
    /// Proposal parts for heights not started yet.
    early: Vec<SignedBlock>,
    mempool: Mempool,
    streams: u64,
    /// When the current round started: the round latency is logged at each decision.
    round_started: Option<(Height, Round, Instant)>,
    /// What the replica awaits after the last block it applied.
    awaited: Option<Awaited>,
    /// The answer to `Finalized`, while the next proposer waits for payloads.
    held: Option<Held>,
    /// The last height the replica applied, and when.
    applied: Option<(u64, tokio::time::Instant)>,
    /// When other agents' payloads arrived after a block: how long the next proposer waits.
    arrivals: Arrivals,
    /// The validators that said they are on another chain or run another spec, and which.
    foreign: BTreeMap<Address, String>,
    /// Why the node halts, at a coming resend tick.
    halting: Option<Halting>,
    /// The validators whose chain word this node has heard, on its chain or not: once all have spoken, every
    /// one of them is connected, and this node's own word, published at the next tick, reaches them all.
    heard: BTreeSet<Address>,
    network: mpsc::Sender<NetworkMsg<FsmcContext>>,
    /// The engine's supervisor: consensus restarts through it after a catch-up from a peer's snapshot.
    engine: NodeRef,
    /// Catching up from a peer's snapshot, and serving this node's.
    catch_up: CatchUp,
    port: AppPort,
    /// The metrics and status this side reports.
    probe: Probe,
}

impl Host {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        chain_id: String,
        spec: String,
        key: PrivateKey,
        validators: ValidatorSet,
        settings: NodeSettings,
        store: BlockStore,
        tip: Tip,
        network: mpsc::Sender<NetworkMsg<FsmcContext>>,
        engine: NodeRef,
        port: AppPort,
        probe: Probe,
    ) -> Host {
        Host {
            chain_id,
            spec,
            me: key.public_key().address(),
            key,
            validators,
            timeouts: settings.timeouts(),
            mempool: Mempool::new(settings.mempool_per_sender, settings.tx_ttl_heights),
            settings,
            tip,
            candidates: BTreeMap::new(),
            early: Vec::new(),
            store,
            snapshot: None,
            streams: 0,
            round_started: None,
            awaited: None,
            held: None,
            applied: None,
            arrivals: Arrivals::default(),
            foreign: BTreeMap::new(),
            halting: None,
            heard: BTreeSet::new(),
            network,
            engine,
            catch_up: CatchUp::default(),
            port,
            probe,
        }
    }

    /// Stores the replica's snapshot once its height's block is stored (and prunes, as configured).
    pub(crate) fn store_snapshot(&mut self) -> Result<(), HostError> {
        if let Some(snapshot) = self.snapshot.take_if(|s| s.height <= self.store.height()) {
            self.store
                .save_snapshot(&snapshot, self.settings.retain_blocks)?;
            info!(
                height = snapshot.height,
                bytes = snapshot.state.len(),
                "stored a snapshot"
            );
        }
        Ok(())
    }

    /// Remembers the transactions of already committed blocks (after a restart), so a payload the replica
    /// sends again is not ordered twice.
    pub(crate) fn remember_committed<'a>(&mut self, txs: impl IntoIterator<Item = &'a SignedTx>) {
        self.mempool.commit(txs);
    }

    fn params(&self) -> HeightParams<FsmcContext> {
        let target = (self.settings.block_interval_ms > 0)
            .then(|| Duration::from_millis(self.settings.block_interval_ms));
        HeightParams::new(self.validators.clone(), self.timeouts, target)
    }

    /// Serves the engine until it, the replica or a check stops the node. The replica is told why.
    pub(crate) async fn run(mut self, mut channels: Channels<FsmcContext>) -> HostError {
        let error = self.serve(&mut channels).await;
        let _ = self.port.blocks.send(ToApp::Halt(error.to_string()));
        error
    }

    async fn serve(&mut self, channels: &mut Channels<FsmcContext>) -> HostError {
        let mut resend =
            tokio::time::interval(Duration::from_millis(self.settings.tx_resend_ms.max(100)));
        resend.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let held = self.held.as_ref().map(Held::until);
            // Biased: what the replica sent is taken before the engine's next message, so this node's own
            // payload is in its mempool when the engine asks it for a block.
            let step = tokio::select! {
                biased;
                msg = self.port.from_app.recv() => match msg {
                    Some(FromApp::Tx(data)) => self.submit(data).await,
                    Some(FromApp::Awaiting(awaited)) => {
                        self.awaited = Some(awaited);
                        Ok(())
                    }
                    Some(FromApp::Snapshot(snapshot)) => {
                        self.snapshot = Some(snapshot);
                        self.store_snapshot()
                    }
                    None => Err(HostError::Stopped("the replica stopped".into())),
                },
                () = tokio::time::sleep_until(held.unwrap_or_else(tokio::time::Instant::now)),
                    if held.is_some() => {
                    self.release();
                    Ok(())
                }
                msg = channels.consensus.recv() => match msg {
                    Some(msg) => self.handle(msg).await,
                    None => Err(HostError::Stopped("the consensus engine stopped".into())),
                },
                _ = resend.tick() => {
                    self.count_peers(&channels.net_requests).await;
                    self.resend().await
                }
            };
            if let Err(e) = step {
                return e;
            }
        }
    }

    async fn publish(&mut self, part: ProposalPart) -> Result<(), HostError> {
        // Every message gets its own stream id, so the pub-sub layer never drops a resent part as a copy.
        self.streams = self.streams.wrapping_add(1);
        let mut id = self.me.0.to_vec();
        id.extend_from_slice(&self.streams.to_be_bytes());
        id.extend_from_slice(&now_ms().to_be_bytes());
        let msg = StreamMessage::new(StreamId::new(Bytes::from(id)), 0, StreamContent::Data(part));
        self.network
            .send(NetworkMsg::PublishProposalPart(msg))
            .await
            .map_err(|_| HostError::Stopped("the network layer stopped".into()))
    }

    /// A payload from this node's replica, signed and checked already: queued, and forwarded to every peer at
    /// once.
    async fn submit(&mut self, tx: SignedTx) -> Result<(), HostError> {
        debug!(tx = %hex(&tx.id()[..4]), "submitted");
        // Forwarded even when already pending (the replica acting again after a restart); a full mempool drops
        // it here and peers still take it.
        self.take(tx.clone());
        self.publish(ProposalPart::Txs(vec![tx])).await
    }

    /// Adds `tx` to the mempool, counting what is refused; says whether the mempool takes more.
    fn take(&mut self, tx: SignedTx) -> bool {
        let added = self.mempool.add(tx);
        match added {
            Added::Full => self.probe.rejected("mempool_full"),
            Added::OverQuota => self.probe.rejected("mempool_sender_quota"),
            Added::Taken | Added::Known => {}
        }
        self.probe.mempool(self.mempool.len());
        added != Added::Full
    }

    /// Asks the network layer how many peers this node is connected to, for the metrics and the status.
    async fn count_peers(&self, requests: &mpsc::Sender<NetworkRequest>) {
        if let Ok(Some(state)) = NetworkRequest::dump_state(requests).await {
            self.probe.peers(state.peers.len());
        }
    }

    /// Says which chain this node is on (and which app it runs there), and forwards again its transactions
    /// still waiting, for peers that were not connected yet.
    async fn resend(&mut self) -> Result<(), HostError> {
        if let Some(halting) = &mut self.halting {
            // Halt once this node's word has gone out at a tick after every validator was heard (so each of
            // them names it in its own log), or after a few ticks when some never speak.
            let everyone = self.heard.len() + 1 >= self.validators.validators().len();
            if halting.ticks_left == 0 || (everyone && halting.spoke) {
                let why = std::mem::take(&mut halting.why);
                return Err(HostError::Stopped(why));
            }
            halting.ticks_left -= 1;
            halting.spoke = everyone;
        }
        let hello = ChainHello::sign(&self.chain_id, &self.spec, &self.key);
        self.publish(ProposalPart::Chain(hello)).await?;
        let history = self.history()?;
        self.publish(ProposalPart::History(history)).await?;
        self.catch_up_tick();
        let mine = self.mempool.from(&self.me);
        if mine.is_empty() {
            return Ok(());
        }
        self.publish(ProposalPart::Txs(mine)).await
    }

    /// A validator said which chain it is on and which app it runs. One on another chain, or running the app
    /// of another spec, is named in an error, once, and told this node's (it may have started after this
    /// node's last word); when so many differ that the rest cannot make a quorum (this node the odd one out,
    /// most often), the node halts, once its word has gone out at a tick after every validator was heard (or
    /// after [`HALT_TICKS`] ticks), so that each of them names it.
    async fn heard_chain(&mut self, hello: &ChainHello) -> Result<(), HostError> {
        let Some(validator) = self.validators.get(&hello.sender) else {
            return Ok(());
        };
        if !hello.verify(&validator.public_key) {
            return Ok(());
        }
        self.heard.insert(hello.sender);
        if hello.chain_id == self.chain_id && hello.spec_fingerprint == self.spec {
            return Ok(());
        }
        let theirs = ChainHello::describe(&hello.chain_id, &hello.spec_fingerprint);
        let ours = ChainHello::describe(&self.chain_id, &self.spec);
        if self.foreign.insert(hello.sender, theirs.clone()).is_none() {
            let consequence = if hello.chain_id == self.chain_id {
                "it would compute other app hashes"
            } else {
                "its transactions and blocks are refused here"
            };
            error!(
                "validator {} is on {theirs}, but this node's genesis names {ours}: {consequence}; every node's \
                 genesis.json must be the same, and every node built from its spec",
                hello.sender
            );
            let word = ChainHello::sign(&self.chain_id, &self.spec, &self.key);
            self.publish(ProposalPart::Chain(word)).await?;
        }
        let n = self.validators.validators().len();
        let quorum = n * 2 / 3 + 1;
        if self.foreign.len() > n - quorum && self.halting.is_none() {
            let elsewhere: BTreeSet<&String> = self.foreign.values().collect();
            let elsewhere: Vec<&str> = elsewhere.into_iter().map(String::as_str).collect();
            let why = format!(
                "{} of the {n} validators are on {}, not on {ours}, which this node's genesis names: without \
                 them no block can be decided; give every node the same genesis.json and a build of its spec; \
                 halting",
                self.foreign.len(),
                elsewhere.join(" or ")
            );
            self.halting = Some(Halting {
                why,
                ticks_left: HALT_TICKS,
                spoke: false,
            });
        }
        Ok(())
    }

    /// Checks a transaction as every node does: see [`check_tx`].
    fn tx_ok(&self, tx: &SignedTx) -> Result<(), String> {
        check_tx(&self.chain_id, &self.validators, tx)
    }

    /// The checks every validator makes of a block, none of them about the app's state: the height and
    /// proposer, the parent's app hash, time after the parent's (and, for a live proposal, not far ahead of
    /// this node's clock), each transaction signed by a validator, no transaction twice.
    fn check(
        &self,
        value: &BlockValue,
        height: Height,
        proposer: &Address,
        live: bool,
    ) -> Result<(), String> {
        if value.height != height.0 {
            return Err(format!(
                "block for height {} proposed at {height}",
                value.height
            ));
        }
        if value.proposer != *proposer {
            return Err(format!(
                "block by {} proposed by {proposer}",
                value.proposer
            ));
        }
        if height.0 == self.tip.height.saturating_add(1) {
            if live && value.prev_app_hash != self.tip.app_hash {
                return Err(format!(
                    "builds on app hash {}, ours is {}",
                    hex(&value.prev_app_hash[..8]),
                    hex(&self.tip.app_hash[..8])
                ));
            }
            if value.time_ms <= self.tip.time_ms {
                return Err(format!(
                    "time {} is not after the parent's {}",
                    value.time_ms, self.tip.time_ms
                ));
            }
        }
        if live && value.time_ms > now_ms().saturating_add(self.settings.max_clock_drift_ms) {
            return Err(format!(
                "time {} is too far ahead of this node's clock",
                value.time_ms
            ));
        }
        if value.txs.len() > MAX_BLOCK_TXS {
            return Err(format!("{} transactions", value.txs.len()));
        }
        let mut seen = BTreeSet::new();
        for tx in &value.txs {
            self.tx_ok(tx)?;
            if !seen.insert(tx.id()) {
                return Err("a transaction appears twice".into());
            }
        }
        Ok(())
    }

    /// Validates a signed block part for the current height and records it as a candidate, durably (a node that
    /// restarts at this height still holds every proposal it has seen, as the engine's log expects).
    fn receive_block(
        &mut self,
        part: SignedBlock,
    ) -> Result<Option<ProposedValue<FsmcContext>>, HostError> {
        let key = (part.height.0, part.value.id_bytes());
        if let Some(known) = self.candidates.get(&key)
            && known.part.is_some()
            && known.value.round == part.round
        {
            return Ok(Some(known.value.clone()));
        }
        let Some(proposer) = self.validators.proposer(part.height, part.round) else {
            return Ok(None);
        };
        let signed = proposer.public_key.verify(
            &SignedBlock::signing_bytes(part.height, part.round, &part.value),
            &part.signature,
        );
        if !signed {
            warn!(height = %part.height, round = %part.round, "dropped a proposal part not signed by the round's proposer");
            return Ok(None);
        }
        let proposer = proposer.address;
        let validity = match self.check(&part.value, part.height, &proposer, true) {
            Ok(()) => Validity::Valid,
            Err(why) => {
                warn!(height = %part.height, round = %part.round, %proposer, "invalid proposal: {why}");
                self.probe.rejected("invalid_proposal");
                Validity::Invalid
            }
        };
        if !self.store.has_proposal(&part) {
            // Not synced: lost only with the machine, and then value sync fetches the block again.
            self.store.save_proposal(part.clone(), false)?;
        }
        let value = ProposedValue {
            height: part.height,
            round: part.round,
            valid_round: Round::Nil,
            proposer,
            value: part.value.clone(),
            validity,
        };
        self.candidates.insert(
            key,
            Candidate {
                value: value.clone(),
                part: Some(part),
            },
        );
        Ok(Some(value))
    }
}
