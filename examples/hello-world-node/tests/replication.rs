//! Upstream's hello world skill, ported, as four processes on 127.0.0.1 over Malachite: they run periods, one
//! is killed with SIGKILL and restarted, replays its store and catches up, and every node's trace and store hold
//! the same app hash at every height they share. Ports are free ones the system hands out, every wait has a
//! deadline, and the processes are killed and their directory removed when the test ends (kept, with the logs
//! printed, when it fails).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use fsmc_examples::hello_world::{HELLO_WORLD, NOTHING_TO_SAY, Spec};
use fsmc_malachite::config::TestnetOptions;
use fsmc_malachite::local::{LocalNet, agree, sequence, stored_lines};
use fsmc_malachite::stored_hashes;
use fsmc_runtime::app::{AppHash, AppSpec};

const BINARY: &str = env!("CARGO_BIN_EXE_hello-world-node");

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

/// Everything node `i` printed on standard output, across its restarts.
fn output(net: &LocalNet, i: usize) -> String {
    fsmc_malachite::launch::trace_files(&net.homes()[i])
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect()
}

#[test]
fn four_processes_run_periods_survive_kill_9_and_agree() {
    let options = TestnetOptions {
        block_interval_ms: 100,
        timeout_propose_ms: 600,
        ..TestnetOptions::new(4, Spec::FINGERPRINT)
    };
    let mut net = LocalNet::new(
        "fsmc-hello-world-test",
        Path::new(BINARY),
        &["start"],
        &options,
        Duration::from_secs(240),
    )
    .expect("testnet");
    net.start_all().expect("start");
    wait(
        &mut net,
        "every node completed two periods",
        Duration::from_secs(90),
        |net| (0..4).all(|i| net.period(i) >= 2),
    );

    // Node 3 dies with SIGKILL; the other three go on through two more periods (its printing round waits a few
    // blocks for it, then ends with the others' lines).
    net.kill(3).expect("kill");
    let (h0, p0) = (net.height(0), net.period(0));
    eprintln!("killed node-3 at height {}", net.height(3));
    wait(
        &mut net,
        "the other three completed two more periods",
        Duration::from_secs(90),
        |net| (0..3).all(|i| net.period(i) >= p0 + 2 && net.height(i) > h0),
    );

    // Restarted, it replays its store, catches up, and runs a whole period with the others.
    net.start(3, &[]).expect("restart");
    let target = (0..3).map(|i| net.height(i)).max().unwrap_or(0);
    wait(
        &mut net,
        "the restarted node caught up",
        Duration::from_secs(90),
        |net| net.height(3) >= target,
    );
    let p1 = (0..4).map(|i| net.period(i)).max().unwrap_or(0);
    wait(
        &mut net,
        "all four completed a whole period together",
        Duration::from_secs(90),
        |net| (0..4).all(|i| net.period(i) > p1 + 1),
    );
    net.stop_all();

    // The traces, and the stores, hold one hash per height, the same on every node.
    let traces: Vec<BTreeMap<u64, AppHash>> = (0..4)
        .map(|i| sequence(&net.trace(i), &format!("node-{i}")).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let common = agree(&traces).expect("the traces agree");
    let stores: Vec<BTreeMap<u64, AppHash>> = (0..4)
        .map(|i| {
            let stored = stored_lines(&stored_hashes(&net.homes()[i]).expect("store"));
            sequence(&stored, &format!("node-{i}'s store")).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    agree(&stores).expect("the stores agree");
    for (trace, store) in traces.iter().zip(&stores) {
        assert!(trace.iter().all(|(h, hash)| store.get(h) == Some(hash)));
    }
    eprintln!("{common} heights on every node, identical");
    assert!(common >= 20, "only {common} heights in common");

    // The restart replayed the store; the agents printed, the keepers said hello.
    let restarted =
        std::fs::read_to_string(net.homes()[3].join("stdout.1.log")).unwrap_or_default();
    assert!(
        restarted.starts_with("replayed height="),
        "the restart replayed the store: {restarted:.200}"
    );
    let printed: String = (0..4).map(|i| output(&net, i)).collect();
    let hellos = printed.matches(&format!("says: {HELLO_WORLD}")).count();
    assert!(hellos >= 4, "{hellos} hellos");
    assert!(printed.contains(&format!("says: {NOTHING_TO_SAY}")));
}
