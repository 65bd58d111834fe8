//! Hover: what a name is (its declaration, docs, kind) and how it is used (transitions in and out, keys read
//! and written, timeouts), for states, events, keys and machines, in `.fsm` and Open Autonomy YAML alike.

use crate::fixture::Session;
use expect_test::{Expect, expect};

/// The hover at the cursor: its range, then its Markdown; or `null`.
fn check(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let at = s.at_cursor();
    let h = s.call("textDocument/hover", at.clone());
    let actual = if h.is_null() {
        "null".to_string()
    } else {
        let uri = at["textDocument"]["uri"].as_str().unwrap_or_default();
        format!(
            "{}\n{}\n",
            s.location(uri, &h["range"]),
            h["contents"]["value"].as_str().unwrap_or_default()
        )
    };
    expect.assert_eq(&actual);
}

#[test]
fn a_state_shows_its_declaration_docs_kind_transitions_and_keys() {
    check(
        r#"
        /// Agrees on a price.
        machine PriceAbciApp: abci {
            event DONE, NO_MAJORITY;
            /// The round took too long.
            event ROUND_TIMEOUT timeout 30s;
            cross_period key price: u64;

            /// Collects one price from each agent.
            start default state CollectPriceRound: collect_same_until_threshold {
                payload "u64";
                writes price;
            }
            final state FinishedPriceRound: degenerate { ensures price; }

            (CollectPriceRound, DONE) -> FinishedPriceRound;
            (Collect$0PriceRound, NO_MAJORITY) -> CollectPriceRound;
            (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
        }
        "#,
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
        "#]],
    );
}

#[test]
fn an_event_shows_its_timeout_and_docs() {
    check(
        r#"
        machine PriceAbciApp: abci {
            event DONE, NO_MAJORITY;
            /// The round took too long.
            event ROUND_TIMEOUT timeout 30s;
            start default state CollectPriceRound: collect_same_until_threshold;
            final state FinishedPriceRound;
            (CollectPriceRound, DONE) -> FinishedPriceRound;
            (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
            (CollectPriceRound, ROUND_$0TIMEOUT) -> CollectPriceRound;
        }
        "#,
        expect![[r#"
            main.fsm 8:24-8:37 `ROUND_TIMEOUT`
            ```fsm
            event ROUND_TIMEOUT timeout 30s
            ```
            The round took too long.

            A timeout event: fires after **30s**. Used by 1 transition of machine `PriceAbciApp`.
        "#]],
    );
}

#[test]
fn a_key_shows_who_writes_and_ensures_it() {
    check(
        r#"
        machine PriceAbciApp: abci {
            event DONE, NO_MAJORITY;
            cross_period key pr$0ice: u64;
            start default state CollectPriceRound: collect_same_until_threshold {
                payload "u64";
                writes price;
            }
            final state FinishedPriceRound: degenerate { ensures price; }
            (CollectPriceRound, DONE) -> FinishedPriceRound;
            (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
        }
        "#,
        expect![[r#"
            main.fsm 2:21-2:26 `price`
            ```fsm
            cross_period key price: u64
            ```
            Synchronized data kept across periods of machine `PriceAbciApp`.

            **Written by**: `CollectPriceRound`  
            **Ensured by**: `FinishedPriceRound`
        "#]],
    );
}

#[test]
fn a_yaml_state_is_described_where_an_app_maps_it() {
    check(
        r#"
        //- /main.fsm
        import "registration/fsm_specification.yaml" as Registration;
        import "price.fsm";

        app OracleAbciApp {
            chain Registration, PriceAbciApp;
            Finished$0RegistrationRound -> CollectPriceRound;
        }
        //- /price.fsm
        machine PriceAbciApp: abci {
            event DONE;
            start default state CollectPriceRound: collect_same_until_threshold;
            final state FinishedPriceRound;
            (CollectPriceRound, DONE) -> FinishedPriceRound;
        }
        //- /registration/fsm_specification.yaml
        alphabet_in:
        - DONE
        - NO_MAJORITY
        default_start_state: RegistrationRound
        final_states:
        - FinishedRegistrationRound
        label: AgentRegistrationAbciApp
        start_states:
        - RegistrationRound
        states:
        - FinishedRegistrationRound
        - RegistrationRound
        transition_func:
            (RegistrationRound, DONE): FinishedRegistrationRound
            (RegistrationRound, NO_MAJORITY): RegistrationRound
        "#,
        expect![[r#"
            main.fsm 5:4-5:29 `FinishedRegistrationRound`
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
