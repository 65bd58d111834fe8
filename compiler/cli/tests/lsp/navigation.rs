//! Go to definition and find references: across files, through imports and their aliases, into Open Autonomy
//! YAML, for states, events, keys and machines.

use crate::fixture::{MAIN, PRICE, Session, mark, oracle};
use expect_test::{Expect, expect};
use serde_json::{Value, json};

/// The locations of an answer (one, several, or none), in file order.
fn locations(s: &Session, v: &Value) -> Vec<String> {
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
    list.into_iter().map(|(_, _, _, l)| l).collect()
}

/// Locations one per line, or `none`.
fn lines(locations: &[String]) -> String {
    if locations.is_empty() {
        return "none\n".to_string();
    }
    locations.iter().map(|l| format!("{l}\n")).collect()
}

/// The definition at each fixture's cursor, a line each: the file and position of the cursor, then where it goes.
fn check_definitions(fixtures: &[String], expect: Expect) {
    let mut out = String::new();
    for fixture in fixtures {
        let mut s = Session::new(fixture);
        let at = s.at_cursor();
        let d = s.call("textDocument/definition", at.clone());
        let uri = at["textDocument"]["uri"].as_str().unwrap_or_default();
        let to = locations(&s, &d);
        out.push_str(&format!(
            "{} {}:{} → {}\n",
            s.name(uri),
            at["position"]["line"],
            at["position"]["character"],
            if to.is_empty() {
                "none".to_string()
            } else {
                to.join(", ")
            }
        ));
    }
    expect.assert_eq(&out);
}

/// The references at the cursor, the declaration included; the one left out when the declaration is not asked
/// for is marked `(declaration)`.
fn check_references(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let mut references = |declaration: bool| {
        let mut params = s.at_cursor();
        params["context"] = json!({ "includeDeclaration": declaration });
        let refs = s.call("textDocument/references", params);
        locations(&s, &refs)
    };
    let (all, without) = (references(true), references(false));
    assert!(
        without.iter().all(|l| all.contains(l)),
        "{without:?} is not within {all:?}"
    );
    let marked: Vec<String> = all
        .into_iter()
        .map(|l| {
            if without.contains(&l) {
                l
            } else {
                format!("{l} (declaration)")
            }
        })
        .collect();
    expect.assert_eq(&lines(&marked));
}

#[test]
fn definitions_across_files_through_imports_and_aliases_and_within_a_file() {
    check_definitions(
        &[
            // A state of an imported machine, and of an imported Open Autonomy machine.
            oracle(&mark(MAIN, "CollectPriceRound", 0, 2), PRICE),
            oracle(&mark(MAIN, "FinishedRegistrationRound", 0, 0), PRICE),
            // A machine, an alias, an import.
            oracle(&mark(MAIN, "PriceAbciApp", 0, 0), PRICE),
            oracle(&mark(MAIN, "Registration,", 0, 1), PRICE),
            oracle(&mark(MAIN, "price.fsm", 0, 1), PRICE),
            // An event and a key within their file.
            oracle(MAIN, &mark(PRICE, "NO_MAJORITY", 1, 0)),
            oracle(MAIN, &mark(PRICE, "ensures price", 0, 9)),
            // A keyword.
            "machine Door { event OPEN; start default st$0ate Closed; final state Opened; (Closed, OPEN) -> Opened; }".to_string(),
        ],
        expect![[r#"
            main.fsm 6:35 → price.fsm 8:24-8:41 `CollectPriceRound`
            main.fsm 6:4 → registration/fsm_specification.yaml 10:2-10:27 `FinishedRegistrationRound`
            main.fsm 5:24 → price.fsm 1:8-1:20 `PriceAbciApp`
            main.fsm 5:11 → registration/fsm_specification.yaml 6:7-6:31 `AgentRegistrationAbciApp`
            main.fsm 0:9 → price.fsm 0:0-0:0 ``
            price.fsm 15:24 → price.fsm 2:16-2:27 `NO_MAJORITY`
            price.fsm 12:58 → price.fsm 5:21-5:26 `price`
            main.fsm 0:43 → none
        "#]],
    );
}

#[test]
fn references_of_a_state_across_files() {
    check_references(
        &oracle(MAIN, &mark(PRICE, "CollectPriceRound", 0, 0)),
        expect![[r#"
            main.fsm 6:33-6:50 `CollectPriceRound`
            price.fsm 8:24-8:41 `CollectPriceRound` (declaration)
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
        expect![[r#"
            price.fsm 5:21-5:26 `price` (declaration)
            price.fsm 10:15-10:20 `price`
            price.fsm 12:57-12:62 `price`
        "#]],
    );
    check_references(
        &oracle(&mark(MAIN, "PriceAbciApp", 0, 0), PRICE),
        expect![[r#"
            main.fsm 5:24-5:36 `PriceAbciApp`
            price.fsm 1:8-1:20 `PriceAbciApp` (declaration)
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
        expect![[r#"
            main.fsm 1:16-1:27 `NO_MAJORITY` (declaration)
            main.fsm 2:50-2:61 `NO_MAJORITY`
            main.fsm 5:8-5:19 `NO_MAJORITY`
        "#]],
    );
}

#[test]
fn names_in_declared_properties_are_references() {
    const SPEC: &str = "machine M {\n    event GO;\n    key k: u32;\n    start default state A;\n    \
                        final state B;\n    (A, GO) -> B;\n    invariant \"i\": not (in B and missing k);\n}\n";
    check_references(
        &mark(SPEC, "in B", 0, 3),
        expect![[r#"
            main.fsm 4:16-4:17 `B` (declaration)
            main.fsm 5:15-5:16 `B`
            main.fsm 6:27-6:28 `B`
        "#]],
    );
    check_definitions(
        &[mark(SPEC, "missing k", 0, 8)],
        expect![[r#"
        main.fsm 6:41 → main.fsm 2:8-2:9 `k`
    "#]],
    );
}

#[test]
fn outcomes_in_declared_properties_are_references_to_events() {
    const SPEC: &str = "machine M {\n    event GO;\n    start default state A;\n    \
                        final state B;\n    (A, GO) -> B;\n    invariant \"i\": not in B or after A and outcome GO;\n}\n";
    check_references(
        &mark(SPEC, "outcome GO", 0, 8),
        expect![[r#"
            main.fsm 1:10-1:12 `GO` (declaration)
            main.fsm 4:8-4:10 `GO`
            main.fsm 5:51-5:53 `GO`
        "#]],
    );
}
