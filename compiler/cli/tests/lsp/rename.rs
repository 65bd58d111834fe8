//! Rename and prepareRename: a state, an event or a key renamed in every file that names it (an open document's
//! edit carries its version, a file on disk none), and the renames refused with a reason.

use crate::fixture::{MAIN, PRICE, Session, apply, mark, oracle, workspace_edit};
use expect_test::{Expect, expect};
use serde_json::Value;

/// The name a rename at the cursor would change, and the placeholder offered for the new name; or `null`.
fn check_prepare(fixture: &str, expect: Expect) {
    let actual = match Session::new(fixture).call_at_cursor("textDocument/prepareRename") {
        Some((range, p)) => format!(
            "{range} placeholder `{}`",
            p["placeholder"].as_str().unwrap_or_default()
        ),
        None => "null".to_string(),
    };
    expect.assert_eq(&actual);
}

/// The lines a rename changes, file by file; or the error the editor shows.
fn check(fixture: &str, new_name: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let mut params = s.at_cursor();
    params["newName"] = new_name.into();
    let r = s.request("textDocument/rename", params);
    let actual = match r.get("error") {
        Some(e) => format!(
            "error {}: {}",
            e["code"],
            e["message"].as_str().unwrap_or_default()
        ),
        None => {
            still_checks_clean(&s, &r["result"]);
            workspace_edit(&s, &r["result"])
        }
    };
    expect.assert_eq(&actual);
}

#[test]
fn prepare_rename_names_what_would_be_renamed() {
    check_prepare(
        &oracle(MAIN, &mark(PRICE, "CollectPriceRound", 2, 4)),
        expect!["price.fsm 15:5-15:22 `CollectPriceRound` placeholder `CollectPriceRound`"],
    );
    check_prepare(
        &oracle(MAIN, &mark(PRICE, "machine", 0, 2)),
        expect!["null"],
    );
}

#[test]
fn a_state_is_renamed_in_its_file_and_in_the_app_that_maps_it() {
    check(
        &oracle(MAIN, &mark(PRICE, "CollectPriceRound", 2, 0)),
        "GatherPriceRound",
        expect![[r#"
            --- main.fsm (version null)
            @@ 6 @@
            -    FinishedRegistrationRound -> CollectPriceRound;
            +    FinishedRegistrationRound -> GatherPriceRound;
            --- price.fsm (version 1)
            @@ 8 @@
            -    start default state CollectPriceRound: collect_same_until_threshold {
            +    start default state GatherPriceRound: collect_same_until_threshold {
            @@ 14 @@
            -    (CollectPriceRound, DONE) -> FinishedPriceRound;
            -    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
            -    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
            +    (GatherPriceRound, DONE) -> FinishedPriceRound;
            +    (GatherPriceRound, NO_MAJORITY) -> GatherPriceRound;
            +    (GatherPriceRound, ROUND_TIMEOUT) -> GatherPriceRound;
        "#]],
    );
}

#[test]
fn an_event_and_a_key_are_renamed_everywhere_they_are_written() {
    check(
        &oracle(MAIN, &mark(PRICE, "ROUND_TIMEOUT", 0, 0)),
        "SLOW",
        expect![[r#"
            --- price.fsm (version 1)
            @@ 4 @@
            -    event ROUND_TIMEOUT timeout 30s;
            +    event SLOW timeout 30s;
            @@ 16 @@
            -    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
            +    (CollectPriceRound, SLOW) -> CollectPriceRound;
        "#]],
    );
    check(
        &oracle(MAIN, &mark(PRICE, "price;", 0, 0)),
        "value",
        expect![[r#"
            --- price.fsm (version 1)
            @@ 5 @@
            -    cross_period key price: u64;
            +    cross_period key value: u64;
            @@ 10 @@
            -        writes price;
            +        writes value;
            @@ 12 @@
            -    final state FinishedPriceRound: degenerate { ensures price; }
            +    final state FinishedPriceRound: degenerate { ensures value; }
        "#]],
    );
}

#[test]
fn renames_that_would_break_the_spec_are_refused() {
    let at_state = oracle(MAIN, &mark(PRICE, "CollectPriceRound", 1, 0));
    check(
        &at_state,
        "1abc",
        expect![
            "error -32803: `1abc` is not a name (letters, digits and `_`, not starting with a digit)"
        ],
    );
    check(
        &at_state,
        "FinishedPriceRound",
        expect!["error -32803: machine `PriceAbciApp` already has a state `FinishedPriceRound`"],
    );
    check(
        &oracle(MAIN, &mark(PRICE, "NO_MAJORITY", 0, 0)),
        "SPLIT",
        expect![
            "error -32803: rounds emit `NO_MAJORITY` for their `no_majority` outcome by convention; renaming it would change what they emit (map the outcome instead: `no_majority = EVENT;` in each round)"
        ],
    );
    check(
        &oracle(MAIN, &mark(PRICE, "PriceAbciApp", 0, 0)),
        "Other",
        expect!["error -32803: only states, events and keys can be renamed"],
    );
}

/// The workspace with the rename's edits applied (in a copy) checks clean.
fn still_checks_clean(s: &Session, edit: &Value) {
    let copy = fsmc_testkit::scratch("lsp-renamed");
    for f in &s.fixture.files {
        let uri = crate::fixture::uri(&s.path_of(&f.name));
        let change = edit["documentChanges"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["textDocument"]["uri"] == uri.as_str());
        let text = match change {
            Some(c) => apply(&f.text, c["edits"].as_array().map_or(&[], Vec::as_slice)),
            None => f.text.clone(),
        };
        fsmc_testkit::write(copy.path(), &f.name, text);
    }
    for f in &s.fixture.files {
        let c = fsmc_driver::compile(&copy.path().join(&f.name), &fsmc_driver::Options::default())
            .expect("readable");
        assert!(c.diagnostics.is_empty(), "{}: {:?}", f.name, c.diagnostics);
    }
}

#[test]
fn new_names_the_checker_rejects_are_refused() {
    let at_state = oracle(MAIN, &mark(PRICE, "CollectPriceRound", 1, 0));
    check(
        &at_state,
        "Self",
        expect!["error -32803: `Self` cannot name a state: it is reserved in generated Rust"],
    );
    check(
        &at_state,
        "_",
        expect!["error -32803: `_` cannot name a state: a name of underscores only"],
    );
    // A case variant of another state is the same enum variant.
    check(
        &at_state,
        "finishedPriceRound",
        expect![
            "error -32803: `finishedPriceRound` and the state `FinishedPriceRound` would both be `FinishedPriceRound` in generated Rust"
        ],
    );
    check(
        &oracle(MAIN, &mark(PRICE, "ROUND_TIMEOUT", 0, 0)),
        "no_majority",
        expect![
            "error -32803: `no_majority` and the event `NO_MAJORITY` would both be `NoMajority` in generated Rust"
        ],
    );
}

#[test]
fn prepare_rename_refuses_what_rename_would_refuse() {
    let mut s = Session::new(&oracle(MAIN, &mark(PRICE, "DONE", 0, 0)));
    let params = s.at_cursor();
    let r = s.request("textDocument/prepareRename", params);
    assert_eq!(r["error"]["code"], -32803, "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("rounds emit `DONE`"), "{message}");
}
