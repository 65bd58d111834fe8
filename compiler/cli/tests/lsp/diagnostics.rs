//! Diagnostics: those of `fsmc check` (codes, spans, help), published per file as the text changes, across
//! imports (an unsaved buffer of an imported file, a YAML file changed on disk), and cleared when fixed.

use crate::fixture::{MAIN, PRICE, REGISTRATION, Session, diagnostics, oracle, uri};
use expect_test::{Expect, expect};
use serde_json::{Value, json};

/// The diagnostics published once the fixture's document is open.
fn check(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let published = s.diagnostics();
    expect.assert_eq(&diagnostics(&s, &published));
}

#[test]
fn a_clean_workspace_has_none() {
    check(&oracle(MAIN, PRICE), expect![[r#""#]]);
}

#[test]
fn errors_warnings_and_help_as_fsmc_check_reports_them() {
    check(
        r#"
        machine M: abci {
            event DONE, NO_MAJORITY, GO;
            key unused: u64;
            start default state A: collect_same_until_threshold;
            state B: votin;
            final state C;
            (A, DONE) -> C;
            (B, DONE) -> Cc;
        }
        "#,
        expect![[r#"
            main.fsm 0:8-0:9 `M` warning W1002: machine label `M` does not end in `AbciApp`
                Open Autonomy names apps `…AbciApp`
                help: rename it, or allow the lint with `#[allow(app_naming)]`
            main.fsm 2:8-2:14 `unused` warning W0606: key `unused` is never read, written or guaranteed
                unused key
                help: use it in a state's `reads`/`writes`, or remove it
            main.fsm 3:24-3:25 `A` warning W1001: state `A` does not end in `Round`
                Open Autonomy names rounds `…Round`
                help: rename it, or allow the lint with `#[allow(state_naming)]`
            main.fsm 4:10-4:11 `B` warning W1001: state `B` does not end in `Round`
                Open Autonomy names rounds `…Round`
                help: rename it, or allow the lint with `#[allow(state_naming)]`
            main.fsm 4:13-4:18 `votin` error E0109: unknown state kind `votin` for an `abci` machine
                not a known kind
                help: did you mean `voting`?
            main.fsm 5:16-5:17 `C` warning W1001: state `C` does not end in `Round`
                Open Autonomy names rounds `…Round`
                help: rename it, or allow the lint with `#[allow(state_naming)]`
            main.fsm 7:17-7:19 `Cc` error E0104: unknown state `Cc`
                not declared in machine `M`
                help: did you mean `C`?
        "#]],
    );
}

#[test]
fn the_same_as_fsmc_check_position_by_position() {
    let text = "machine M: abci {\n    event DONE, NO_MAJORITY, GO;\n    key unused: u64;\n    \
                start default state A: collect_same_until_threshold;\n    state B: votin;\n    \
                final state C;\n    (A, DONE) -> C;\n    (B, DONE) -> Cc;\n}\n";
    let mut s = Session::new(text);
    let got: Vec<(String, Value, String)> = s
        .diagnostics()
        .into_iter()
        .flat_map(|(_, list)| list)
        .map(|d| {
            let message = d["message"].as_str().unwrap_or_default();
            let help = message
                .split("\nhelp: ")
                .nth(1)
                .map_or("", |h| h.split('\n').next().unwrap_or(""));
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["range"]["start"].clone(),
                format!("{} {help}", d["severity"]),
            )
        })
        .collect();
    let c = fsmc_driver::compile(&s.path(0), &fsmc_driver::Options::default()).expect("readable");
    assert!(c.diagnostics.len() >= 3, "{:?}", c.diagnostics);
    let file = c
        .sources
        .get(fsmc_base::source::FileId(0))
        .expect("the file");
    let want: Vec<(String, Value, String)> = c
        .diagnostics
        .iter()
        .map(|d| {
            let span = d.primary.as_ref().expect("a primary label").span;
            let (l, col) = file.line_col(span.start as usize);
            let sev = if d.is_error() { "1" } else { "2" };
            (
                d.code.id().to_string(),
                json!({ "line": l - 1, "character": col - 1 }),
                format!("{sev} {}", d.help.clone().unwrap_or_default()),
            )
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_typo_in_an_unsaved_imported_file_is_reported_there_and_cleared_when_fixed() {
    let mut s = Session::new(&oracle(MAIN, PRICE));
    assert_eq!(s.diagnostics(), [], "the workspace checks clean");
    let typo = PRICE.replace(
        "NO_MAJORITY) -> CollectPriceRound",
        "NO_MAJORITY) -> CollectPrizeRound",
    );
    s.fixture.files[1].text = typo;
    s.open(1);
    let published = s.diagnostics();
    // The typo; the app in `main.fsm` also reports the composed machine's consequence of it, as `fsmc check`
    // does.
    expect![[r#"
        price.fsm 8:24-8:41 `CollectPriceRound` error E0510: in the composed app `OracleAbciApp`: round `CollectPriceRound` can emit `NO_MAJORITY` but has no transition for it
            a `collect_same_until_threshold` round
            help: add `(CollectPriceRound, NO_MAJORITY) -> NextRound;`
            note: the composed machine fails E0401 (missing_round_event) once the chain is applied
            related: main.fsm 4:4-4:17 `OracleAbciApp` composed here
        price.fsm 15:40-15:57 `CollectPrizeRound` error E0104: unknown state `CollectPrizeRound`
            not declared in machine `PriceAbciApp`
            help: did you mean `CollectPriceRound`?
    "#]].assert_eq(&diagnostics(&s, &published));
    s.change(1, 2, PRICE);
    let published = s.server.publish_diagnostics();
    let price = uri(&s.path(1));
    let cleared: Vec<&Value> = published
        .iter()
        .filter(|n| n["params"]["uri"] == price.as_str())
        .collect();
    assert_eq!(cleared.len(), 1, "{published:?}");
    assert_eq!(cleared[0]["params"]["version"], 2);
    assert_eq!(cleared[0]["params"]["diagnostics"], json!([]));
}

#[test]
fn a_yaml_file_changed_on_disk_is_published_under_its_own_name() {
    let mut s = Session::new(&oracle(MAIN, PRICE));
    assert_eq!(s.diagnostics(), []);
    let yaml = s.path(2);
    // The file as the server reads it from disk, and as the rendering below reads it.
    let broken = REGISTRATION.replace(
        "): FinishedRegistrationRound",
        "): FinishedRegistrationRond",
    );
    std::fs::write(&yaml, &broken).expect("write the YAML");
    s.fixture.files[2].text = broken;
    s.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&yaml), "type": 2 }] }),
    );
    let published = s.diagnostics();
    expect![[r#"
        price.fsm 2:10-2:14 `DONE` warning W0305: in the composed app `OracleAbciApp`: event `DONE` can never be handled
            only unreachable states handle this event
            help: make one of those states reachable, or remove the event
            note: found in the composed machine once the chain is applied
            related: main.fsm 4:4-4:17 `OracleAbciApp` composed here
        price.fsm 4:10-4:23 `ROUND_TIMEOUT` warning W0305: in the composed app `OracleAbciApp`: event `ROUND_TIMEOUT` can never be handled
            only unreachable states handle this event
            help: make one of those states reachable, or remove the event
            note: found in the composed machine once the chain is applied
            related: main.fsm 4:4-4:17 `OracleAbciApp` composed here
        price.fsm 8:24-8:41 `CollectPriceRound` error E0510: in the composed app `OracleAbciApp`: state `CollectPriceRound` is unreachable
            no path from any start state leads here
            help: add a transition into it, mark it `start`, or remove it
            note: `FinishedPriceRound` is unreachable too: only this state and others behind it lead there
            note: the composed machine fails E0301 (unreachable_state) once the chain is applied
            related: main.fsm 4:4-4:17 `OracleAbciApp` composed here
        registration/fsm_specification.yaml 13:31-13:55 `FinishedRegistrationRond` error E0104: state `FinishedRegistrationRond` is not in `states`
            used in `transition_func`
            help: did you mean `FinishedRegistrationRound`?
    "#]].assert_eq(&diagnostics(&s, &published));
    // Fixed on disk: its list is cleared.
    std::fs::write(&yaml, REGISTRATION).expect("write the YAML");
    s.notify("workspace/didChangeWatchedFiles", json!({ "changes": [] }));
    assert_eq!(s.diagnostics(), []);
}

#[test]
fn syntax_errors_are_reported_without_a_cascade() {
    check(
        "machine Door {\n    start default state Closed;\n    (Closed, OPEN) -> Nowhere\n}\n",
        expect![[r#"
            main.fsm 2:29-2:29 `` error E0001: expected `;`, found `}`
                add `;` here
                help: a transition is written `(State, EVENT) -> Target;`, optionally with `if guard`, `unless guard`, `do action, …` or `persist mode` before the `;`
        "#]],
    );
}
