//! The spec fingerprint in the editor: a code lens above each `abci` machine and app, and a line of their hover,
//! with the value `fsmc diff` prints and the generated `FINGERPRINT` holds (computed here from the compiler's
//! own model of the same files, not from the server).

use crate::fixture::{MAIN, PRICE, Session, mark, oracle};
use expect_test::expect;
use fsmc_model::fingerprint::{Fingerprint, fingerprint};
use fsmc_model::spec::Item;

/// The code lenses of every file of the session's workspace: where each is and its title.
fn lenses(s: &mut Session) -> String {
    let mut out = String::new();
    for i in 0..s.fixture.files.len() {
        let answer = s.call("textDocument/codeLens", s.document(i));
        let uri = s.document(i)["textDocument"]["uri"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        for lens in answer.as_array().into_iter().flatten() {
            assert_eq!(lens["command"]["command"], "", "a lens to read: {lens}");
            out.push_str(&format!(
                "{} {}\n",
                s.location(&uri, &lens["range"]),
                lens["command"]["title"].as_str().unwrap_or_default()
            ));
        }
    }
    out
}

/// The fingerprint of each entry item of the spec at `main.fsm`, by name, as the compiler computes it.
fn compiled(s: &Session) -> Vec<(String, Fingerprint)> {
    let c = fsmc_driver::compile(&s.path_of("main.fsm"), &Default::default()).expect("readable");
    let checked = c.checked.expect("the fixture checks");
    let spec = checked.spec();
    let mut out: Vec<(String, Fingerprint)> = spec
        .entry_items
        .iter()
        .map(|item| match *item {
            Item::Machine(id) => {
                let m = spec.machine(id);
                (m.name.text.to_string(), fingerprint(m))
            }
            Item::App(a) => (
                spec.apps[a].name.text.to_string(),
                fingerprint(&checked.composed()[a].machine),
            ),
        })
        .collect();
    // The chained machines, as their own files compile them.
    for m in &spec.machines {
        out.push((m.name.text.to_string(), fingerprint(m)));
    }
    out
}

/// `text` with every fingerprint of `known` (full or as the lens shortens it) replaced by `<NAME>`.
fn named(mut text: String, known: &[(String, Fingerprint)]) -> String {
    for (name, fp) in known {
        text = text
            .replace(&fp.to_string(), &format!("<{name}>"))
            .replace(&fp.short(8), &format!("<{name}>"));
    }
    text
}

#[test]
fn each_abci_machine_and_app_has_a_lens_with_its_fingerprint() {
    let mut s = Session::new(&oracle(MAIN, PRICE));
    let known = compiled(&s);
    expect![[r#"
        main.fsm 4:4-4:17 `OracleAbciApp` spec fingerprint <OracleAbciApp>
        price.fsm 1:8-1:20 `PriceAbciApp` spec fingerprint <PriceAbciApp>
        registration/fsm_specification.yaml 6:7-6:31 `AgentRegistrationAbciApp` spec fingerprint <AgentRegistrationAbciApp>
    "#]]
    .assert_eq(&named(lenses(&mut s), &known));
}

#[test]
fn the_hover_of_an_app_and_a_machine_names_the_fingerprint() {
    let hover = |fixture: &str| {
        let mut s = Session::new(fixture);
        let known = compiled(&s);
        let (range, h) = s.call_at_cursor("textDocument/hover").expect("a hover");
        named(
            format!(
                "{range}\n{}\n",
                h["contents"]["value"].as_str().unwrap_or_default()
            ),
            &known,
        )
    };
    expect![[r#"
        main.fsm 4:4-4:17 `OracleAbciApp`
        ```fsm
        app OracleAbciApp
        ```
        The oracle.

        Chains `Registration` → `PriceAbciApp`.

        **Spec fingerprint** `<OracleAbciApp>`: the `FINGERPRINT` constant of its generated code, which a node on the engine checks against its genesis at start; `fsmc diff` says what changes it.
    "#]]
    .assert_eq(&hover(&oracle(&mark(MAIN, "OracleAbciApp", 0, 3), PRICE)));
    expect![[r#"
        main.fsm 5:24-5:36 `PriceAbciApp`
        ```fsm
        machine PriceAbciApp: abci
        ```
        Agrees on a price.

        2 states, 3 events, 3 transitions, 1 key.

        **Spec fingerprint** `<PriceAbciApp>`: the `FINGERPRINT` constant of its generated code, which a node on the engine checks against its genesis at start; `fsmc diff` says what changes it.
    "#]]
    .assert_eq(&hover(&oracle(&mark(MAIN, "PriceAbciApp", 0, 1), PRICE)));
}

/// The lens follows the edits: a consensus-breaking one changes it, a cosmetic one does not.
#[test]
fn the_lens_changes_with_what_replicas_compute_and_only_with_that() {
    let mut s = Session::new(&oracle(MAIN, PRICE));
    s.open(1);
    let title = |s: &mut Session| {
        let answer = s.call("textDocument/codeLens", s.document(1));
        answer[0]["command"]["title"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let first = title(&mut s);
    s.change(
        1,
        2,
        &PRICE.replace("/// Agrees on a price.", "/// Agrees on one price."),
    );
    assert_eq!(title(&mut s), first, "docs are not a fact of a replica");
    s.change(1, 3, &PRICE.replace("timeout 30s", "timeout 1m"));
    let longer = title(&mut s);
    assert_ne!(longer, first, "a round's timeout is");
    assert!(longer.starts_with("spec fingerprint "), "{longer}");
}

/// No lens and no value while the spec has errors (no code is generated from it); nothing for a machine of
/// another system.
#[test]
fn no_fingerprint_for_a_broken_spec_or_a_plain_machine() {
    let broken = PRICE.replace("-> FinishedPriceRound", "-> FinishedPriseRound");
    let mut s = Session::new(&mark(&broken, "PriceAbciApp", 0, 2));
    assert_eq!(lenses(&mut s), "");
    let (_, h) = s.call_at_cursor("textDocument/hover").expect("a hover");
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .ends_with("**Spec fingerprint**: none while the open specs have errors."),
        "{h}"
    );
    let mut s = Session::new(
        "machine Do$0or { event OPEN; start default state Closed; final state Opened; (Closed, OPEN) -> Opened; }",
    );
    assert_eq!(lenses(&mut s), "");
    let (_, h) = s.call_at_cursor("textDocument/hover").expect("a hover");
    assert!(
        !h["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("fingerprint"),
        "{h}"
    );
}
