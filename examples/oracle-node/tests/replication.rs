//! The oracle replicated over Malachite as real OS processes on 127.0.0.1: the node binary is run directly,
//! ports are free ones the system hands out (so parallel runs do not collide), every wait has a deadline that
//! fails the test, the nodes' output goes to a temporary directory and is printed on failure, and every process
//! is killed when the test ends, passing or not.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_malachite::config::TestnetOptions;
use fsmc_malachite::launch::TraceLine;
use fsmc_malachite::local::{LocalNet, agree, sequence, stored_lines};
use fsmc_malachite::{node_address, stored_hashes};
use fsmc_runtime::app::{AppHash, AppSpec};

const BINARY: &str = env!("CARGO_BIN_EXE_oracle-node");

/// The scenarios run one at a time: each is four processes on a two-core machine.
static SERIAL: Mutex<()> = Mutex::new(());

/// A local network of oracle nodes; every wait of the scenario fails past `budget`.
fn network(nodes: usize, block_interval_ms: u64, budget: Duration) -> LocalNet {
    let options = TestnetOptions {
        block_interval_ms,
        timeout_propose_ms: 600,
        ..TestnetOptions::new(nodes, Spec::FINGERPRINT)
    };
    LocalNet::new(
        "fsmc-oracle-test",
        Path::new(BINARY),
        &["start"],
        &options,
        budget,
    )
    .expect("testnet")
}

/// Waits until `done` holds, printing how long it took; fails the test on a timeout or an exited node.
fn wait(net: &mut LocalNet, what: &str, limit: Duration, done: impl FnMut(&LocalNet) -> bool) {
    match net.wait(what, limit, done) {
        Ok(took) => eprintln!(
            "[{:>6.1}s] {what} (after {:.1}s)",
            net.elapsed().as_secs_f64(),
            took.as_secs_f64()
        ),
        Err(e) => panic!("{e}"),
    }
}

/// Node `i`'s committed sequence, checked.
fn seq(net: &LocalNet, i: usize) -> BTreeMap<u64, AppHash> {
    sequence(&net.trace(i), &format!("node-{i}")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn four_processes_agree_survive_kill_9_and_catch_up() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut net = network(4, 150, Duration::from_secs(240));
    net.start_all().expect("start");
    four_agree_on_30_heights(&mut net);
    let (victim, before_kill) = kill_a_non_keeper(&mut net);
    restart_and_catch_up(&mut net, victim);
    net.stop_all();
    stores_agree_and_lose_nothing(&net, victim, &before_kill);
    a_damaged_store_is_refused(&mut net, victim);
}

/// Four processes decide at least 30 heights with the same app hash at every height, and transactions reach
/// every proposer.
fn four_agree_on_30_heights(net: &mut LocalNet) {
    wait(
        net,
        "every node decided 30 heights",
        Duration::from_secs(90),
        |net| (0..4).all(|i| net.height(i) >= 30),
    );
    let seqs: Vec<_> = (0..4).map(|i| seq(net, i)).collect();
    agree(&seqs).expect("the nodes agree");
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
fn kill_a_non_keeper(net: &mut LocalNet) -> (usize, Vec<TraceLine>) {
    wait(net, "a keeper is elected", Duration::from_secs(60), |net| {
        net.last(0).is_some_and(|l| l.keeper.is_some())
    });
    let keeper = net.last(0).and_then(|l| l.keeper).expect("keeper");
    let victim = (0..4)
        .rev()
        .find(|&i| node_address(&net.homes()[i]).expect("address") != keeper)
        .expect("a node that is not the keeper");
    let pid = net.node(victim).and_then(|n| n.pid());
    let before_kill = net.trace(victim);
    net.kill(victim).expect("kill");
    eprintln!(
        "killed node-{victim} (pid {pid:?}) at height {}",
        before_kill.last().map_or(0, |l| l.height)
    );
    let others: Vec<usize> = (0..4).filter(|&i| i != victim).collect();
    let (h0, p0) = (net.height(others[0]), net.period(others[0]));
    wait(
        net,
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
fn restart_and_catch_up(net: &mut LocalNet, victim: usize) {
    net.start(victim, &["--log", "debug"]).expect("restart");
    let target = (0..4)
        .filter(|&i| i != victim)
        .map(|i| net.height(i))
        .max()
        .unwrap_or(0);
    wait(
        net,
        "the restarted node caught up",
        Duration::from_secs(90),
        |net| net.height(victim) >= target,
    );
    let p1 = (0..4).map(|i| net.period(i)).max().unwrap_or(0);
    wait(
        net,
        "all four completed a whole period together",
        Duration::from_secs(120),
        |net| (0..4).all(|i| net.period(i) > p1 + 1),
    );
}

/// Every node's store holds a gap-free sequence, identical across nodes, the restarted node's included, and
/// nothing committed is lost.
fn stores_agree_and_lose_nothing(net: &LocalNet, victim: usize, before_kill: &[TraceLine]) {
    let stores: Vec<BTreeMap<u64, AppHash>> = (0..4)
        .map(|i| {
            let stored = stored_lines(&stored_hashes(&net.homes()[i]).expect("store"));
            sequence(&stored, &format!("node-{i}'s store")).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    agree(&stores).expect("the stores agree");
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
        std::fs::read_to_string(net.homes()[victim].join("stdout.1.log")).unwrap_or_default();
    assert!(
        replayed.starts_with("replayed height="),
        "the restart replayed the store: {replayed:.200}"
    );
    let log = std::fs::read_to_string(net.homes()[victim].join("stderr.1.log")).unwrap_or_default();
    assert!(
        log.contains("via=sync"),
        "the restarted node caught up through value sync"
    );
}

/// A damaged store: the node refuses to start from it, with a clear error naming the damaged height. The
/// damage is a flipped bit in the app hash stored at a middle height (in every copy of those bytes in the file:
/// the database writes pages anew on change, so an old copy may sit in a free page).
fn a_damaged_store_is_refused(net: &mut LocalNet, victim: usize) {
    let stored = stored_hashes(&net.homes()[victim]).expect("store");
    let (height, AppHash(hash)) = stored[stored.len() / 2];
    let path = net.homes()[victim].join("data").join("store.redb");
    let mut bytes = std::fs::read(&path).expect("store");
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(32).position(|w| w == hash) {
        bytes[at + i + 16] ^= 0x40;
        at += i + 32;
    }
    assert!(at > 0, "the stored hash is in the file");
    std::fs::write(&path, bytes).expect("write");
    net.start(victim, &[]).expect("start");
    let node = net.node(victim).expect("started");
    let status = node
        .wait_exit(Duration::from_secs(30))
        .expect("the node stops by itself");
    assert!(!status.success());
    let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
    assert!(
        log.contains(&format!("is corrupt at the block at height {height}")),
        "stderr: {log}"
    );
    net.kill(victim).expect("reaped");
}

#[test]
fn a_node_whose_app_hash_diverges_halts_and_the_others_go_on() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut net = network(4, 150, Duration::from_secs(120));
    // Node 3 is misconfigured: its genesis starts the app one millisecond later, so its app hash differs from
    // the others' from the start (the validator set is the same, so consensus itself is unaffected).
    let path = net.homes()[3].join("genesis.json");
    let text = std::fs::read_to_string(&path).expect("genesis");
    let mut genesis: serde_json::Value = serde_json::from_str(&text).expect("json");
    let time = genesis["genesis_time_ms"].as_u64().expect("time");
    genesis["genesis_time_ms"] = serde_json::json!(time + 1);
    std::fs::write(&path, genesis.to_string()).expect("write");
    net.start_all().expect("start");

    let node = net.node(3).expect("started");
    let diverged = node
        .wait_exit(Duration::from_secs(60))
        .expect("the diverging node halts");
    assert!(!diverged.success());
    let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
    assert!(log.contains("app hash diverged at height"), "stderr: {log}");
    net.kill(3).expect("reaped");
    // It applied nothing past the divergence.
    assert_eq!(net.height(3), 0, "node-3 applied a block");

    // Three of four are a quorum: the others go on and agree (the registration at start needs all four agents,
    // so the app stays in it, but blocks keep coming).
    wait(
        &mut net,
        "the other three decided 15 heights",
        Duration::from_secs(60),
        |net| (0..3).all(|i| net.height(i) >= 15),
    );
    net.stop_all();
    let seqs: Vec<_> = (0..3).map(|i| seq(&net, i)).collect();
    agree(&seqs).expect("the three agree");
}
