//! Replays `tests/vectors/rounds.jsonl` against the round kinds: every transaction verdict and every
//! decision must be the one Open Autonomy's own round classes produced for the same blocks, with and without
//! block confirmations, and for upstream's registration round with agents rejoining.
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

/// The families of cases besides the plain kinds: the two collect kinds upstream lets wait for confirmations,
/// and upstream's registration round.
const CONFIRMED_FAMILIES: [&str; 3] = [
    "collect_different_until_threshold with confirmations",
    "collect_non_empty_until_threshold with confirmations",
    "registration",
];

/// The generator writes 430 cases per family; an emptied or truncated file must not pass as "no mismatch".
const MIN_CASES_PER_FAMILY: usize = 400;

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
    /// The agents active before the round (upstream's `participants`).
    participants: Vec<String>,
    /// Every agent registered at startup (upstream's `all_participants`); the participants when absent.
    all_participants: Option<Vec<String>>,
    keeper: Option<String>,
    /// Upstream's `required_block_confirmations`.
    confirmations: u32,
    /// Whether the round is upstream's `RegistrationRound`.
    registration: bool,
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
        let agents = |v: &Value| array(v)?.iter().map(string).collect::<Result<Vec<_>, _>>();
        Ok(Self {
            line,
            kind: string(&case["kind"])?,
            participants: agents(&case["participants"])?,
            all_participants: match case.get("all_participants") {
                None => None,
                Some(all) => Some(agents(all)?),
            },
            keeper: match &case["keeper"] {
                Value::Null => None,
                keeper => Some(string(keeper)?),
            },
            confirmations: match case.get("confirmations") {
                None => 0,
                Some(n) => n
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or(format!("not a count: {n}"))?,
            },
            registration: case.get("registration") == Some(&Value::Bool(true)),
            blocks,
            expected: case["expected"].clone(),
            expected_without_outsiders: case
                .get("expected_without_outsiders")
                .filter(|v| !v.is_null())
                .cloned(),
        })
    }

    /// The agents the round takes payloads from: every registered agent in a registration round (rejoining
    /// ones included), the participants otherwise.
    fn accepted(&self) -> &[String] {
        self.all_participants
            .as_deref()
            .unwrap_or(&self.participants)
    }

    fn is_outsider(&self, tx: &Tx) -> bool {
        !self.accepted().contains(&tx.sender)
    }

    /// The family the generator drew the case from, as its summary names it.
    fn family(&self) -> String {
        if self.registration {
            "registration".to_string()
        } else if self.confirmations > 0 {
            format!("{} with confirmations", self.kind)
        } else {
            self.kind.clone()
        }
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
    for family in kinds().chain(CONFIRMED_FAMILIES) {
        let count = cases.iter().filter(|c| c.family() == family).count();
        assert!(
            count >= MIN_CASES_PER_FAMILY,
            "{}: {count} `{family}` cases, expected at least {MIN_CASES_PER_FAMILY}; regenerate it with generate.py",
            path.display()
        );
    }
    cases
}

/// Feeds the case block by block, judging the round at each block's end as upstream's `end_block` does (a
/// block without transactions included: confirmations count such blocks too), and stops at the first decided
/// block. `value` reads a `Done` value (and the round, for what else it records). The result has the shape of
/// the vectors' `expected`.
fn replay<R: Round<Participant = String>>(
    mut round: R,
    case: &Case,
    payload: fn(&Value) -> Option<R::Payload>,
    value: fn(&R, R::Value) -> Value,
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
        if let Some(outcome) = round.end_block() {
            let event = outcome.kind().name();
            let value = match outcome {
                Outcome::Done(v) => value(&round, v),
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

fn scalar<R>(_: &R, v: i64) -> Value {
    Value::from(v)
}

fn by_sender<R, V: Into<Value>>(_: &R, map: BTreeMap<String, V>) -> Value {
    Value::Object(map.into_iter().map(|(k, v)| (k, v.into())).collect())
}

/// What upstream's `RegistrationRound` leaves on `DONE`: the payload its database was synced to, and the agents
/// registered, who become the participants (rejoining agents among them).
fn registered(round: &CollectSameUntilThreshold<String, i64>, v: i64) -> Value {
    json!({"value": v, "participants": round.submissions().keys().collect::<Vec<_>>()})
}

/// Our result for the case, in the shape of the vectors' `expected`.
///
/// A registration round takes payloads from every registered agent, as the app builds it; confirmations are
/// the threshold kinds' `with_confirmations`.
fn run_ours(case: &Case) -> Result<Value, String> {
    let mut participants =
        Participants::new(case.accepted().iter().cloned()).map_err(|e| e.to_string())?;
    if let Some(keeper) = &case.keeper {
        participants = participants
            .with_keeper(keeper.clone())
            .map_err(|e| e.to_string())?;
    }
    let p = &participants;
    let n = case.confirmations;
    if n > 0
        && !matches!(
            case.kind.as_str(),
            "collect_same_until_threshold"
                | "collect_different_until_threshold"
                | "collect_non_empty_until_threshold"
        )
    {
        return Err(format!("`{}` has no confirmations", case.kind));
    }
    match case.kind.as_str() {
        "collect_same_until_all" => replay(CollectSameUntilAll::new(p), case, int, scalar),
        "collect_different_until_all" => {
            replay(CollectDifferentUntilAll::new(p), case, int, by_sender)
        }
        "collect_same_until_threshold" if case.registration => {
            let round = CollectSameUntilThreshold::new(p).with_confirmations(n);
            replay(round, case, optional_int, registered)
        }
        "collect_same_until_threshold" => replay(
            CollectSameUntilThreshold::new(p).with_confirmations(n),
            case,
            optional_int,
            scalar,
        ),
        "collect_different_until_threshold" => replay(
            CollectDifferentUntilThreshold::new(p).with_confirmations(n),
            case,
            int,
            by_sender,
        ),
        "collect_non_empty_until_threshold" => replay(
            CollectNonEmptyUntilThreshold::new(p).with_confirmations(n),
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
    let mut per_family: BTreeMap<String, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for case in &cases {
        *per_family.entry(case.family()).or_default() += 1;
        if let Err(detail) = check(case) {
            mismatches.push(format!("line {} ({}): {detail}", case.line, case.kind));
        }
    }
    let summary: Vec<String> = per_family.iter().map(|(k, n)| format!("{k} {n}")).collect();
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

/// The first block at whose end the case's round had reached its threshold (by upstream's verdicts), if any:
/// enough payloads, or for registration enough equal ones.
fn threshold_block(case: &Case) -> Option<usize> {
    let threshold = fsmc_runtime::rounds::threshold(case.accepted().len());
    let mut collected: BTreeMap<&str, &Value> = BTreeMap::new();
    let verdicts = case.expected["txs"].as_array()?;
    for (index, (block, accepted)) in case.blocks.iter().zip(verdicts).enumerate() {
        for (tx, ok) in block.iter().zip(accepted.as_array()?) {
            if ok.as_bool() == Some(true) {
                collected.insert(&tx.sender, &tx.payload);
            }
        }
        let best = if case.registration {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for payload in collected.values() {
                *counts.entry(payload.to_string()).or_default() += 1;
            }
            counts.into_values().max().unwrap_or(0)
        } else {
            collected.len()
        };
        if best >= threshold {
            return Some(index);
        }
    }
    None
}

/// Pins what the confirmation and registration cases are there for, so that a regenerated file that stopped
/// exercising it fails: upstream deciding blocks after its threshold with payloads that arrived in between,
/// rounds still waiting at the threshold when the blocks run out, upstream's own requirement of ten blocks, and
/// agents outside the active participants rejoining at registration.
#[test]
fn confirmation_cases_show_late_payloads_waiting_and_rejoining() {
    let cases = load_cases();
    for family in CONFIRMED_FAMILIES {
        let of_family = || cases.iter().filter(move |c| c.family() == family);
        let late = of_family()
            .filter(|c| {
                let (Some(reached), Some(decided)) =
                    (threshold_block(c), c.expected["outcome"]["block"].as_u64())
                else {
                    return false;
                };
                let accepted_in = |b: usize| {
                    c.expected["txs"][b]
                        .as_array()
                        .is_some_and(|v| v.iter().any(|ok| ok.as_bool() == Some(true)))
                };
                (reached + 1..=usize::try_from(decided).unwrap_or(0)).any(accepted_in)
            })
            .count();
        let waiting = of_family()
            .filter(|c| c.expected["outcome"].is_null() && threshold_block(c).is_some())
            .count();
        let ten = of_family()
            .filter(|c| c.confirmations == 10 && !c.expected["outcome"].is_null())
            .count();
        println!(
            "{family}: {late} decided with late payloads, {waiting} waiting at the threshold, {ten} decided after 10 confirmations"
        );
        assert!(
            late > 0 && waiting > 0 && ten > 0,
            "{family}: {late} late, {waiting} waiting, {ten} after ten"
        );
    }
    let rejoined = cases
        .iter()
        .filter(|c| c.registration)
        .filter(|c| {
            let registered = &c.expected["outcome"]["value"]["participants"];
            registered.as_array().is_some_and(|agents| {
                agents.iter().any(|a| {
                    a.as_str()
                        .is_some_and(|a| !c.participants.iter().any(|p| p == a))
                })
            })
        })
        .count();
    println!("registration: {rejoined} cases where an agent outside the participants rejoined");
    assert!(
        rejoined > 0,
        "no registration case shows an agent rejoining"
    );
}
