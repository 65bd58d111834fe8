//! One node as one OS process: the replica on the calling thread, the engine on a Tokio runtime beside it,
//! joined by a [`ConsensusLayer`].

use std::fmt::{self, Display, Formatter};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::task::{Wake, Waker};
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio::sync::mpsc::UnboundedSender;
use tracing::info;

use fsmc_runtime::app::{
    Acted, AgentId, App, AppError, AppHash, AppRound, AppSpec, Block, BlockReport, ConsensusLayer,
    Drive, Genesis, Node, NodeError, Rejection, Tx,
};
use malachitebft_app_channel::app::types::Keypair;
use malachitebft_app_channel::app::types::codec::Codec;
use malachitebft_app_channel::{
    Channels, ConsensusContext, EngineHandle, NetworkContext, NetworkIdentity, RequestContext,
    Signer, SyncContext, WalContext, start_engine,
};

use crate::claim::{check_port, lock_home};
use crate::codec::BorshCodec;
use crate::config::{ConfigError, EngineConfig, Home, SpecMismatch};
use crate::host::{AppPort, Awaited, FromApp, Host, HostError, RestoreReply, Tip, ToApp, check_tx};
use crate::observe::{self, Probe};
use crate::signing::{Ed25519Provider, PrivateKey, hex};
use crate::store::{BlockStore, Opened, StoreError, StoredBlock, StoredSnapshot};
use crate::types::{Address, BlockValue, FsmcContext, SignedTx, ValidatorSet};

/// How long the node waits for a block or a wake before stepping anyway (a behaviour that forgot to wake).
const IDLE_WAIT: Duration = Duration::from_millis(100);

/// Why a node stopped.
#[derive(Debug)]
pub enum RunError {
    /// Its home directory is missing or wrong.
    Config(ConfigError),
    /// Its binary was built from another spec than the one its genesis names.
    Spec(SpecMismatch),
    /// Its block store is damaged or unreadable.
    Store(StoreError),
    /// Replaying its own store did not give back the app hashes it had stored.
    Replay {
        /// The first height that differs.
        height: u64,
        /// The hash stored with the block.
        stored: String,
        /// The hash the replay reached.
        replayed: String,
    },
    /// The replica refused a block.
    App(AppError),
    /// The engine could not start.
    Start(String),
    /// The engine side stopped the node (divergence, damage, a stopped engine).
    Halted(String),
}

impl Display for RunError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(e) => Display::fmt(e, f),
            Self::Spec(e) => Display::fmt(e, f),
            Self::Store(e) => write!(f, "{e}; halting"),
            Self::Replay {
                height,
                stored,
                replayed,
            } => write!(
                f,
                "replaying the block store diverged at height {height}: the store says app hash {stored}, the \
                 replica computes {replayed}; halting"
            ),
            Self::App(e) => write!(f, "the replica refused a block: {e}"),
            Self::Start(e) => write!(f, "the consensus engine did not start: {e}"),
            Self::Halted(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
    }
}

impl From<StoreError> for RunError {
    fn from(e: StoreError) -> Self {
        RunError::Store(e)
    }
}

/// The engine as the replica sees it: decided blocks in, app hashes and transactions out.
pub struct EngineLayer {
    blocks: Receiver<ToApp>,
    /// A message [`EngineLayer::wait`] received and the next step takes first.
    next: Option<ToApp>,
    commits: UnboundedSender<(u64, AppHash)>,
    to_host: UnboundedSender<FromApp>,
    /// Signs this node's transactions and checks them as peers will.
    signer: TxSigner,
    /// The transaction [`ConsensusLayer::check`] signed and passed, for `submit` to send.
    checked: Option<SignedTx>,
    /// The metrics and status the replica's side reports.
    probe: Probe,
    /// Every how many heights the replica's state is snapshotted (0: never), and the next height to.
    snapshot_interval: u64,
    next_snapshot: u64,
    /// A peer's snapshot the engine side verified, for the replica to restore before its next step.
    restore: Option<(StoredSnapshot, RestoreReply)>,
    /// Wakes the node's loop: given to the replica again after a restore.
    waker: Waker,
}

/// What a node needs to sign its own transactions and check them exactly as its peers check them.
struct TxSigner {
    chain_id: String,
    key: PrivateKey,
    validators: ValidatorSet,
}

impl EngineLayer {
    /// Waits until a block, a halt or a behaviour's wake arrives, or `timeout` passes; keeps it for the step.
    fn wait(&mut self, timeout: Duration) {
        if self.next.is_none() {
            match self.blocks.recv_timeout(timeout) {
                Ok(msg) => self.next = Some(msg),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.next = Some(ToApp::Halt("the consensus engine stopped".into()))
                }
            }
        }
    }

    /// Hands the engine side the replica's state once it reached the next snapshot height; the engine side
    /// stores it once the block of that height is stored.
    fn snapshot<S: AppSpec>(&mut self, app: &App<S>) -> Result<(), RunError> {
        if self.snapshot_interval == 0 || app.height() < self.next_snapshot {
            return Ok(());
        }
        let snapshot = StoredSnapshot {
            height: app.height(),
            app_hash: app.app_hash().0,
            state: app.snapshot().map_err(RunError::App)?,
        };
        self.next_snapshot = next_snapshot(app.height(), self.snapshot_interval);
        self.to_host
            .send(FromApp::Snapshot(snapshot))
            .map_err(|_| RunError::Halted("the consensus engine stopped".into()))
    }

    /// Tells the engine side which payloads the replica awaits now (after the payloads it submitted), so the
    /// next proposer knows whether to wait for them.
    fn awaiting<S: AppSpec>(&mut self, app: &App<S>) -> Result<(), Halted> {
        let sent: Vec<AgentId> = app.round().map(AppRound::senders).unwrap_or_default();
        let agents = app
            .genesis()
            .agents
            .iter()
            .filter(|a| app.expects(a) && !sent.contains(a))
            .filter_map(|a| Address::parse(a))
            .collect();
        let awaited = Awaited {
            height: app.height(),
            round: app.round_count(),
            agents,
        };
        self.to_host
            .send(FromApp::Awaiting(awaited))
            .map_err(|_| Halted("the consensus engine stopped".into()))
    }
}

/// The first snapshot height above `height`.
fn next_snapshot(height: u64, interval: u64) -> u64 {
    (height / interval.max(1))
        .saturating_add(1)
        .saturating_mul(interval.max(1))
}

/// Wakes the node's loop: a behaviour's work that can go on asks for a step.
struct LoopWaker(Sender<ToApp>);

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self.0.send(ToApp::Wake);
    }
}

/// The engine stopped the node.
#[derive(Debug)]
pub struct Halted(pub String);

impl Display for Halted {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Halted {}

impl ConsensusLayer for EngineLayer {
    type Error = Halted;

    fn submit(&mut self, tx: Vec<u8>) -> Result<(), Halted> {
        let signed = match self.checked.take() {
            Some(signed) if signed.data == tx => signed,
            _ => SignedTx::sign(&self.signer.chain_id, &self.signer.key, tx),
        };
        self.to_host
            .send(FromApp::Tx(signed))
            .map_err(|_| Halted("the consensus engine stopped".into()))
    }

    /// Signs the transaction and checks it as every peer will (size, signature, chain): a payload they would
    /// refuse never enters the mempool, where it would make every block this node proposes invalid.
    fn check(&mut self, tx: &[u8]) -> Result<(), String> {
        let signed = SignedTx::sign(&self.signer.chain_id, &self.signer.key, tx.to_vec());
        if let Err(why) = check_tx(&self.signer.chain_id, &self.signer.validators, &signed) {
            self.probe.rejected("own_payload_refused");
            return Err(why);
        }
        self.checked = Some(signed);
        Ok(())
    }

    /// What [`EngineLayer::wait`] received, then whatever else has arrived: never waits, so the replica acts
    /// on a new round as soon as its block is applied.
    fn next_block(&mut self) -> Result<Option<Block>, Halted> {
        loop {
            let msg = match self.next.take() {
                Some(msg) => msg,
                None => match self.blocks.try_recv() {
                    Ok(msg) => msg,
                    Err(TryRecvError::Empty) => return Ok(None),
                    Err(TryRecvError::Disconnected) => {
                        return Err(Halted("the consensus engine stopped".into()));
                    }
                },
            };
            match msg {
                ToApp::Block(block) => return Ok(Some(block)),
                ToApp::Halt(why) => return Err(Halted(why)),
                ToApp::Wake => {}
                // The engine side sends it only once every block before it is applied; nothing follows it
                // until the replica answers.
                ToApp::Restore(snapshot, reply) => {
                    self.restore = Some((snapshot, reply));
                    return Ok(None);
                }
            }
        }
    }

    fn commit(&mut self, height: u64, app_hash: AppHash) -> Result<(), Halted> {
        self.commits
            .send((height, app_hash))
            .map_err(|_| Halted("the consensus engine stopped".into()))
    }
}

/// The block the replica sees: content only (the proposer and the parent's hash stay with the engine).
pub fn app_block(value: &BlockValue) -> Block {
    Block {
        height: value.height,
        time_ms: value.time_ms,
        txs: value
            .txs
            .iter()
            .map(|tx| Tx {
                sender: tx.sender.to_string(),
                data: tx.data.clone(),
            })
            .collect(),
    }
}

/// What a running node reports: each applied block, and the blocks it replayed from its store at start.
pub trait Observer<S: AppSpec> {
    /// The store was replayed up to `height`, reaching `app_hash`.
    fn replayed(&mut self, _height: u64, _app_hash: AppHash) {}
    /// A decided block was applied; `app` is the replica after the blocks of this step.
    fn applied(&mut self, app: &App<S>, report: &BlockReport<S>);
    /// The behaviour's work for a round ended: submitted, abstained, panicked or cancelled.
    fn acted(&mut self, _app: &App<S>, _acted: &Acted) {}
}

/// Runs the node whose home is `home`, with `agent` as its behaviour and `logic` deciding the app's custom
/// rounds, until the engine or a check stops it.
///
/// First the genesis must name the spec fingerprint of `S`: a node built from another spec stops here, before
/// it opens its store. Then the node locks its home (a second process on it is refused) and checks that its
/// port is free. Before the engine starts, the replica replays the node's own block store, and each block
/// must give back the app hash stored with it. Never returns `Ok` on its own: a node runs until it is killed or halts.
pub fn run_node<S: Drive<B>, B: Send + Sync + 'static>(
    home: &Path,
    agent: Arc<B>,
    logic: Arc<S::Logic>,
    observer: &mut dyn Observer<S>,
) -> Result<(), RunError> {
    run_home(&Home::load(home)?, agent, logic, observer)
}

/// [`run_node`] for a home directory already loaded (and checked by whoever starts the node).
pub fn run_home<S: Drive<B>, B: Send + Sync + 'static>(
    home: &Home,
    agent: Arc<B>,
    logic: Arc<S::Logic>,
    observer: &mut dyn Observer<S>,
) -> Result<(), RunError> {
    home.genesis
        .check_spec(&S::FINGERPRINT)
        .map_err(RunError::Spec)?;
    // Held until the node stops: a second process on this home would open the same store and sign with the
    // same key.
    let _lock = lock_home(&home.dir)?;
    check_port(&home.settings.listen_addr, &home.dir)?;
    let endpoints = observe::bind(
        home.settings.metrics_addr.as_deref(),
        home.settings.status_addr.as_deref(),
        &home.dir,
    )?;
    let probe = Probe::new(&home.settings.moniker, &home.genesis.chain_id);
    let validators = home.genesis.validator_set()?;
    let opened = BlockStore::open(&home.data_dir())?;
    let mut node = new_node::<S, B>(home, agent, logic, opened.snapshot.as_ref())?;
    let tip = replay(&mut node, &opened.blocks)?;
    if tip.height > 0 {
        info!(height = tip.height, "replayed the block store");
        observer.replayed(tip.height, AppHash(tip.app_hash));
    }
    report(&probe, node.app());

    let (blocks_tx, blocks_rx) = std::sync::mpsc::channel();
    let waker = Waker::from(Arc::new(LoopWaker(blocks_tx.clone())));
    node.set_waker(waker.clone());
    let (commits_tx, commits_rx) = tokio::sync::mpsc::unbounded_channel();
    let (to_host, from_app) = tokio::sync::mpsc::unbounded_channel();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| RunError::Start(e.to_string()))?;
    let port = AppPort {
        blocks: blocks_tx,
        commits: commits_rx,
        from_app,
    };
    let signer = TxSigner {
        chain_id: home.genesis.chain_id.clone(),
        key: home.key.clone(),
        validators: validators.clone(),
    };
    for (listener, routes) in endpoints {
        runtime.spawn(observe::serve(listener, routes, probe.clone()));
    }
    spawn_engine(&runtime, home, validators, opened, tip, port, probe.clone())?;

    let mut layer = EngineLayer {
        blocks: blocks_rx,
        next: None,
        commits: commits_tx,
        to_host,
        signer,
        checked: None,
        probe,
        snapshot_interval: home.settings.snapshot_interval,
        next_snapshot: next_snapshot(tip.height, home.settings.snapshot_interval),
        restore: None,
        waker,
    };
    // Behaviours poll in this thread; their I/O (an HTTP call) runs on the engine's runtime.
    let error = {
        let _io = runtime.enter();
        drive(&mut node, &mut layer, observer)
    };
    // The engine's actors are cancelled; none of them may hold the process up.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Err(error)
}

/// The node's replica, for the agent `home`'s key names (the genesis validators are the app's agents): before
/// any block, or restored from `snapshot`, whose state must hash to the app hash stored with it.
fn new_node<S: Drive<B>, B: Send + Sync + 'static>(
    home: &Home,
    agent: Arc<B>,
    logic: Arc<S::Logic>,
    snapshot: Option<&StoredSnapshot>,
) -> Result<Node<S, B>, RunError> {
    let mut genesis = Genesis::new(home.agents()?, home.genesis.genesis_time_ms);
    genesis.history_depth = home.genesis.history_depth;
    let app = match snapshot {
        Some(s) => {
            let app = App::<S>::restore(genesis, logic, &s.state, AppHash(s.app_hash))
                .map_err(RunError::App)?;
            info!("restored the snapshot at height {}", s.height);
            app
        }
        None => App::<S>::with_rounds(genesis, logic).map_err(RunError::App)?,
    };
    let me = home.key.public_key().address();
    Ok(Node::new(app, me.to_string(), agent))
}

/// Recovery: the replica (at genesis, or restored from a snapshot) comes back to the state it had, block by
/// block, each checked against the hash stored with it, before the engine is asked for anything. Returns the
/// last block replayed (the replica's own height without one).
fn replay<S: Drive<B>, B: Send + Sync + 'static>(
    node: &mut Node<S, B>,
    blocks: &[StoredBlock],
) -> Result<Tip, RunError> {
    let mut tip = Tip {
        height: node.app().height(),
        time_ms: node.app().time_ms(),
        app_hash: node.app().app_hash().0,
    };
    for stored in blocks {
        let hash = node
            .replay(std::iter::once(&app_block(&stored.value)))
            .map_err(RunError::App)?;
        if hash.0 != stored.app_hash {
            return Err(RunError::Replay {
                height: stored.height,
                stored: hex(&stored.app_hash),
                replayed: hash.to_string(),
            });
        }
        tip = Tip {
            height: stored.height,
            time_ms: stored.value.time_ms,
            app_hash: hash.0,
        };
    }
    Ok(tip)
}

/// Starts the engine on `runtime`, with the host serving it and the replica at `port`; returns once the
/// engine has started, or with why it did not.
fn spawn_engine(
    runtime: &Runtime,
    home: &Home,
    validators: ValidatorSet,
    opened: Opened,
    tip: Tip,
    port: AppPort,
    probe: Probe,
) -> Result<(), RunError> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
    let chain_id = home.genesis.chain_id.clone();
    let spec = home.genesis.spec_fingerprint.clone().unwrap_or_default();
    let settings = home.settings.clone();
    let key = home.key.clone();
    let wal = home.data_dir().join("wal").join("consensus.wal");
    let engine_config = settings.engine_config()?;
    runtime.spawn(async move {
        let started = start_engine_for(&key, &settings.moniker, engine_config, wal).await;
        let (channels, engine) = match started {
            Ok(started) => {
                let _ = ready_tx.send(Ok(()));
                started
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
                return;
            }
        };
        let network = channels.network.clone();
        let mut host = Host::new(
            chain_id,
            spec,
            key,
            validators,
            settings,
            opened.store,
            tip,
            network,
            engine.actor.clone(),
            port,
            probe,
        );
        // The last blocks' transactions: a payload the replica sends again after a restart is not ordered
        // twice.
        let recent = opened.blocks.len().saturating_sub(1_000);
        for stored in opened.blocks.get(recent..).unwrap_or_default() {
            host.remember_committed(&stored.value.txs);
        }
        let why = host.run(channels).await;
        tracing::error!("{why}");
    });
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(RunError::Start(e)),
        Err(_) => Err(RunError::Start("the engine task ended".into())),
    }
}

/// Starts Malachite for the validator whose key is `key`: its network identity (with the proof that binds
/// the peer id to the validator key), write-ahead log, consensus, sync and request contexts.
async fn start_engine_for(
    key: &PrivateKey,
    moniker: &str,
    engine_config: EngineConfig,
    wal: PathBuf,
) -> Result<(Channels<FsmcContext>, EngineHandle), String> {
    let me = key.public_key().address();
    let provider = Ed25519Provider::new(key.clone());
    let keypair = Keypair::ed25519_from_bytes(key.to_bytes()).map_err(|e| e.to_string())?;
    let peer_id = keypair.public().to_peer_id();
    let proof = provider
        .sign_validator_proof(provider.public_key().0.to_vec(), peer_id.to_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let proof_bytes = BorshCodec.encode(&proof).map_err(|e| e.to_string())?;
    let identity =
        NetworkIdentity::new_validator(moniker.to_owned(), keypair, me.to_string(), proof_bytes);
    start_engine(
        FsmcContext,
        engine_config,
        WalContext::new(wal, BorshCodec),
        NetworkContext::new(identity, BorshCodec),
        ConsensusContext::new_validator(me, Box::new(provider.clone()), Box::new(provider.clone())),
        SyncContext::new(BorshCodec),
        RequestContext::new(100),
    )
    .await
    .map_err(|e| format!("{e:#}"))
}

/// Feeds the replica the engine's blocks and lets it act, until the engine or the replica stops; returns why.
/// It waits for a block, a halt or a behaviour's wake, then steps at once: a new round's payload leaves as
/// soon as the block that opened the round is applied.
fn drive<S: Drive<B>, B: Send + Sync + 'static>(
    node: &mut Node<S, B>,
    layer: &mut EngineLayer,
    observer: &mut dyn Observer<S>,
) -> RunError {
    if let Err(Halted(why)) = layer.awaiting(node.app()) {
        return RunError::Halted(why);
    }
    loop {
        layer.wait(IDLE_WAIT);
        match node.step(layer) {
            Ok(stepped) => {
                if !stepped.blocks.is_empty()
                    && let Err(Halted(why)) = layer.awaiting(node.app())
                {
                    return RunError::Halted(why);
                }
                for report in &stepped.blocks {
                    observer.applied(node.app(), report);
                    for rejected in &report.rejected {
                        layer.probe.rejected(&rejection_kind(&rejected.reason));
                    }
                }
                if !stepped.blocks.is_empty() {
                    report(&layer.probe, node.app());
                    if let Err(e) = layer.snapshot(node.app()) {
                        return e;
                    }
                }
                for acted in &stepped.acted {
                    observer.acted(node.app(), acted);
                }
                if let Some((snapshot, reply)) = layer.restore.take() {
                    let restored = restore_from_peer(node, layer, &snapshot);
                    let _ = reply.send(restored.map_err(|e| e.to_string()));
                }
            }
            Err(NodeError::Engine(Halted(why))) => return RunError::Halted(why),
            Err(NodeError::App(e)) => return RunError::App(e),
        }
    }
}

/// Replaces the replica by one restored from a peer's snapshot, which the engine side verified against a
/// commit certificate: `App::restore` recomputes the state's app hash and refuses any other, and the restored
/// height must be the snapshot's. The behaviour's work in flight is dropped with the old replica.
fn restore_from_peer<S: Drive<B>, B: Send + Sync + 'static>(
    node: &mut Node<S, B>,
    layer: &mut EngineLayer,
    snapshot: &StoredSnapshot,
) -> Result<(), String> {
    let app = node.app();
    let restored = App::<S>::restore(
        app.genesis().clone(),
        app.logic().clone(),
        &snapshot.state,
        AppHash(snapshot.app_hash),
    )
    .map_err(|e| e.to_string())?;
    if restored.height() != snapshot.height {
        return Err(format!(
            "it holds the state at height {}, not at {}",
            restored.height(),
            snapshot.height
        ));
    }
    *node = Node::new(restored, node.me().clone(), node.agent().clone());
    node.set_waker(layer.waker.clone());
    layer.next_snapshot = next_snapshot(snapshot.height, layer.snapshot_interval);
    info!(
        "restored the snapshot of a peer at height {}",
        snapshot.height
    );
    report(&layer.probe, node.app());
    layer.awaiting(node.app()).map_err(|Halted(why)| why)
}

/// Tells the metrics and the status where the replica is.
fn report<S: AppSpec>(probe: &Probe, app: &App<S>) {
    probe.applied(
        app.height(),
        app.app_hash().to_string(),
        app.state().to_string(),
        app.period(),
    );
}

/// The metric label of why the app rejected a transaction: `app_` and the kind of rejection, in snake case
/// (`app_wrong_round`).
fn rejection_kind(reason: &Rejection) -> String {
    let debug = format!("{reason:?}");
    let kind = debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or_default();
    let mut label = String::from("app");
    for c in kind.chars() {
        if c.is_ascii_uppercase() {
            label.push('_');
        }
        label.push(c.to_ascii_lowercase());
    }
    label
}

/// The stored (height, app hash) of every block in the store of the node at `home`, checked as at start.
pub fn stored_hashes(home: &Path) -> Result<Vec<(u64, AppHash)>, RunError> {
    Ok(BlockStore::read(&home.join("data"))?
        .iter()
        .map(|b| (b.height, AppHash(b.app_hash)))
        .collect())
}

/// Who the node at `home` is: its validator address, which is its agent's name in the app.
pub fn node_address(home: &Path) -> Result<String, RunError> {
    Ok(Home::load(home)?.key.public_key().address().to_string())
}

/// Makes the host error printable where the node reports it.
impl From<HostError> for RunError {
    fn from(e: HostError) -> Self {
        RunError::Halted(e.to_string())
    }
}
