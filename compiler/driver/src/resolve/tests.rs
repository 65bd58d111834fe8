//! Unit tests of name resolution: a mistake is reported once, and what was written around it still counts.

use fsmc_base::diag::{Code, Diagnostic};
use std::path::Path;

fn check(name: &str, src: &str) -> Vec<Diagnostic> {
    crate::compile_str(name, src, Path::new("."), &crate::Options::default()).diagnostics
}

fn codes(src: &str) -> Vec<Code> {
    check("test.fsm", src).iter().map(|d| d.code).collect()
}

#[test]
fn a_repeated_property_still_counts() {
    // The second `writes` is an error, but `b` is still written: no read-before-write follows.
    let src = "machine M { event GO; key a: u8; key b: u8; start default state A { writes a; writes b; } \
               final state B { reads a, b; } (A, GO) -> B; }";
    assert_eq!(codes(src), [Code::DuplicateProperty]);
    // Roles given twice are merged, so `by seller` resolves and the dialogue has its two roles.
    let src = "machine D: dialogue { roles buyer; roles seller; event Offer by buyer; event Agree by seller; \
               start default state O; state P; final state A; (O, Offer) -> P; (P, Agree) -> A; }";
    assert_eq!(codes(src), [Code::DuplicateProperty]);
}

#[test]
fn a_template_of_the_wrong_shape_is_not_also_missing() {
    let src = "machine G: genie { event go; start default state A: user { template a_name; } \
               final state B: user { template \"b.j2\"; } (A, go) -> B; }";
    // `B`'s template exists beside the spec, so the one error is `A`'s.
    let dir = std::env::temp_dir().join(format!("fsmc-resolve-template-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.j2"), "{{ actor_input }}").unwrap();
    let c = crate::compile_str("test.fsm", src, &dir, &crate::Options::default());
    let _ = std::fs::remove_dir_all(&dir);
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::BadPropertyValue]);
}

#[test]
fn messages_name_the_profile_with_the_right_article() {
    let src = "machine PAbciApp: abci { event DONE; start default state ARound: votin; final state BRound; \
               (ARound, DONE) -> BRound; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags[0].message,
        "unknown state kind `votin` for an `abci` machine"
    );
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `voting`?"));
}

#[test]
fn an_outcome_mapping_is_reported_at_the_mapping() {
    let src = "machine PAbciApp: abci { event DONE, OOPS; \
               start default state ARound: collect_same_until_all { fail = OOPS; } final state BRound; \
               (ARound, DONE) -> BRound; (ARound, OOPS) -> ARound; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::BadOutcome]
    );
    let at = diags[0].primary.as_ref().expect("a span").span;
    assert_eq!(&src[at.range()], "fail = OOPS");
}

#[test]
fn an_unknown_chained_machine_is_the_only_error_of_its_app() {
    // Without `ResetAbciApp` the app is not composed: no "too few machines", no unknown mapped states.
    let src = "machine PAbciApp: abci { event DONE; start default state PRound: collect_same_until_all; \
               final state FinishedPRound; (PRound, DONE) -> FinishedPRound; } \
               app XAbciApp { chain PAbciApp, ResetAbciApp; FinishedPRound -> ResetRound; FinishedResetRound -> PRound; }";
    assert_eq!(codes(src), [Code::UnknownMachine]);
    // A state qualified with a machine that was found is still checked.
    let src = "machine PAbciApp: abci { event DONE; start default state PRound: collect_same_until_all; \
               final state FinishedPRound; (PRound, DONE) -> FinishedPRound; } \
               app XAbciApp { chain PAbciApp, ResetAbciApp; PAbciApp::FinishedPRund -> ResetRound; }";
    assert_eq!(codes(src), [Code::UnknownMachine, Code::UnknownState]);
}

const YAML: &str = "\
alphabet_in:
- DONE
- NO_MAJORITY
default_start_state: StartupRound
final_states:
- FinishedRound
label: XAbciApp
start_states:
- AgainRound
states:
- AgainRound
- FinishedRound
- StartupRound
transition_func:
    (AgainRound, DONE): FinishedRound
    (AgainRound, NO_MAJORITY): AgainRound
    (StartupRound, DONE): FinishedRound
";

// Reads YAML: the `yaml` feature, which `cargo test --workspace` turns on through the tool.
#[cfg(feature = "yaml")]
#[test]
fn a_default_start_missing_from_start_states_is_not_also_unreachable() {
    let diags = check("x_fsm_specification.yaml", YAML);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::DefaultNotStart]
    );
}

// Reads YAML: the `yaml` feature, which `cargo test --workspace` turns on through the tool.
#[cfg(feature = "yaml")]
#[test]
fn a_skipped_yaml_transition_does_not_leave_an_unused_event() {
    let yaml = YAML
        .replace(
            "start_states:\n- AgainRound",
            "start_states:\n- AgainRound\n- StartupRound",
        )
        .replace("(AgainRound, NO_MAJORITY)", "AgainRound, NO_MAJORITY");
    let diags = check("x_fsm_specification.yaml", &yaml);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::YamlTransitionKey]
    );
}

// Reads YAML: the `yaml` feature, which `cargo test --workspace` turns on through the tool.
#[cfg(feature = "yaml")]
#[test]
fn each_transition_from_an_unknown_state_is_reported() {
    // A source state equal to the previous transition's is not looked up again: unknown or known, each
    // transition still gets its own verdict.
    let yaml = "alphabet_in: [DONE, GO]\ndefault_start_state: ARound\nfinal_states: [CRound]\nlabel: XAbciApp\n\
                start_states: [ARound]\nstates: [ARound, BRound, CRound]\ntransition_func:\n    \
                (ARound, DONE): BRound\n    (ZRound, DONE): BRound\n    (ZRound, GO): CRound\n    \
                (BRound, DONE): CRound\n    (BRound, GO): YRound\n";
    let diags = check("x_fsm_specification.yaml", yaml);
    let unknown: Vec<(&str, &str)> = diags
        .iter()
        .filter(|d| d.code == Code::UnknownState)
        .map(|d| (d.message.as_str(), d.help.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        unknown,
        [
            (
                "state `ZRound` is not in `states`",
                "did you mean `ARound`?"
            ),
            (
                "state `ZRound` is not in `states`",
                "did you mean `ARound`?"
            ),
            (
                "state `YRound` is not in `states`",
                "did you mean `ARound`?"
            ),
        ]
    );
    // The same in a `.fsm` machine.
    let src = "machine M { event GO, DONE; start default state A; state B; final state C; (A, GO) -> B; \
               (Z, GO) -> B; (Z, DONE) -> C; (B, GO) -> C; (B, DONE) -> Y; }";
    let diags = check("test.fsm", src);
    let unknown: Vec<&str> = diags
        .iter()
        .filter(|d| d.code == Code::UnknownState)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        unknown,
        [
            "unknown state `Z`",
            "unknown state `Z`",
            "unknown state `Y`"
        ]
    );
}

#[test]
fn declared_properties_name_what_exists_once_each() {
    let machine = |claims: &str| {
        format!(
            "machine MAbciApp: abci {{ event DONE, NO_MAJORITY; event ROUND_TIMEOUT timeout 30s; key k: u8; \
             start default state ARound: collect_same_until_threshold {{ payload \"u8\"; writes k; }} \
             final state BRound; (ARound, DONE) -> BRound; (ARound, NO_MAJORITY) -> ARound; (ARound, ROUND_TIMEOUT) -> ARound; {claims} }}"
        )
    };
    // The naming lints of Open Autonomy apps are beside the point here.
    let errors = |src: &str| -> Vec<Diagnostic> {
        check("t.fsm", src)
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect()
    };
    assert!(errors(&machine("invariant \"i\": in ARound, BRound or has k;")).is_empty());
    // An unknown state, an unknown key, a repeated name: each reported, with a did-you-mean where one fits.
    let d = check(
        "t.fsm",
        &machine("invariant \"i\": in C; eventually \"i\": has kk;"),
    );
    let found: Vec<(Code, Option<&str>)> = d.iter().map(|d| (d.code, d.help.as_deref())).collect();
    assert_eq!(
        found,
        [
            (Code::ClaimUnknownName, None),
            (
                Code::ClaimUnknownName,
                Some("give each property its own name: a violation is reported by it")
            ),
            (Code::ClaimUnknownName, Some("did you mean `k`?")),
        ]
    );
    // Outside `abci`, keys are not tracked: a key test is refused even for a declared key.
    let plain = "machine P { event GO; key k: u8; start default state A { writes k; } final state B; \
                 (A, GO) -> B; invariant \"i\": missing k; }";
    assert_eq!(
        errors(plain).iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::ClaimUnknownName]
    );
    // An app's properties name its chained machines' states and keys.
    let app = format!(
        "{} app XAbciApp {{ chain MAbciApp; invariant \"a\": not (in BRound and missing k); eventually \"b\": in Z; }}",
        machine("")
    );
    // (An app of one machine is an error of its own, beside the point here.)
    let d: Vec<Diagnostic> = errors(&app)
        .into_iter()
        .filter(|d| d.code != Code::TooFewMachines)
        .collect();
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::ClaimUnknownName]
    );
    assert!(d[0].message.contains("`Z`"), "{}", d[0].message);
}
