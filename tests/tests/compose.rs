//! Composed apps over imported machines: import aliases work everywhere a chained machine is named, a lint
//! found in the composition obeys the app's lint levels, and one unresolved mapping is reported once, not
//! followed by what the incomplete composition would show.

use fsmc_base::diag::{Code, Diagnostic, Severity};
use std::path::Path;

fn diagnostics(name: &str) -> Vec<Diagnostic> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/compose")
        .join(name);
    fsmc_driver::compile(&path, &fsmc_driver::Options::default())
        .expect("the fixture is readable")
        .diagnostics
}

/// The diagnostics about the app itself (the imported machines' own warnings aside).
fn about_the_app(name: &str) -> Vec<Diagnostic> {
    diagnostics(name)
        .into_iter()
        .filter(|d| d.code != Code::NoPathToFinal || d.message.starts_with("in the composed app"))
        .collect()
}

#[test]
fn an_alias_qualifies_a_mapping_and_the_app_allows_its_lint() {
    let found = about_the_app("alias.fsm");
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_composed_lint_keeps_its_code_and_level() {
    // Without the app's `#[allow]`, the composition's lint is a warning under its own code, not an E0510 error.
    // The component allows it in its own file: the app would otherwise repeat the component's warning, which
    // it leaves out.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/compose");
    let mut overlay = fsmc_driver::loader::Overlay::default();
    let app = std::fs::read_to_string(dir.join("alias.fsm")).unwrap();
    overlay.insert(
        &dir.join("alias.fsm"),
        app.replace("#[allow(no_path_to_final)]", ""),
    );
    let report = std::fs::read_to_string(dir.join("report.fsm")).unwrap();
    overlay.insert(
        &dir.join("report.fsm"),
        format!("#![allow(no_path_to_final)]\n{report}"),
    );
    let c = fsmc_driver::compile_overlaid(
        &dir.join("alias.fsm"),
        &fsmc_driver::Options::default(),
        &overlay,
    )
    .unwrap();
    let composed: Vec<&Diagnostic> = c
        .diagnostics
        .iter()
        .filter(|d| d.message.starts_with("in the composed app"))
        .collect();
    assert_eq!(composed.len(), 1, "{composed:#?}");
    assert_eq!(composed[0].code, Code::NoPathToFinal);
    assert_eq!(composed[0].severity, Severity::Warning);
    assert!(c.checked.is_some(), "a warning does not fail the spec");
}

#[test]
fn an_unresolved_mapping_is_one_error() {
    let found = about_the_app("typo.fsm");
    let codes: Vec<Code> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::UnknownState], "{found:#?}");
    assert_eq!(
        found[0].help.as_deref(),
        Some("did you mean `ReportRound`?")
    );
}

#[test]
fn a_state_of_an_unchained_machine_suggests_chaining_it() {
    let found = about_the_app("unchained.fsm");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0].help.as_deref(),
        Some(
            "`OtherRound` is a state of `OtherAbciApp`, which is in scope but not chained: add it to `chain`"
        )
    );
}

#[test]
fn messages_name_a_machine_by_its_alias() {
    let found = about_the_app("alias_twice.fsm");
    let twice = found
        .iter()
        .find(|d| d.code == Code::MachineUsedTwice)
        .expect("reported");
    assert_eq!(
        twice.message,
        "machine `Fetch` appears twice in app `XAbciApp`"
    );
}
