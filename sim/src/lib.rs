//! A deterministic, seeded, in-process network of replicas of one app: the consensus layer for tests,
//! examples and benchmarks, before (and beside) a real engine.
//!
//! Each agent instance is a [`Node`] with its own replica of the app, driven through the same
//! [`ConsensusLayer`] trait a real engine implements. The network models an ordering service, not a voting
//! protocol: at every block interval the next proposer in turn (skipping replicas that are down or cut
//! off) orders the transactions that have reached it into a block with a monotonic block time, and every
//! replica it can reach receives the block after a random delay. Transactions travel from their sender to
//! every reachable replica with random delays too, so blocks hold several payloads in varying orders, and
//! payloads sometimes miss a block and land in the next.
//!
//! Faults: crash and restart (a restarted replica replays its own stored blocks, must come back to the
//! same app hash, then syncs what it missed), partitions (cut-off replicas neither send nor receive until
//! healed, then sync), silent agents, and Byzantine agents that send conflicting and malformed payloads.
//!
//! Everything is a function of the seed: the event queue is ordered by (time, sequence number), every
//! collection is ordered, and the only randomness is a seeded ChaCha generator.

use fsmc_runtime::app::{
    Acted, AgentId, App, AppError, AppHash, AppSpec, Block, BlockReport, Cause, ConsensusLayer,
    Drive, Genesis, NoRounds, Node, NodeError, Submission, Tx, now_or_never,
};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::convert::Infallible;
use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

/// How the simulated network behaves.
#[derive(Clone, Debug)]
pub struct Config {
    /// Seeds every random choice: the same seed gives the same run.
    pub seed: u64,
    /// The genesis time, in milliseconds.
    pub genesis_time_ms: u64,
    /// Time between two block proposals (plus up to a tenth of it at random).
    pub block_interval_ms: u64,
    /// The range of one-way message delays, inclusive.
    pub latency_ms: (u64, u64),
    /// Periods of synchronized data each replica keeps.
    pub history_depth: usize,
    /// Whether to record what every replica did at every height (for traces).
    pub trace: bool,
    /// Whether behaviours do real I/O (an HTTP call): then simulated time waits for them, one poll every
    /// [`Config::poll_ms`] of real and simulated time, instead of running ahead while they wait. Off, a
    /// behaviour must finish without waiting, and the run is a function of the seed alone.
    pub real_io: bool,
    /// How often a replica whose behaviour waits is polled, in milliseconds.
    pub poll_ms: u64,
}

impl Config {
    /// One-second blocks, 5–250 ms delays, three periods of history, traces on.
    pub fn new(seed: u64) -> Config {
        Config {
            seed,
            genesis_time_ms: 0,
            block_interval_ms: 1_000,
            latency_ms: (5, 250),
            history_depth: 3,
            trace: true,
            real_io: false,
            poll_ms: 10,
        }
    }
}

/// How an agent misbehaves.
pub enum Fault<S: AppSpec, B> {
    /// It follows its behaviour.
    Honest,
    /// It sends nothing while the app is in a state the predicate accepts (a keeper that never submits).
    SilentIn(fn(S::State) -> bool),
    /// Besides its honest payload, every round it sends a payload computed by this other behaviour (before or
    /// after the honest one, at random, and even in rounds where it is not expected to send), bytes that are
    /// not a submission, its payload addressed to another round, and a payload that is not of the round's
    /// type.
    Byzantine(Arc<B>),
}

/// A replica's view of one height, recorded when it applied the block.
#[derive(Clone, Debug)]
pub struct Applied {
    /// The state after the block.
    pub state: &'static str,
    /// The period after the block.
    pub period: u64,
    /// The app hash after the block.
    pub hash: AppHash,
    /// The transitions the block caused.
    pub steps: Vec<Transition>,
    /// How many of the block's transactions this replica rejected.
    pub rejected: usize,
}

/// One transition a replica made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The state left.
    pub from: &'static str,
    /// The event.
    pub event: String,
    /// The state entered.
    pub to: &'static str,
    /// A decision or a timeout.
    pub cause: Cause,
}

/// One height of the chain and what each replica made of it.
#[derive(Clone, Debug)]
pub struct Height {
    /// The height.
    pub height: u64,
    /// The block time.
    pub time_ms: u64,
    /// Which replica proposed the block.
    pub proposer: usize,
    /// How many transactions it held.
    pub txs: usize,
    /// Per replica, what it did with the block (`None` if it has not applied it, or applied it while
    /// replaying its store).
    pub replicas: Vec<Option<Applied>>,
}

/// Why a run stopped.
#[derive(Debug)]
pub enum SimError {
    /// A replica could not apply a block (a bug in the app or the simulation).
    App(usize, AppError),
    /// A behaviour's payload could not be encoded.
    Node(usize, String),
    /// A restarted replica replayed its store to a different hash than it had before the crash.
    RestartDiverged {
        /// The replica.
        replica: usize,
        /// The height of its last stored block.
        height: u64,
    },
}

impl Display for SimError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::App(i, e) => write!(f, "replica {i}: {e}"),
            Self::Node(i, e) => write!(f, "replica {i}: {e}"),
            Self::RestartDiverged { replica, height } => write!(
                f,
                "replica {replica} replayed its store to a different hash at height {height}"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// Two replicas committed different hashes at one height.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The height.
    pub height: u64,
    /// The replicas and their hashes there.
    pub hashes: Vec<(usize, AppHash)>,
}

/// The simulation's side of [`ConsensusLayer`] for one replica: blocks in, transactions and commits out.
#[derive(Default)]
struct Port {
    blocks: VecDeque<Block>,
    outbox: Vec<Vec<u8>>,
    commits: Vec<(u64, AppHash)>,
}

impl ConsensusLayer for Port {
    type Error = Infallible;

    fn submit(&mut self, tx: Vec<u8>) -> Result<(), Infallible> {
        self.outbox.push(tx);
        Ok(())
    }

    fn next_block(&mut self) -> Result<Option<Block>, Infallible> {
        Ok(self.blocks.pop_front())
    }

    fn commit(&mut self, height: u64, app_hash: AppHash) -> Result<(), Infallible> {
        self.commits.push((height, app_hash));
        Ok(())
    }
}

struct Replica<S: AppSpec, B> {
    id: AgentId,
    /// `None` while crashed.
    node: Option<Node<S, B>>,
    /// Durable: every block this replica applied, kept across crashes.
    store: Vec<Block>,
    /// The highest height delivered to it.
    known: u64,
    isolated: bool,
    fault: Fault<S, B>,
    /// Every (height, hash) it committed, across restarts.
    log: Vec<(u64, AppHash)>,
    /// What became of its behaviour's work, with the simulated time, across restarts.
    acted: Vec<(u64, Acted)>,
}

enum Msg {
    Propose,
    Tx { to: usize, tx: Tx },
    Block { to: usize, height: u64 },
    Sync { to: usize },
    Poll { to: usize },
}

/// A network of replicas of app `S`, each agent running a behaviour of type `B`.
pub struct Network<S: AppSpec, B> {
    config: Config,
    genesis: Genesis,
    rng: ChaCha8Rng,
    now: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Msg>,
    chain: Vec<Block>,
    proposers: Vec<usize>,
    /// Per replica: the transactions that reached it and are not in a block yet, in arrival order.
    mempools: Vec<BTreeMap<u64, Tx>>,
    /// Transactions already in a block, so a late copy is not ordered twice.
    included: BTreeSet<Tx>,
    replicas: Vec<Replica<S, B>>,
    trace: Vec<Height>,
    logic: Arc<S::Logic>,
}

impl<S: AppSpec<Logic = NoRounds> + Drive<B>, B: Send + Sync + 'static> Network<S, B> {
    /// A network of one replica per agent, each running its behaviour, all at genesis.
    pub fn new(config: Config, agents: Vec<(AgentId, Arc<B>)>) -> Result<Self, SimError> {
        Network::with_rounds(config, agents, Arc::new(NoRounds))
    }
}

impl<S: AppSpec + Drive<B>, B: Send + Sync + 'static> Network<S, B> {
    /// A network of one replica per agent, each running its behaviour, all at genesis, with `logic` deciding
    /// the app's custom rounds on every replica.
    pub fn with_rounds(
        config: Config,
        agents: Vec<(AgentId, Arc<B>)>,
        logic: Arc<S::Logic>,
    ) -> Result<Self, SimError> {
        let mut genesis = Genesis::new(
            agents.iter().map(|(id, _)| id.clone()),
            config.genesis_time_ms,
        );
        genesis.history_depth = config.history_depth;
        let mut replicas = Vec::new();
        for (i, (id, agent)) in agents.into_iter().enumerate() {
            let app = App::with_rounds(genesis.clone(), Arc::clone(&logic))
                .map_err(|e| SimError::App(i, e))?;
            replicas.push(Replica {
                node: Some(Node::new(app, id.clone(), agent)),
                id,
                store: Vec::new(),
                known: 0,
                isolated: false,
                fault: Fault::Honest,
                log: Vec::new(),
                acted: Vec::new(),
            });
        }
        let n = replicas.len();
        let mut net = Network {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            now: config.genesis_time_ms,
            seq: 0,
            queue: BTreeMap::new(),
            chain: Vec::new(),
            proposers: Vec::new(),
            mempools: vec![BTreeMap::new(); n],
            included: BTreeSet::new(),
            replicas,
            trace: Vec::new(),
            genesis,
            config,
            logic,
        };
        // Every agent acts on the first round before any block.
        for i in 0..n {
            net.run_replica(i)?;
        }
        let first = net.now + net.config.block_interval_ms;
        net.schedule(first, Msg::Propose);
        Ok(net)
    }

    /// Makes replica `i` misbehave as `fault` says from now on.
    pub fn set_fault(&mut self, i: usize, fault: Fault<S, B>) {
        if let Some(r) = self.replicas.get_mut(i) {
            r.fault = fault;
        }
    }

    /// Crashes replica `i`: it stops at once, keeping only its durable store of applied blocks.
    pub fn crash(&mut self, i: usize) {
        if let Some(r) = self.replicas.get_mut(i) {
            r.node = None;
        }
    }

    /// Restarts crashed replica `i` with `agent`: a replica at genesis replays the blocks in its store, must
    /// come back to the hash it had committed, then syncs the blocks it missed from the network.
    pub fn restart(&mut self, i: usize, agent: Arc<B>) -> Result<(), SimError> {
        let Some(r) = self.replicas.get_mut(i) else {
            return Ok(());
        };
        let app = App::with_rounds(self.genesis.clone(), Arc::clone(&self.logic))
            .map_err(|e| SimError::App(i, e))?;
        let mut node = Node::new(app, r.id.clone(), agent);
        let hash = node.replay(&r.store).map_err(|e| SimError::App(i, e))?;
        if let Some(&(height, before)) = r.log.last()
            && before != hash
        {
            return Err(SimError::RestartDiverged { replica: i, height });
        }
        r.known = node.app().height();
        r.node = Some(node);
        let at = self.now + self.latency();
        self.schedule(at, Msg::Sync { to: i });
        Ok(())
    }

    /// Cuts the replicas in `group` off from the others (and from each other): they neither send nor
    /// receive until [`Network::heal`].
    pub fn isolate(&mut self, group: &[usize]) {
        for &i in group {
            if let Some(r) = self.replicas.get_mut(i) {
                r.isolated = true;
            }
        }
    }

    /// Reconnects every isolated replica; each syncs the blocks it missed.
    pub fn heal(&mut self) {
        for i in 0..self.replicas.len() {
            if self.replicas[i].isolated {
                self.replicas[i].isolated = false;
                let at = self.now + self.latency();
                self.schedule(at, Msg::Sync { to: i });
            }
        }
    }

    /// Runs the network for `ms` milliseconds of simulated time.
    pub fn run_for(&mut self, ms: u64) -> Result<(), SimError> {
        let until = self.now.saturating_add(ms);
        while let Some(entry) = self.queue.first_entry() {
            if entry.key().0 > until {
                break;
            }
            let ((time, _), msg) = entry.remove_entry();
            self.now = time;
            self.handle(msg)?;
        }
        self.now = self.now.max(until);
        Ok(())
    }

    /// Runs until `done` holds (checked after every event) or `limit_ms` of simulated time pass; says
    /// whether `done` held.
    pub fn run_until(
        &mut self,
        limit_ms: u64,
        mut done: impl FnMut(&Self) -> bool,
    ) -> Result<bool, SimError> {
        let until = self.now.saturating_add(limit_ms);
        while !done(self) {
            let Some(entry) = self.queue.first_entry() else {
                return Ok(false);
            };
            if entry.key().0 > until {
                return Ok(false);
            }
            let ((time, _), msg) = entry.remove_entry();
            self.now = time;
            self.handle(msg)?;
        }
        Ok(true)
    }

    fn handle(&mut self, msg: Msg) -> Result<(), SimError> {
        match msg {
            Msg::Propose => {
                self.propose();
                let jitter = self.below(self.config.block_interval_ms / 10 + 1);
                let next = self.now + self.config.block_interval_ms + jitter;
                self.schedule(next, Msg::Propose);
            }
            Msg::Tx { to, tx } => {
                let r = &self.replicas[to];
                if r.node.is_some() && !r.isolated && !self.included.contains(&tx) {
                    let seq = self.next_seq();
                    self.mempools[to].insert(seq, tx);
                }
            }
            Msg::Block { to, height } => {
                let r = &mut self.replicas[to];
                if r.node.is_some() && !r.isolated {
                    r.known = r.known.max(height);
                    self.run_replica(to)?;
                }
            }
            Msg::Sync { to } => {
                let head = self.chain.len() as u64;
                let r = &mut self.replicas[to];
                if r.node.is_some() && !r.isolated {
                    r.known = head;
                    self.run_replica(to)?;
                }
            }
            Msg::Poll { to } => {
                if self.config.real_io {
                    std::thread::sleep(std::time::Duration::from_millis(self.config.poll_ms));
                }
                if self.replicas[to].node.is_some() {
                    self.run_replica(to)?;
                }
            }
        }
        Ok(())
    }

    /// The next proposer in turn that is up and connected orders what reached it into a block.
    fn propose(&mut self) {
        let n = self.replicas.len();
        let height = self.chain.len() as u64 + 1;
        let start = (height as usize).saturating_sub(1) % n.max(1);
        let Some(p) = (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| self.replicas[i].node.is_some() && !self.replicas[i].isolated)
        else {
            return;
        };
        let txs: Vec<Tx> = std::mem::take(&mut self.mempools[p])
            .into_values()
            .collect();
        let mut seen = BTreeSet::new();
        let txs: Vec<Tx> = txs.into_iter().filter(|t| seen.insert(t.clone())).collect();
        for pool in &mut self.mempools {
            pool.retain(|_, t| !seen.contains(t));
        }
        // Remember recent inclusions only: a copy still in flight arrives within one latency bound.
        self.included.extend(seen);
        if self.included.len() > 4096 {
            self.included.clear();
        }
        let block = Block {
            height,
            time_ms: self.now,
            txs,
        };
        if self.config.trace {
            self.trace.push(Height {
                height,
                time_ms: self.now,
                proposer: p,
                txs: block.txs.len(),
                replicas: vec![None; n],
            });
        }
        self.chain.push(block);
        self.proposers.push(p);
        for to in 0..n {
            let at = if to == p {
                self.now
            } else {
                self.now + self.latency()
            };
            self.schedule(at, Msg::Block { to, height });
        }
    }

    /// Applies the blocks replica `i` knows of, lets it act, and sends what it submitted.
    fn run_replica(&mut self, i: usize) -> Result<(), SimError> {
        let mut port = Port::default();
        let r = &mut self.replicas[i];
        let Some(node) = r.node.as_mut() else {
            return Ok(());
        };
        let applied = node.app().height();
        let from = usize::try_from(applied).unwrap_or(usize::MAX);
        let to = usize::try_from(r.known)
            .unwrap_or(usize::MAX)
            .min(self.chain.len());
        if let Some(blocks) = self.chain.get(from..to) {
            port.blocks.extend(blocks.iter().cloned());
        }
        let stepped = node.step(&mut port).map_err(|e| match e {
            NodeError::App(e) => SimError::App(i, e),
            NodeError::Engine(never) => match never {},
        })?;
        let reports = stepped.blocks;
        let now = self.now;
        r.acted.extend(stepped.acted.into_iter().map(|a| (now, a)));
        let working = node.is_working();
        let state = node.app().state();
        for report in &reports {
            if let Some(b) = self.chain.get(
                usize::try_from(report.height)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(1),
            ) {
                r.store.push(b.clone());
            }
        }
        r.log.extend(port.commits.iter().copied());
        let mut outbox = port.outbox;
        match &mut r.fault {
            Fault::Honest => {}
            Fault::SilentIn(silent) => {
                if silent(state) {
                    outbox.clear();
                }
            }
            Fault::Byzantine(evil) => {
                let app = node.app();
                let round = app.round_count();
                // The other behaviour's payload, when it has one at once: sent even where this agent is not
                // expected to send.
                let evil_tx = app
                    .context(&r.id)
                    .and_then(|ctx| S::act(evil, ctx))
                    .and_then(now_or_never)
                    .and_then(Result::ok)
                    .map(|payload| app.submission(payload));
                let mut extra = Vec::new();
                if let Some(tx) = evil_tx {
                    extra.push(tx);
                }
                if app.round().is_some() {
                    let honest = outbox
                        .first()
                        .and_then(|tx| Submission::decode(tx))
                        .map_or_else(Vec::new, |s| s.payload);
                    extra.push(vec![0xde, 0xad, 0xbe, 0xef]);
                    extra.push(
                        Submission {
                            round: round.wrapping_add(1),
                            payload: honest.clone(),
                        }
                        .encode(),
                    );
                    extra.push(
                        Submission {
                            round,
                            payload: vec![0xff; 3],
                        }
                        .encode(),
                    );
                }
                outbox.extend(extra);
                // The conflicting payload goes first half of the time, so sometimes it is the one counted.
                if outbox.len() > 1 && self.rng.next_u64().is_multiple_of(2) {
                    outbox.swap(0, 1);
                }
            }
        }
        if self.config.trace {
            self.record(i, &reports);
        }
        if working {
            let at = self.now + self.config.poll_ms;
            self.schedule(at, Msg::Poll { to: i });
        }
        let sender = self.replicas[i].id.clone();
        for data in outbox {
            let tx = Tx {
                sender: sender.clone(),
                data,
            };
            self.broadcast(i, tx);
        }
        Ok(())
    }

    fn record(&mut self, i: usize, reports: &[BlockReport<S>]) {
        let Some(node) = self.replicas[i].node.as_ref() else {
            return;
        };
        for report in reports {
            let Some(h) = self.trace.get_mut(
                usize::try_from(report.height)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(1),
            ) else {
                continue;
            };
            if let Some(slot) = h.replicas.get_mut(i) {
                *slot = Some(Applied {
                    // The state after the block is the last step's target, or unchanged.
                    state: report
                        .steps
                        .last()
                        .map_or(S::state_name(node.app().state()), |s| S::state_name(s.to)),
                    period: node.app().period(),
                    hash: report.app_hash,
                    steps: report
                        .steps
                        .iter()
                        .map(|s| Transition {
                            from: S::state_name(s.from),
                            event: s.event.to_string(),
                            to: S::state_name(s.to),
                            cause: s.cause,
                        })
                        .collect(),
                    rejected: report.rejected.len(),
                });
            }
        }
    }

    /// Sends `tx` from replica `from` to every replica it can reach, itself included at once.
    fn broadcast(&mut self, from: usize, tx: Tx) {
        if self.replicas[from].isolated {
            return;
        }
        for to in 0..self.replicas.len() {
            let at = if to == from {
                self.now
            } else {
                self.now + self.latency()
            };
            self.schedule(at, Msg::Tx { to, tx: tx.clone() });
        }
    }

    fn schedule(&mut self, at: u64, msg: Msg) {
        let seq = self.next_seq();
        self.queue.insert((at, seq), msg);
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn latency(&mut self) -> u64 {
        let (lo, hi) = self.config.latency_ms;
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n.max(1)
    }
}

impl<S: AppSpec, B> Network<S, B> {
    /// Simulated time now.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The committed blocks.
    pub fn chain(&self) -> &[Block] {
        &self.chain
    }

    /// How many replicas there are.
    pub fn len(&self) -> usize {
        self.replicas.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.replicas.is_empty()
    }

    /// Replica `i`'s app, unless it is crashed.
    pub fn app(&self, i: usize) -> Option<&App<S>> {
        self.replicas.get(i)?.node.as_ref().map(Node::app)
    }

    /// Replica `i`'s behaviour, unless it is crashed.
    pub fn agent(&self, i: usize) -> Option<&Arc<B>> {
        self.replicas.get(i)?.node.as_ref().map(Node::agent)
    }

    /// What became of replica `i`'s behaviour's work, round by round, with the simulated time: payloads
    /// submitted, abstentions, panics, work cancelled when its round ended.
    pub fn acted(&self, i: usize) -> &[(u64, Acted)] {
        self.replicas.get(i).map_or(&[], |r| r.acted.as_slice())
    }

    /// The agent of replica `i`.
    pub fn id(&self, i: usize) -> Option<&AgentId> {
        self.replicas.get(i).map(|r| &r.id)
    }

    /// The replica of agent `id`.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.replicas.iter().position(|r| r.id == id)
    }

    /// Every (height, app hash) replica `i` committed, across its restarts.
    pub fn log(&self, i: usize) -> &[(u64, AppHash)] {
        self.replicas.get(i).map_or(&[], |r| r.log.as_slice())
    }

    /// What every replica did at every height (when tracing).
    pub fn trace(&self) -> &[Height] {
        &self.trace
    }

    /// Checks that no two replicas committed different hashes at the same height, and that every replica
    /// committed each height at most once, in order.
    pub fn agreement(&self) -> Result<(), Divergence> {
        let mut by_height: BTreeMap<u64, Vec<(usize, AppHash)>> = BTreeMap::new();
        for (i, r) in self.replicas.iter().enumerate() {
            for &(h, hash) in &r.log {
                by_height.entry(h).or_default().push((i, hash));
            }
            if r.log.windows(2).any(|w| w[1].0 != w[0].0 + 1) {
                let height = r.log.first().map_or(0, |f| f.0);
                return Err(Divergence {
                    height,
                    hashes: r.log.iter().map(|&(_, h)| (i, h)).collect(),
                });
            }
        }
        for (height, hashes) in by_height {
            if hashes.windows(2).any(|w| w[0].1 != w[1].1) {
                return Err(Divergence { height, hashes });
            }
        }
        Ok(())
    }
}
