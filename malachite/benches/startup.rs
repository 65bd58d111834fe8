//! Start-up of a node's replica from its block store: open the store, restore the latest snapshot and replay
//! the blocks after it, with 10,000 and 1,000,000 heights of history (a snapshot every 100 heights, 50 blocks
//! after the last). Each measurement runs in a fresh process of this program, so its peak memory is its own.
//!
//! `cargo bench -p fsmc-malachite --bench startup` prints, per history: the store's size on disk, the time from
//! opening the store to the replica at the tip, and the process's peak resident memory.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use fsmc_malachite::signing::{PrivateKey, Signature};
use fsmc_malachite::store::{BlockStore, StoredBlock, StoredSnapshot};
use fsmc_malachite::types::{BlockValue, FsmcContext, Height};
use fsmc_runtime::app::{App, AppHash, Block, Genesis};
use malachitebft_core_types::{CommitCertificate, CommitSignature, Round};

mod toy {
    fsmc_runtime::include_fsm!("tests/toy.fsm");
}

type Spec = toy::toy_abci_app::Spec;

const SNAPSHOT_EVERY: u64 = 100;
const AFTER_SNAPSHOT: u64 = 50;
const GENESIS_MS: u64 = 1_000;

fn genesis() -> Genesis {
    Genesis::new(["a", "b", "c", "d"], GENESIS_MS)
}

/// Writes a history of `heights` blocks (a block a second, no transactions: rounds end by their timeout) with
/// the snapshot the node would have stored last.
fn build(dir: &Path, heights: u64) {
    let key = PrivateKey::from_bytes([7; 32]);
    let proposer = key.public_key().address();
    let mut store = BlockStore::open(dir).expect("store").store;
    let mut app = App::<Spec>::new(genesis()).expect("app");
    let mut batch = Vec::new();
    let mut latest = None;
    for height in 1..=heights {
        let prev_app_hash = app.app_hash().0;
        let time_ms = GENESIS_MS + height * 1_000;
        let report = app
            .deliver_block(&Block {
                height,
                time_ms,
                txs: Vec::new(),
            })
            .expect("applies");
        let value = BlockValue {
            height,
            time_ms,
            proposer,
            prev_app_hash,
            txs: Vec::new(),
        };
        // The store checks that a certificate names its block; its signatures are the engine's to check.
        let certificate = CommitCertificate::<FsmcContext> {
            height: Height(height),
            round: Round::new(0),
            value_id: value.id_bytes(),
            commit_signatures: vec![CommitSignature::new(proposer, Signature([0; 64]))],
        };
        batch.push(StoredBlock {
            height,
            value,
            certificate,
            app_hash: report.app_hash.0,
        });
        if height.is_multiple_of(SNAPSHOT_EVERY) {
            latest = Some(StoredSnapshot {
                height,
                app_hash: report.app_hash.0,
                state: app.snapshot().expect("snapshot"),
            });
        }
        if batch.len() == 10_000 || height == heights {
            store.import(std::mem::take(&mut batch)).expect("import");
        }
    }
    store
        .save_snapshot(&latest.expect("a snapshot"), None)
        .expect("snapshot");
}

/// Start-up as a node does it, timed: returns the milliseconds to the tip and the tip's height.
fn start(dir: &Path) -> (f64, u64) {
    let started = Instant::now();
    let opened = BlockStore::open(dir).expect("open");
    let snapshot = opened.snapshot.expect("a snapshot");
    let mut app = App::<Spec>::restore(
        genesis(),
        std::sync::Arc::new(fsmc_runtime::app::NoRounds),
        &snapshot.state,
        AppHash(snapshot.app_hash),
    )
    .expect("restores");
    for stored in &opened.blocks {
        let block = Block {
            height: stored.height,
            time_ms: stored.value.time_ms,
            txs: Vec::new(),
        };
        let hash = app.deliver_block(&block).expect("replays").app_hash;
        assert_eq!(hash.0, stored.app_hash, "replay gives the stored hash");
    }
    (started.elapsed().as_secs_f64() * 1e3, app.height())
}

/// This process's peak resident memory, in MB (Linux).
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, command, dir] = args.as_slice()
        && command == "start-up"
    {
        let (ms, height) = start(Path::new(dir));
        println!("{ms:.1} {height} {:.1}", peak_mb());
        return;
    }
    for snapshot_height in [10_000, 1_000_000] {
        let heights = snapshot_height + AFTER_SNAPSHOT;
        let dir = tempfile::tempdir().expect("dir");
        let built = Instant::now();
        build(dir.path(), heights);
        let size = std::fs::metadata(dir.path().join(fsmc_malachite::store::STORE_FILE))
            .map_or(0, |m| m.len());
        let out = Command::new(std::env::current_exe().expect("this program"))
            .args(["start-up", &dir.path().display().to_string()])
            .output()
            .expect("runs");
        let line = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        println!(
            "history {heights} heights ({:.0} MB store, built in {:.0} s): start-up to height {} in {} ms, peak {} MB",
            size as f64 / 1e6,
            built.elapsed().as_secs_f64(),
            fields.get(1).unwrap_or(&"?"),
            fields.first().unwrap_or(&"?"),
            fields.get(2).unwrap_or(&"?"),
        );
    }
}
