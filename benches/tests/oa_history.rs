//! The classification of upstream Open Autonomy's spec history: with a clone named by `FSMC_OA_CLONE` (the
//! `open-autonomy` repository, every ref fetched), its 192 revisions of `fsm_specification*.yaml` are 38 files
//! added or removed, 24 changes of the text only, 10 of the label only and 120 of the machine. Without a clone
//! the test says it skipped.

use fsmc_benches::history::classify;
use fsmc_diff::Class;

#[test]
fn upstream_history_is_classified() {
    let Some(repo) = std::env::var_os("FSMC_OA_CLONE") else {
        eprintln!("skipped: set FSMC_OA_CLONE to a clone of open-autonomy to classify its history");
        return;
    };
    let history = classify(std::path::Path::new(&repo)).expect("the clone's history reads");
    assert_eq!(
        (
            history.revisions(),
            history.added_or_removed,
            history.text.len(),
            history.label.len(),
            history.machine.len()
        ),
        (192, 38, 24, 10, 120)
    );
    // The label of an Open Autonomy spec names its app (its last segment): where only that segment changed the
    // generated module is renamed (code-breaking); elsewhere the change is for other tools only.
    for r in &history.label {
        let v = r.verdict();
        assert!(
            matches!(v, Some(Class::Interop | Class::Code)),
            "{} {}: {v:?}",
            r.commit,
            r.path
        );
    }
    let code = history
        .label
        .iter()
        .filter(|r| r.verdict() == Some(Class::Code))
        .count();
    assert_eq!(code, 2, "label changes that rename the app");
    // Upstream's rounds are its own code, keyed by the spec's names: every change to the machine changes what
    // replicas compute.
    assert!(
        history
            .machine
            .iter()
            .all(|r| r.verdict() == Some(Class::Consensus))
    );
}
