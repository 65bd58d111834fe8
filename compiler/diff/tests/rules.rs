//! Each kind of change, on a small replicated app and on a plain machine: the findings (class, rule, message)
//! and, for every pair, that the fingerprint moves exactly when a consensus- or replay-breaking change is found.

use fsmc_base::diag::{Code, Level, LintLevels};
use fsmc_diff::{Class, Rule, diff};
use fsmc_driver::{Options, compile_str};
use fsmc_model::spec::{Checked, Item};

const TOY: &str = r#"/// A small replicated app.
machine ToyAbciApp: abci {
    event DONE;
    event NO_MAJORITY;
    /// A round took too long.
    event ROUND_TIMEOUT timeout 30s;

    /// The agreed value.
    cross_period key value: u64;
    key votes: u64;

    /// Agree on a value.
    start default state CollectRound: collect_same_until_threshold {
        payload "u64";
        writes value;
    }
    state CheckRound: collect_same_until_threshold {
        payload "u64";
        reads value;
        writes votes;
    }
    final state DoneRound;

    (CollectRound, DONE) -> CheckRound;
    (CollectRound, NO_MAJORITY) -> CollectRound;
    (CollectRound, ROUND_TIMEOUT) -> CollectRound;
    (CheckRound, DONE) -> DoneRound;
    (CheckRound, NO_MAJORITY) -> CollectRound;
    (CheckRound, ROUND_TIMEOUT) -> CollectRound;
}
"#;

fn checked(name: &str, text: &str) -> Checked {
    let mut lints = LintLevels::default();
    for code in Code::ALL.iter().filter(|c| c.is_lint()) {
        lints.set(*code, Level::Allow);
    }
    let opts = Options {
        lints,
        ..Options::default()
    };
    let c = compile_str(name, text, &std::env::temp_dir(), &opts);
    let diags: Vec<String> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
    c.checked
        .unwrap_or_else(|| panic!("{name} checks: {diags:?}\n{text}"))
}

/// The fingerprint of each `abci` entry item.
fn fingerprints(c: &Checked) -> Vec<fsmc_model::fingerprint::Fingerprint> {
    c.spec()
        .entry_items
        .iter()
        .map(|i| match *i {
            Item::Machine(id) => c.spec().machine(id),
            Item::App(a) => &c.composed()[a].machine,
        })
        .filter(|m| m.profile == fsmc_vocab::Profile::Abci)
        .map(fsmc_model::fingerprint::fingerprint)
        .collect()
}

/// The findings from `old` to `new` as (class, rule, message), after checking that the fingerprints moved
/// exactly when one of them is consensus- or replay-breaking.
fn changes(old: &str, new: &str) -> Vec<(Class, Rule, String)> {
    let (a, b) = (checked("old.fsm", old), checked("new.fsm", new));
    let findings = diff(&a, &b);
    let breaks = findings
        .iter()
        .any(|f| matches!(f.class, Class::Consensus | Class::Replay));
    assert_eq!(
        fingerprints(&a) != fingerprints(&b),
        breaks,
        "fingerprints against findings: {findings:#?}"
    );
    findings
        .into_iter()
        .map(|f| (f.class, f.rule, f.message))
        .collect()
}

fn edit(from: &str, to: &str) -> String {
    assert!(TOY.contains(from), "{from}");
    TOY.replacen(from, to, 1)
}

fn one(class: Class, rule: Rule, message: &str) -> Vec<(Class, Rule, String)> {
    vec![(class, rule, message.to_string())]
}

#[test]
fn the_same_spec_written_otherwise_has_no_change() {
    assert_eq!(changes(TOY, TOY), []);
    // Transitions in another order, another layout, and an outcome mapped to the event convention maps it to.
    let moved = TOY
        .replace(
            "    (CollectRound, DONE) -> CheckRound;\n",
            "",
        )
        .replace(
            "    (CheckRound, ROUND_TIMEOUT) -> CollectRound;\n",
            "    (CheckRound, ROUND_TIMEOUT) -> CollectRound;\n    (CollectRound,DONE)->CheckRound;\n",
        )
        .replace("writes value;", "writes value; done = DONE;");
    assert_eq!(changes(TOY, &moved), []);
}

#[test]
fn what_no_replica_sees_is_code_breaking() {
    // The timeout event's name: the replica fires the round's timeout, whatever it is called.
    let renamed = TOY.replace("ROUND_TIMEOUT", "TOO_SLOW");
    assert_eq!(
        changes(TOY, &renamed),
        [
            (
                Class::Code,
                Rule::Event,
                "event `ROUND_TIMEOUT` was removed".to_string()
            ),
            (
                Class::Code,
                Rule::Event,
                "event `TOO_SLOW` was added".to_string()
            ),
        ]
    );
    assert_eq!(
        changes(TOY, &edit("reads value;", "")),
        one(
            Class::Code,
            Rule::Conditions,
            "state `CheckRound` now reads nothing (was `value`)"
        )
    );
    assert_eq!(
        changes(
            TOY,
            &edit("machine ToyAbciApp", "machine ToyRenamedAbciApp")
        ),
        one(
            Class::Code,
            Rule::ItemRenamed,
            "machine `ToyAbciApp` was renamed to `ToyRenamedAbciApp`"
        )
    );
}

#[test]
fn decisions_are_consensus_breaking() {
    assert_eq!(
        changes(TOY, &edit("timeout 30s", "timeout 1m")),
        [
            (
                Class::Code,
                Rule::Event,
                "event `ROUND_TIMEOUT`: its timeout changed".to_string()
            ),
            (
                Class::Consensus,
                Rule::Exit,
                "round `CollectRound`: its timeout is now 1m (was 30s)".to_string()
            ),
            (
                Class::Consensus,
                Rule::Exit,
                "round `CheckRound`: its timeout is now 1m (was 30s)".to_string()
            ),
        ]
    );
    assert_eq!(
        changes(
            TOY,
            &edit(
                "(CheckRound, NO_MAJORITY) -> CollectRound",
                "(CheckRound, NO_MAJORITY) -> CheckRound"
            )
        ),
        one(
            Class::Consensus,
            Rule::Exit,
            "round `CheckRound`: outcome `no_majority` now leads to `CheckRound` (was `CollectRound`)"
        )
    );
    assert_eq!(
        changes(TOY, &edit("cross_period key value", "key value")),
        one(
            Class::Consensus,
            Rule::CrossPeriod,
            "key `value` is no longer carried into each new period (`cross_period`)"
        )
    );
    let kind = changes(
        TOY,
        &edit(
            "state CheckRound: collect_same_until_threshold",
            "state CheckRound: collect_same_until_all",
        )
        .replace("    (CheckRound, NO_MAJORITY) -> CollectRound;\n", ""),
    );
    assert_eq!(
        kind,
        [
            (
                Class::Consensus,
                Rule::Exit,
                "round `CheckRound`: outcome `no_majority` no longer leaves the round".to_string()
            ),
            (
                Class::Consensus,
                Rule::RoundKind,
                "round `CheckRound` is now `collect_same_until_all` (was `collect_same_until_threshold`)"
                    .to_string()
            ),
        ]
    );
}

#[test]
fn a_renamed_round_is_another_round() {
    // The app hash covers the name of the state the app is in, and behaviours are bound to rounds by name.
    let found = changes(TOY, &TOY.replace("CheckRound", "VerifyRound"));
    let rules: Vec<(Class, Rule)> = found.iter().map(|(c, r, _)| (*c, *r)).collect();
    assert!(
        rules.contains(&(Class::Consensus, Rule::StateAdded)),
        "{found:#?}"
    );
    assert!(
        rules.contains(&(Class::Consensus, Rule::StateRemoved)),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|(_, _, m)| m
            == "round `CollectRound`: outcome `done` now leads to `VerifyRound` (was `CheckRound`)"),
        "{found:#?}"
    );
}

#[test]
fn bytes_under_the_app_hash_are_replay_breaking() {
    assert_eq!(
        changes(
            TOY,
            &edit("    key votes: u64;\n", "").replace(
                "/// The agreed value.",
                "key votes: u64;\n    /// The agreed value."
            )
        ),
        one(
            Class::Replay,
            Rule::KeyOrder,
            "the keys' order changed: now `votes`, `value` (was `value`, `votes`)"
        )
    );
    let moved = edit("    state CheckRound", "    state CheckRound")
        .replace(
            "    /// Agree on a value.\n    start default state CollectRound: collect_same_until_threshold {\n        payload \"u64\";\n        writes value;\n    }\n",
            "",
        )
        .replace(
            "    final state DoneRound;",
            "    /// Agree on a value.\n    start default state CollectRound: collect_same_until_threshold {\n        payload \"u64\";\n        writes value;\n    }\n    final state DoneRound;",
        );
    assert_eq!(
        changes(TOY, &moved),
        [
            (
                Class::Replay,
                Rule::RoundOrder,
                "the rounds' order changed: `CheckRound` is round 1 (was 2), `CollectRound` is round 2 (was 1)"
                    .to_string()
            ),
            (Class::Cosmetic, Rule::Order, "the order the states are declared in changed".to_string()),
        ]
    );
    assert_eq!(
        changes(
            TOY,
            &edit("key votes: u64;", "key votes: u64;\n    key spare: String;")
        ),
        one(Class::Replay, Rule::KeyAdded, "key `spare` was added")
    );
}

#[test]
fn labels_and_docs_are_interop_and_cosmetic() {
    assert_eq!(
        changes(
            TOY,
            &edit(
                "    event DONE;",
                "    label \"packages.valory.skills.toy.ToyAbciApp\";\n    event DONE;"
            )
        ),
        one(
            Class::Interop,
            Rule::Label,
            "the Open Autonomy label is now `packages.valory.skills.toy.ToyAbciApp` (was `ToyAbciApp`)"
        )
    );
    assert_eq!(
        changes(
            TOY,
            &edit("/// Agree on a value.", "/// Agree on one value.")
        ),
        one(
            Class::Cosmetic,
            Rule::Docs,
            "the docs of state `CollectRound` changed"
        )
    );
}

#[test]
fn a_plain_machine_changes_only_its_code() {
    let door = "machine Door {\n    event OPEN, CLOSE;\n    start default state Closed;\n    state Opened;\n    \
                (Closed, OPEN) -> Opened;\n    (Opened, CLOSE) -> Closed;\n}\n";
    assert_eq!(
        changes(
            door,
            &door.replace("(Opened, CLOSE) -> Closed;", "(Opened, CLOSE) -> Opened;")
        ),
        one(
            Class::Code,
            Rule::Transition,
            "the transition (`Opened`, `CLOSE`) now goes to `Opened` (was `Closed`)"
        )
    );
}

#[test]
fn classes_read_as_written() {
    assert_eq!(Class::parse("consensus"), Some(Class::Consensus));
    assert_eq!(Class::parse("Replay-Breaking"), Some(Class::Replay));
    assert_eq!(Class::parse("cosmetic"), Some(Class::Cosmetic));
    assert_eq!(Class::parse("breaking"), None);
    assert!(Class::Consensus > Class::Replay && Class::Code > Class::Interop);
    let mut names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Rule::ALL.len());
}

/// docs/diff.md names every class in its table of classes and every rule in its table of rules, as JSON
/// output spells them.
#[test]
fn the_docs_name_every_class_and_rule() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/diff.md");
    let docs = std::fs::read_to_string(&path).expect("docs/diff.md");
    let table = |heading: &str| -> String {
        let start = docs.find(heading).expect("the table's heading");
        docs[start..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let classes = table("## The classes");
    for c in Class::ALL {
        assert!(
            classes.contains(&format!("| `{}` |", c.id())),
            "class {c} in docs/diff.md"
        );
    }
    let rules = table("Each finding also has a rule");
    for r in Rule::ALL {
        assert!(
            rules.contains(&format!("`{}`", r.name())),
            "rule {} in docs/diff.md",
            r.name()
        );
    }
}
