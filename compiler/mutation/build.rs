//! Writes `mutants.rs`: for each spec, its generated code with one mutation (a transition table cell pointing at
//! another state, an outcome mapped to another event, a threshold round waiting one block longer), together with
//! the tests generated from the unmutated spec, in a module per mutant; and `MUTANTS`, each mutant's label and
//! the function running its tests. The unmutated code comes first, as `original`, which must pass.

use fsmc_model::codegen::{format, generate, tests};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Each spec, the module of its tests, and the call that runs them all (`F` is the tests' module).
const SPECS: &[(&str, &str, &str)] = &[
    (
        "specs/oracle/oracle.fsm",
        "oracle_abci_app_tests",
        "F::check_all(&F::Defaults)",
    ),
    (
        "specs/tac/tac.fsm",
        "fipa_negotiation_tests",
        "F::check_all()",
    ),
    (
        "examples/pregenerated/turnstile.fsm",
        "turnstile_tests",
        "F::check_all()",
    ),
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut text = String::new();
    let mut registry = Vec::new();
    if std::env::var_os("CARGO_FEATURE_MUTANTS").is_some() {
        for (spec, tests_module, call) in SPECS {
            let path = root.join(spec);
            println!("cargo::rerun-if-changed={}", path.display());
            let c =
                fsmc_driver::compile(&path, &fsmc_driver::Options::default()).expect("readable");
            let checked = c.checked.expect("shipped specs check clean");
            let code = format(generate(&checked)).expect("Rust");
            // Only `MUTANTS` runs the tests: the generated `#[test]` wrappers would run each mutant's tests again,
            // as failures of this crate's own.
            let tests = format(tests::generate(&checked, tests::TestOptions::default()))
                .expect("Rust")
                .replace("#[test]\n", "");
            let mut mutants = vec![("original".to_string(), code.clone())];
            mutants.extend(table_cells(&code));
            mutants.extend(outcome_mappings(&code));
            mutants.extend(thresholds(&code));
            for (label, mutated) in mutants {
                let module = format!("m{}", registry.len());
                writeln!(
                    text,
                    "mod {module} {{\n{mutated}\n{tests}\npub fn run() {{ use {tests_module} as F; {call}; }}\n}}"
                )
                .expect("a String takes writes");
                registry.push((format!("{spec}: {label}"), module));
            }
        }
    }
    let entries: Vec<String> = registry
        .iter()
        .map(|(label, module)| format!("({label:?}, {module}::run as fn())"))
        .collect();
    writeln!(
        text,
        "/// Each mutant's label and the function that runs its tests.\npub static MUTANTS: &[(&str, fn())] = &[{}];",
        entries.join(", ")
    )
    .expect("a String takes writes");
    std::fs::write(out.join("mutants.rs"), text).expect("OUT_DIR is writable");
}

/// The text between `start` (its first occurrence) and the next line that is `end` at the same indentation.
fn region(code: &str, start: &str) -> Option<std::ops::Range<usize>> {
    let from = code.find(start)?;
    let indent = code[..from].rfind('\n').map_or(0, |l| from - l - 1);
    let close = format!("\n{}}}", " ".repeat(indent));
    let close_semi = format!("\n{}];", " ".repeat(indent));
    let end = [close, close_semi]
        .iter()
        .filter_map(|c| code[from..].find(c.as_str()))
        .min()?;
    Some(from..from + end)
}

/// The variants `enum` lists, in order.
fn variants(code: &str, enum_head: &str) -> Vec<String> {
    let Some(r) = region(code, enum_head) else {
        return Vec::new();
    };
    code[r]
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("///") && !l.starts_with('#'))
        .filter_map(|l| l.strip_suffix(','))
        // A variant with an explicit discriminant (`Idle = 0`).
        .map(|l| l.split(" = ").next().unwrap_or(l))
        .filter(|l| l.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .map(str::to_string)
        .collect()
}

/// Every occurrence of `Some(<ty>::X)` inside `range`, each replaced by the next variant of `all`.
fn retarget(
    code: &str,
    range: std::ops::Range<usize>,
    ty: &str,
    all: &[String],
    what: &str,
) -> Vec<(String, String)> {
    let needle = format!("::core::option::Option::Some({ty}::");
    let mut out = Vec::new();
    let mut at = range.start;
    while let Some(i) = code[at..range.end].find(&needle) {
        let start = at + i + needle.len();
        let len = code[start..].find(')').unwrap_or(0);
        let old = &code[start..start + len];
        if let Some(k) = all.iter().position(|v| v == old) {
            let new = &all[(k + 1) % all.len()];
            let mutated = format!("{}{new}{}", &code[..start], &code[start + len..]);
            out.push((format!("{what} #{} {old} -> {new}", out.len()), mutated));
        }
        at = start;
    }
    out
}

/// A table cell pointing at the next state instead.
fn table_cells(code: &str) -> Vec<(String, String)> {
    let states = variants(code, "pub enum State {");
    match region(code, "static TABLE:") {
        Some(r) => retarget(code, r, "State", &states, "table cell"),
        None => Vec::new(),
    }
}

/// An outcome mapped to the next event instead.
fn outcome_mappings(code: &str) -> Vec<(String, String)> {
    let events = variants(code, "pub enum Event {");
    match region(code, "pub fn outcome_event(") {
        Some(r) => retarget(code, r, "Event", &events, "outcome mapping"),
        None => Vec::new(),
    }
}

/// A collect-until-threshold round that waits one block more after its threshold.
fn thresholds(code: &str) -> Vec<(String, String)> {
    let Some(r) = region(code, "fn start_round(") else {
        return Vec::new();
    };
    let needle = ">>::new(eligible)";
    let mut out = Vec::new();
    let mut at = r.start;
    while let Some(i) = code[at..r.end].find(needle) {
        let end = at + i + needle.len();
        let kind_at = code[..end].rfind("::rounds::").unwrap_or(0) + "::rounds::".len();
        let kind: String = code[kind_at..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        if kind.ends_with("UntilThreshold") {
            let mutated = format!("{}.with_confirmations(1){}", &code[..end], &code[end..]);
            out.push((
                format!("threshold #{} {kind} waits a block more", out.len()),
                mutated,
            ));
        }
        at = end;
    }
    out
}
