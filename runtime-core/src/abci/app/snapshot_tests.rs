//! A replica restored from a snapshot at any height is the replica it was taken of: same hash, and the same
//! hashes block after block; a snapshot that is damaged, of another genesis or of another hash is refused.

use super::tests::{TestApp, block, everyone, honest, new_app};
use super::*;
use std::sync::Arc;

fn restore(app: &App<TestApp>, bytes: &[u8], expected: AppHash) -> Result<App<TestApp>, AppError> {
    App::<TestApp>::restore(app.genesis().clone(), Arc::new(NoRounds), bytes, expected)
}

#[test]
fn a_replica_restored_at_any_height_goes_on_as_the_original() {
    let mut app = new_app();
    let mut agents = honest();
    let mut copies: Vec<App<TestApp>> = Vec::new();
    // Three periods: every round kind, a keeper, a reset and pruned history pass through a snapshot.
    for _ in 0..40 {
        let bytes = app.snapshot().expect("snapshot");
        let copy = restore(&app, &bytes, app.app_hash()).expect("restores");
        assert_eq!(copy.app_hash(), app.app_hash());
        assert_eq!(copy.snapshot().expect("snapshot"), bytes);
        copies.push(copy);
        let txs = everyone(&app, &mut agents);
        let next = block(&app, 1_500, txs);
        let hash = app.deliver_block(&next).expect("applies").app_hash;
        for copy in &mut copies {
            assert_eq!(copy.deliver_block(&next).expect("applies").app_hash, hash);
        }
    }
    assert!(app.period() >= 3, "period {}", app.period());
    let last = copies.last().expect("copies");
    assert_eq!(
        last.context(&"a".into()).map(|c| c.visited().to_vec()),
        app.context(&"a".into()).map(|c| c.visited().to_vec())
    );
}

#[test]
fn a_damaged_foreign_or_mismatched_snapshot_is_refused() {
    let mut app = new_app();
    let mut agents = honest();
    for _ in 0..8 {
        let txs = everyone(&app, &mut agents);
        let next = block(&app, 1_500, txs);
        app.deliver_block(&next).expect("applies");
    }
    let bytes = app.snapshot().expect("snapshot");
    let hash = app.app_hash();
    let why = |r: Result<App<TestApp>, AppError>| r.expect_err("refused").to_string();

    assert!(why(restore(&app, &bytes, AppHash([1; 32]))).contains("not to the recorded"));
    assert!(why(restore(&app, &bytes[..bytes.len() - 3], hash)).contains("does not decode"));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(why(restore(&app, &longer, hash)).contains("1 bytes follow it"));
    // A byte of the state changed (the height, after the version and the previous hash): the hash says so.
    let mut changed = bytes.clone();
    changed[33] ^= 1;
    assert!(why(restore(&app, &changed, hash)).contains("not to the recorded"));
    let other = App::<TestApp>::restore(
        Genesis::new(["a", "b", "c"], 1_000),
        Arc::new(NoRounds),
        &bytes,
        hash,
    );
    assert!(why(other).contains("another genesis"));
}

#[test]
fn the_periods_of_a_machine_without_keys_round_trip() {
    let mut periods = crate::abci::data::Periods::new(());
    periods.start_new_period(|_| ());
    periods.start_new_period(|_| ());
    let bytes = borsh::to_vec(&periods).expect("encodes");
    let back: crate::abci::data::Periods<()> = borsh::from_slice(&bytes).expect("decodes");
    assert_eq!(back, periods);
    assert_eq!(back.retained(), 3);
}
