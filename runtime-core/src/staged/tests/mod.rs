//! Stage definitions, and the environment on two hand-written specs: an auction between two agents, and a fair
//! whose stalls are a group sized when the environment is built, with a scripted crier and typed actions.

mod auction;
mod fair;

use super::*;

const fn stage(
    id: &'static str,
    next: &'static [&'static str],
    has_handler: bool,
) -> StageInfo<&'static str, u8> {
    StageInfo {
        id,
        next,
        acting: &[1, 2],
        rewarded: None,
        has_handler,
    }
}

#[test]
fn valid_stages_pass() {
    let stages = [
        stage("odd", &["even"], true),
        stage("even", &["odd"], false),
    ];
    assert_eq!(validate("odd", &stages), Ok(()));
    assert_eq!(stages[1].automatic_next(), Some("odd"));
    assert_eq!(stages[0].automatic_next(), None, "a handler chooses");
}

#[test]
fn every_definition_error_is_reported() {
    assert_eq!(
        validate::<&str, u8>("a", &[]),
        Err(vec![StageError::NoStages])
    );
    let stages = [
        stage("a", &["b", "ghost"], true),
        stage("b", &[], false),
        stage("a", &["b"], true),
    ];
    let errors = validate("start", &stages).unwrap_err();
    assert_eq!(
        errors,
        [
            StageError::DuplicateStage("a"),
            StageError::UnknownInitialStage("start"),
            StageError::UnknownNextStage {
                stage: "a",
                next: "ghost"
            },
            StageError::AmbiguousNextStage {
                stage: "b",
                count: 0
            },
        ]
    );
    let messages: Vec<_> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages[2],
        "stage `a` lists next stage `ghost`, which is not defined"
    );
}

#[test]
fn handler_target_is_checked() {
    let s = stage("a", &["b", "c"], true);
    assert_eq!(s.check_target("c"), Ok("c"));
    let err = s.check_target("a").unwrap_err();
    assert_eq!((err.from, err.to), ("a", "a"));
    assert_eq!(
        err.to_string(),
        "state `a` cannot move to `a`; it may move to: `b`, `c`"
    );
}

#[test]
fn rewarded_defaults_to_acting() {
    let mut s = stage("a", &["a"], true);
    assert_eq!(s.rewarded_agents(), &[1, 2]);
    s.rewarded = Some(&[2]);
    assert_eq!(s.rewarded_agents(), &[2]);
    s.rewarded = Some(&[]);
    assert!(s.rewarded_agents().is_empty(), "`Some(&[])` rewards nobody");
}
