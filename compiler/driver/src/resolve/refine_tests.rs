//! Unit tests of refinements: an imported Open Autonomy app's rounds given kinds, its structure kept.

use fsmc_base::diag::Code;
use fsmc_model::spec::{Item, Machine};
use fsmc_vocab::abci::RoundKind;
use std::path::PathBuf;

const REGISTRATION: &str =
    include_str!("../../../../specs/hello_world/upstream/registration_abci/fsm_specification.yaml");

/// Compiles `src` beside upstream's `registration_abci` spec, saved as `registration.yaml`.
fn compile(test: &str, src: &str) -> crate::Compilation {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("fsmc-refine-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("registration.yaml"), REGISTRATION).unwrap();
    let c = crate::compile_str("test.fsm", src, &dir, &crate::Options::default());
    let _ = std::fs::remove_dir_all(&dir);
    c
}

fn codes(c: &crate::Compilation) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

const HEAD: &str = "import \"registration.yaml\" as Upstream;\n";

fn kind(m: &Machine, state: &str) -> Option<RoundKind> {
    let id = m.find_state(state).expect("the state exists");
    m.state(id).round().and_then(|r| r.kind)
}

#[test]
fn a_refinement_keeps_the_base_and_gives_kinds() {
    let src = format!(
        "{HEAD}/// Registration.\nmachine AgentRegistrationAbciApp: abci refines Upstream {{ \
         event NO_MAJORITY; \
         start state RegistrationRound: collect_same_until_threshold {{ registration; confirmations 10; }} }}"
    );
    let c = compile("keeps", &src);
    assert_eq!(codes(&c), []);
    let spec = c.checked.expect("checks clean").spec().clone();
    let [Item::Machine(id)] = spec.entry_items.as_slice() else {
        panic!("one entry machine: {:?}", spec.entry_items)
    };
    let m = spec.machine(*id);
    assert_eq!(m.name.as_str(), "AgentRegistrationAbciApp");
    assert_eq!(
        m.label.as_ref().map(|l| l.as_str()),
        Some("AgentRegistrationAbciApp")
    );
    assert_eq!(m.docs, ["Registration."]);
    // The base's three states (the default start first, the finals last), three transitions and two events.
    let states: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        states,
        [
            "RegistrationStartupRound",
            "RegistrationRound",
            "FinishedRegistrationRound"
        ]
    );
    assert_eq!(m.transitions.len(), 3);
    assert_eq!(m.events.len(), 2);
    // The refined round has its kind and confirmations; the others are what an import makes them.
    assert_eq!(
        kind(m, "RegistrationRound"),
        Some(RoundKind::CollectSameUntilThreshold)
    );
    let refined = m
        .state(m.find_state("RegistrationRound").unwrap())
        .round()
        .unwrap();
    assert_eq!(refined.confirmations.map(|(n, _)| n), Some(10));
    assert_eq!(kind(m, "RegistrationStartupRound"), Some(RoundKind::Custom));
    assert_eq!(
        kind(m, "FinishedRegistrationRound"),
        Some(RoundKind::Degenerate)
    );
    let startup = m.state(m.find_state("RegistrationStartupRound").unwrap());
    assert!(startup.start && startup.default_start);
}

#[test]
fn a_refinement_cannot_change_the_structure() {
    let cases = [
        // A transition.
        "(RegistrationRound, DONE) -> RegistrationRound;",
        // A state or an event the base lacks.
        "state CheckRound: custom;",
        "event ROUND_TIMEOUT timeout 30s;",
        // A start state the base does not start with, a final state it does not end with.
        "final state RegistrationRound: degenerate;",
        "start default state RegistrationRound: collect_same_until_threshold { registration; }",
    ];
    for case in cases {
        let src =
            format!("{HEAD}machine AgentRegistrationAbciApp: abci refines Upstream {{ {case} }}");
        let c = compile("changes", &src);
        assert!(
            codes(&c).contains(&Code::RefinementChangesBase),
            "{case}: {:?}",
            c.diagnostics
        );
    }
}

#[test]
fn only_an_imported_app_is_refined_by_an_abci_machine() {
    // Not `abci`.
    let src = format!("{HEAD}machine AgentRegistrationAbciApp refines Upstream {{}}");
    assert_eq!(codes(&compile("plain", &src)), [Code::BadRefinement]);
    // A base that is not in scope: one error, with the imported app suggested, and nothing about the states.
    let src = format!(
        "{HEAD}machine AgentRegistrationAbciApp: abci refines Upstrem {{ state RegistrationRound: custom; }}"
    );
    let c = compile("unknown", &src);
    assert_eq!(codes(&c), [Code::UnknownMachine]);
    assert_eq!(
        c.diagnostics[0].help.as_deref(),
        Some("did you mean `Upstream`?")
    );
    // Refined under its own name without an alias, the base and the refinement share a name.
    let src = "import \"registration.yaml\";\n\
               machine AgentRegistrationAbciApp: abci refines AgentRegistrationAbciApp {}";
    assert_eq!(codes(&compile("shadow", src)), [Code::DuplicateItem]);
}
