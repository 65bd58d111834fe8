//! Node programs on 127.0.0.1 refusing what they must, each with a clear error: a node built from another spec
//! than its chain's (naming both spec fingerprints) while the other nodes go on; a block store whose length
//! field is damaged (from `inspect` and `start`, naming the offset); a payload of the node's own that its peers
//! would refuse (refused to the behaviour, the node's blocks still valid); a node on another chain id, or of
//! another spec with a genesis to match, among three others; a second process on one home; a busy port.
//!
//! The test is its own node program (`harness = false`): run as `chain-spec …`, `changed-spec …` or
//! `bloated …` it is a node of one of the apps below, with the engine adapter's command line; run otherwise (as
//! `cargo test` runs it) it is the tests, which start it as their nodes. Every wait has a deadline, every
//! process is killed when its test ends, and the nodes' directories are removed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::time::Duration;

use fsmc_malachite::cli::NodeCli;
use fsmc_malachite::config::TestnetOptions;
use fsmc_malachite::launch::NodeProcess;
use fsmc_malachite::local::{LocalNet, agree, sequence};
use fsmc_malachite::signing::hex;
use fsmc_malachite::stored_hashes;
use fsmc_runtime::app::{Abstain, AppHash, AppSpec};

/// The chain's app: every agent sends the number of the round, over and over.
mod chain {
    fsmc_runtime::include_fsm!("tests/toy.fsm");
}

/// The same app with a longer timeout: replicas of the two would time rounds out at different heights.
mod changed {
    fsmc_runtime::fsm!(
        r#"
        machine ToyAbciApp: abci {
            event DONE, NO_MAJORITY;
            event ROUND_TIMEOUT timeout 1m;
            start default state CountRound: collect_same_until_threshold { payload "String"; }
            (CountRound, DONE) -> CountRound;
            (CountRound, ROUND_TIMEOUT) -> CountRound;
            (CountRound, NO_MAJORITY) -> CountRound;
        }
    "#
    );
}

/// One agent of either app.
struct Counter;

impl chain::toy_abci_app::Behaviour for Counter {
    async fn count_round(&self, ctx: chain::toy_abci_app::Context) -> Result<String, Abstain> {
        Ok(ctx.round_count().to_string())
    }
}

impl changed::toy_abci_app::Behaviour for Counter {
    async fn count_round(&self, ctx: changed::toy_abci_app::Context) -> Result<String, Abstain> {
        Ok(ctx.round_count().to_string())
    }
}

/// An agent of the chain's app whose every payload is 70,000 bytes: more than a transaction may hold.
struct Bloated;

impl chain::toy_abci_app::Behaviour for Bloated {
    async fn count_round(&self, _: chain::toy_abci_app::Context) -> Result<String, Abstain> {
        Ok("x".repeat(70_000))
    }
}

// The endpoints and hosts tests live beside this file, in the directory named after it.
#[path = "nodes/endpoints.rs"]
mod endpoints;
#[path = "nodes/hosts.rs"]
mod hosts;
#[path = "nodes/snapshots.rs"]
mod snapshots;

type Test = (&'static str, fn());

const TESTS: [Test; 9] = [
    (
        "a_node_restarts_from_its_snapshot_and_a_wiped_node_catches_up",
        snapshots::a_node_restarts_from_its_snapshot_and_a_wiped_node_catches_up,
    ),
    (
        "a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on",
        a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on,
    ),
    (
        "a_damaged_block_is_an_error_from_inspect_and_start",
        a_damaged_block_is_an_error_from_inspect_and_start,
    ),
    (
        "an_own_payload_peers_would_refuse_is_refused_to_the_behaviour",
        an_own_payload_peers_would_refuse_is_refused_to_the_behaviour,
    ),
    (
        "a_node_on_another_chain_id_halts_naming_both",
        a_node_on_another_chain_id_halts_naming_both,
    ),
    (
        "a_node_of_another_spec_with_a_genesis_to_match_halts_naming_both",
        a_node_of_another_spec_with_a_genesis_to_match_halts_naming_both,
    ),
    (
        "a_second_process_on_a_home_and_a_busy_port_are_refused",
        a_second_process_on_a_home_and_a_busy_port_are_refused,
    ),
    (
        "the_metrics_and_status_endpoints_answer_and_are_off_by_default",
        endpoints::the_metrics_and_status_endpoints_answer_and_are_off_by_default,
    ),
    (
        "four_nodes_on_four_network_namespaces_survive_a_kill",
        hosts::four_nodes_on_four_network_namespaces_survive_a_kill,
    ),
];

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // A node: the program's name is the app's, then the node's own command line.
    let node_args = args.iter().skip(1).cloned();
    match args.get(1).and_then(|a| a.to_str()) {
        Some("chain-spec") => {
            return NodeCli::<chain::toy_abci_app::Spec, Counter>::new(|_, _| Ok(Counter))
                .main_from(node_args);
        }
        Some("changed-spec") => {
            return NodeCli::<changed::toy_abci_app::Spec, Counter>::new(|_, _| Ok(Counter))
                .main_from(node_args);
        }
        Some("bloated") => {
            return NodeCli::<chain::toy_abci_app::Spec, Bloated>::new(|_, _| Ok(Bloated))
                .main_from(node_args);
        }
        _ => {}
    }
    // The tests whose names hold a filter `cargo test` was given (all without one) and no `--skip` pattern,
    // or their list. The test harness's other flags are taken and ignored, with the value of those that have
    // one.
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(word) = words.next() {
        match word {
            "--skip" => skips.extend(words.next()),
            "--test-threads" | "--format" | "--color" | "--logfile" | "--shuffle-seed" | "-Z" => {
                words.next();
            }
            flag if flag.starts_with('-') => {}
            filter => filters.push(filter),
        }
    }
    let chosen = TESTS.iter().filter(|(name, _)| {
        (filters.is_empty() || filters.iter().any(|f| name.contains(f)))
            && !skips.iter().any(|s| name.contains(s))
    });
    if args.iter().any(|a| a == "--list") {
        for (name, _) in chosen {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    for (name, test) in chosen {
        println!("test {name} ...");
        test();
        println!("test {name} ... ok");
    }
    ExitCode::SUCCESS
}

/// This program as a node of `app` (`chain-spec`, `changed-spec` or `bloated`) at `home`.
fn node(app: &str, home: &Path) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("this program"));
    command.arg(app).arg("start").arg("--home").arg(home);
    command
}

/// Runs this program as `app` with `args` to the end.
fn run(app: &str, args: &[&str]) -> Output {
    Command::new(std::env::current_exe().expect("this program"))
        .arg(app)
        .args(args)
        .output()
        .expect("run")
}

/// A network of `n` nodes of the chain's app, written but not started.
fn network(name: &str, n: usize, block_interval_ms: u64, budget: Duration) -> LocalNet {
    let options = TestnetOptions {
        block_interval_ms,
        timeout_propose_ms: 600,
        ..TestnetOptions::new(n, chain::toy_abci_app::Spec::FINGERPRINT)
    };
    let program = std::env::current_exe().expect("this program");
    LocalNet::new(name, &program, &["chain-spec", "start"], &options, budget).expect("testnet")
}

/// Waits until `done` holds; fails the test on a timeout or an exited node.
fn wait(net: &mut LocalNet, what: &str, limit: Duration, done: impl FnMut(&LocalNet) -> bool) {
    if let Err(e) = net.wait(what, limit, done) {
        panic!("{e}");
    }
}

/// Node `i`'s process, which must end by itself within 30 s, failing; returns its standard error.
fn refused(net: &mut LocalNet, i: usize) -> String {
    let node = net.node(i).expect("started");
    let status = node
        .wait_exit(Duration::from_secs(30))
        .expect("the node stops by itself");
    assert!(!status.success());
    let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
    net.kill(i).expect("reaped");
    log
}

/// The one line of `log` the node program wrote as its error.
fn error_line(log: &str) -> &str {
    log.lines()
        .find(|l| l.contains(": error: "))
        .unwrap_or_else(|| panic!("no error line: {log}"))
}

/// The nodes `nodes` agree at every height they share, and share at least `least`.
fn nodes_agree(net: &LocalNet, nodes: &[usize], least: usize) {
    let seqs: Vec<_> = nodes
        .iter()
        .map(|&i| sequence(&net.trace(i), &format!("node-{i}")).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let common = agree(&seqs).unwrap_or_else(|e| panic!("{e}"));
    assert!(common >= least, "{common} heights in common");
}

fn a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on() {
    let chain_fp = hex(&chain::toy_abci_app::Spec::FINGERPRINT);
    let changed_fp = hex(&changed::toy_abci_app::Spec::FINGERPRINT);
    assert_ne!(
        chain_fp, changed_fp,
        "the two specs differ in a consensus fact"
    );
    let mut net = network("fsmc-spec-test", 4, 100, Duration::from_secs(120));
    let homes: Vec<PathBuf> = net.homes().to_vec();
    for i in 0..3 {
        net.start(i, &[]).expect("start");
    }
    net.spawn(3, node("changed-spec", &homes[3]))
        .expect("start");

    // The node of the changed spec stops at once, with one line naming both fingerprints, and never opened its
    // block store.
    let log = refused(&mut net, 3);
    let line = error_line(&log);
    assert!(
        line.contains(&format!("spec fingerprint {chain_fp}"))
            && line.contains(&format!("this binary's is {changed_fp}")),
        "{line}"
    );
    assert!(!homes[3].join("data").join("store.redb").exists());

    // Three of four are a quorum: the others decide, and agree.
    wait(
        &mut net,
        "three nodes decided 10 heights",
        Duration::from_secs(90),
        |net| (0..3).all(|i| net.height(i) >= 10),
    );
    net.stop_all();
    nodes_agree(&net, &[0, 1, 2], 10);

    // `inspect` shows the genesis' fingerprint, and a program of the changed spec says that it differs.
    let home0 = homes[0].display().to_string();
    let shown = run("chain-spec", &["inspect", "--home", &home0]);
    assert!(shown.status.success());
    let header = String::from_utf8_lossy(&shown.stdout);
    assert!(
        header.contains(&format!(" spec_fingerprint={chain_fp}")),
        "{header}"
    );
    assert!(shown.stderr.is_empty());
    let other_view = run("changed-spec", &["inspect", "--home", &home0]);
    assert!(other_view.status.success());
    assert!(String::from_utf8_lossy(&other_view.stderr).contains(&changed_fp));

    // A genesis written before fingerprints is refused too, with what to add.
    let path = homes[3].join("genesis.json");
    let text = std::fs::read_to_string(&path).expect("genesis");
    let mut old: serde_json::Value = serde_json::from_str(&text).expect("json");
    old.as_object_mut()
        .and_then(|o| o.remove("spec_fingerprint"))
        .expect("the genesis names a fingerprint");
    std::fs::write(&path, old.to_string()).expect("write");
    net.start(3, &[]).expect("start");
    let log = refused(&mut net, 3);
    let line = error_line(&log);
    assert!(
        line.contains("names no spec fingerprint")
            && line.contains(&format!("\"spec_fingerprint\": \"{chain_fp}\"")),
        "{line}"
    );
}

/// A flipped bit in the app hash stored at height 125 (in every copy of those bytes in the file: the database
/// writes pages anew on change, so an old copy may sit in a free page) is refused by `inspect` and by `start`,
/// naming the height. (`start` reads the blocks after its latest snapshot, at 100; `inspect` reads them all.)
fn a_damaged_block_is_an_error_from_inspect_and_start() {
    let mut net = network("fsmc-store-test", 4, 0, Duration::from_secs(150));
    net.start_all().expect("start");
    wait(
        &mut net,
        "every node decided 150 heights",
        Duration::from_secs(120),
        |net| (0..4).all(|i| net.height(i) >= 150),
    );
    net.stop_all();
    let home = net.homes()[0].clone();
    let stored = stored_hashes(&home).expect("store");
    let (height, AppHash(hash)) = stored[124];
    assert_eq!(height, 125);
    let path = home.join("data").join("store.redb");
    let mut bytes = std::fs::read(&path).expect("store");
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(32).position(|w| w == hash) {
        bytes[at + i + 16] ^= 0x40;
        at += i + 32;
    }
    assert!(at > 0, "the stored hash is in the file");
    std::fs::write(&path, &bytes).expect("write");

    let expected = "is corrupt at the block at height 125: checksum mismatch";
    let shown = run(
        "chain-spec",
        &["inspect", "--home", &home.display().to_string()],
    );
    assert!(!shown.status.success(), "inspect exits with an error");
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert!(error_line(&stderr).contains(expected), "{stderr}");
    net.start(0, &[]).expect("start");
    let log = refused(&mut net, 0);
    assert!(error_line(&log).contains(expected), "{log}");
}

fn an_own_payload_peers_would_refuse_is_refused_to_the_behaviour() {
    let mut net = network("fsmc-payload-test", 4, 100, Duration::from_secs(120));
    let home3 = net.homes()[3].clone();
    for i in 0..3 {
        net.start(i, &[]).expect("start");
    }
    net.spawn(3, node("bloated", &home3)).expect("start");
    wait(
        &mut net,
        "every node decided 20 heights",
        Duration::from_secs(90),
        |net| (0..4).all(|i| net.height(i) >= 20),
    );
    net.stop_all();
    nodes_agree(&net, &[0, 1, 2, 3], 20);
    let out = std::fs::read_to_string(home3.join("stdout.0.log")).unwrap_or_default();
    let refusal = out
        .lines()
        .find(|l| l.starts_with("acted "))
        .unwrap_or_else(|| panic!("no refusal: {out:.2000}"));
    assert!(
        refusal.contains("abstained: the engine refused its payload: a transaction from")
            && refusal.contains("over the limit of 65536"),
        "{refusal}"
    );
    // Its blocks stayed valid: no node voted one of them invalid.
    for home in net.homes() {
        let log = std::fs::read_to_string(home.join("stderr.0.log")).unwrap_or_default();
        assert!(!log.contains("invalid proposal"), "{log}");
    }
}

/// Node 3 of four runs as `app` from a genesis that `edit` changed: it halts naming what it is on and what the
/// others are on, which it hears from them, while they go on, each naming it.
fn the_odd_node_halts_and_the_others_name_it(
    name: &str,
    app: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) {
    let mut net = network(name, 4, 100, Duration::from_secs(120));
    let path = net.homes()[3].join("genesis.json");
    let text = std::fs::read_to_string(&path).expect("genesis");
    let mut genesis: serde_json::Value = serde_json::from_str(&text).expect("json");
    let describe = |g: &serde_json::Value| {
        format!(
            "chain {:?} with spec fingerprint {}",
            g["chain_id"].as_str().expect("chain id"),
            g["spec_fingerprint"].as_str().expect("fingerprint")
        )
    };
    let ours = describe(&genesis);
    edit(&mut genesis);
    let theirs = describe(&genesis);
    std::fs::write(&path, genesis.to_string()).expect("write");
    for i in 0..3 {
        net.start(i, &[]).expect("start");
    }
    let home3 = net.homes()[3].clone();
    net.spawn(3, node(app, &home3)).expect("start");

    let log = refused(&mut net, 3);
    let line = error_line(&log);
    assert!(
        line.contains(&format!(
            " of the 4 validators are on {ours}, not on {theirs}, which"
        )),
        "{line}"
    );
    wait(
        &mut net,
        "the other three decided 10 heights",
        Duration::from_secs(60),
        |net| (0..3).all(|i| net.height(i) >= 10),
    );
    net.stop_all();
    nodes_agree(&net, &[0, 1, 2], 10);
    for home in &net.homes()[..3] {
        let log = std::fs::read_to_string(home.join("stderr.0.log")).unwrap_or_default();
        assert!(
            log.contains(&format!(
                "is on {theirs}, but this node's genesis names {ours}"
            )),
            "{log}"
        );
    }
}

fn a_node_on_another_chain_id_halts_naming_both() {
    the_odd_node_halts_and_the_others_name_it("fsmc-chain-test", "chain-spec", |genesis| {
        genesis["chain_id"] = serde_json::json!("another-chain");
    });
}

/// A node whose genesis and binary agree with each other (so it starts) but name another spec than the other
/// nodes' would compute other app hashes: it halts at once instead.
fn a_node_of_another_spec_with_a_genesis_to_match_halts_naming_both() {
    let changed = hex(&changed::toy_abci_app::Spec::FINGERPRINT);
    the_odd_node_halts_and_the_others_name_it("fsmc-spec-peer-test", "changed-spec", |genesis| {
        genesis["spec_fingerprint"] = serde_json::json!(changed);
    });
}

fn a_second_process_on_a_home_and_a_busy_port_are_refused() {
    let mut net = network("fsmc-claim-test", 1, 100, Duration::from_secs(60));
    let home = net.homes()[0].clone();
    net.start(0, &[]).expect("start");
    wait(
        &mut net,
        "the node decided a height",
        Duration::from_secs(30),
        |net| net.height(0) >= 1,
    );
    let mut second = NodeProcess::spawn(node("chain-spec", &home), &home).expect("spawn");
    let status = second
        .wait_exit(Duration::from_secs(30))
        .expect("the second process stops by itself");
    assert!(!status.success());
    let log = std::fs::read_to_string(&second.stderr).unwrap_or_default();
    assert!(
        error_line(&log).contains(&format!("runs the node at {} already", home.display())),
        "{log}"
    );

    // Killed, the node leaves no lock behind; its port taken by another program, it says which and what to do.
    net.kill(0).expect("kill");
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("config.json")).expect("config"))
            .expect("json");
    let port: u16 = settings["listen_addr"]
        .as_str()
        .and_then(|a| a.rsplit('/').next())
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind");
    net.start(0, &[]).expect("start");
    let log = refused(&mut net, 0);
    assert!(
        error_line(&log).contains(&format!("port {port} is in use")),
        "{log}"
    );
    drop(squatter);
    let before = net.height(0);
    net.start(0, &[]).expect("start");
    wait(
        &mut net,
        "the node goes on",
        Duration::from_secs(30),
        |net| net.height(0) > before,
    );
}
