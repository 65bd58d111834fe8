//! Unit tests of Genie's checks on the work invoker states run (`runs`) and their failure policies
//! (`on_failure`), compiled from text. Templates are not on disk here: every test leaves out E0704, which they
//! all report.

use fsmc_base::diag::{Code, Diagnostic};
use std::path::Path;

fn check(body: &str) -> Vec<Diagnostic> {
    let src = format!(
        "machine G: genie {{ event go, done, oops; \
         start default state A: user {{ template \"a\"; }} final state Z: user {{ template \"z\"; }} {body} }}"
    );
    let options = crate::Options::default();
    crate::compile_str("g.fsm", &src, Path::new("."), &options)
        .diagnostics
        .into_iter()
        .filter(|d| d.code != Code::GenieTemplateNotFound)
        .collect()
}

fn codes(body: &str) -> Vec<Code> {
    check(body).iter().map(|d| d.code).collect()
}

const THINK: &str = "(A, go) -> T; (T, done) -> Z; (A, oops) -> Z;";

#[test]
fn an_invoker_state_names_its_work() {
    let ok = format!("state T: invoker {{ template \"t\"; runs think; }} {THINK}");
    assert_eq!(codes(&ok), []);
    let missing = format!("state T: invoker {{ template \"t\"; }} {THINK}");
    let d = check(&missing);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::GenieMissingWork);
    assert_eq!(
        d[0].message,
        "invoker state `T` does not name the work it runs"
    );
}

#[test]
fn runs_takes_one_name() {
    let two = format!("state T: invoker {{ template \"t\"; runs a, b; }} {THINK}");
    // One mistake, one error: the work was named, in the wrong shape.
    assert_eq!(codes(&two), [Code::BadPropertyValue]);
}

#[test]
fn a_user_state_runs_no_work_and_has_no_failure_policy() {
    let src = format!(
        "state T: invoker {{ template \"t\"; runs t; }} state U: user {{ template \"u\"; runs x; on_failure retry; }} \
         {THINK} (A, done) -> U; (U, go) -> Z;"
    );
    let d = check(&src);
    let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`runs` applies only to invoker states",
            "`on_failure` applies only to invoker states"
        ]
    );
    assert!(d.iter().all(|d| d.code == Code::UnknownProperty));
}

#[test]
fn a_failure_event_needs_a_transition_from_each_state_it_covers() {
    let handled = format!(
        "state T: invoker {{ template \"t\"; runs t; on_failure = oops; }} {THINK} (T, oops) -> A;"
    );
    assert_eq!(codes(&handled), []);
    let unhandled =
        format!("state T: invoker {{ template \"t\"; runs t; on_failure = oops; }} {THINK}");
    let d = check(&unhandled);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::GenieFailureUnhandled);
    assert_eq!(
        d[0].message,
        "when its work fails, `T` sends `oops`, which it has no transition on"
    );
    // The machine's policy covers every invoker state that gives none; a state's own overrides it.
    let machine = format!(
        "on_failure = oops; state T: invoker {{ template \"t\"; runs t; }} \
         state U: invoker {{ template \"u\"; runs t; on_failure retry; }} {THINK} (T, go) -> U; (U, done) -> Z;"
    );
    let d = check(&machine);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message.starts_with("when its work fails, `T` sends"),
        "{d:?}"
    );
}

#[test]
fn failure_policies_are_words_or_events() {
    let word = format!("state T: invoker {{ template \"t\"; runs t; on_failure retyr; }} {THINK}");
    let d = check(&word);
    assert_eq!(d[0].message, "unknown failure policy `retyr`");
    assert_eq!(d[0].help.as_deref(), Some("did you mean `retry`?"));
    let event =
        format!("state T: invoker {{ template \"t\"; runs t; on_failure = nope; }} {THINK}");
    assert_eq!(codes(&event), [Code::UnknownEvent]);
    let shape =
        format!("state T: invoker {{ template \"t\"; runs t; on_failure \"retry\"; }} {THINK}");
    assert_eq!(codes(&shape), [Code::BadPropertyValue]);
    // Only Genie machines have failure policies.
    let plain = "machine P { on_failure retry; event go; start default state A; final state Z; (A, go) -> Z; }";
    let d =
        crate::compile_str("p.fsm", plain, Path::new("."), &crate::Options::default()).diagnostics;
    assert_eq!(
        d[0].message,
        "`on_failure` applies only to `genie` machines"
    );
}

#[test]
fn work_names_become_one_enum() {
    let src = format!(
        "state T: invoker {{ template \"t\"; runs deep_think; }} state U: invoker {{ template \"u\"; runs DeepThink; }} \
         {THINK} (T, go) -> U; (U, done) -> Z;"
    );
    let d = check(&src);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::NameCollision);
    // Two states running the same work is one variant.
    let shared = format!(
        "state T: invoker {{ template \"t\"; runs think; }} state U: invoker {{ template \"u\"; runs think; }} \
         {THINK} (T, go) -> U; (U, done) -> Z;"
    );
    assert_eq!(codes(&shared), []);
}

#[test]
fn the_runtimes_events_are_reserved() {
    for name in ["poll", "retry", "abandon"] {
        let src = format!(
            "machine G: genie {{ event go, {name}; start default state A: user {{ template \"a\"; }} \
             final state Z: user {{ template \"z\"; }} (A, go) -> Z; (A, {name}) -> Z; }}"
        );
        let d = crate::compile_str("g.fsm", &src, Path::new("."), &crate::Options::default())
            .diagnostics;
        assert!(
            d.iter()
                .any(|d| d.code == Code::ReservedName && d.message.contains(name)),
            "{d:?}"
        );
    }
}
