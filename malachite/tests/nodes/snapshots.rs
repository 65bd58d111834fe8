//! Snapshots on four nodes at block interval 0 over 2,000 heights, one every 100 heights: a node killed with
//! `-9` restarts from its latest snapshot and replays only the blocks after it; a node whose data is wiped
//! (key, configuration and genesis kept) starts from genesis and catches up; every node agrees at every height.

use std::collections::BTreeMap;
use std::time::Duration;

use fsmc_malachite::local::{agree, sequence, stored_lines};
use fsmc_malachite::stored_hashes;
use fsmc_runtime::app::AppHash;

use super::{network, wait};

const HEIGHTS: u64 = 2_000;

pub(super) fn a_node_restarts_from_its_snapshot_and_a_wiped_node_catches_up() {
    let mut net = network("fsmc-snapshot-test", 4, 0, Duration::from_secs(900));
    net.start_all().expect("start");
    wait(
        &mut net,
        "every node decided 1,050 heights",
        Duration::from_secs(400),
        |net| (0..4).all(|i| net.height(i) >= 1_050),
    );
    // Node 2 is killed with -9 and restarted: it restores its latest snapshot.
    net.kill(2).expect("kill");
    net.start(2, &[]).expect("restart");
    // Node 3 loses its data, keeping its key, configuration and genesis.
    net.kill(3).expect("kill");
    std::fs::remove_dir_all(net.homes()[3].join("data")).expect("wipe");
    net.start(3, &[]).expect("restart");
    wait(
        &mut net,
        "every node decided 2,000 heights",
        Duration::from_secs(480),
        |net| (0..4).all(|i| net.height(i) >= HEIGHTS),
    );
    net.stop_all();

    let log = std::fs::read_to_string(net.homes()[2].join("stderr.1.log")).unwrap_or_default();
    let restored = log
        .lines()
        .find(|l| l.contains("restored the snapshot at height "))
        .unwrap_or_else(|| panic!("node 2 did not start from a snapshot: {log:.2000}"));
    let at: u64 = restored
        .rsplit("restored the snapshot at height ")
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|h| h.parse().ok())
        .expect("a height");
    assert!(at >= 1_000 && at.is_multiple_of(100), "{restored}");
    let wiped = std::fs::read_to_string(net.homes()[3].join("stderr.1.log")).unwrap_or_default();
    assert!(
        !wiped.contains("restored the snapshot"),
        "node 3 had no snapshot left"
    );

    let mut seqs: Vec<BTreeMap<u64, AppHash>> = (0..4)
        .map(|i| sequence(&net.trace(i), &format!("node-{i}")).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    for (i, home) in net.homes().iter().enumerate() {
        let stored = stored_lines(&stored_hashes(home).expect("store"));
        seqs.push(
            sequence(&stored, &format!("node-{i}'s store")).unwrap_or_else(|e| panic!("{e}")),
        );
    }
    let common = agree(&seqs).unwrap_or_else(|e| panic!("{e}"));
    assert!(common as u64 >= HEIGHTS, "only {common} heights in common");
    eprintln!("{common} heights on every node and in every store, identical");
}
