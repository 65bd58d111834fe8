//! Unit tests of the checks: each pins one rule, and that a mistake is reported once, not with a cascade of
//! its consequences.

mod parties;
mod runtime;

use fsmc_base::diag::{Code, Diagnostic};
use std::path::Path;

fn check(name: &str, src: &str) -> Vec<Diagnostic> {
    crate::compile_str(name, src, Path::new("."), &crate::Options::default()).diagnostics
}

fn codes(src: &str) -> Vec<Code> {
    check("test.fsm", src).iter().map(|d| d.code).collect()
}

#[test]
fn dropped_transitions_do_not_also_report_an_empty_table() {
    // The only transition names an unknown state: that is the error, not "no transitions".
    let src = "machine M { event GO; start default state A; final state B; (A, GO) -> C; }";
    assert_eq!(codes(src), [Code::UnknownState]);
}

#[test]
fn no_transitions_is_one_error_not_a_graph_cascade() {
    let src = "machine M { event GO; start default state A; final state B; }";
    assert_eq!(codes(src), [Code::NoTransitions]);
}

#[test]
fn dropped_transitions_do_not_report_missing_round_events() {
    let src = "machine PAbciApp: abci { event DONE; start default state ARound: collect_same_until_all; \
               final state BRound; (ARound, DONE) -> CRound; }";
    assert_eq!(codes(src), [Code::UnknownState]);
}

#[test]
fn an_unused_outcome_event_is_reported_as_the_missing_round_transition() {
    let src = "machine PAbciApp: abci { event DONE, NO_MAJORITY; \
               start default state ARound: collect_same_until_threshold; final state BRound; \
               (ARound, DONE) -> BRound; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::MissingRoundEvent]
    );
    // The event has its conventional name, so the message does not repeat the outcome.
    assert_eq!(
        diags[0].message,
        "round `ARound` can emit `NO_MAJORITY` but has no transition for it"
    );
    // An event that no round needs is still an unused event.
    let src = "machine PAbciApp: abci { event DONE, EXTRA; start default state ARound: collect_same_until_all; \
               final state BRound; (ARound, DONE) -> BRound; }";
    assert_eq!(codes(src), [Code::UnusedEvent]);
}

#[test]
fn unreachable_finals_do_not_make_every_state_lack_a_path_to_final() {
    // `B` is unreachable; that `A` cannot reach a final state is the same fact.
    let src = "#![deny(no_path_to_final)] machine M { event GO, BACK; start default state A; state L; final state B; \
               (A, GO) -> L; (L, BACK) -> A; }";
    assert_eq!(codes(src), [Code::UnreachableState]);
}

const DIALOGUE: &str =
    "machine D: dialogue { roles buyer, seller; event Offer by buyer; event Agree by seller; ";

#[test]
fn a_dialogue_that_cannot_begin_is_one_error_at_its_start_state() {
    let src = format!(
        "{DIALOGUE} start default state Idle; state Open; state Offered; final state Agreed; \
         (Open, Offer) -> Offered; (Offered, Agree) -> Agreed; }}"
    );
    let diags = check("test.fsm", &src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NoInitiation]
    );
    let at = diags[0].primary.as_ref().expect("a span").span;
    assert_eq!(&src[at.range()], "Idle");
    assert_eq!(
        diags[0].help.as_deref(),
        Some("add the opening move, e.g. `(Idle, Offer) -> NextState;`")
    );
}

#[test]
fn a_dialogue_state_that_cannot_end_is_reported_through_its_performative() {
    // `Stalled` cannot reach an end: E0806 on `Stall` says so (with a label on the state), not W0303 as well.
    let src = format!(
        "#![deny(no_path_to_final)] {DIALOGUE} event Stall by seller; event Remind by buyer; \
         start default state Open; state Offered; state Stalled; final state Agreed; \
         (Open, Offer) -> Offered; (Offered, Agree) -> Agreed; (Offered, Stall) -> Stalled; (Stalled, Remind) -> Stalled; }}"
    );
    let diags = check("test.fsm", &src);
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            Code::PerformativeCannotTerminate,
            Code::PerformativeCannotTerminate
        ]
    );
    assert!(
        diags[0]
            .secondary
            .iter()
            .any(|l| l.message.contains("`Stalled`")),
        "{diags:?}"
    );
}

#[test]
fn an_unreachable_performative_points_where_it_is_accepted() {
    let src = format!(
        "{DIALOGUE} event Withdraw by buyer; start default state Open; state Offered; state Disputed; \
         final state Agreed; (Open, Offer) -> Offered; (Offered, Agree) -> Agreed; (Disputed, Withdraw) -> Agreed; }}"
    );
    let diags = check("test.fsm", &src);
    let d = diags
        .iter()
        .find(|d| d.code == Code::PerformativeUnreachable)
        .expect("E0805");
    assert_eq!(d.secondary[0].message, "accepted only in `Disputed`");
}

#[test]
fn timeout_mismatch_names_machines_in_chain_order_with_durations_as_written() {
    let machine = |name: &str, timeout: &str| {
        format!(
            "machine {name}AbciApp: abci {{ event DONE; event T timeout {timeout}; \
             start default state {name}Round: collect_same_until_all; final state Finished{name}Round; \
             ({name}Round, DONE) -> Finished{name}Round; ({name}Round, T) -> {name}Round; }}"
        )
    };
    let src = format!(
        "{}\n{}\napp XAbciApp {{ chain PingAbciApp, PongAbciApp; FinishedPingRound -> PongRound; }}",
        machine("Ping", "30s"),
        machine("Pong", "1.5m")
    );
    let diags = check("test.fsm", &src);
    let d = diags
        .iter()
        .find(|d| d.code == Code::TimeoutMismatch)
        .expect("E0506");
    assert_eq!(
        d.message,
        "event `T` has timeout 30s in `PingAbciApp` but 90s in `PongAbciApp`"
    );
}

#[test]
fn too_few_machines_says_how_many() {
    let src = "machine PAbciApp: abci { event DONE; start default state ARound: collect_same_until_all; \
               final state BRound; (ARound, DONE) -> BRound; } app XAbciApp { chain PAbciApp; }";
    let diags = check("test.fsm", src);
    let d = diags
        .iter()
        .find(|d| d.code == Code::TooFewMachines)
        .expect("E0501");
    assert_eq!(
        d.message,
        "app `XAbciApp` chains only one machine; a composition needs at least two"
    );
}

#[test]
fn shared_event_lint_has_help() {
    let m = |n: &str| {
        format!(
            "machine {n}AbciApp: abci {{ event DONE; start default state {n}Round: collect_same_until_all; \
             final state Finished{n}Round; ({n}Round, DONE) -> Finished{n}Round; }}"
        )
    };
    let src = format!(
        "#![deny(shared_event)] {} {} app XAbciApp {{ chain AAbciApp, BAbciApp; FinishedARound -> BRound; }}",
        m("A"),
        m("B")
    );
    let diags = check("test.fsm", &src);
    let d = diags
        .iter()
        .find(|d| d.code == Code::SharedEvent)
        .expect("W0507");
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("allow(shared_event)")),
        "{d:?}"
    );
}

#[test]
fn composed_read_help_does_not_suggest_requires() {
    // After the reset, `price` is gone; only `cross_period` (or writing it again) helps in the composed app.
    let src = "\
        machine FAbciApp: abci { event DONE; key price: u64; start default state FRound: collect_same_until_all { payload \"u64\"; writes price; } \
            final state FinishedFRound { ensures price; } (FRound, DONE) -> FinishedFRound; }
        machine RAbciApp: abci { event DONE; start default state RRound: collect_same_until_all { reset; } \
            final state FinishedRRound; (RRound, DONE) -> FinishedRRound; }
        machine PAbciApp: abci { event DONE; key price: u64; \
            start default state PRound: collect_same_until_all { requires price; reads price; } \
            final state FinishedPRound; (PRound, DONE) -> FinishedPRound; }
        app XAbciApp { chain FAbciApp, RAbciApp, PAbciApp; FinishedFRound -> RRound; FinishedRRound -> PRound; \
            FinishedPRound -> FRound; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::ComposedCheck]
    );
    let help = diags[0].help.as_deref().unwrap_or_default();
    assert!(
        help.contains("cross_period") && !help.contains("requires"),
        "{help}"
    );
}

/// An app with one round of `kind` that has `props` and writes into `key: ty`.
fn writing(kind: &str, props: &str, ty: &str) -> String {
    format!(
        "machine PAbciApp: abci {{ event DONE, NO_MAJORITY, NONE, NEGATIVE, FAIL; key k: {ty}; \
         start default state ARound: {kind} {{ {props} writes k; }} final state BRound; \
         (ARound, DONE) -> BRound; (ARound, NO_MAJORITY) -> ARound; (ARound, NONE) -> ARound; \
         (ARound, NEGATIVE) -> ARound; (ARound, FAIL) -> ARound; }}"
    )
}

fn write_codes(kind: &str, props: &str, ty: &str) -> Vec<Code> {
    codes(&writing(kind, props, ty))
        .into_iter()
        .filter(|c| *c != Code::UnusedEvent && *c != Code::MissingRoundEvent)
        .collect()
}

#[test]
fn a_written_key_has_the_type_of_the_value_the_round_decides() {
    use Code::BadRoundWrites as E;
    let same = "collect_same_until_threshold";
    // The agreed payload, whatever module path names it.
    assert_eq!(write_codes(same, r#"payload "u64";"#, "u64"), []);
    assert_eq!(
        write_codes(
            same,
            r#"payload "std::collections::BTreeSet<String>";"#,
            "crate::BTreeSet<String>"
        ),
        []
    );
    assert_eq!(write_codes(same, r#"payload "u64";"#, "String"), [E]);
    // No payload is `()`, which no other key type takes.
    assert_eq!(write_codes(same, "", "u64"), [E]);
    // Collections are by agent; an agent is a `String` (the runtime's `AgentId`).
    let by_agent = "collect_different_until_threshold";
    assert_eq!(
        write_codes(
            by_agent,
            r#"payload "u64";"#,
            "std::collections::BTreeMap<String, u64>"
        ),
        []
    );
    assert_eq!(
        write_codes(
            by_agent,
            r#"payload "u64";"#,
            "std::collections::BTreeMap<fsmc_runtime::app::AgentId, u64>"
        ),
        []
    );
    assert_eq!(write_codes(by_agent, r#"payload "u64";"#, "u64"), [E]);
    assert_eq!(
        write_codes(
            "voting",
            "",
            "std::collections::BTreeMap<String, Option<bool>>"
        ),
        []
    );
    assert_eq!(write_codes("voting", "", "bool"), [E]);
    // An election decides an agent.
    assert_eq!(write_codes(same, "elects_keeper;", "String"), []);
}

#[test]
fn a_tuple_payload_spreads_over_as_many_keys() {
    let src = |payload: &str, keys: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, FAIL; key a: String; key b: u64; \
             start default state ARound: only_keeper_sends {{ payload \"{payload}\"; writes {keys}; }} \
             final state BRound; (ARound, DONE) -> BRound; (ARound, FAIL) -> ARound; }}"
        )
    };
    assert_eq!(codes(&src("(String, u64)", "a, b")), []);
    assert_eq!(
        codes(&src("(u64, String)", "a, b")),
        [Code::BadRoundWrites; 2]
    );
    assert_eq!(codes(&src("String", "a, b")), [Code::BadRoundWrites]);
    assert_eq!(
        codes(&src("(String, u64, u8)", "a, b")),
        [Code::BadRoundWrites]
    );
}

#[test]
fn roles_fit_their_rounds() {
    let src = |kind: &str, props: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, NO_MAJORITY, NEGATIVE, FAIL; \
             start default state ARound: {kind} {{ {props} }} final state BRound; \
             (ARound, DONE) -> BRound; (ARound, NO_MAJORITY) -> ARound; (ARound, NEGATIVE) -> ARound; \
             (ARound, FAIL) -> ARound; }}"
        )
    };
    let roles = |kind: &str, props: &str| -> Vec<Code> {
        codes(&src(kind, props))
            .into_iter()
            .filter(|c| *c == Code::BadRoundRole)
            .collect()
    };
    assert_eq!(roles("collect_same_until_all", "registration;"), []);
    assert_eq!(
        roles("collect_different_until_threshold", "registration;"),
        []
    );
    assert_eq!(roles("voting", "registration;"), [Code::BadRoundRole]);
    assert_eq!(
        roles("only_keeper_sends", "registration;"),
        [Code::BadRoundRole]
    );
    assert_eq!(roles("collect_same_until_threshold", "elects_keeper;"), []);
    assert_eq!(
        roles(
            "collect_same_until_threshold",
            r#"elects_keeper; payload "u64";"#
        ),
        [Code::BadRoundRole]
    );
    assert_eq!(
        roles("collect_different_until_all", "elects_keeper;"),
        [Code::BadRoundRole]
    );
    assert_eq!(
        roles("collect_same_until_all", "elects_keeper; registration;"),
        [Code::BadRoundRole]
    );
}

#[test]
fn keeper_rounds_need_an_election_in_the_period() {
    let src = |reset: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, FAIL, NO_MAJORITY; \
             start default state ElectRound: collect_same_until_threshold {{ elects_keeper; }} \
             state SendRound: only_keeper_sends; \
             state ResetRound: collect_same_until_threshold {{ {reset} }} \
             (ElectRound, DONE) -> SendRound; (ElectRound, NO_MAJORITY) -> ElectRound; \
             (SendRound, DONE) -> ResetRound; (SendRound, FAIL) -> ElectRound; \
             (ResetRound, DONE) -> SendRound; (ResetRound, NO_MAJORITY) -> ElectRound; }}"
        )
    };
    // Back to the keeper round within the period: the keeper is still elected.
    assert_eq!(codes(&src("")), []);
    // After a reset the period has no keeper until an election.
    assert_eq!(codes(&src("reset;")), [Code::KeeperNotElected]);
}

#[test]
fn a_lone_start_state_without_default_is_named() {
    let d = check(
        "test.fsm",
        "machine M { event GO; start state A; final state B; (A, GO) -> B; }",
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::NoDefaultStart);
    let label = &d[0].primary.as_ref().unwrap().message;
    assert!(label.contains("the only start state"), "{label}");
    assert!(!label.contains("several"), "{label}");
    assert_eq!(d[0].help.as_deref(), Some("write `start default state A;`"));
}

#[test]
fn a_round_writes_only_when_it_ends_on_done() {
    // `price` is written by `FetchRound` on `DONE`, not on `NO_MAJORITY`: the report round may lack it.
    let src = "machine PAbciApp: abci { event DONE, NO_MAJORITY; key price: u64; \
               start default state FetchRound: collect_same_until_threshold { payload \"u64\"; writes price; } \
               state ReportRound: collect_same_until_all { reads price; } final state FinishedRound; \
               (FetchRound, DONE) -> ReportRound; (FetchRound, NO_MAJORITY) -> ReportRound; \
               (ReportRound, DONE) -> FinishedRound; }";
    assert_eq!(codes(src), [Code::ReadBeforeWrite]);
    let fixed = src.replace(
        "(FetchRound, NO_MAJORITY) -> ReportRound",
        "(FetchRound, NO_MAJORITY) -> FetchRound",
    );
    assert_eq!(codes(&fixed), []);
}

#[test]
fn composed_key_types_compare_as_types() {
    let src = "machine FAbciApp: abci { event DONE; key price: std::string::String; \
               start default state FRound: collect_same_until_all { payload \"String\"; writes price; } \
               final state FinishedFRound { ensures price; } (FRound, DONE) -> FinishedFRound; }
               machine GAbciApp: abci { event DONE; key price: String; \
               start default state GRound: collect_same_until_all { requires price; reads price; } \
               final state FinishedGRound; (GRound, DONE) -> FinishedGRound; }
               app XAbciApp { chain FAbciApp, GAbciApp; FinishedFRound -> GRound; FinishedGRound -> FRound; }";
    assert_eq!(codes(src), []);
}

/// Every spec below checked clean once and generated Rust that did not compile; each must now be refused.
#[test]
fn names_that_would_generate_broken_rust_are_refused() {
    let machine = |body: &str| format!("machine M {{ {body} }}");
    for (body, code) in [
        // `self` becomes the variant `Self`.
        (
            "event self; start default state A; final state B; (A, self) -> B;",
            Code::ReservedName,
        ),
        (
            "event GO; start default state self; final state B; (self, GO) -> B;",
            Code::ReservedName,
        ),
        // An action and a key named `_`.
        (
            "event GO; start default state A; final state B; (A, GO) -> B do _;",
            Code::ReservedName,
        ),
        (
            "event GO; key _: u64; start default state A { writes _; } final state B; (A, GO) -> B;",
            Code::ReservedName,
        ),
        // A guard and an action with one name: two `Hooks` methods of one name.
        (
            "event GO; start default state A; final state B; (A, GO) -> B if ready do ready;",
            Code::NameCollision,
        ),
        // Two spellings of one guard.
        (
            "event GO, RUN; start default state A; state C; final state B; \
             (A, GO) -> C if ReadyNow; (A, RUN) -> B if ready_now; (C, GO) -> B;",
            Code::NameCollision,
        ),
        // States whose methods collide (`ABCRound`, `AbcRound` are both `abc_round`).
        (
            "event GO; start default state ABCRound; final state AbcRound; (ABCRound, GO) -> AbcRound;",
            Code::NameCollision,
        ),
        // A key named like a method of `Data`, and a key named like another key's setter.
        (
            "event GO; key has: u64; start default state A { writes has; } final state B; (A, GO) -> B;",
            Code::NameCollision,
        ),
        (
            "event GO; key a: u64; key set_a: u64; start default state A { writes a, set_a; } final state B; \
             (A, GO) -> B;",
            Code::NameCollision,
        ),
    ] {
        let found = codes(&machine(body));
        assert!(found.contains(&code), "{body}: {found:?}");
    }
    // A repeated field of one performative.
    let dialogue = "machine D: dialogue { roles buyer, seller; event Cfp(q: u64, q: u64) by buyer; \
                    event Accept by seller; start default state Open; final state Done; (Open, Cfp) -> Done; }";
    assert!(
        codes(dialogue).contains(&Code::NameCollision),
        "{:?}",
        codes(dialogue)
    );
    // Two machines of one file whose modules collide.
    let two = "machine FooBar { event GO; start default state A; final state B; (A, GO) -> B; } \
               machine foo_bar { event GO; start default state A; final state B; (A, GO) -> B; }";
    assert!(
        codes(two).contains(&Code::NameCollision),
        "{:?}",
        codes(two)
    );
}

/// A staged machine around `body`: agents `buyer` and `seller`.
fn staged(body: &str) -> String {
    format!("machine Market: staged {{ agents buyer, seller; {body} }}")
}

#[test]
fn a_stage_without_handler_needs_exactly_one_next_stage() {
    // Phantom: "Stage without handler must have exactly one next stage", zero included; a dead end is said in
    // those words, not also as E0302.
    let none = staged("start default state A { acting buyer; } state B; A -> B;");
    let diags = check("test.fsm", &none);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::StageNextCount]
    );
    assert_eq!(
        diags[0].message,
        "stage `B` has no handler and no next stage"
    );
    let two = staged("start default state A; state B; state C; A -> B, C; B -> A; C -> A;");
    let diags = check("test.fsm", &two);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::StageNextCount]
    );
    assert_eq!(
        diags[0].message,
        "stage `A` has no handler but 2 next stages"
    );
    // With a handler, several next stages are fine; so is one.
    let ok =
        staged("start default state A { handler; } state B; state C; A -> B, C; B -> A; C -> A;");
    assert_eq!(codes(&ok), []);
}

#[test]
fn a_stage_may_have_no_acting_agents_and_reward_nobody() {
    let src = staged(
        "start default state A { acting buyer; rewarded none; handler; } state B; state C { rewarded seller; } \
         A -> B, C; B -> A; C -> A;",
    );
    assert_eq!(codes(&src), []);
    let c = crate::compile_str("test.fsm", &src, Path::new("."), &crate::Options::default());
    let checked = c.checked.expect("a clean spec is checked");
    let m = &checked.spec().machines[0];
    let [a, b, c] = [0, 1, 2].map(|i| m.states[i].stage().expect("a stage"));
    assert_eq!(
        a.rewarded.as_deref(),
        Some(&[][..]),
        "`rewarded none;` is an empty list"
    );
    assert!(
        b.acting.is_empty() && b.rewarded.is_none(),
        "not written: the default"
    );
    assert_eq!(c.rewarded.as_ref().map(|r| r.len()), Some(1));
}

#[test]
fn none_is_a_whole_agent_list_and_no_agent_name() {
    let mixed = staged("start default state A { rewarded none, seller; } A -> A;");
    assert_eq!(codes(&mixed), [Code::BadPropertyValue]);
    let agent = "machine Market: staged { agents none, seller; start default state A { acting seller; } A -> A; }";
    assert_eq!(codes(agent), [Code::ReservedName]);
}

#[test]
fn a_final_stage_is_one_error_not_a_cascade() {
    // Not also "start state is final", "transition from a final state" or "no path to final".
    let src = staged(
        "start default final state A { acting buyer; handler; } state B; A -> A, B; B -> A;",
    );
    assert_eq!(codes(&src), [Code::FinalStage]);
    let src = staged("start default state A { handler; } final state B; A -> A, B;");
    assert_eq!(codes(&src), [Code::FinalStage]);
}

#[test]
fn a_handler_cannot_take_the_name_of_an_environment_method() {
    let src =
        staged("start default state Reset { handler; } state B; Reset -> Reset, B; B -> Reset;");
    let diags = check("test.fsm", &src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NameCollision]
    );
    assert!(diags[0].message.contains("`reset`"), "{}", diags[0].message);
    // Without a handler the stage makes no method: the name is free.
    let src = staged("start default state Reset; state B; Reset -> B; B -> Reset;");
    assert_eq!(codes(&src), []);
}

#[test]
fn hook_methods_may_not_share_a_name() {
    // The event `transition` gives `before_transition`, which every `Hooks` trait has.
    let src = "machine M { event transition; start default state A; final state B; (A, transition) -> B; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NameCollision; 3]
    );
    assert_eq!(
        diags[0].message,
        "the hook `after_transition` of event `transition` and the hook `after_transition` every `Hooks` trait has are both `after_transition` in generated Rust"
    );
    // The event `exit_a` has the hook `on_exit_a`, which is also the exit hook of state `a`.
    let src = "machine M { event exit_a; start default state a; final state B; (a, exit_a) -> B; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NameCollision]
    );
    assert!(
        diags[0].message.contains("`on_exit_a`"),
        "{}",
        diags[0].message
    );
    // A guard named like a hook.
    let src =
        "machine M { event GO; start default state A; final state B; (A, GO) -> B if validate; }";
    assert_eq!(codes(src), [Code::NameCollision]);
    // Names that differ only in underscores meet in one hook name.
    let src = "machine M { event x, _x; start default state A; final state B; (A, x) -> B; (A, _x) -> B; }";
    assert!(codes(src).contains(&Code::NameCollision));
    // Distinct names are fine, and a plain machine without events (none here) has no hooks to collide.
    let src = "machine M { event GO; start default state A; final state B; (A, GO) -> B if ready do log; }";
    assert_eq!(codes(src), []);
}

/// A chain of `n` states with findings at the same relative places: two states whose generated names collide
/// (names), states nothing reaches (graph), and, when `unknown`, three unknown states and an unknown event
/// (resolve; the graph's findings are then withheld, as consequences of the dropped transitions).
fn chain_with_mistakes(n: usize, unknown: bool) -> String {
    let mut s = String::from("machine M {\n    event GO, BACK;\n    start default state S0;\n");
    for i in 1..n {
        s.push_str(&format!("    state S{i};\n"));
    }
    s.push_str(&format!(
        "    final state S{n};\n    state Island;\n    state Foo_bar;\n    state FooBar;\n"
    ));
    s.push_str("    (Foo_bar, GO) -> FooBar;\n    (FooBar, GO) -> S0;\n    (Island, GO) -> S0;\n");
    for i in 0..n {
        let to = match i {
            _ if unknown && i == 3 => "Ghost1".to_string(),
            _ if unknown && i == n / 2 => "Ghost2".to_string(),
            _ if unknown && i == n - 1 => "Ghost3".to_string(),
            _ => format!("S{}", i + 1),
        };
        let event = if unknown && i == n / 3 { "NOPE" } else { "GO" };
        s.push_str(&format!(
            "    (S{i}, {event}) -> {to};\n    (S{i}, BACK) -> S0;\n"
        ));
    }
    s.push_str("}\n");
    s
}

/// A machine large enough to be resolved and checked on several threads reports what a small one reports, in the
/// same order: the split never shows.
#[test]
fn large_machines_report_as_small_ones_do() {
    let codes_of = |n: usize, unknown: bool| {
        let diags = check("chain.fsm", &chain_with_mistakes(n, unknown));
        let unknown_at: Vec<u32> = diags
            .iter()
            .filter(|d| matches!(d.code, Code::UnknownState | Code::UnknownEvent))
            .filter_map(|d| d.primary.as_ref().map(|p| p.span.start))
            .collect();
        assert!(
            unknown_at.windows(2).all(|w| w[0] < w[1]),
            "unknown names are reported in the order they are written ({n} states)"
        );
        assert_eq!(unknown_at.len(), if unknown { 4 } else { 0 }, "{n} states");
        diags.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    // 40,000 states and 80,000 transitions: past the size at which the lookups and the graph's checks are shared
    // among threads (`par::MIN_ITEMS_PER_THREAD`).
    const LARGE: usize = 40_000;
    const { assert!(3 * LARGE >= 2 * fsmc_base::par::MIN_ITEMS_PER_THREAD) };
    for unknown in [false, true] {
        let small = codes_of(40, unknown);
        let expected = if unknown {
            Code::UnknownState
        } else {
            Code::UnreachableState
        };
        assert!(
            small.contains(&Code::NameCollision) && small.contains(&expected),
            "{small:?}"
        );
        assert_eq!(small, codes_of(LARGE, unknown));
    }
}

#[test]
fn outcomes_are_those_upstreams_round_classes_decide() {
    // Upstream's `CollectDifferentUntilThresholdRound` decides only `done`, and
    // `CollectNonEmptyUntilThresholdRound` `done` and `none`: a mapping of another outcome can never fire.
    for (kind, outcome) in [
        ("collect_different_until_threshold", "no_majority"),
        ("collect_different_until_threshold", "none"),
        ("collect_non_empty_until_threshold", "no_majority"),
    ] {
        let src = format!(
            "machine PAbciApp: abci {{ event DONE, NONE, SPLIT; \
             start default state ARound: {kind} {{ {outcome} = SPLIT; }} final state BRound; \
             (ARound, DONE) -> BRound; (ARound, NONE) -> BRound; (ARound, SPLIT) -> BRound; }}"
        );
        let diags = check("test.fsm", &src);
        assert_eq!(
            diags.iter().map(|d| d.code).collect::<Vec<_>>(),
            [Code::BadOutcome],
            "{kind} {outcome}: {diags:#?}"
        );
        assert_eq!(
            diags[0].message,
            format!("a `{kind}` round has no `{outcome}` outcome")
        );
    }
    // What the classes do decide is accepted.
    let src = "machine PAbciApp: abci { event DONE, EMPTY; \
               start default state ARound: collect_non_empty_until_threshold { none = EMPTY; } final state BRound; \
               (ARound, DONE) -> BRound; (ARound, EMPTY) -> BRound; }";
    assert_eq!(codes(src), []);
}

#[test]
fn work_in_progress_plain_machines_warn_where_abci_machines_fail() {
    use fsmc_base::diag::Severity;
    let severities = |src: &str| -> Vec<(Code, Severity)> {
        check("test.fsm", src)
            .iter()
            .map(|d| (d.code, d.severity))
            .collect()
    };
    // A plain machine in progress: an event declared ahead of its transition, a state not yet wired in.
    let plain = "machine M { event GO, LATER; start default state A; state Draft; final state B; \
                 (A, GO) -> B; (Draft, GO) -> B; }";
    assert_eq!(
        severities(plain),
        [
            (Code::UnusedEvent, Severity::Warning),
            (Code::UnreachableState, Severity::Warning)
        ]
    );
    // The lint attributes silence them as they silence any lint.
    let allowed = format!("#![allow(unused_event, unreachable_state)] {plain}");
    assert_eq!(codes(&allowed), []);
    let denied = format!("#![deny(unused_event)] {plain}");
    assert_eq!(
        severities(&denied),
        [
            (Code::UnusedEvent, Severity::Error),
            (Code::UnreachableState, Severity::Warning)
        ]
    );
    // Open Autonomy's checker rejects both, so an abci machine keeps them errors whatever the attributes say.
    let abci = "#![allow(unused_event)] machine PAbciApp: abci { event DONE, EXTRA; \
                start default state ARound: collect_same_until_all; final state BRound; (ARound, DONE) -> BRound; }";
    assert_eq!(severities(abci), [(Code::UnusedEvent, Severity::Error)]);
}
