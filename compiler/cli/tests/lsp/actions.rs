//! Quick fixes: a did-you-mean applied, a round's missing transition added (to itself, where the round already
//! leads, to a final state), offered once for a diagnostic both a machine and the app chaining it report; none
//! where there is no diagnostic.

use crate::fixture::{MAIN, PRICE, Session, mark, oracle, workspace_edit};
use expect_test::{Expect, expect};
use serde_json::json;

/// The quick fixes at the cursor (or selection), given the diagnostics published for the document: each
/// action's title (`*` when preferred) and the lines its edit changes.
fn check(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let (file, _, _) = s.fixture.cursor.expect("a cursor");
    let name = s.fixture.files[file].name.clone();
    let diagnostics: Vec<serde_json::Value> = s
        .diagnostics()
        .into_iter()
        .filter(|(n, _)| *n == name)
        .flat_map(|(_, list)| list)
        .collect();
    let mut params = s.cursor_range();
    params["context"] = json!({ "diagnostics": diagnostics });
    let actions = s.call("textDocument/codeAction", params);
    let mut out = String::new();
    for a in actions.as_array().into_iter().flatten() {
        assert_eq!(a["kind"], "quickfix");
        let preferred = if a["isPreferred"] == true { " *" } else { "" };
        out.push_str(&format!(
            "{}{preferred}\n{}",
            a["title"].as_str().unwrap_or_default(),
            workspace_edit(&s, &a["edit"])
        ));
    }
    expect.assert_eq(if out.is_empty() { "none" } else { &out });
}

#[test]
fn an_unknown_event_is_replaced_by_the_one_meant() {
    check(
        &PRICE.replace("(CollectPriceRound, DONE)", "(CollectPriceRound, DON$0EE)"),
        expect![[r#"
            Replace `DONEE` with `DONE` *
            --- main.fsm (version 1)
            @@ 14 @@
            -    (CollectPriceRound, DONEE) -> FinishedPriceRound;
            +    (CollectPriceRound, DONE) -> FinishedPriceRound;
        "#]],
    );
}

#[test]
fn an_unknown_state_is_replaced_by_the_one_meant() {
    check(
        r#"
        machine Door {
            event OPEN, CLOSE;
            start default state Closed;
            state Opened;
            (Closed, OPEN) -> Open$0d;
            (Opened, CLOSE) -> Closed;
        }
        "#,
        expect![[r#"
            Replace `Opend` with `Opened` *
            --- main.fsm (version 1)
            @@ 4 @@
            -    (Closed, OPEN) -> Opend;
            +    (Closed, OPEN) -> Opened;
        "#]],
    );
}

#[test]
fn a_rounds_missing_transition_can_be_added() {
    check(
        r#"
        machine TestAbciApp: abci {
            event DONE, NO_MAJORITY;
            start default state Col$0lectRound: collect_same_until_threshold;
            state NextRound;
            final state DoneRound;
            (CollectRound, DONE) -> NextRound;
            (NextRound, DONE) -> DoneRound;
        }
        "#,
        expect![[r#"
            Add `(CollectRound, NO_MAJORITY) -> CollectRound;` (self) *
            --- main.fsm (version 1)
            @@ 6 @@
            +    (CollectRound, NO_MAJORITY) -> CollectRound;
            Add `(CollectRound, NO_MAJORITY) -> NextRound;` (where the round already leads)
            --- main.fsm (version 1)
            @@ 6 @@
            +    (CollectRound, NO_MAJORITY) -> NextRound;
            Add `(CollectRound, NO_MAJORITY) -> DoneRound;` (a final state)
            --- main.fsm (version 1)
            @@ 6 @@
            +    (CollectRound, NO_MAJORITY) -> DoneRound;
        "#]],
    );
}

#[test]
fn a_fix_both_a_machine_and_its_app_call_for_is_offered_once() {
    let missing = PRICE.replace(
        "    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;\n",
        "",
    );
    check(
        &oracle(MAIN, &mark(&missing, "CollectPriceRound", 0, 1)),
        expect![[r#"
            Add `(CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;` (self) *
            --- price.fsm (version 1)
            @@ 16 @@
            +    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
            Add `(CollectPriceRound, NO_MAJORITY) -> FinishedPriceRound;` (where the round already leads)
            --- price.fsm (version 1)
            @@ 16 @@
            +    (CollectPriceRound, NO_MAJORITY) -> FinishedPriceRound;
        "#]],
    );
}

#[test]
fn no_diagnostic_no_action() {
    check(
        "mach$0ine Door { event OPEN; start default state Closed; final state Opened; (Closed, OPEN) -> Opened; }",
        expect!["none"],
    );
}
