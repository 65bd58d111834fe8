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
            let kind: Option<lsp_types::CompletionItemKind> =
                serde_json::from_value(i["kind"].clone()).ok();
            format!("{} ({kind:?})\n", i["label"].as_str().unwrap_or_default())
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
            CollectPriceRound (Some(EnumMember))
            FinishedPriceRound (Some(EnumMember))
        "#]],
    );
}

#[test]
fn after_a_state_and_a_comma_the_events() {
    check(
        &in_price("    (CollectPriceRound, "),
        expect![[r#"
            DONE (Some(Event))
            NO_MAJORITY (Some(Event))
            ROUND_TIMEOUT (Some(Event))
        "#]],
    );
}

#[test]
fn after_an_arrow_the_states_starting_with_what_is_typed() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> Fin"),
        expect![[r#"
            CollectPriceRound (Some(EnumMember))
            FinishedPriceRound (Some(EnumMember))
        "#]],
    );
}

#[test]
fn after_a_transition_its_keywords() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> FinishedPriceRound "),
        expect![[r#"
            if (Some(Keyword))
            unless (Some(Keyword))
            do (Some(Keyword))
            persist (Some(Keyword))
        "#]],
    );
}

#[test]
fn after_a_state_name_and_colon_the_round_kinds() {
    check(
        &in_price("    state Voting: "),
        expect![[r#"
            collect_same_until_all (Some(Enum))
            collect_different_until_all (Some(Enum))
            collect_same_until_threshold (Some(Enum))
            collect_different_until_threshold (Some(Enum))
            collect_non_empty_until_threshold (Some(Enum))
            only_keeper_sends (Some(Enum))
            voting (Some(Enum))
            degenerate (Some(Enum))
            custom (Some(Enum))
        "#]],
    );
}

#[test]
fn in_a_state_body_its_properties_then_keys_and_events() {
    check(
        &in_price("    state Voting { "),
        expect![[r#"
            reads (Some(Property))
            writes (Some(Property))
            requires (Some(Property))
            ensures (Some(Property))
            done (Some(Property))
            none (Some(Property))
            no_majority (Some(Property))
            negative (Some(Property))
            fail (Some(Property))
            reset (Some(Property))
            payload (Some(Property))
            registration (Some(Property))
            elects_keeper (Some(Property))
        "#]],
    );
    check(
        &in_price("    state Voting { reads price, "),
        expect![[r#"
            price (Some(Field))
        "#]],
    );
    check(
        &in_price("    state Voting { no_majority = "),
        expect![[r#"
            DONE (Some(Event))
            NO_MAJORITY (Some(Event))
            ROUND_TIMEOUT (Some(Event))
        "#]],
    );
}

#[test]
fn in_a_machine_body_the_statements_and_after_start_its_modifiers() {
    check(
        &in_price("    "),
        expect![[r#"
            event (Some(Keyword))
            key (Some(Keyword))
            cross_period (Some(Keyword))
            state (Some(Keyword))
            start (Some(Keyword))
            default (Some(Keyword))
            final (Some(Keyword))
            label (Some(Property))
        "#]],
    );
    check(
        &in_price("    start "),
        expect![[r#"
            default (Some(Keyword))
            final (Some(Keyword))
            state (Some(Keyword))
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
            PriceAbciApp (Some(Class))
            Registration (Some(Class))
        "#]],
    );
    check(
        &fixture(
            "import \"price.fsm\";\nimport \"registration/fsm_specification.yaml\" as Registration;\napp A {\n    chain Registration, PriceAbciApp;\n    Registration::$0\n}\n",
        ),
        expect![[r#"
            FinishedRegistrationRound (Some(EnumMember))
            RegistrationRound (Some(EnumMember))
        "#]],
    );
}

#[test]
fn in_an_attribute_the_lints() {
    check(
        "#![allow($0\nmachine M {}\n",
        expect![[r#"
            no_path_to_final (Some(Constant))
            event_never_handled (Some(Constant))
            shared_event (Some(Constant))
            unused_key (Some(Constant))
            redundant_persistence (Some(Constant))
            state_naming (Some(Constant))
            app_naming (Some(Constant))
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
