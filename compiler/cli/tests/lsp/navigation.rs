//! Go to definition and find references: across files, through imports and their aliases, into Open Autonomy
//! YAML, for states, events, keys and machines.

use crate::fixture::{MAIN, PRICE, Session, mark, oracle};
use expect_test::{Expect, expect};
use serde_json::{Value, json};

/// The locations of an answer (one, several, or none), one per line.
fn locations(s: &Session, v: &Value) -> String {
    let list = match v {
        Value::Array(list) => list.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    let mut list: Vec<(String, u64, u64, String)> = list
        .iter()
        .map(|l| {
            let uri = l["uri"].as_str().unwrap_or_default();
            let start = &l["range"]["start"];
            (
                s.name(uri),
                start["line"].as_u64().unwrap_or_default(),
                start["character"].as_u64().unwrap_or_default(),
                s.location(uri, &l["range"]),
            )
        })
        .collect();
    list.sort();
    let lines: Vec<String> = list.into_iter().map(|(_, _, _, l)| l).collect();
    if lines.is_empty() {
        return "none\n".to_string();
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn check_definition(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let d = s.call("textDocument/definition", s.at_cursor());
    expect.assert_eq(&locations(&s, &d));
}

fn check_references(fixture: &str, declaration: bool, expect: Expect) {
    let mut s = Session::new(fixture);
    let mut params = s.at_cursor();
    params["context"] = json!({ "includeDeclaration": declaration });
    let refs = s.call("textDocument/references", params);
    expect.assert_eq(&locations(&s, &refs));
}

#[test]
fn definition_of_a_state_of_an_imported_machine() {
    check_definition(
        &oracle(&mark(MAIN, "CollectPriceRound", 0, 2), PRICE),
        expect![[r#"
            price.fsm 8:24-8:41 `CollectPriceRound`
        "#]],
    );
}

#[test]
fn definition_of_a_state_of_an_imported_yaml_machine() {
    check_definition(
        &oracle(&mark(MAIN, "FinishedRegistrationRound", 0, 0), PRICE),
        expect![[r#"
            registration/fsm_specification.yaml 10:2-10:27 `FinishedRegistrationRound`
        "#]],
    );
}

#[test]
fn definition_of_a_machine_of_an_alias_and_of_an_import() {
    check_definition(
        &oracle(&mark(MAIN, "PriceAbciApp", 0, 0), PRICE),
        expect![[r#"
            price.fsm 1:8-1:20 `PriceAbciApp`
        "#]],
    );
    check_definition(
        &oracle(&mark(MAIN, "Registration,", 0, 1), PRICE),
        expect![[r#"
            registration/fsm_specification.yaml 6:7-6:31 `AgentRegistrationAbciApp`
        "#]],
    );
    check_definition(
        &oracle(&mark(MAIN, "price.fsm", 0, 1), PRICE),
        expect![[r#"
            price.fsm 0:0-0:0 ``
        "#]],
    );
}

#[test]
fn definition_of_an_event_and_a_key_within_their_file() {
    check_definition(
        &oracle(MAIN, &mark(PRICE, "NO_MAJORITY", 1, 0)),
        expect![[r#"
            price.fsm 2:16-2:27 `NO_MAJORITY`
        "#]],
    );
    check_definition(
        &oracle(MAIN, &mark(PRICE, "ensures price", 0, 9)),
        expect![[r#"
            price.fsm 5:21-5:26 `price`
        "#]],
    );
}

#[test]
fn no_definition_for_a_keyword() {
    check_definition(
        "machine Door { event OPEN; start default st$0ate Closed; final state Opened; (Closed, OPEN) -> Opened; }",
        expect![[r#"
            none
        "#]],
    );
}

#[test]
fn references_of_a_state_across_files() {
    let fixture = oracle(MAIN, &mark(PRICE, "CollectPriceRound", 0, 0));
    check_references(
        &fixture,
        true,
        expect![[r#"
            main.fsm 6:33-6:50 `CollectPriceRound`
            price.fsm 8:24-8:41 `CollectPriceRound`
            price.fsm 14:5-14:22 `CollectPriceRound`
            price.fsm 15:5-15:22 `CollectPriceRound`
            price.fsm 15:40-15:57 `CollectPriceRound`
            price.fsm 16:5-16:22 `CollectPriceRound`
            price.fsm 16:42-16:59 `CollectPriceRound`
        "#]],
    );
    check_references(
        &fixture,
        false,
        expect![[r#"
            main.fsm 6:33-6:50 `CollectPriceRound`
            price.fsm 14:5-14:22 `CollectPriceRound`
            price.fsm 15:5-15:22 `CollectPriceRound`
            price.fsm 15:40-15:57 `CollectPriceRound`
            price.fsm 16:5-16:22 `CollectPriceRound`
            price.fsm 16:42-16:59 `CollectPriceRound`
        "#]],
    );
}

#[test]
fn references_of_a_key_and_of_a_machine() {
    check_references(
        &oracle(MAIN, &mark(PRICE, "price", 1, 0)),
        true,
        expect![[r#"
            price.fsm 5:21-5:26 `price`
            price.fsm 10:15-10:20 `price`
            price.fsm 12:57-12:62 `price`
        "#]],
    );
    check_references(
        &oracle(&mark(MAIN, "PriceAbciApp", 0, 0), PRICE),
        true,
        expect![[r#"
            main.fsm 5:24-5:36 `PriceAbciApp`
            price.fsm 1:8-1:20 `PriceAbciApp`
        "#]],
    );
}

#[test]
fn references_of_an_event_in_a_state_body() {
    check_references(
        r#"
        machine M: abci {
            event DONE, NO_MAJORITY;
            start default state A: voting { no_majority = NO_MAJ$0ORITY; }
            final state B;
            (A, DONE) -> B;
            (A, NO_MAJORITY) -> A;
        }
        "#,
        true,
        expect![[r#"
            main.fsm 1:16-1:27 `NO_MAJORITY`
            main.fsm 2:50-2:61 `NO_MAJORITY`
            main.fsm 5:8-5:19 `NO_MAJORITY`
        "#]],
    );
}
