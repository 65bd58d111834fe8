//! For every pair of specs drawn at build time, both sides run on the same schedules: when `fsmc diff` finds no
//! consensus-breaking change, replica 0 decides the same at every one of the 1,000 blocks; when it finds no
//! replay-breaking change either, it also reaches the same app hash at every block.

use fsmc_diff_soundness::{ATTEMPTS, BLOCKS, CASES, Case, Run};
use std::collections::BTreeMap;

/// The schedule each pair runs on: its own seed, so the pairs cover several schedules.
fn seed(i: usize) -> u64 {
    0x00c0_ffee + i as u64
}

/// What the runs of one pair show against the verdict, or `None` when they agree with it.
fn disagreement(case: &Case, old: &Run, new: &Run) -> Option<String> {
    let first =
        |same: &dyn Fn(&fsmc_diff_soundness::Block, &fsmc_diff_soundness::Block) -> bool| {
            old.iter()
                .zip(new)
                .find(|(a, b)| !same(a, b))
                .map(|(a, _)| a.height)
        };
    let decided = first(&|a, b| a.decided == b.decided);
    let hashed = first(&|a, b| a.hash == b.hash);
    match case.verdict {
        Some("consensus-breaking") => None,
        Some("replay-breaking") => decided.map(|h| format!("decided differently at block {h}")),
        _ => decided
            .map(|h| format!("decided differently at block {h}"))
            .or(hashed.map(|h| format!("hashed differently at block {h}"))),
    }
}

#[test]
fn replicas_compute_what_the_verdict_says() {
    let mut problems = Vec::new();
    let mut verdicts: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut consensus_seen, mut replay_seen) = (0, 0);
    for (i, case) in CASES.iter().enumerate() {
        let (old, new) = ((case.old)(seed(i)), (case.new)(seed(i)));
        assert_eq!(
            old.len() as u64,
            BLOCKS,
            "pair {i}: the old side ran {BLOCKS} blocks"
        );
        assert_eq!(
            new.len() as u64,
            BLOCKS,
            "pair {i}: the new side ran {BLOCKS} blocks"
        );
        let verdict = case.verdict.unwrap_or("no change");
        *verdicts.entry(verdict).or_default() += 1;
        if verdict == "consensus-breaking" && old != new {
            consensus_seen += 1;
        }
        if verdict == "replay-breaking" && old.iter().zip(&new).any(|(a, b)| a.hash != b.hash) {
            replay_seen += 1;
        }
        if let Some(why) = disagreement(case, &old, &new) {
            problems.push(format!(
                "pair {i} ({}): verdict {verdict}, but the replicas {why}\nfindings:\n{}",
                case.edits, case.findings
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The draw covers every verdict below consensus-breaking, so the claim is tested for each of them; and
    // most consensus- and replay-breaking pairs do show in 1,000 blocks (the verdicts are not merely cautious).
    for v in [
        "no change",
        "cosmetic",
        "interop",
        "code-breaking",
        "replay-breaking",
    ] {
        assert!(
            verdicts.get(v).copied().unwrap_or(0) >= 2,
            "too few pairs with verdict {v}: {verdicts:?}"
        );
    }
    let consensus = verdicts.get("consensus-breaking").copied().unwrap_or(0);
    assert!(
        consensus >= 2 && consensus_seen * 2 >= consensus,
        "{consensus_seen} of {consensus} consensus-breaking pairs differ"
    );
    let replay = verdicts.get("replay-breaking").copied().unwrap_or(0);
    assert!(
        replay_seen * 2 >= replay,
        "{replay_seen} of {replay} replay-breaking pairs hash differently"
    );
    eprintln!(
        "verdicts: {verdicts:?}; within {BLOCKS} blocks, {consensus_seen} consensus-breaking pairs decide \
         differently and {replay_seen} replay-breaking pairs hash differently"
    );
}

#[test]
fn the_fingerprint_moves_exactly_when_replicas_would() {
    let breaking = |v: Option<&str>| matches!(v, Some("consensus-breaking" | "replay-breaking"));
    let wrong: Vec<_> = ATTEMPTS
        .iter()
        .filter(|(moved, verdict)| *moved != breaking(*verdict))
        .collect();
    assert!(ATTEMPTS.len() >= 100, "{} edited specs", ATTEMPTS.len());
    assert!(
        wrong.is_empty(),
        "fingerprint moved against the verdict: {wrong:?}"
    );
}
