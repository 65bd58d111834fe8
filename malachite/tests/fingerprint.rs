//! A node built from another spec than its chain's refuses to start, naming both spec fingerprints, while the
//! other nodes go on: four node processes on 127.0.0.1, three built from the chain's spec and one from a spec
//! that differs in one timeout.
//!
//! The test is its own node program (`harness = false`): run as `chain-spec …` or `changed-spec …` it is a node
//! of one of the two apps below, with the engine adapter's command line; run with no arguments (as `cargo test`
//! runs it) it is the test, and starts itself as the four nodes. Every wait has a deadline, every process is
//! killed when the test ends, and the nodes' directory is removed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::time::{Duration, Instant};

use fsmc_malachite::cli::NodeCli;
use fsmc_malachite::config::{TestnetOptions, write_testnet};
use fsmc_malachite::launch::{NodeProcess, TraceLine, read_trace, trace_files};
use fsmc_malachite::signing::hex;
use fsmc_runtime::app::{Abstain, AppSpec};

/// The chain's app: every agent sends the number of the round, over and over.
mod chain {
    fsmc_runtime::fsm!(
        r#"
        machine ToyAbciApp: abci {
            event DONE, NO_MAJORITY;
            event ROUND_TIMEOUT timeout 30s;
            start default state CountRound: collect_same_until_threshold { payload "u64"; }
            (CountRound, DONE) -> CountRound;
            (CountRound, ROUND_TIMEOUT) -> CountRound;
            (CountRound, NO_MAJORITY) -> CountRound;
        }
    "#
    );
}

/// The same app with a longer timeout: replicas of the two would time rounds out at different heights.
mod changed {
    fsmc_runtime::fsm!(
        r#"
        machine ToyAbciApp: abci {
            event DONE, NO_MAJORITY;
            event ROUND_TIMEOUT timeout 1m;
            start default state CountRound: collect_same_until_threshold { payload "u64"; }
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
    async fn count_round(&self, ctx: chain::toy_abci_app::Context) -> Result<u64, Abstain> {
        Ok(ctx.round_count())
    }
}

impl changed::toy_abci_app::Behaviour for Counter {
    async fn count_round(&self, ctx: changed::toy_abci_app::Context) -> Result<u64, Abstain> {
        Ok(ctx.round_count())
    }
}

const TEST: &str = "a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on";

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
        _ => {}
    }
    // The test, unless `cargo test` was given a filter it does not match, or asked for the list of tests.
    let filters: Vec<&str> = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    if args.iter().any(|a| a == "--list") {
        println!("{TEST}: test");
        return ExitCode::SUCCESS;
    }
    if !filters.is_empty() && !filters.iter().any(|f| TEST.contains(f)) {
        return ExitCode::SUCCESS;
    }
    println!("test {TEST} ...");
    a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on();
    println!("test {TEST} ... ok");
    ExitCode::SUCCESS
}

/// Starts this program as a node of `app` (`chain-spec` or `changed-spec`).
fn start(app: &str, home: &Path) -> NodeProcess {
    let mut command = Command::new(std::env::current_exe().expect("this program"));
    command.arg(app).arg("start").arg("--home").arg(home);
    NodeProcess::spawn(command, home).expect("spawn a node")
}

/// Runs this program as `app` with `args` to the end.
fn run(app: &str, args: &[&str]) -> Output {
    Command::new(std::env::current_exe().expect("this program"))
        .arg(app)
        .args(args)
        .output()
        .expect("run")
}

fn height(home: &Path) -> u64 {
    read_trace(&trace_files(home))
        .last()
        .map_or(0, |l| l.height)
}

fn log(node: &NodeProcess) -> String {
    std::fs::read_to_string(&node.stderr).unwrap_or_default()
}

fn a_node_built_from_another_spec_is_refused_at_start_and_the_others_go_on() {
    let chain_fp = hex(&chain::toy_abci_app::Spec::FINGERPRINT);
    let changed_fp = hex(&changed::toy_abci_app::Spec::FINGERPRINT);
    assert_ne!(
        chain_fp, changed_fp,
        "the two specs differ in a consensus fact"
    );
    let dir = tempfile::Builder::new()
        .prefix("fsmc-fingerprint-test-")
        .tempdir()
        .expect("a temporary directory");
    let options = TestnetOptions {
        block_interval_ms: 100,
        timeout_propose_ms: 600,
        ..TestnetOptions::new(4, chain::toy_abci_app::Spec::FINGERPRINT)
    };
    let homes: Vec<PathBuf> = write_testnet(dir.path(), &options).expect("testnet");
    let mut nodes: Vec<NodeProcess> = (0..3).map(|i| start("chain-spec", &homes[i])).collect();
    let mut other = start("changed-spec", &homes[3]);

    // The node of the changed spec stops at once, with one line naming both fingerprints, and never opened its
    // block store.
    let status = other
        .wait_exit(Duration::from_secs(30))
        .expect("the node of another spec stops by itself");
    assert!(!status.success());
    let refused = log(&other);
    let line = refused
        .lines()
        .find(|l| l.contains("error:"))
        .unwrap_or_else(|| panic!("no error line: {refused}"));
    assert!(
        line.contains(&format!("spec fingerprint {chain_fp}"))
            && line.contains(&format!("this binary's is {changed_fp}")),
        "{line}"
    );
    assert!(!homes[3].join("data").join("blocks.dat").exists());

    // Three of four are a quorum: the others decide, and agree.
    let started = Instant::now();
    while homes[..3].iter().any(|h| height(h) < 10) {
        for (i, node) in nodes.iter_mut().enumerate() {
            assert!(node.exited().is_none(), "node-{i} exited: {}", log(node));
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "three nodes did not decide 10 heights: {:?}",
            homes.iter().map(|h| height(h)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let traces: Vec<Vec<TraceLine>> = homes[..3]
        .iter()
        .map(|h| read_trace(&trace_files(h)))
        .collect();
    for trace in &traces[1..] {
        for (a, b) in trace.iter().zip(&traces[0]) {
            assert_eq!((a.height, a.app_hash), (b.height, b.app_hash));
        }
    }
    nodes.clear();

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
    let mut old_node = start("chain-spec", &homes[3]);
    let status = old_node
        .wait_exit(Duration::from_secs(30))
        .expect("stops by itself");
    assert!(!status.success());
    let refused = log(&old_node);
    assert!(
        refused.contains("names no spec fingerprint")
            && refused.contains(&format!("\"spec_fingerprint\": \"{chain_fp}\"")),
        "{refused}"
    );
}
