//! fsmc over the whole Open Autonomy corpus: on every file, its verdict agrees with upstream's (SOURCES.txt),
//! and where upstream fails a spec, fsmc fails it for the same reasons (the same states, the same label).
//! The corpus is read where `FSMC_CORPUS` says at test time and never copied into the repository.

use fsmc_base::diag::{Code, Severity};
use fsmc_driver::{Options, compile};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The corpus (see `fsmc_testkit::corpus`): `None`, after saying so, when there is none and none was asked for.
fn corpus() -> Option<PathBuf> {
    fsmc_testkit::corpus::for_test("corpus verdicts")
}

struct Entry {
    file: String,
    pass: bool,
    notes: String,
}

/// The rows of SOURCES.txt that carry a verdict.
fn entries(dir: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(dir.join("SOURCES.txt")).expect("SOURCES.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let verdict = cols.get(7)?.trim();
            (verdict == "PASS" || verdict == "FAIL").then(|| Entry {
                file: cols[0].to_string(),
                pass: verdict == "PASS",
                notes: cols.get(8).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// The names quoted in upstream's "state names not ending in Round: ['A', 'B']".
fn quoted_states(notes: &str) -> BTreeSet<String> {
    let Some(rest) = notes.split("not ending in Round:").nth(1) else {
        return BTreeSet::new();
    };
    rest.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn verdicts_agree_with_upstream_on_every_corpus_file() {
    let Some(dir) = corpus() else {
        return;
    };
    let entries = entries(&dir);
    assert!(
        entries.len() >= 85,
        "SOURCES.txt lists {} verdicts",
        entries.len()
    );
    let mut failures = Vec::new();
    for e in &entries {
        let c = compile(&dir.join(&e.file), &Options::default()).expect("corpus file is readable");
        let errors: Vec<_> = c
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        if e.pass != errors.is_empty() {
            failures.push(format!(
                "{}: upstream {}, fsmc found {:?}",
                e.file,
                if e.pass { "PASS" } else { "FAIL" },
                errors.iter().map(|d| &d.message).collect::<Vec<_>>()
            ));
            continue;
        }
        if e.pass {
            continue;
        }
        // Upstream fails these only on its naming conventions, which fsmc reports under the same names.
        for d in &errors {
            assert!(
                matches!(d.code, Code::StateNaming | Code::AppNaming),
                "{}: unexpected {}: {}",
                e.file,
                d.code,
                d.message
            );
        }
        let ours: BTreeSet<String> = errors
            .iter()
            .filter(|d| d.code == Code::StateNaming)
            .filter_map(|d| d.message.split('`').nth(1).map(str::to_string))
            .collect();
        assert_eq!(ours, quoted_states(&e.notes), "{}", e.file);
        if e.notes.contains("label does not end in AbciApp") {
            assert!(
                errors.iter().any(|d| d.code == Code::AppNaming),
                "{}",
                e.file
            );
        }
    }
    assert!(
        failures.is_empty(),
        "verdicts disagree:\n{}",
        failures.join("\n")
    );
}

/// Upstream's checker test fixtures (JSON is YAML): the valid one passes, the empty one lacks all seven keys,
/// the extra one has an extra key.
#[test]
fn upstream_fixtures() {
    let Some(dir) = corpus().map(|c| c.join("test_fixtures")) else {
        return;
    };
    let check = |name: &str| {
        compile(&dir.join(name), &Options::default())
            .expect("fixture is readable")
            .diagnostics
    };
    assert!(check("open-autonomy__tests__data__specs__fsm_specification.json").is_empty());
    let empty = check("open-autonomy__tests__data__specs__fsm_specification_empty.json");
    assert_eq!(
        empty.iter().filter(|d| d.code == Code::YamlSchema).count(),
        7,
        "{empty:?}"
    );
    assert!(
        empty
            .iter()
            .all(|d| d.message.contains("is a required property")),
        "{empty:?}"
    );
    let extra = check("open-autonomy__tests__data__specs__fsm_specification_extra.json");
    assert_eq!(extra.len(), 1, "{extra:?}");
    assert!(
        extra[0].message.contains("extra_field"),
        "{}",
        extra[0].message
    );
}

/// Beyond upstream: a dead end, a duplicated `(State, EVENT)` key and an empty transition table are errors
/// fsmc reports on Open Autonomy input (upstream accepts the first two silently and crashes on the third).
#[test]
fn finds_more_than_upstream_on_yaml() {
    let scratch = fsmc_testkit::scratch("corpus-extra");
    let dir = scratch.path();
    let spec = |body: &str| {
        format!(
            "alphabet_in:\n- DONE\n- FAIL\ndefault_start_state: ARound\nfinal_states:\n- DoneRound\nlabel: XAbciApp\nstart_states:\n- ARound\nstates:\n- ARound\n- BRound\n- DoneRound\ntransition_func:\n{body}"
        )
    };
    let cases = [
        (
            "dead_end",
            spec("    (ARound, DONE): DoneRound\n    (ARound, FAIL): BRound\n"),
            Code::DeadEnd,
        ),
        (
            "duplicate",
            spec(
                "    (ARound, DONE): DoneRound\n    (ARound, DONE): BRound\n    (ARound, FAIL): BRound\n    (BRound, DONE): DoneRound\n",
            ),
            Code::YamlDuplicateKey,
        ),
        (
            "empty",
            spec("    {}\n").replace("transition_func:\n    {}", "transition_func: {}"),
            Code::NoTransitions,
        ),
    ];
    for (name, text, code) in cases {
        let path = dir.join(format!("{name}_fsm_specification.yaml"));
        std::fs::write(&path, text).unwrap();
        let c = compile(&path, &Options::default()).unwrap();
        assert!(
            c.diagnostics.iter().any(|d| d.code == code && d.is_error()),
            "{name}: {:?}",
            c.diagnostics
        );
    }
}
