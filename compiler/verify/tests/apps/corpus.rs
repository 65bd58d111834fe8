//! No false alarm over the Open Autonomy corpus: every spec that passes `fsmc check` verifies clean.

use super::common::{FOUR_ONE, verify_file};

#[test]
fn every_corpus_spec_that_checks_verifies_clean() {
    let Some(dir) = fsmc_testkit::corpus::for_test("verify over the corpus") else {
        return;
    };
    let mut files = Vec::new();
    for sub in ["", "variants", "historical"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        files.extend(
            entries
                .map(|e| e.expect("directory entry").path())
                .filter(|p| p.to_string_lossy().ends_with("fsm_specification.yaml")),
        );
    }
    files.sort();
    let mut verified = 0;
    for f in &files {
        let c = fsmc_driver::compile(f, &fsmc_driver::Options::default()).expect("readable");
        if c.checked.is_none() {
            continue;
        }
        for r in verify_file(f, &FOUR_ONE) {
            assert!(!r.truncated, "{}: truncated", f.display());
            assert!(
                r.diagnostics.is_empty(),
                "{}: {:?}",
                f.display(),
                r.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
            verified += 1;
        }
    }
    assert!(verified >= 60, "only {verified} corpus apps verified");
}
