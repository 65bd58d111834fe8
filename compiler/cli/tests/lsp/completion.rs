//! Completion: what may be written where the cursor is, read from the text before it (the statement being
//! typed does not parse yet): states, events, keys, round kinds, properties, keywords, machines of an app's
//! chain and their states; nothing inside a comment or a string.

use crate::fixture::{PRICE, REGISTRATION, Session};
use expect_test::{Expect, expect};

/// The labels offered, one per line, with their kind.
fn check(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let items = s.call("textDocument/completion", s.at_cursor());
    let actual: String = items
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            format!(
                "{} ({})\n",
                i["label"].as_str().unwrap_or_default(),
                i["kind"]
            )
        })
        .collect();
    expect.assert_eq(&actual);
}

/// The price machine with `typed` (ending at the cursor) as its last line.
fn in_price(typed: &str) -> String {
    PRICE.replacen("\n}\n", &format!("\n{typed}$0\n}}\n"), 1)
}

#[test]
fn after_an_open_paren_the_states() {
    check(
        &in_price("    ("),
        expect![[r#"
        CollectPriceRound (20)
        FinishedPriceRound (20)
    "#]],
    );
}

#[test]
fn after_a_state_and_a_comma_the_events() {
    check(
        &in_price("    (CollectPriceRound, "),
        expect![[r#"
        DONE (23)
        NO_MAJORITY (23)
        ROUND_TIMEOUT (23)
    "#]],
    );
}

#[test]
fn after_an_arrow_the_states_starting_with_what_is_typed() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> Fin"),
        expect![[r#"
            CollectPriceRound (20)
            FinishedPriceRound (20)
        "#]],
    );
}

#[test]
fn after_a_transition_its_keywords() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> FinishedPriceRound "),
        expect![[r#"
            if (14)
            unless (14)
            do (14)
            persist (14)
        "#]],
    );
}

#[test]
fn after_a_state_name_and_colon_the_round_kinds() {
    check(
        &in_price("    state Voting: "),
        expect![[r#"
        collect_same_until_all (13)
        collect_different_until_all (13)
        collect_same_until_threshold (13)
        collect_different_until_threshold (13)
        collect_non_empty_until_threshold (13)
        only_keeper_sends (13)
        voting (13)
        degenerate (13)
        custom (13)
    "#]],
    );
}

#[test]
fn in_a_state_body_its_properties_then_keys_and_events() {
    check(
        &in_price("    state Voting { "),
        expect![[r#"
        reads (10)
        writes (10)
        requires (10)
        ensures (10)
        done (10)
        none (10)
        no_majority (10)
        negative (10)
        fail (10)
        reset (10)
        payload (10)
        registration (10)
        elects_keeper (10)
    "#]],
    );
    check(
        &in_price("    state Voting { reads price, "),
        expect![[r#"
            price (5)
        "#]],
    );
    check(
        &in_price("    state Voting { no_majority = "),
        expect![[r#"
            DONE (23)
            NO_MAJORITY (23)
            ROUND_TIMEOUT (23)
        "#]],
    );
}

#[test]
fn in_a_machine_body_the_statements_and_after_start_its_modifiers() {
    check(
        &in_price("    "),
        expect![[r#"
        event (14)
        key (14)
        cross_period (14)
        state (14)
        start (14)
        default (14)
        final (14)
        label (10)
    "#]],
    );
    check(
        &in_price("    start "),
        expect![[r#"
        default (14)
        final (14)
        state (14)
    "#]],
    );
}

#[test]
fn in_an_app_the_machines_of_the_chain_then_their_states() {
    let fixture = |main: &str| {
        format!(
            "//- /main.fsm\n{main}//- /price.fsm\n{PRICE}//- /registration/fsm_specification.yaml\n{REGISTRATION}"
        )
    };
    check(
        &fixture(
            "import \"price.fsm\";\nimport \"registration/fsm_specification.yaml\" as Registration;\napp A {\n    chain $0\n}\n",
        ),
        expect![[r#"
            PriceAbciApp (7)
            Registration (7)
        "#]],
    );
    check(
        &fixture(
            "import \"price.fsm\";\nimport \"registration/fsm_specification.yaml\" as Registration;\napp A {\n    chain Registration, PriceAbciApp;\n    Registration::$0\n}\n",
        ),
        expect![[r#"
            FinishedRegistrationRound (20)
            RegistrationRound (20)
        "#]],
    );
}

#[test]
fn in_an_attribute_the_lints() {
    check(
        "#![allow($0\nmachine M {}\n",
        expect![[r#"
        no_path_to_final (21)
        event_never_handled (21)
        shared_event (21)
        unused_key (21)
        redundant_persistence (21)
        state_naming (21)
        app_naming (21)
    "#]],
    );
}

#[test]
fn nothing_inside_a_comment_or_a_string() {
    check(
        &PRICE.replace("/// Agrees", "// ($0Agrees"),
        expect![[r#""#]],
    );
    check(
        &PRICE.replace("payload \"u64\"", "payload \"u6$04\""),
        expect![[r#""#]],
    );
}
