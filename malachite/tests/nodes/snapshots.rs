//! Snapshots and state sync on four nodes at block interval 0, one snapshot every 100 heights and only the
//! blocks less than `RETAIN` heights below the latest snapshot kept, so every node has pruned height 1 long
//! before the end: a node killed with `-9` restarts from its latest snapshot and replays only the blocks after
//! it; a node whose data is wiped (key, configuration and genesis kept) catches up from a peer's snapshot,
//! which its log names with the height, and the blocks after it; every node agrees at every height it has.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use fsmc_malachite::local::{agree, hashes, sequence, stored_lines};
use fsmc_malachite::{node_address, stored_hashes};
use fsmc_runtime::app::AppHash;

use super::{network, wait};

/// How many heights the network decides in all.
const HEIGHTS: u64 = 2_000;
/// When node 2 is killed and node 3 wiped.
const MIDWAY: u64 = 1_000;
/// How many heights below its latest snapshot a node keeps.
const RETAIN: u64 = 50;

pub(super) fn a_node_restarts_from_its_snapshot_and_a_wiped_node_catches_up() {
    let mut net = network("fsmc-snapshot-test", 4, 0, Duration::from_secs(300));
    for home in net.homes() {
        keep_only(home, RETAIN);
    }
    net.start_all().expect("start");
    wait(
        &mut net,
        "every node decided the first heights",
        Duration::from_secs(150),
        |net| (0..4).all(|i| net.height(i) >= MIDWAY),
    );
    // Node 2 is killed with -9 and restarted: it restores its latest snapshot.
    net.kill(2).expect("kill");
    net.start(2, &[]).expect("restart");
    // Node 3 loses its data, keeping its key, configuration and genesis; by now every peer pruned height 1.
    net.kill(3).expect("kill");
    std::fs::remove_dir_all(net.homes()[3].join("data")).expect("wipe");
    let wiped_at = Instant::now();
    net.start(3, &[]).expect("restart");
    // Above anything node 3 printed before the wipe: reached only after it caught up.
    let tip = (0..4).map(|i| net.height(i)).max().unwrap_or(0) + 1;
    wait(
        &mut net,
        "the wiped node caught up",
        Duration::from_secs(60),
        |net| net.height(3) >= tip,
    );
    let caught_up = wiped_at.elapsed();
    wait(
        &mut net,
        "every node decided every height",
        Duration::from_secs(120),
        |net| (0..4).all(|i| net.height(i) >= HEIGHTS),
    );
    net.stop_all();

    let at = logged_height(&net.homes()[2], "restored the snapshot at height ");
    assert!(
        at >= MIDWAY - 100 && at.is_multiple_of(100),
        "node 2 restored {at}"
    );
    let (peer, from) = caught_up_from(&net.homes()[3]);
    let peers: Vec<String> = net.homes()[..3]
        .iter()
        .map(|h| node_address(h).expect("a key"))
        .collect();
    assert!(
        peers.contains(&peer),
        "node 3 caught up from {peer}, not a peer"
    );
    assert!(
        from >= MIDWAY - 100 && from.is_multiple_of(100),
        "node 3 caught up from height {from}"
    );

    let mut seqs: Vec<BTreeMap<u64, AppHash>> = Vec::new();
    for (i, home) in net.homes().iter().enumerate() {
        let stored = stored_hashes(home).expect("store");
        assert!(
            stored.first().is_some_and(|&(h, _)| h > 1),
            "node-{i} kept height 1"
        );
        let who = format!("node-{i}'s store");
        seqs.push(hashes(&stored_lines(&stored), &who).unwrap_or_else(|e| panic!("{e}")));
        let trace = net.trace(i);
        let who = format!("node-{i}");
        let seq = if i == 3 {
            hashes(&trace, &who)
        } else {
            sequence(&trace, &who)
        };
        seqs.push(seq.unwrap_or_else(|e| panic!("{e}")));
    }
    // The wiped node's trace: the heights before the wipe, then every height after the snapshot.
    let wiped = &seqs[7];
    assert!(
        ((from + 1)..=HEIGHTS).all(|h| wiped.contains_key(&h)),
        "node 3 misses a height after {from}"
    );
    let common = agree(&seqs).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "node 3 caught up from {peer}'s snapshot at height {from} in {:.1} s; {common} heights in every \
         store and trace, all identical",
        caught_up.as_secs_f64()
    );
}

/// Sets `retain_blocks` in the configuration of the node at `home`.
fn keep_only(home: &Path, retain: u64) {
    let path = home.join("config.json");
    let text = std::fs::read_to_string(&path).expect("config");
    let mut config: serde_json::Value = serde_json::from_str(&text).expect("json");
    config["retain_blocks"] = retain.into();
    std::fs::write(&path, config.to_string()).expect("write config");
}

/// The height the first line of the second run's log holding `words` names right after them.
fn logged_height(home: &Path, words: &str) -> u64 {
    let log = std::fs::read_to_string(home.join("stderr.1.log")).unwrap_or_default();
    log.lines()
        .find_map(|l| l.split(words).nth(1))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|h| h.parse().ok())
        .unwrap_or_else(|| panic!("no {words:?} in {}: {log:.3000}", home.display()))
}

/// The peer and the height the wiped node says it caught up from.
fn caught_up_from(home: &Path) -> (String, u64) {
    const WORDS: &str = "caught up from the snapshot of validator ";
    let log = std::fs::read_to_string(home.join("stderr.1.log")).unwrap_or_default();
    let rest = log
        .lines()
        .find_map(|l| l.split(WORDS).nth(1))
        .unwrap_or_else(|| panic!("node 3 did not catch up from a snapshot: {log:.3000}"));
    let mut words = rest.split_whitespace();
    let peer = words.next().unwrap_or_default().to_string();
    let height = words
        .nth(2)
        .and_then(|h| h.trim_end_matches(';').parse().ok())
        .unwrap_or_else(|| panic!("no height in {rest}"));
    (peer, height)
}
