//! The oracle replicated over Malachite as real OS processes on 127.0.0.1: the node binary is run directly,
//! ports are free ones the system hands out (so parallel runs do not collide), every wait has a deadline that
//! fails the test, the nodes' output goes to a temporary directory and is printed on failure, and every process
//! is killed when the test ends, passing or not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_malachite::config::{TestnetOptions, write_testnet};
use fsmc_malachite::launch::{NodeProcess, TraceLine, read_trace, trace_files};
use fsmc_malachite::{node_address, stored_hashes};
use fsmc_runtime::app::{AppHash, AppSpec};

const BINARY: &str = env!("CARGO_BIN_EXE_oracle-node");

/// The scenarios run one at a time: each is four processes on a two-core machine.
static SERIAL: Mutex<()> = Mutex::new(());

/// A local network under test. On a panic it prints every node's output and keeps the directory.
struct Net {
    dir: Option<tempfile::TempDir>,
    homes: Vec<PathBuf>,
    nodes: Vec<Option<NodeProcess>>,
    started: Instant,
    /// The whole scenario fails past this, whatever its steps allow.
    budget: Duration,
}

impl Net {
    fn new(nodes: usize, block_interval_ms: u64, budget: Duration) -> Net {
        let dir = tempfile::Builder::new()
            .prefix("fsmc-oracle-test-")
            .tempdir()
            .expect("a temporary directory");
        let options = TestnetOptions {
            block_interval_ms,
            timeout_propose_ms: 600,
            ..TestnetOptions::new(nodes, Spec::FINGERPRINT)
        };
        let homes = write_testnet(dir.path(), &options).expect("testnet");
        Net {
            dir: Some(dir),
            nodes: homes.iter().map(|_| None).collect(),
            homes,
            started: Instant::now(),
            budget,
        }
    }

    fn start(&mut self, i: usize) {
        self.start_with(i, &[]);
    }

    fn start_with(&mut self, i: usize, args: &[&str]) {
        let node = NodeProcess::start(Path::new(BINARY), &self.homes[i], args).expect("spawn");
        self.nodes[i] = Some(node);
    }

    fn start_all(&mut self) {
        for i in 0..self.homes.len() {
            self.start(i);
        }
    }

    /// `kill -9` of node `i`'s own process.
    fn kill(&mut self, i: usize) {
        if let Some(mut node) = self.nodes[i].take() {
            node.kill().expect("kill");
        }
    }

    fn stop_all(&mut self) {
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
    }

    /// Every (height, app hash) node `i` printed, across its restarts.
    fn trace(&self, i: usize) -> Vec<TraceLine> {
        read_trace(&trace_files(&self.homes[i]))
    }

    fn last(&self, i: usize) -> Option<TraceLine> {
        self.trace(i).pop()
    }

    fn height(&self, i: usize) -> u64 {
        self.last(i).map_or(0, |l| l.height)
    }

    fn period(&self, i: usize) -> u64 {
        self.last(i).map_or(0, |l| l.period)
    }

    /// Fails if a running node has exited.
    fn check_alive(&mut self) {
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if let Some(node) = node
                && let Some(status) = node.exited()
            {
                panic!("node-{i} exited unexpectedly ({status})");
            }
        }
    }

    /// Polls `done` until it holds; fails the test after `limit`, or when the scenario's budget is spent.
    fn wait(&mut self, what: &str, limit: Duration, mut done: impl FnMut(&Net) -> bool) {
        let start = Instant::now();
        let limit = limit.min(self.budget.saturating_sub(self.started.elapsed()));
        loop {
            self.check_alive();
            if done(self) {
                eprintln!(
                    "[{:>6.1}s] {what} (after {:.1}s)",
                    self.started.elapsed().as_secs_f64(),
                    start.elapsed().as_secs_f64()
                );
                return;
            }
            assert!(
                start.elapsed() < limit,
                "timed out after {limit:?} waiting until {what}; heights {:?}",
                (0..self.homes.len())
                    .map(|i| self.height(i))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        self.stop_all();
        if std::thread::panicking() {
            for home in &self.homes {
                for entry in std::fs::read_dir(home).into_iter().flatten().flatten() {
                    let path = entry.path();
                    if path.extension().is_some_and(|e| e == "log") {
                        let text = std::fs::read_to_string(&path).unwrap_or_default();
                        let lines: Vec<&str> = text.lines().collect();
                        let tail = lines.len().saturating_sub(40);
                        eprintln!(
                            "===== {} (last {} lines)",
                            path.display(),
                            lines.len() - tail
                        );
                        for line in &lines[tail..] {
                            eprintln!("{line}");
                        }
                    }
                }
            }
            if let Some(dir) = self.dir.take() {
                eprintln!("kept {}", dir.keep().display());
            }
        }
    }
}

/// A node's committed (height, app hash) sequence: starts at 1, no gap, no height twice with two hashes.
fn sequence(lines: &[TraceLine], who: &str) -> BTreeMap<u64, AppHash> {
    let mut seq = BTreeMap::new();
    for l in lines {
        if let Some(old) = seq.insert(l.height, l.app_hash) {
            assert_eq!(
                old, l.app_hash,
                "{who} committed height {} twice with two hashes",
                l.height
            );
        }
    }
    let heights: Vec<u64> = seq.keys().copied().collect();
    let expected: Vec<u64> = (1..=heights.len() as u64).collect();
    assert_eq!(
        heights, expected,
        "{who}: heights are not 1, 2, 3, … without gaps"
    );
    seq
}

/// Every pair of sequences agrees wherever both have a height.
fn agree(seqs: &[BTreeMap<u64, AppHash>]) {
    for (i, a) in seqs.iter().enumerate() {
        for (j, b) in seqs.iter().enumerate().skip(i + 1) {
            for (h, hash) in a {
                if let Some(other) = b.get(h) {
                    assert_eq!(hash, other, "node-{i} and node-{j} differ at height {h}");
                }
            }
        }
    }
}

#[test]
fn four_processes_agree_survive_kill_9_and_catch_up() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut net = Net::new(4, 150, Duration::from_secs(240));
    net.start_all();
    four_agree_on_30_heights(&mut net);
    let (victim, before_kill) = kill_a_non_keeper(&mut net);
    restart_and_catch_up(&mut net, victim);
    net.stop_all();
    stores_agree_and_lose_nothing(&net, victim, &before_kill);
    a_damaged_store_is_refused(&mut net, victim);
}

/// Four processes decide at least 30 heights with the same app hash at every height, and transactions reach
/// every proposer.
fn four_agree_on_30_heights(net: &mut Net) {
    net.wait(
        "every node decided 30 heights",
        Duration::from_secs(90),
        |net| (0..4).all(|i| net.height(i) >= 30),
    );
    let seqs: Vec<_> = (0..4)
        .map(|i| sequence(&net.trace(i), &format!("node-{i}")))
        .collect();
    agree(&seqs);
    for s in &seqs {
        assert!(s.len() >= 30);
    }
    // Most blocks that end a round hold the payloads of at least three agents, though each block has one
    // proposer.
    let full = net
        .trace(0)
        .iter()
        .filter(|l| l.height <= 30 && l.txs >= 3)
        .count();
    assert!(
        full >= 10,
        "only {full} of the first 30 blocks hold 3 payloads or more"
    );
}

/// Kills one node with SIGKILL, one that is not the keeper of the current period (a dead keeper stalls its
/// period until the keeper timeout, 90 s of block time); the other three keep deciding and complete a period.
/// Returns the node and what it had printed before it died.
fn kill_a_non_keeper(net: &mut Net) -> (usize, Vec<TraceLine>) {
    net.wait("a keeper is elected", Duration::from_secs(60), |net| {
        net.last(0).is_some_and(|l| l.keeper.is_some())
    });
    let keeper = net.last(0).and_then(|l| l.keeper).expect("keeper");
    let victim = (0..4)
        .rev()
        .find(|&i| node_address(&net.homes[i]).expect("address") != keeper)
        .expect("a node that is not the keeper");
    let pid = net.nodes[victim].as_ref().and_then(NodeProcess::pid);
    let before_kill = net.trace(victim);
    net.kill(victim);
    eprintln!(
        "killed node-{victim} (pid {pid:?}) at height {}",
        before_kill.last().map_or(0, |l| l.height)
    );
    let others: Vec<usize> = (0..4).filter(|&i| i != victim).collect();
    let (h0, p0) = (net.height(others[0]), net.period(others[0]));
    net.wait(
        "the other three decided 25 more heights and completed a period",
        Duration::from_secs(90),
        |net| {
            others
                .iter()
                .all(|&i| net.height(i) >= h0 + 25 && net.period(i) > p0)
        },
    );
    (victim, before_kill)
}

/// Restarted, the node replays its store, catches up through sync, and goes on with the others.
fn restart_and_catch_up(net: &mut Net, victim: usize) {
    net.start_with(victim, &["--log", "debug"]);
    let target = (0..4)
        .filter(|&i| i != victim)
        .map(|i| net.height(i))
        .max()
        .unwrap_or(0);
    net.wait(
        "the restarted node caught up",
        Duration::from_secs(90),
        |net| net.height(victim) >= target,
    );
    let p1 = (0..4).map(|i| net.period(i)).max().unwrap_or(0);
    net.wait(
        "all four completed a whole period together",
        Duration::from_secs(120),
        |net| (0..4).all(|i| net.period(i) > p1 + 1),
    );
}

/// Every node's store holds a gap-free sequence, identical across nodes, the restarted node's included, and
/// nothing committed is lost.
fn stores_agree_and_lose_nothing(net: &Net, victim: usize, before_kill: &[TraceLine]) {
    let stores: Vec<BTreeMap<u64, AppHash>> = (0..4)
        .map(|i| {
            let stored: Vec<TraceLine> = stored_hashes(&net.homes[i])
                .expect("store")
                .into_iter()
                .map(|(height, app_hash)| TraceLine {
                    height,
                    app_hash,
                    period: 0,
                    keeper: None,
                    state: String::new(),
                    txs: 0,
                    time_ms: 0,
                })
                .collect();
            sequence(&stored, &format!("node-{i}'s store"))
        })
        .collect();
    agree(&stores);
    // Every height a node printed (before and after the crash, for the restarted one) is in its store with the
    // same hash. (A node killed between storing a block and printing it shows that height only in its store.)
    for (i, stored) in stores.iter().enumerate() {
        for l in net.trace(i) {
            assert_eq!(
                stored.get(&l.height),
                Some(&l.app_hash),
                "node-{i}'s store at height {}",
                l.height
            );
        }
        assert!(stored.len() as u64 >= net.height(i));
    }
    assert!(
        before_kill
            .iter()
            .all(|l| stores[victim].contains_key(&l.height))
    );
    let replayed =
        std::fs::read_to_string(net.homes[victim].join("stdout.1.log")).unwrap_or_default();
    assert!(
        replayed.starts_with("replayed height="),
        "the restart replayed the store: {replayed:.200}"
    );
    let log = std::fs::read_to_string(net.homes[victim].join("stderr.1.log")).unwrap_or_default();
    assert!(
        log.contains("via=sync"),
        "the restarted node caught up through value sync"
    );
}

/// A damaged store: the node refuses to start from it, with a clear error.
fn a_damaged_store_is_refused(net: &mut Net, victim: usize) {
    let blocks = net.homes[victim].join("data").join("blocks.dat");
    let mut bytes = std::fs::read(&blocks).expect("store");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&blocks, bytes).expect("write");
    net.start(victim);
    let node = net.nodes[victim].as_mut().expect("started");
    let status = node
        .wait_exit(Duration::from_secs(30))
        .expect("the node stops by itself");
    assert!(!status.success());
    let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
    assert!(log.contains("is corrupt at byte"), "stderr: {log}");
    net.nodes[victim] = None;
}

#[test]
fn a_node_whose_app_hash_diverges_halts_and_the_others_go_on() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut net = Net::new(4, 150, Duration::from_secs(120));
    // Node 3 is misconfigured: its genesis starts the app one millisecond later, so its app hash differs from
    // the others' from the start (the validator set is the same, so consensus itself is unaffected).
    let path = net.homes[3].join("genesis.json");
    let text = std::fs::read_to_string(&path).expect("genesis");
    let mut genesis: serde_json::Value = serde_json::from_str(&text).expect("json");
    let time = genesis["genesis_time_ms"].as_u64().expect("time");
    genesis["genesis_time_ms"] = serde_json::json!(time + 1);
    std::fs::write(&path, genesis.to_string()).expect("write");
    net.start_all();

    let diverged = {
        let node = net.nodes[3].as_mut().expect("started");
        node.wait_exit(Duration::from_secs(60))
            .expect("the diverging node halts")
    };
    assert!(!diverged.success());
    let log =
        std::fs::read_to_string(&net.nodes[3].as_ref().expect("node").stderr).unwrap_or_default();
    assert!(log.contains("app hash diverged at height"), "stderr: {log}");
    net.nodes[3] = None;
    // It applied nothing past the divergence.
    assert_eq!(net.height(3), 0, "node-3 applied a block");

    // Three of four are a quorum: the others go on and agree (the registration at start needs all four agents,
    // so the app stays in it, but blocks keep coming).
    net.wait(
        "the other three decided 15 heights",
        Duration::from_secs(60),
        |net| (0..3).all(|i| net.height(i) >= 15),
    );
    net.stop_all();
    let seqs: Vec<_> = (0..3)
        .map(|i| sequence(&net.trace(i), &format!("node-{i}")))
        .collect();
    agree(&seqs);
}
