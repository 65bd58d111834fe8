//! `--emit-test`: a counterexample as a Rust test that feeds its blocks to the generated app's `deliver_block`
//! and asserts the property it violates. On the broken spec the test fails; once the spec is fixed, either the
//! blocks no longer lead where they did (the replay stops as soon as the app is elsewhere) or they do and the
//! property holds, and it passes.
//!
//! Agents are `agent-0`…; the last `faults` of them are the faulty ones. Each block's payloads are sent by the
//! first eligible agents of their group that have not sent in the round, with a value of their class: the
//! agreed value, another value, or an empty payload, written for the payload type the spec names.

use crate::{Config, Counterexample};
use fsmc_base::diag::Code;
use fsmc_model::ident::snake;
use fsmc_model::spec::{Machine, State};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use std::fmt::Write as _;

/// The test for `cex`, found in `machine` (an `abci` machine or an app's composed machine) with `config`;
/// `spec_path` is the spec as `include_fsm!` names it from the test's crate. `Err` says why no test can be
/// written (a custom round decides by the app's own code, which a generic test cannot supply).
pub fn emit_test(
    machine: &Machine,
    cex: &Counterexample,
    config: &Config,
    spec_path: &str,
) -> Result<String, String> {
    let module = snake(&machine.name.text);
    let mut arms = String::new();
    for st in &machine.states {
        if st.is_final || !cex.blocks.iter().any(|b| b.state == st.name.text) {
            continue;
        }
        for class in 0..3u8 {
            if let Some(expr) = payload(machine, st, class)? {
                let _ = writeln!(
                    arms,
                    "        ({:?}, {class}) => encode(&{{ {expr} }}),",
                    st.name.text
                );
            }
        }
    }
    let mut blocks = String::new();
    for b in &cex.blocks {
        let sends: Vec<String> = b
            .sends
            .iter()
            .map(|(h, c, n)| format!("({h}, {c}, {n})"))
            .collect();
        let _ = writeln!(
            blocks,
            "    ({:?}, {}, &[{}]),",
            b.state,
            b.timeout.map_or(0, |d| d.as_millis()),
            sends.join(", ")
        );
    }
    let assertion = assertion(cex, &module);
    // An `eventually`'s formula, evaluated in every state the replay goes through.
    let holds = match (&cex.claim, cex.code) {
        (Some(c), Code::EventuallyViolated) => rust_formula(&c.formula),
        _ => "false".to_string(),
    };
    Ok(TEMPLATE
        .replace("{SPEC}", spec_path)
        .replace("{MODULE}", &module)
        .replace("{CODE}", cex.code.id())
        .replace("{AGENTS}", &config.agents.to_string())
        .replace("{FAULTS}", &config.faults.to_string())
        .replace(
            "{LOOP_FROM}",
            &cex.loop_from.map_or(usize::MAX, |l| l).to_string(),
        )
        .replace("{BLOCKS}", blocks.trim_end())
        .replace("{ARMS}", arms.trim_end())
        .replace("{HOLDS}", &holds)
        .replace("{ASSERT}", &assertion))
}

/// What the test asserts once the blocks are replayed.
fn assertion(cex: &Counterexample, module: &str) -> String {
    match cex.code {
        Code::VerifyKeeperNotLive => "    let live = app\n        .keeper()\n        .is_some_and(|k| !app.failed_keepers().contains(k) && app.participants().contains(k));\n    assert!(live, \"keeper round `{}` runs without a live keeper\", app.state());".to_string(),
        Code::VerifyKeyMissing => format!(
            "    let _: &{module}::Data = app.data();\n    assert!(app.data().{}.is_some(), \"`{{}}` is entered without `{}`\", app.state());",
            snake(cex.key.as_deref().unwrap_or("")),
            cex.key.as_deref().unwrap_or("")
        ),
        Code::InvariantViolated => match &cex.claim {
            Some(c) => format!(
                "    let _: &{module}::Data = app.data();\n    assert!(\n        {},\n        {:?},\n        app.state()\n    );",
                rust_formula(&c.formula),
                // A Rust string literal, braces doubled: it is the assertion's format string.
                format!("invariant \"{}\" fails in `{{}}`", c.name.as_str().replace('{', "{{").replace('}', "}}"))
            ),
            None => String::new(),
        },
        Code::EventuallyViolated => match &cex.claim {
            Some(c) => format!(
                "    let _: &{module}::Data = app.data();\n    assert!(\n        held || !never_ends,\n        {:?},\n        app.state()\n    );",
                format!(
                    "eventually \"{}\" is never satisfied: {} (now in `{{}}`)",
                    c.name.as_str().replace('{', "{{").replace('}', "}}"),
                    if cex.loop_from.is_some() {
                        "each time round, the loop of blocks brings the app back to where the loop began, so it repeats forever"
                    } else {
                        "the blocks end the app"
                    }
                )
            ),
            None => String::new(),
        },
        // A period that never ends is a lasso too: it fails only when the loop provably repeats forever.
        _ => "    assert!(\n        ended || !never_ends,\n        \"the app stays in `{}` (period {}): each time round, the loop of blocks brings the app back to where the loop began without ending the period\",\n        app.state(),\n        app.period()\n    );".to_string(),
    }
}

/// A claim's formula as a Rust condition on the replayed `app`.
fn rust_formula(f: &fsmc_model::spec::Formula) -> String {
    use fsmc_model::spec::{Formula, PeriodCmp};
    let all = |fs: &[Formula], sep: &str| {
        let parts: Vec<String> = fs.iter().map(rust_formula).collect();
        format!("({})", parts.join(sep))
    };
    match f {
        Formula::In(states) => {
            let tests: Vec<String> = states
                .iter()
                .map(|s| format!("app.state().to_string() == {:?}", s.as_str()))
                .collect();
            format!("({})", tests.join(" || "))
        }
        Formula::After(states) => {
            let tests: Vec<String> = states
                .iter()
                .map(|s| format!("from == {:?}", s.as_str()))
                .collect();
            format!(
                "led.as_ref().is_some_and(|(from, _)| {})",
                tests.join(" || ")
            )
        }
        Formula::Outcome(events) => {
            let tests: Vec<String> = events
                .iter()
                .map(|e| format!("event == {:?}", e.as_str()))
                .collect();
            format!(
                "led.as_ref().is_some_and(|(_, event)| {})",
                tests.join(" || ")
            )
        }
        Formula::Period(cmp, n) => {
            let op = match cmp {
                PeriodCmp::Is => "==",
                PeriodCmp::AtLeast => ">=",
                PeriodCmp::AtMost => "<=",
            };
            format!("(app.period() {op} {n})")
        }
        Formula::Has(k) => format!("app.data().{}.is_some()", snake(k.as_str())),
        Formula::Missing(k) => format!("app.data().{}.is_none()", snake(k.as_str())),
        Formula::Not(f) => format!("!{}", rust_formula(f)),
        Formula::And(fs) => all(fs, " && "),
        Formula::Or(fs) => all(fs, " || "),
    }
}

/// The Rust expression of a payload of `class` for state `st`, of the type the generated round decodes;
/// `None` when the round takes no such payload.
fn payload(m: &Machine, st: &State, class: u8) -> Result<Option<String>, String> {
    let kind = st.round_kind();
    let round = st.round();
    let none = || {
        m.state_ids()
            .find(|s| m.state(*s).name == st.name)
            .and_then(|s| m.outcome_event(s, OutcomeKind::None))
            .is_some_and(|e| {
                m.transitions
                    .iter()
                    .any(|t| t.event == Some(e) && m.state(t.from).name == st.name)
            })
    };
    let ty = st.payload().unwrap_or("()");
    if round.is_some_and(|r| r.elects_keeper.is_some()) {
        return Ok(match class {
            0 => Some("candidate(app, true)".to_string()),
            1 => Some("candidate(app, false)".to_string()),
            _ => None,
        });
    }
    let n = match (kind, class) {
        (RoundKind::CollectDifferentUntilAll, 0) => "100 + me",
        (RoundKind::CollectDifferentUntilAll, _) => "100 + next",
        (RoundKind::CollectDifferentUntilThreshold, _) => "100 + me",
        (_, 1) => "1",
        _ => "0",
    };
    let (option, inner_ty, value) = match kind {
        RoundKind::Custom | RoundKind::Degenerate => {
            return Err(format!(
                "`{}` is a custom round: the app's own code decides it, which a generated test cannot supply",
                st.name
            ));
        }
        RoundKind::Voting => (none(), "bool".to_string(), format!("{}", class == 0)),
        RoundKind::CollectNonEmptyUntilThreshold | RoundKind::OnlyKeeperSends => {
            (true, ty.to_string(), value(ty, n)?)
        }
        RoundKind::CollectSameUntilThreshold => (none(), ty.to_string(), value(ty, n)?),
        _ => (false, ty.to_string(), value(ty, n)?),
    };
    Ok(match (option, class) {
        (true, 2) => Some(format!("let v: Option<{inner_ty}> = None; v")),
        (false, 2) => None,
        (true, _) => Some(format!("let v: Option<{inner_ty}> = Some({value}); v")),
        (false, _) => Some(format!("let v: {inner_ty} = {value}; v")),
    })
}

/// An expression of type `ty` (as a spec writes it) built from the number `n` (a Rust expression of type
/// `usize`): different numbers give different values, as far as the type allows.
fn value(ty: &str, n: &str) -> Result<String, String> {
    let parsed: syn::Type = syn::parse_str(ty).map_err(|_| format!("`{ty}` is not a Rust type"))?;
    of_type(&parsed, n).ok_or_else(|| format!("no test value for payloads of type `{ty}`"))
}

fn of_type(ty: &syn::Type, n: &str) -> Option<String> {
    match ty {
        syn::Type::Tuple(t) => {
            let items: Option<Vec<String>> = t.elems.iter().map(|e| of_type(e, n)).collect();
            let items = items?;
            Some(match items.len() {
                0 => "()".to_string(),
                1 => format!("({},)", items[0]),
                _ => format!("({})", items.join(", ")),
            })
        }
        syn::Type::Array(a) => {
            let inner = of_type(&a.elem, n)?;
            Some(format!("std::array::from_fn(|_| {inner})"))
        }
        syn::Type::Paren(p) => of_type(&p.elem, n),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let args: Vec<&syn::Type> = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let name = last.ident.to_string();
            Some(match (name.as_str(), args.as_slice()) {
                (
                    "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                    | "i128" | "isize",
                    _,
                ) => format!("({n}) as {name}"),
                ("f32" | "f64", _) => format!("({n}) as {name}"),
                ("bool", _) => format!("({n}) % 2 == 1"),
                ("String" | "AgentId", _) => format!("format!(\"v{{}}\", {n})"),
                ("Option", [t]) => format!("Some({})", of_type(t, n)?),
                ("Vec", [t]) => format!("vec![{}]", of_type(t, n)?),
                ("BTreeMap", [k, v]) => format!(
                    "[({}, {})].into_iter().collect::<std::collections::BTreeMap<_, _>>()",
                    of_type(k, n)?,
                    of_type(v, n)?
                ),
                ("BTreeSet", [t]) => format!(
                    "[{}].into_iter().collect::<std::collections::BTreeSet<_>>()",
                    of_type(t, n)?
                ),
                _ => return None,
            })
        }
        _ => None,
    }
}

const TEMPLATE: &str = r#"// A counterexample of `fsmc verify` ({CODE}), as a regression test: the blocks that break the app, fed to
// the generated app's `deliver_block`. It fails while the spec has the bug, and passes once it is fixed.

fsmc_runtime::include_fsm!("{SPEC}");

use fsmc_runtime::app::{App, Block, Genesis, Tx, encode};
use std::collections::BTreeSet;

type Spec = {MODULE}::Spec;

const AGENTS: usize = {AGENTS};
const FAULTS: usize = {FAULTS};
/// Where the loop of blocks that never ends the period begins (`usize::MAX`: no loop).
const LOOP_FROM: usize = {LOOP_FROM};
/// A block: the state it finds the app in, the timeout that fires at its start (ms, 0: none), and its
/// payloads: (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many).
type Planned = (&'static str, u64, &'static [(bool, u8, u8)]);

const BLOCKS: &[Planned] = &[
{BLOCKS}
];

fn agent(i: usize) -> String {
    format!("agent-{i}")
}

fn honest(id: &str) -> bool {
    (0..AGENTS - FAULTS).any(|i| agent(i) == id)
}

/// An agent of the group that may be elected keeper: a participant that has not failed this period.
#[allow(dead_code)]
fn candidate(app: &App<Spec>, from_honest: bool) -> String {
    app.participants()
        .iter()
        .find(|a| honest(a) == from_honest && !app.failed_keepers().contains(*a))
        .cloned()
        .unwrap_or_else(|| agent(AGENTS - 1))
}

// A value is written as `(n) as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(state: &str, class: u8, me: usize, next: usize, app: &App<Spec>) -> Vec<u8> {
    let _ = (me, next, app);
    let bytes = match (state, class) {
{ARMS}
        _ => Ok(Vec::new()),
    };
    bytes.expect("the payload encodes")
}

/// Whether the `eventually` the blocks break holds in the app's state (`led`: the transition that led into it).
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: &Option<(String, String)>) -> bool {
    {HOLDS}
}

/// Everything the app's next blocks depend on: where it is, its data, the round in progress, the participants
/// and the keeper (not the height, the time or the period number, which only count).
fn snapshot(app: &App<Spec>) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?}",
        app.state(),
        app.data(),
        app.round(),
        app.participants(),
        app.keeper(),
        app.failed_keepers()
    )
}

#[test]
fn counterexample() {
    replay();
}

/// Replays the blocks and asserts the property they break.
// `LOOP_FROM` is `usize::MAX` when there is no loop, which makes its comparisons constant; the property's formula
// is written as the spec states it, not as clippy would simplify it.
#[allow(clippy::absurd_extreme_comparisons, clippy::nonminimal_bool)]
fn replay() {
    let ids: Vec<String> = (0..AGENTS).map(agent).collect();
    let mut app = App::<Spec>::new(Genesis::new(ids.clone(), 0)).expect("genesis");
    let mut sent: BTreeSet<String> = BTreeSet::new();
    let mut round = app.round_count();
    let prefix = if LOOP_FROM < BLOCKS.len() { LOOP_FROM } else { BLOCKS.len() };
    let mut schedule: Vec<usize> = (0..prefix).collect();
    if LOOP_FROM < BLOCKS.len() {
        for _ in 0..3 {
            schedule.extend(LOOP_FROM..BLOCKS.len());
        }
    }
    let mut period = None;
    let mut ended = false;
    // The transition that led into the current state: the state it left and its event.
    let mut led: Option<(String, String)> = None;
    // For an `eventually`: whether its formula held in a state on the way, and the app at each start of the loop.
    let mut held = holds(&app, &led);
    let mut starts: Vec<String> = Vec::new();
    for (n, &i) in schedule.iter().enumerate() {
        let (state, timeout, sends) = BLOCKS[i];
        if i == LOOP_FROM && period.is_none() {
            period = Some(app.period());
        }
        if i == LOOP_FROM {
            starts.push(snapshot(&app));
        }
        if app.state().to_string() != state || app.is_finished() {
            // The app is elsewhere: the blocks no longer lead where they did.
            return;
        }
        if app.round_count() != round {
            sent.clear();
            round = app.round_count();
        }
        let time_ms = if timeout > 0 {
            app.round_started_ms() + timeout
        } else {
            app.time_ms() + 1000
        };
        let mut txs = Vec::new();
        for &(from_honest, class, count) in sends {
            let next = (0..AGENTS)
                .find(|j| honest(&agent(*j)) && app.eligible().contains(&agent(*j)) && !sent.contains(&agent(*j)))
                .unwrap_or(0);
            let senders: Vec<usize> = (0..AGENTS)
                .filter(|j| {
                    let id = agent(*j);
                    honest(&id) == from_honest && app.expects(&id) && !sent.contains(&id)
                })
                .take(usize::from(count))
                .collect();
            for j in senders {
                let data = payload(state, class, j, next, &app);
                sent.insert(agent(j));
                txs.push(Tx { sender: agent(j), data: app.submission(data) });
            }
        }
        let height = app.height() + 1;
        match app.deliver_block(&Block { height, time_ms, txs }) {
            Ok(report) => {
                if let Some(s) = report.steps.last() {
                    led = Some((s.from.to_string(), s.event.to_string()));
                }
            }
            Err(e) => panic!("block {n} does not apply: {e}"),
        }
        if period.is_some_and(|p| app.period() != p) || app.is_finished() {
            ended = true;
        }
        held |= holds(&app, &led);
    }
    starts.push(snapshot(&app));
    // The loop repeats forever when every time round it brings the app back to where it began: a replica is a
    // deterministic function of its blocks. Without a loop, the run ends.
    let never_ends = if LOOP_FROM < BLOCKS.len() {
        starts.windows(2).all(|w| w[0] == w[1])
    } else {
        app.is_finished()
    };
    let _ = (ended, held, never_ends);
{ASSERT}
}
"#;
