//! The catalogue of failing specs: every diagnostic code has one minimal spec in `specs/invalid/` that
//! triggers it, and the rendered diagnostics of each are a snapshot, so a change in wording, span or
//! follow-on errors shows up in review.

use fsmc_base::diag::{Code, Severity};
use fsmc_testkit::workspace;
use std::path::{Path, PathBuf};

fn invalid_dir() -> PathBuf {
    workspace().join("specs/invalid")
}

/// Every spec directly in `specs/invalid/` (not the helpers in `support/`, nor the Genie templates the specs
/// name), sorted.
fn invalid_specs() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(invalid_dir())
        .expect("specs/invalid exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.is_file())
        .filter(|p| !file_name(p).starts_with('.'))
        .filter(|p| !file_name(p).ends_with(".jinja2"))
        .collect();
    specs.sort();
    specs
}

fn file_name(p: &Path) -> &str {
    p.file_name()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file name")
}

/// The name a spec must have for a code: `E0101_duplicate_state.fsm`, or for codes only Open Autonomy YAML
/// can trigger, `E0011_yaml_syntax_error_fsm_specification.yaml`.
fn spec_names(code: Code) -> [String; 2] {
    let stem = format!("{}_{}", code.id(), code.name());
    [
        format!("{stem}.fsm"),
        format!("{stem}_fsm_specification.yaml"),
    ]
}

/// The code a spec file is named after, if its name is well formed.
fn code_of(name: &str) -> Option<Code> {
    let code = Code::lookup(name.get(..5)?)?;
    spec_names(code).contains(&name.to_string()).then_some(code)
}

/// The environment the verification codes' specs are verified in.
const VERIFY: fsmc_verify::Config = fsmc_verify::Config {
    agents: 4,
    faults: 1,
    max_states: 1_000_000,
};

/// The codes only `fsmc verify` reports (family 11).
fn is_verification(code: Code) -> bool {
    code.id().starts_with("E11")
}

#[test]
fn every_invalid_spec_triggers_its_code() {
    let mut options = fsmc_driver::Options::default();
    // Paths in the output are relative to the workspace root, as `fsmc check` shows them run from there.
    options.load.display_base = Some(workspace());
    let specs = invalid_specs();
    assert!(!specs.is_empty(), "no specs in specs/invalid");
    for path in specs {
        let name = file_name(&path).to_string();
        let code = code_of(&name)
            .unwrap_or_else(|| panic!("{name}: not named `<CODE>_<name>.fsm` after a code"));
        let text = std::fs::read_to_string(&path).expect("readable spec");
        let comment = if name.ends_with(".yaml") { "# " } else { "// " };
        assert!(
            text.starts_with(comment),
            "{name}: must start with a `{comment}` line saying what is wrong"
        );

        let mut c = fsmc_driver::compile(&path, &options)
            .unwrap_or_else(|e| panic!("{name}: entry file unusable: {}", e.message));
        // What `fsmc verify` finds passes `fsmc check`: its specs are verified, with four agents and one fault.
        let verifies = is_verification(code);
        if verifies && let Some(checked) = c.checked.take() {
            for r in fsmc_verify::verify(&checked, &VERIFY) {
                c.diagnostics.extend(r.diagnostics);
            }
        }
        let rendered = fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false);
        assert!(
            c.diagnostics.iter().any(|d| d.code == code),
            "{name}: expected {code} among the diagnostics, got:\n{rendered}"
        );
        assert!(
            c.diagnostics.iter().any(|d| d.severity == Severity::Error),
            "{name}: the spec must fail (lints need `#![deny(…)]`), got:\n{rendered}"
        );
        assert!(
            c.checked.is_none(),
            "{name}: a failing spec must not produce a checked model"
        );

        let stem = name.split('.').next().expect("file name has a stem");
        insta::with_settings!({
            snapshot_path => "snapshots/invalid",
            prepend_module_to_snapshot => false,
            description => format!("fsmc {} specs/invalid/{name}", if verifies { "verify" } else { "check" }),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(stem, rendered);
        });
    }
}

#[test]
fn every_code_has_exactly_one_invalid_spec() {
    let names: Vec<String> = invalid_specs()
        .iter()
        .map(|p| file_name(p).to_string())
        .collect();
    let mut missing = Vec::new();
    for &code in Code::ALL {
        let found = names
            .iter()
            .filter(|n| spec_names(code).contains(n))
            .count();
        match found {
            0 => missing.push(spec_names(code)[0].clone()),
            1 => {}
            _ => panic!("{code} has {found} specs in specs/invalid; keep one"),
        }
    }
    assert!(
        missing.is_empty(),
        "codes without a spec in specs/invalid: {missing:?}"
    );
    // The reverse: a spec named after no code (or a misspelt name) would silently test nothing.
    let stray: Vec<&String> = names.iter().filter(|n| code_of(n).is_none()).collect();
    assert!(
        stray.is_empty(),
        "specs in specs/invalid named after no code: {stray:?}"
    );
}

#[test]
fn invalid_specs_are_skipped_when_checking_the_specs_directory() {
    // `fsmc check specs/` must stay clean: the CLI skips directories that hold a `.fsmcignore`.
    assert!(invalid_dir().join(".fsmcignore").is_file());
    let mut found = Vec::new();
    fsmc::cli::collect_specs(&workspace().join("specs"), &mut found).expect("specs/ is readable");
    assert!(
        found.iter().all(|p| !p.starts_with(invalid_dir())),
        "{found:?}"
    );
}
