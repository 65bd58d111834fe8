//! Completion: what may be written where the cursor is, read from the text before it (the statement being
//! typed does not parse yet): states, events, keys, round kinds, properties, keywords, machines of an app's
//! chain and their states; nothing inside a comment or a string.

use crate::fixture::{MAIN, PRICE, Session, oracle};
use expect_test::{Expect, expect};

/// The labels offered, one per line, with their kind.
fn check(fixture: &str, expect: Expect) {
    expect.assert_eq(&completions(fixture, false));
}

/// Each completion at the fixture's cursor as `label (kind)`, with its detail after a colon when asked for.
fn completions(fixture: &str, detail: bool) -> String {
    let mut s = Session::new(fixture);
    let items = s.call("textDocument/completion", s.at_cursor());
    items
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            let kind = serde_json::from_value::<lsp_types::CompletionItemKind>(i["kind"].clone())
                .map_or_else(|_| i["kind"].to_string(), |k| format!("{k:?}"));
            let label = i["label"].as_str().unwrap_or_default();
            match i["detail"].as_str() {
                Some(d) if detail => format!("{label} ({kind}): {d}\n"),
                _ => format!("{label} ({kind})\n"),
            }
        })
        .collect()
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
            CollectPriceRound (EnumMember)
            FinishedPriceRound (EnumMember)
        "#]],
    );
}

#[test]
fn where_an_event_goes_the_events() {
    // In a transition after its state, and as the event a round's outcome is mapped to.
    for typed in [
        "    (CollectPriceRound, ",
        "    state Voting { no_majority = ",
    ] {
        check(
            &in_price(typed),
            expect![[r#"
                DONE (Event)
                NO_MAJORITY (Event)
                ROUND_TIMEOUT (Event)
            "#]],
        );
    }
}

#[test]
fn after_an_arrow_the_states_starting_with_what_is_typed() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> Fin"),
        expect![[r#"
            CollectPriceRound (EnumMember)
            FinishedPriceRound (EnumMember)
        "#]],
    );
}

#[test]
fn after_a_transition_its_keywords() {
    check(
        &in_price("    (CollectPriceRound, DONE) -> FinishedPriceRound "),
        expect![[r#"
            if (Keyword)
            unless (Keyword)
            do (Keyword)
            persist (Keyword)
        "#]],
    );
}

/// A dialogue with `typed` (ending at the cursor) as its last line.
fn in_dialogue(typed: &str) -> String {
    format!(
        "machine D: dialogue {{\n    roles buyer, seller;\n    event Call by buyer;\n    event Ok by responder;\n    \
         start default state A;\n    final state B;\n    (A, Call) -> B;\n{typed}$0\n}}\n"
    )
}

#[test]
fn in_a_dialogue_the_sides_and_the_turns() {
    check(
        &in_dialogue("    (A, Ok) -> B "),
        expect![[r#"
            if (Keyword)
            unless (Keyword)
            sender (Keyword)
            receiver (Keyword)
            do (Keyword)
            persist (Keyword)
        "#]],
    );
    check(
        &in_dialogue("    (A, Ok) -> B sender "),
        expect![[r#"
            do (Keyword)
        "#]],
    );
    // After `do`, `sender` is an action's name, and the transition's keywords follow it.
    check(
        &in_dialogue("    (A, Ok) -> B do sender "),
        expect![[r#"
            if (Keyword)
            unless (Keyword)
            sender (Keyword)
            receiver (Keyword)
            do (Keyword)
            persist (Keyword)
        "#]],
    );
    check(
        &in_dialogue("    event Quote by "),
        expect![[r#"
            buyer (Variable)
            seller (Variable)
            initiator (Keyword)
            responder (Keyword)
        "#]],
    );
}

/// A staged machine with a group of agents, with `typed` (ending at the cursor) in its stage's body if `in_body`,
/// else as a member of the machine.
fn in_staged(typed: &str, in_body: bool) -> String {
    let (member, body) = if in_body {
        (String::new(), format!("{typed}$0"))
    } else {
        (format!("    {typed}$0\n"), String::new())
    };
    format!(
        "machine M: staged {{\n    agents traders[], auctioneer;\n{member}    start default state Bid {{ {body} }}\n    \
         Bid -> Bid;\n}}\n"
    )
}

#[test]
fn in_a_staged_machine_the_agents_and_groups() {
    expect![[r#"
        traders (Variable): group of agents
        auctioneer (Variable): agent
    "#]]
    .assert_eq(&completions(&in_staged("scripted ", false), true));
    check(
        &in_staged("acting traders, ", true),
        expect![[r#"
            traders (Variable)
            auctioneer (Variable)
            none (Keyword)
        "#]],
    );
}

#[test]
fn after_a_state_name_and_colon_the_round_kinds() {
    check(
        &in_price("    state Voting: "),
        expect![[r#"
            collect_same_until_all (Enum)
            collect_different_until_all (Enum)
            collect_same_until_threshold (Enum)
            collect_different_until_threshold (Enum)
            collect_non_empty_until_threshold (Enum)
            only_keeper_sends (Enum)
            voting (Enum)
            degenerate (Enum)
            custom (Enum)
        "#]],
    );
}

#[test]
fn in_a_state_body_its_properties_then_keys() {
    check(
        &in_price("    state Voting { "),
        expect![[r#"
            reads (Property)
            writes (Property)
            requires (Property)
            ensures (Property)
            done (Property)
            none (Property)
            no_majority (Property)
            negative (Property)
            fail (Property)
            reset (Property)
            payload (Property)
            registration (Property)
            elects_keeper (Property)
            confirmations (Property)
        "#]],
    );
    check(
        &in_price("    state Voting { reads price, "),
        expect![[r#"
            price (Field)
        "#]],
    );
}

#[test]
fn in_a_machine_body_the_statements_and_after_start_its_modifiers() {
    check(
        &in_price("    "),
        expect![[r#"
            event (Keyword)
            key (Keyword)
            cross_period (Keyword)
            state (Keyword)
            start (Keyword)
            default (Keyword)
            final (Keyword)
            invariant (Keyword)
            eventually (Keyword)
            label (Property)
        "#]],
    );
    check(
        &in_price("    start "),
        expect![[r#"
            default (Keyword)
            final (Keyword)
            state (Keyword)
        "#]],
    );
}

#[test]
fn in_an_app_the_machines_of_the_chain_then_their_states() {
    check(
        &oracle(
            &MAIN.replace("chain Registration, PriceAbciApp;", "chain $0"),
            PRICE,
        ),
        expect![[r#"
            PriceAbciApp (Class)
            Registration (Class)
        "#]],
    );
    check(
        &oracle(
            &MAIN.replace(
                "FinishedRegistrationRound -> CollectPriceRound;",
                "Registration::$0",
            ),
            PRICE,
        ),
        expect![[r#"
            FinishedRegistrationRound (EnumMember)
            RegistrationRound (EnumMember)
        "#]],
    );
}

#[test]
fn in_an_attribute_the_lints() {
    check(
        "#![allow($0\nmachine M {}\n",
        expect![[r#"
            unreachable_state (Constant)
            no_path_to_final (Constant)
            unused_event (Constant)
            event_never_handled (Constant)
            short_timeout (Constant)
            shared_event (Constant)
            machine_never_entered (Constant)
            unused_key (Constant)
            redundant_persistence (Constant)
            state_naming (Constant)
            app_naming (Constant)
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

#[test]
fn in_a_declared_property_states_keys_and_the_formulas_words() {
    check(
        &in_price("    invariant \"x\": in "),
        expect![[r#"
        CollectPriceRound (EnumMember)
        FinishedPriceRound (EnumMember)
    "#]],
    );
    check(
        &in_price("    eventually \"x\": not has "),
        expect![[r#"
        price (Field)
    "#]],
    );
    check(
        &in_price("    invariant \"x\": "),
        expect![[r#"
        in (Keyword)
        has (Keyword)
        missing (Keyword)
        after (Keyword)
        outcome (Keyword)
        period (Keyword)
        not (Keyword)
    "#]],
    );
    check(
        &in_price("    invariant \"x\": in CollectPriceRound "),
        expect![[r#"
        and (Keyword)
        or (Keyword)
    "#]],
    );
}

#[test]
fn in_a_declared_property_outcomes_and_the_period_comparisons() {
    check(
        &in_price("    invariant \"x\": after CollectPriceRound and outcome "),
        expect![[r#"
        DONE (Event)
        NO_MAJORITY (Event)
        ROUND_TIMEOUT (Event)
    "#]],
    );
    check(
        &in_price("    invariant \"x\": outcome DONE, "),
        expect![[r#"
        DONE (Event)
        NO_MAJORITY (Event)
        ROUND_TIMEOUT (Event)
    "#]],
    );
    check(
        &in_price("    invariant \"x\": after "),
        expect![[r#"
        CollectPriceRound (EnumMember)
        FinishedPriceRound (EnumMember)
    "#]],
    );
    check(
        &in_price("    eventually \"x\": period "),
        expect![[r#"
        is (Keyword)
        at (Keyword)
    "#]],
    );
    check(
        &in_price("    eventually \"x\": period at "),
        expect![[r#"
        least (Keyword)
        most (Keyword)
    "#]],
    );
}
