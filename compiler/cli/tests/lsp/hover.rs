//! Hover: what a name is (its declaration, docs, kind) and how it is used (transitions in and out, keys read
//! and written, timeouts), for states, events, keys and machines, in `.fsm` and Open Autonomy YAML alike.

use crate::fixture::{MAIN, PRICE, Session, mark, oracle};
use expect_test::{Expect, expect};

/// The hover at the cursor: its range, then its Markdown; or `null`.
fn hover(fixture: &str) -> String {
    match Session::new(fixture).call_at_cursor("textDocument/hover") {
        Some((range, h)) => format!(
            "{range}\n{}\n",
            h["contents"]["value"].as_str().unwrap_or_default()
        ),
        None => "null".to_string(),
    }
}

fn check(fixture: &str, expect: Expect) {
    expect.assert_eq(&hover(fixture));
}

/// A state shows its declaration, docs, kind, transitions and keys; an event its timeout and docs; a key who
/// writes and ensures it.
#[test]
fn a_state_an_event_and_a_key_of_a_machine() {
    let hovers: Vec<String> = [
        mark(PRICE, "CollectPriceRound", 2, 7),
        mark(PRICE, "ROUND_TIMEOUT", 1, 6),
        mark(PRICE, "price:", 0, 2),
    ]
    .iter()
    .map(|fixture| hover(fixture))
    .collect();
    expect![[r#"
        main.fsm 15:5-15:22 `CollectPriceRound`
        ```fsm
        start default state CollectPriceRound: collect_same_until_threshold
        ```
        Collects one price from each agent.

        A `collect_same_until_threshold` round of machine `PriceAbciApp`; outcomes `done`, `no_majority`, `none` (optional).

        **In** (2): `(CollectPriceRound, NO_MAJORITY)`, `(CollectPriceRound, ROUND_TIMEOUT)`  
        **Out** (3): `DONE -> FinishedPriceRound`, `NO_MAJORITY -> CollectPriceRound`, `ROUND_TIMEOUT -> CollectPriceRound`  
        **Writes**: `price`

        main.fsm 16:24-16:37 `ROUND_TIMEOUT`
        ```fsm
        event ROUND_TIMEOUT timeout 30s
        ```
        The round took too long.

        A timeout event: fires after **30s**. Used by 1 transition of machine `PriceAbciApp`.

        main.fsm 5:21-5:26 `price`
        ```fsm
        cross_period key price: u64
        ```
        Synchronized data kept across periods of machine `PriceAbciApp`.

        **Written by**: `CollectPriceRound`  
        **Ensured by**: `FinishedPriceRound`
    "#]]
    .assert_eq(&hovers.join("\n"));
}

#[test]
fn a_yaml_state_is_described_where_an_app_maps_it() {
    check(
        &oracle(&mark(MAIN, "FinishedRegistrationRound", 0, 8), PRICE),
        expect![[r#"
            main.fsm 6:4-6:29 `FinishedRegistrationRound`
            ```fsm
            final state FinishedRegistrationRound
            ```
            A round of the Open Autonomy app `AgentRegistrationAbciApp`.

            **In** (1): `(RegistrationRound, DONE)`  
            **Out** (0): 
        "#]],
    );
}

#[test]
fn a_machine_shows_its_outline() {
    check(
        r#"
        /// Opens and closes.
        machine Do$0or {
            event OPEN, CLOSE;
            start default state Closed;
            state Opened;
            (Closed, OPEN) -> Opened;
            (Opened, CLOSE) -> Closed;
        }
        "#,
        expect![[r#"
            main.fsm 1:8-1:12 `Door`
            ```fsm
            machine Door
            ```
            Opens and closes.

            2 states, 2 events, 2 transitions, 0 keys.
        "#]],
    );
}

#[test]
fn a_genie_state_shows_its_type() {
    check(
        r#"
        machine Support: genie {
            event USER_INPUT, DONE;
            start default state Welcome: user { template "welcome.jinja2"; }
            final state Answer$0ed: user { template "answered.jinja2"; }
            (Welcome, USER_INPUT) -> Answered;
        }
        "#,
        expect![[r#"
            main.fsm 3:16-3:24 `Answered`
            ```fsm
            final state Answered: user
            ```
            A state of machine `Support`.

            **In** (1): `(Welcome, USER_INPUT)`  
            **Out** (0):
        "#]],
    );
}

#[test]
fn nothing_is_said_of_a_keyword_a_blank_or_a_comment() {
    let machine = |cursor: &str| {
        format!(
            "// A door{}.\nmachine Door {{\n    event OPEN;\n    start default state Closed;{}\n    final state Opened;\n    (Closed, OPEN) -> Opened;\n}}\n",
            if cursor == "comment" { "$0" } else { "" },
            if cursor == "blank" { "  $0" } else { "" },
        )
    };
    check(&machine("comment"), expect!["null"]);
    check(&machine("blank"), expect!["null"]);
    check(
        "machine Door { event OPEN; start$0 default state Closed; final state Opened; (Closed, OPEN) -> Opened; }",
        expect!["null"],
    );
}

/// A round kind that starts with a vowel takes "An".
#[test]
fn a_round_kind_takes_its_article() {
    let spec = "machine KeeperAbciApp: abci {\n    event DONE;\n    start default state SendRound: only_keeper_sends;\n    final state DoneRound;\n    (SendRound, DONE) -> DoneRound;\n}\n";
    let text = hover(&mark(spec, "SendRound", 0, 2));
    assert!(
        text.contains("An `only_keeper_sends` round of machine `KeeperAbciApp`"),
        "{text}"
    );
}
