//! The node program's command line, which is the engine adapter's (`fsmc_malachite::cli`), run as a user runs
//! it: a network set up node by node (`init`, `genesis`, `start`) and inspected; `run` of a local network at
//! block interval 0, timed by the nodes' own block times; `run`'s own deadline. Every process runs on
//! 127.0.0.1 with ports the system hands out, every wait is bounded, and every node is killed when the test
//! ends.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fsmc_malachite::config::free_ports;
use fsmc_malachite::launch::{NodeProcess, Periods, read_trace, trace_files};
use fsmc_malachite::stored_hashes;

const BINARY: &str = env!("CARGO_BIN_EXE_oracle-node");

/// One network at a time: each is four processes on a small machine.
static SERIAL: Mutex<()> = Mutex::new(());

fn oracle_node(args: &[&str]) -> Output {
    Command::new(BINARY)
        .args(args)
        .output()
        .expect("oracle-node runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The value of `name=` in `output`'s lines.
fn field(output: &str, name: &str) -> Option<String> {
    output
        .split_whitespace()
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .map(str::to_string)
}

#[test]
fn the_help_names_every_command() {
    let out = oracle_node(&["--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for command in ["init", "genesis", "testnet", "start", "run", "inspect"] {
        assert!(help.contains(&format!("  {command} ")), "{help}");
    }
    assert!(help.contains("OracleAbciApp"), "{help}");
}

/// Four homes written one by one, as on four machines; one genesis from their keys; four nodes; `inspect`
/// shows what each stored.
#[test]
fn a_network_set_up_node_by_node_runs_and_inspect_shows_its_store() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("dir");
    let ports = free_ports(4).expect("ports");
    let addr = |p: u16| format!("/ip4/127.0.0.1/tcp/{p}");
    let homes: Vec<PathBuf> = (0..4).map(|i| dir.path().join(format!("n{i}"))).collect();
    let mut keys = Vec::new();
    for (i, home) in homes.iter().enumerate() {
        let mut args = vec![
            "init".to_string(),
            "--home".into(),
            home.display().to_string(),
            "--index".into(),
            i.to_string(),
            "--listen".into(),
            addr(ports[i]),
            "--block-interval-ms".into(),
            "100".into(),
        ];
        for (j, &p) in ports.iter().enumerate() {
            if j != i {
                args.extend(["--peer".into(), addr(p)]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = oracle_node(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        keys.push(field(&text(&out.stdout), "public_key").expect("a public key"));
    }
    let again = oracle_node(&[
        "init",
        "--home",
        &homes[0].display().to_string(),
        "--index",
        "0",
        "--listen",
        &addr(ports[0]),
    ]);
    assert!(!again.status.success(), "a second key over the first");
    assert!(text(&again.stderr).contains("exists already"));

    let genesis = dir.path().join("genesis.json");
    let mut args = vec!["genesis", "--chain-id", "by-hand"];
    for key in &keys {
        args.extend(["--validator", key]);
    }
    let genesis_text = genesis.display().to_string();
    args.extend(["--out", &genesis_text]);
    let out = oracle_node(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for home in &homes {
        std::fs::copy(&genesis, home.join("genesis.json")).expect("copy");
    }

    let mut nodes: Vec<NodeProcess> = homes
        .iter()
        .map(|h| NodeProcess::start(Path::new(BINARY), h, &[]).expect("start"))
        .collect();
    let start = Instant::now();
    let height = |h: &Path| read_trace(&trace_files(h)).last().map_or(0, |l| l.height);
    while homes.iter().any(|h| height(h) < 10) {
        for node in &mut nodes {
            assert!(node.exited().is_none(), "a node exited");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "four nodes set up by hand did not decide 10 heights"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    nodes.clear();

    let stores: Vec<_> = homes
        .iter()
        .map(|h| stored_hashes(h).expect("store"))
        .collect();
    for (i, home) in homes.iter().enumerate() {
        let out = oracle_node(&["inspect", "--home", &home.display().to_string()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        let mut lines = shown.lines();
        let header = lines.next().expect("a header");
        assert_eq!(field(header, "index"), Some(i.to_string()));
        assert_eq!(field(header, "chain_id").as_deref(), Some("by-hand"));
        assert_eq!(field(header, "validators").as_deref(), Some("4"));
        let listed: Vec<String> = lines.map(str::to_string).collect();
        let stored: Vec<String> = stores[i]
            .iter()
            .map(|(h, hash)| format!("height={h} app_hash={hash}"))
            .collect();
        assert_eq!(listed, stored);
        assert!(stored.len() >= 10);
    }
    let shortest = stores.iter().map(Vec::len).min().unwrap_or(0);
    for store in &stores {
        assert_eq!(store[..shortest], stores[0][..shortest], "the nodes agree");
    }
}

/// At block interval 0 the next proposer waits (up to `--tx-wait-ms`) for the payloads a new round needs, so
/// every round of the oracle ends in one height: a period is its eight rounds.
#[test]
fn run_at_block_interval_0_ends_a_period_in_eight_heights() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("dir");
    let out = oracle_node(&[
        "run",
        "--nodes",
        "4",
        "--block-interval-ms",
        "0",
        "--tx-wait-ms",
        "30",
        "--periods",
        "6",
        "--timeout",
        "120",
        "--quiet",
        "--dir",
        &dir.path().display().to_string(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("every node completed 6 periods"),
        "{stdout}"
    );
    let trace = read_trace(&trace_files(&dir.path().join("node-0")));
    let periods = Periods::of(&trace);
    assert!(periods.heights.len() >= 4, "{periods:?}");
    assert!(
        periods.median_heights() <= Some(9),
        "most periods take the eight heights of their rounds, not more: {periods:?}"
    );
    assert!(
        stdout.contains(&format!(
            "median {} heights",
            periods.median_heights().unwrap_or(0)
        )),
        "the summary reports the same: {stdout}"
    );
}

#[test]
fn run_gives_up_at_its_deadline() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("dir");
    let started = Instant::now();
    let out = oracle_node(&[
        "run",
        "--periods",
        "1000",
        "--timeout",
        "2",
        "--quiet",
        "--dir",
        &dir.path().display().to_string(),
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("did not end within 2 s"));
    assert!(started.elapsed() < Duration::from_secs(30));
}
