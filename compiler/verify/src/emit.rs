//! `--emit-test`: a counterexample as a Rust test that replays its blocks on the generated app and asserts the
//! property it violates. On the broken spec the test fails; once the spec is fixed, either the blocks no longer
//! lead where they did (the replay stops as soon as the app is elsewhere) or they do and the property holds,
//! and it passes.
//!
//! The replay itself is the runtime's (`fsmc_runtime::app::replay`), the same for every test; the test holds
//! what is specific to its counterexample: the blocks, a payload of each class for each state, written for the
//! payload type the spec names (the agreed value, another value, or an empty payload), the property's formula
//! and the assertion.

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
    let property = property(cex)?;
    Ok(TEMPLATE
        .replace("{SPEC}", spec_path)
        .replace("{MODULE}", &module)
        .replace("{CODE}", cex.code.id())
        .replace("{AGENTS}", &config.agents.to_string())
        .replace("{FAULTS}", &config.faults.to_string())
        .replace(
            "{LOOP_FROM}",
            &cex.loop_from
                .map_or("None".to_string(), |l| format!("Some({l})")),
        )
        .replace("{BLOCKS}", blocks.trim_end())
        .replace("{ARMS}", arms.trim_end())
        .replace("{HOLDS_DOC}", &property.doc)
        .replace("{HOLDS}", &property.holds)
        .replace("{ASSERT}", &property.assert))
}

/// The property a counterexample breaks, as the emitted test states it.
struct Property {
    /// The doc comment of `holds`.
    doc: String,
    /// The body of `holds`: a condition on `app` and `led`, the transition that led into its state.
    holds: String,
    /// The assertion on `end`, what the replay found.
    assert: String,
}

/// The property `cex` breaks: a condition on one state of the app, asserted on the app at the end, or for a
/// lasso a property of the run, asserted on what the replay found along the way. `Err` for a violation no
/// replay can show.
fn property(cex: &Counterexample) -> Result<Property, String> {
    // A name from the spec inside the assertion's format string, braces doubled.
    let quoted = |name: &str| name.replace('{', "{{").replace('}', "}}");
    // A condition on the state at the end, asserted with a message naming that state.
    let at_end = |doc: &str, holds: String, message: String| Property {
        doc: format!("/// {doc}"),
        holds,
        assert: assertion(
            "holds(&end.app, end.led.as_ref())",
            &message,
            "end.app.state()",
        ),
    };
    // The state a keeper or a key is checked in: elsewhere the property says nothing (a fixed spec's blocks
    // may end in another state, where no keeper is elected or the key is not yet written).
    let entered = cex.entered.as_deref().unwrap_or("");
    let in_entered = format!("!(app.state().to_string() == {entered:?})");
    let key = cex.key.as_deref().unwrap_or("");
    Ok(match (cex.code, &cex.claim) {
        (Code::VerifyKeeperNotLive, _) => at_end(
            &format!("Whether keeper round `{entered}` has a live keeper, if the app is in it: a participant that has not failed this period."),
            format!("{in_entered} || app.keeper().is_some_and(|k| !app.failed_keepers().contains(k) && app.participants().contains(k))"),
            "keeper round `{}` runs without a live keeper".to_string(),
        ),
        (Code::VerifyKeyMissing, _) => at_end(
            &format!("Whether `{key}` is present in the app's data, if the app is in `{entered}`."),
            format!("{in_entered} || app.data().{}.is_some()", snake(key)),
            format!("`{{}}` is entered without `{}`", quoted(key)),
        ),
        (Code::InvariantViolated, Some(c)) => at_end(
            "Whether the invariant the blocks break holds in the app's state (`led`: the transition that led into it).",
            rust_formula(&c.formula),
            format!("invariant \"{}\" fails in `{{}}`", quoted(c.name.as_str())),
        ),
        (Code::EventuallyViolated, Some(c)) => Property {
            doc: "/// Whether the `eventually` the blocks break holds in the app's state (`led`: the transition that led into it).".to_string(),
            holds: rust_formula(&c.formula),
            assert: assertion(
                "end.held || !end.never_ends",
                &format!(
                    "eventually \"{}\" is never satisfied: {} (now in `{{}}`)",
                    quoted(c.name.as_str()),
                    if cex.loop_from.is_some() {
                        "each time round, the loop of blocks brings the app back to where the loop began, so it repeats forever"
                    } else {
                        "the blocks end the app"
                    }
                ),
                "end.app.state()",
            ),
        },
        // A period that never ends is a lasso too: it fails only when the loop provably repeats forever.
        (Code::VerifyPeriodNeverEnds, _) => Property {
            doc: "/// No condition on one state: a period that never ends is a property of the run (the replay's `ended`).".to_string(),
            holds: "false".to_string(),
            assert: assertion(
                "end.ended || !end.never_ends",
                "the app stays in `{}` (period {}): each time round, the loop of blocks brings the app back to where the loop began without ending the period",
                "end.app.state(),\n        end.app.period()",
            ),
        },
        // A state no block leaves is a fact about every block that could come, which one replay cannot show; a
        // declared property's violation always carries its claim.
        (code, _) => return Err(format!("no test is written for a counterexample of {}", code.id())),
    })
}

/// `assert!(condition, message, args)`, one argument a line; `message` becomes a string literal.
fn assertion(condition: &str, message: &str, args: &str) -> String {
    format!("    assert!(\n        {condition},\n        {message:?},\n        {args}\n    );")
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
                .map(|s| format!("l.from.to_string() == {:?}", s.as_str()))
                .collect();
            format!("led.is_some_and(|l| {})", tests.join(" || "))
        }
        Formula::Outcome(events) => {
            let tests: Vec<String> = events
                .iter()
                .map(|e| format!("l.event.to_string() == {:?}", e.as_str()))
                .collect();
            format!("led.is_some_and(|l| {})", tests.join(" || "))
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
            0 => Some("s.candidate(true)".to_string()),
            1 => Some("s.candidate(false)".to_string()),
            _ => None,
        });
    }
    let n = match (kind, class) {
        (RoundKind::CollectDifferentUntilAll, 0) => "100 + s.me",
        (RoundKind::CollectDifferentUntilAll, _) => "100 + s.next",
        (RoundKind::CollectDifferentUntilThreshold, _) => "100 + s.me",
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
/// `usize`): different numbers give different values, as far as the type allows. The values are the ones the
/// generated tests sample (`fsmc_model::codegen::tests::sample_from`), written on one line.
fn value(ty: &str, n: &str) -> Result<String, String> {
    let none = || format!("no test value for payloads of type `{ty}`");
    let n: proc_macro2::TokenStream = n
        .parse()
        .map_err(|_| format!("`{n}` is not an expression"))?;
    let expr = fsmc_model::codegen::tests::sample_from(ty, &n).ok_or_else(none)?;
    // Printed as the item `const _: () = EXPR;` (the type is only there to make an item), then cut out.
    let file: syn::File =
        syn::parse2(quote::quote! { const _: () = #expr; }).map_err(|_| none())?;
    let text = prettyplease::unparse(&file);
    let text = text
        .trim()
        .strip_prefix("const _: () = ")
        .and_then(|t| t.strip_suffix(';'));
    Ok(text
        .ok_or_else(none)?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" "))
}

const TEMPLATE: &str = r#"// A counterexample of `fsmc verify` ({CODE}), as a regression test: the blocks that break the app, replayed on
// the generated app by `fsmc_runtime::app::replay`. It fails while the spec has the bug, and passes once it is
// fixed.

fsmc_runtime::include_fsm!("{SPEC}");

use fsmc_runtime::app::replay::{Group, Planned, Sending};
use fsmc_runtime::app::{App, AppStep, EncodeError, encode};

type Spec = {MODULE}::Spec;

const GROUP: Group = Group { agents: {AGENTS}, faults: {FAULTS} };
/// Where the loop of blocks the environment can repeat forever begins (`None`: no loop).
const LOOP_FROM: Option<usize> = {LOOP_FROM};
/// The blocks, each planned for the state it finds the app in: (state, timeout that fires at its start in ms,
/// payloads as (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many)).
const BLOCKS: &[Planned] = &[
{BLOCKS}
];

/// A payload of the class `s` names for the state's payload type.
// A value is written as `n as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(s: &Sending<'_, Spec>) -> Result<Vec<u8>, EncodeError> {
    match (s.state, s.class) {
{ARMS}
        _ => Ok(Vec::new()),
    }
}

{HOLDS_DOC}
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: Option<&AppStep<Spec>>) -> bool {
    {HOLDS}
}

#[test]
fn counterexample() {
    replay();
}

/// Replays the blocks and asserts the property they break.
fn replay() {
    let run = fsmc_runtime::app::replay::run(GROUP, BLOCKS, LOOP_FROM, payload, holds);
    // `None`: the app is elsewhere than planned, so the blocks no longer lead where they did.
    let Some(end) = run.unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
{ASSERT}
}
"#;
