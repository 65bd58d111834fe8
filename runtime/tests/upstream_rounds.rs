//! Replays `tests/vectors/rounds.jsonl` against the round kinds: every transaction verdict and every
//! decision must be the one Open Autonomy's own round classes produced for the same blocks.
//!
//! The vectors, their format, how they are regenerated and the one deliberate difference (outsiders in
//! until-all rounds) are described in `tests/vectors/README.md`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use fsmc_runtime::rounds::{
    CollectDifferentUntilAll, CollectDifferentUntilThreshold, CollectNonEmptyUntilThreshold,
    CollectSameUntilAll, CollectSameUntilThreshold, OnlyKeeperSends, Outcome, Participants, Round,
    RoundKind, Voting,
};
use serde_json::{Value, json};

/// Every kind the vectors cover: each that decides from payloads (not `degenerate`, not `custom`), by the name
/// the vectors use.
fn kinds() -> impl Iterator<Item = &'static str> {
    RoundKind::ALL
        .iter()
        .filter(|k| !k.is_final() && **k != RoundKind::Custom)
        .map(|k| k.name())
}

/// The generator writes 430 cases per kind; an emptied or truncated file must not pass as "no mismatch".
const MIN_CASES_PER_KIND: usize = 400;

/// How many mismatches are printed in full; the rest are only counted.
const SHOWN_MISMATCHES: usize = 5;

struct Tx {
    sender: String,
    payload: Value,
}

struct Case {
    /// 1-based line in the vectors file, for messages.
    line: usize,
    kind: String,
    participants: Vec<String>,
    keeper: Option<String>,
    blocks: Vec<Vec<Tx>>,
    expected: Value,
    expected_without_outsiders: Option<Value>,
}

impl Case {
    fn parse(line: usize, text: &str) -> Result<Self, String> {
        let case: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let string = |v: &Value| {
            v.as_str()
                .map(str::to_owned)
                .ok_or(format!("not a string: {v}"))
        };
        let array = |v: &Value| v.as_array().cloned().ok_or(format!("not an array: {v}"));
        let blocks = array(&case["blocks"])?
            .iter()
            .map(|block| {
                array(block)?
                    .iter()
                    .map(|tx| {
                        Ok(Tx {
                            sender: string(&tx["sender"])?,
                            payload: tx["payload"].clone(),
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Self {
            line,
            kind: string(&case["kind"])?,
            participants: array(&case["participants"])?
                .iter()
                .map(string)
                .collect::<Result<_, _>>()?,
            keeper: match &case["keeper"] {
                Value::Null => None,
                keeper => Some(string(keeper)?),
            },
            blocks,
            expected: case["expected"].clone(),
            expected_without_outsiders: case
                .get("expected_without_outsiders")
                .filter(|v| !v.is_null())
                .cloned(),
        })
    }

    fn is_outsider(&self, tx: &Tx) -> bool {
        !self.participants.contains(&tx.sender)
    }

    fn has_outsider(&self) -> bool {
        self.blocks.iter().flatten().any(|tx| self.is_outsider(tx))
    }
}

fn load_cases() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/rounds.jsonl");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let cases: Vec<Case> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            Case::parse(index + 1, line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), index + 1))
        })
        .collect();
    for kind in kinds() {
        let count = cases.iter().filter(|c| c.kind == kind).count();
        assert!(
            count >= MIN_CASES_PER_KIND,
            "{}: {count} `{kind}` cases, expected at least {MIN_CASES_PER_KIND}; regenerate it with generate.py",
            path.display()
        );
    }
    cases
}

/// Feeds the case block by block, judging the round at each block's end as upstream's `end_block` does,
/// and stops at the first decided block. The result has the shape of the vectors' `expected`.
fn replay<R: Round<Participant = String>>(
    mut round: R,
    case: &Case,
    payload: fn(&Value) -> Option<R::Payload>,
    value: fn(R::Value) -> Value,
) -> Result<Value, String> {
    let mut txs = Vec::new();
    for (index, block) in case.blocks.iter().enumerate() {
        let mut verdicts = Vec::new();
        for tx in block {
            let p = payload(&tx.payload)
                .ok_or_else(|| format!("payload {} does not fit `{}`", tx.payload, case.kind))?;
            verdicts.push(round.submit(tx.sender.clone(), p).is_ok());
        }
        txs.push(verdicts);
        if let Some(outcome) = round.outcome() {
            let event = outcome.kind().name();
            let value = match outcome {
                Outcome::Done(v) => value(v),
                _ => Value::Null,
            };
            return Ok(json!({
                "txs": txs,
                "outcome": {"block": index, "event": event, "value": value},
            }));
        }
    }
    Ok(json!({"txs": txs, "outcome": null}))
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64()
}

fn optional_int(v: &Value) -> Option<Option<i64>> {
    if v.is_null() {
        Some(None)
    } else {
        v.as_i64().map(Some)
    }
}

fn optional_bool(v: &Value) -> Option<Option<bool>> {
    if v.is_null() {
        Some(None)
    } else {
        v.as_bool().map(Some)
    }
}

fn scalar(v: i64) -> Value {
    Value::from(v)
}

fn by_sender<V: Into<Value>>(map: BTreeMap<String, V>) -> Value {
    Value::Object(map.into_iter().map(|(k, v)| (k, v.into())).collect())
}

/// Our result for the case, in the shape of the vectors' `expected`.
fn run_ours(case: &Case) -> Result<Value, String> {
    let mut participants =
        Participants::new(case.participants.iter().cloned()).map_err(|e| e.to_string())?;
    if let Some(keeper) = &case.keeper {
        participants = participants
            .with_keeper(keeper.clone())
            .map_err(|e| e.to_string())?;
    }
    let p = &participants;
    match case.kind.as_str() {
        "collect_same_until_all" => replay(CollectSameUntilAll::new(p), case, int, scalar),
        "collect_different_until_all" => {
            replay(CollectDifferentUntilAll::new(p), case, int, by_sender)
        }
        "collect_same_until_threshold" => replay(
            CollectSameUntilThreshold::new(p),
            case,
            optional_int,
            scalar,
        ),
        "collect_different_until_threshold" => {
            replay(CollectDifferentUntilThreshold::new(p), case, int, by_sender)
        }
        "collect_non_empty_until_threshold" => replay(
            CollectNonEmptyUntilThreshold::new(p),
            case,
            optional_int,
            by_sender,
        ),
        "only_keeper_sends" => replay(OnlyKeeperSends::new(p), case, optional_int, scalar),
        "voting" => replay(Voting::new(p), case, optional_bool, by_sender),
        other => Err(format!("unknown kind `{other}`")),
    }
}

/// Our verdicts on the outsiders' transactions, and our result with those verdicts left out: the shape of
/// `expected_without_outsiders`.
fn split_outsiders(case: &Case, ours: &Value) -> (Vec<bool>, Value) {
    let mut outsiders = Vec::new();
    let txs: Vec<Vec<bool>> = case
        .blocks
        .iter()
        .zip(ours["txs"].as_array().into_iter().flatten())
        .map(|(block, verdicts)| {
            let verdicts = verdicts.as_array().into_iter().flatten();
            let mut kept = Vec::new();
            for (tx, verdict) in block.iter().zip(verdicts) {
                let accepted = verdict.as_bool() == Some(true);
                if case.is_outsider(tx) {
                    outsiders.push(accepted);
                } else {
                    kept.push(accepted);
                }
            }
            kept
        })
        .collect();
    (outsiders, json!({"txs": txs, "outcome": ours["outcome"]}))
}

/// Checks one case; `Err` describes the mismatch.
fn check(case: &Case) -> Result<(), String> {
    let ours = run_ours(case)?;
    match &case.expected_without_outsiders {
        // The documented difference: upstream's until-all rounds accept outsiders, ours reject them, so
        // ours must reject every outsider and otherwise behave as upstream does on the case without them.
        Some(without) => {
            let (outsiders, rest) = split_outsiders(case, &ours);
            if outsiders.iter().any(|&accepted| accepted) {
                return Err(format!("an outsider's payload was accepted: ours {ours}"));
            }
            if rest != *without {
                return Err(format!(
                    "without outsiders, upstream {without}\n    ours {rest}"
                ));
            }
        }
        None if ours != case.expected => {
            return Err(format!("upstream {}\n    ours {ours}", case.expected));
        }
        None => {}
    }
    Ok(())
}

#[test]
fn every_case_matches_upstream() {
    let cases = load_cases();
    let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for case in &cases {
        *per_kind.entry(case.kind.as_str()).or_default() += 1;
        if let Err(detail) = check(case) {
            mismatches.push(format!("line {} ({}): {detail}", case.line, case.kind));
        }
    }
    let summary: Vec<String> = per_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "upstream round vectors: {} cases ({}), {} mismatches",
        cases.len(),
        summary.join(", "),
        mismatches.len()
    );
    for mismatch in mismatches.iter().take(SHOWN_MISMATCHES) {
        println!("  {mismatch}");
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ from upstream; the first {} are printed above",
        mismatches.len(),
        cases.len(),
        mismatches.len().min(SHOWN_MISMATCHES)
    );
}

/// Pins the deliberate difference: it must still show in upstream's raw results, and nowhere else than
/// in until-all cases where upstream accepted an outsider.
#[test]
fn outsiders_in_until_all_rounds_are_the_only_difference() {
    let cases = load_cases();
    let mut differing = 0;
    for case in &cases {
        let ours = run_ours(case).unwrap_or_else(|e| panic!("line {}: {e}", case.line));
        if ours == case.expected {
            continue;
        }
        differing += 1;
        let upstream_accepted_outsider = case
            .blocks
            .iter()
            .zip(case.expected["txs"].as_array().into_iter().flatten())
            .any(|(block, verdicts)| {
                block
                    .iter()
                    .zip(verdicts.as_array().into_iter().flatten())
                    .any(|(tx, v)| case.is_outsider(tx) && v.as_bool() == Some(true))
            });
        assert!(
            case.expected_without_outsiders.is_some() && upstream_accepted_outsider,
            "line {} ({}): differs from upstream without an outsider accepted upstream",
            case.line,
            case.kind
        );
    }
    let with_outsiders = cases
        .iter()
        .filter(|c| c.expected_without_outsiders.is_some())
        .count();
    assert!(
        with_outsiders > 0
            && cases
                .iter()
                .all(|c| c.expected_without_outsiders.is_none() || c.has_outsider()),
        "every `expected_without_outsiders` case must contain an outsider, and there must be some"
    );
    assert!(
        differing > 0,
        "no until-all case shows upstream accepting an outsider: the documented difference is gone"
    );
}
