//! Unit tests of the parser: every construct, and errors that say what was expected.

use super::*;
use fsmc_base::source::FileId;
use proptest::prelude::*;

fn ok(text: &str) -> File {
    let (file, diags) = parse(FileId(0), text);
    assert!(diags.is_empty(), "{diags:#?}");
    file.unwrap()
}

fn err(text: &str) -> Diagnostic {
    let (_, mut diags) = parse(FileId(0), text);
    assert!(!diags.is_empty(), "no error for {text}");
    diags.remove(0)
}

#[test]
fn parses_every_member_kind() {
    let f = ok(r#"
        #![allow(unused_key)]
        import "other.fsm";
        import "x/fsm_specification.yaml" as Registration;
        /// The oracle.
        /// Second line.
        #[deny(no_path_to_final)]
        machine Oracle: abci {
            label "packages.valory.OracleAbciApp";
            /// Done.
            event DONE, NO_MAJORITY;
            event ROUND_TIMEOUT timeout 30s;
            event Propose(price: f64, goods: Vec<(String, u32)>) by seller;
            cross_period key price: Option<f64>;
            key votes: std::collections::BTreeMap<String, [u8; 32]>;
            /// Start here.
            start default state A: collect_same_until_threshold {
                writes price, votes;
                done = DONE;
                template "a.jinja";
                reset;
            }
            final state B: degenerate;
            (A, DONE) -> B if ready unless blocked do log, notify persist raw;
            A -> B, C;
        }
        app OracleApp {
            chain Registration, Oracle;
            FinishedRegistrationRound -> Oracle::A;
        }
    "#);
    assert_eq!(f.lints.len(), 1);
    assert_eq!(f.imports.len(), 2);
    assert_eq!(f.imports[1].alias.as_ref().unwrap().text, "Registration");
    let m = &f.machines[0];
    assert_eq!(m.docs, ["The oracle.", "Second line."]);
    assert_eq!(m.lints[0].level.text, "deny");
    assert_eq!(m.profile.as_ref().unwrap().text, "abci");
    assert_eq!(m.events.len(), 4);
    assert_eq!(m.events[0].docs, ["Done."]);
    assert_eq!(m.events[2].timeout.as_ref().unwrap().text, "30s");
    assert_eq!(m.events[3].fields[1].ty.text, "Vec<(String, u32)>");
    assert_eq!(m.events[3].role.as_ref().unwrap().text, "seller");
    assert!(m.keys[0].cross_period);
    assert_eq!(
        m.keys[1].ty.text,
        "std::collections::BTreeMap<String, [u8; 32]>"
    );
    let a = &m.states[0];
    assert_eq!(
        a.modifiers
            .iter()
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>(),
        ["start", "default"]
    );
    assert_eq!(
        a.kind.as_ref().unwrap().text,
        "collect_same_until_threshold"
    );
    assert_eq!(a.properties.len(), 4);
    assert!(matches!(&a.properties[1].value, PropValue::Assign(n) if n.text == "DONE"));
    assert!(matches!(&a.properties[2].value, PropValue::Text(n) if n.text == "a.jinja"));
    assert!(matches!(&a.properties[3].value, PropValue::Flag));
    let t = &m.transitions[0];
    assert_eq!(t.guards.len(), 2);
    assert!(t.guards[1].negated);
    assert_eq!(t.actions.len(), 2);
    assert_eq!(t.persist.as_ref().unwrap().text, "raw");
    assert_eq!(
        m.transitions.len(),
        3,
        "a direct transition with two targets is two transitions"
    );
    assert!(m.transitions[2].event.is_none());
    assert!(
        matches!(&m.properties[0].value, PropValue::Text(n) if n.text == "packages.valory.OracleAbciApp")
    );
    let app = &f.apps[0];
    assert_eq!(app.chain.len(), 2);
    assert_eq!(app.mappings[0].to.machine.as_ref().unwrap().text, "Oracle");
}

#[test]
fn parses_sided_actions_and_groups() {
    let f = ok(r#"
        machine M: dialogue {
            (A, E) -> B sender do lock, note receiver do pop do log;
            (A, F) -> B do sent;
        }
        machine S: staged { agents a, traders[], b[ ]; scripted b; }
    "#);
    let t = &f.machines[0].transitions[0];
    let sides: Vec<_> = t
        .actions
        .iter()
        .map(|a| (a.side.as_ref().map(|s| s.as_str()), a.name.as_str()))
        .collect();
    assert_eq!(
        sides,
        [
            (Some("sender"), "lock"),
            (Some("sender"), "note"),
            (Some("receiver"), "pop"),
            (None, "log")
        ]
    );
    // `sender` and `receiver` are keywords only before `do`.
    assert_eq!(
        f.machines[0].transitions[1].actions[0].name.as_str(),
        "sent"
    );
    let agents = &f.machines[1].properties[0];
    assert!(matches!(&agents.value, PropValue::List(l) if l.len() == 3));
    let groups: Vec<usize> = agents.groups.iter().map(|(i, _)| *i).collect();
    assert_eq!(groups, [1, 2]);
    assert!(f.machines[1].properties[1].groups.is_empty());
}

#[test]
fn parses_claims_with_precedence() {
    let f = ok(r#"
        machine M {
            /// Never both.
            invariant "no report without price": not (in A, B and missing price) or has x;
            eventually "resets": in Reset;
        }
        app X { chain M; invariant "i": not not in A; }
    "#);
    let m = &f.machines[0];
    assert_eq!(m.claims.len(), 2);
    let c = &m.claims[0];
    assert_eq!(
        (c.kind.as_str(), c.name.as_str()),
        ("invariant", "no report without price")
    );
    assert_eq!(c.docs, ["Never both."]);
    let Formula::Or(parts) = &c.formula else {
        panic!("{:?}", c.formula)
    };
    let Formula::Not(inner) = &parts[0] else {
        panic!("{parts:?}")
    };
    let Formula::And(both) = &**inner else {
        panic!("{inner:?}")
    };
    assert!(matches!(&both[0], Formula::In(s) if s.len() == 2));
    assert!(matches!(&both[1], Formula::Missing(k) if k.as_str() == "price"));
    assert!(matches!(&parts[1], Formula::Has(k) if k.as_str() == "x"));
    assert!(matches!(&m.claims[1].formula, Formula::In(s) if s[0].as_str() == "Reset"));
    let Formula::Not(n) = &f.apps[0].claims[0].formula else {
        panic!()
    };
    assert!(matches!(&**n, Formula::Not(_)));
}

#[test]
fn parses_the_transition_and_the_period_in_claims() {
    let f = ok(r#"
        machine M {
            invariant "i": after A, B and outcome DONE or period at least 2;
            eventually "e": not period is 0 and period at most 10;
        }
    "#);
    let c = &f.machines[0].claims;
    let Formula::Or(parts) = &c[0].formula else {
        panic!("{:?}", c[0].formula)
    };
    let Formula::And(both) = &parts[0] else {
        panic!("{parts:?}")
    };
    assert!(matches!(&both[0], Formula::After(s) if s.len() == 2 && s[1].as_str() == "B"));
    assert!(matches!(&both[1], Formula::Outcome(e) if e[0].as_str() == "DONE"));
    assert!(
        matches!(&parts[1], Formula::Period(p) if p.cmp == PeriodCmp::AtLeast && p.value.as_str() == "2")
    );
    let Formula::And(both) = &c[1].formula else {
        panic!("{:?}", c[1].formula)
    };
    assert!(
        matches!(&both[0], Formula::Not(n) if matches!(&**n, Formula::Period(p) if p.cmp == PeriodCmp::Is))
    );
    assert!(matches!(&both[1], Formula::Period(p) if p.cmp == PeriodCmp::AtMost));
    let names: Vec<(&str, Named)> = c[0]
        .formula
        .names()
        .into_iter()
        .map(|(n, k)| (n.as_str(), k))
        .collect();
    assert_eq!(
        names,
        [
            ("A", Named::State),
            ("B", Named::State),
            ("DONE", Named::Event)
        ]
    );
}

#[test]
fn a_period_compared_without_a_bound_word_is_a_syntax_error() {
    let e = err("machine M { invariant \"i\": period 2; }");
    assert!(e.message.contains("`is`"), "{}", e.message);
}

#[test]
fn comments_are_skipped_and_nest() {
    let f = ok(
        "// line\n/* outer /* inner */ still */ //// not a doc\n//! not a doc\nmachine M { state A; }",
    );
    assert!(f.machines[0].docs.is_empty());
}

#[test]
fn keywords_are_not_prefixes_of_names() {
    let f = ok(
        "machine M { state stateful; event eventual; (stateful, eventual) -> stateful if iffy; }",
    );
    assert_eq!(f.machines[0].states[0].name.text, "stateful");
    assert_eq!(f.machines[0].transitions[0].guards[0].name.text, "iffy");
}

#[test]
fn errors_say_what_was_expected() {
    let d = err("machine M { (A, GO) => B; }");
    assert_eq!(d.code, Code::Syntax);
    assert!(d.message.contains("expected"), "{}", d.message);
    let p = d.primary.unwrap();
    assert_eq!(p.span.start, 20);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "machine M {{ key k: {}u8{}; }}",
        "Vec<".repeat(10_000),
        ">".repeat(10_000)
    );
    let (file, diags) = parse(FileId(0), &text);
    assert!(file.is_none(), "too deep to split into pieces");
    assert!(diags[0].message.contains("nesting"));
    let text = "/*".repeat(100_000);
    assert_eq!(err(&text).code, Code::Syntax);
}

#[test]
fn nesting_is_bounded_at_the_bracket_or_the_comment_that_goes_past_it() {
    assert_eq!(too_deep("(((", 2), Some(2));
    assert_eq!(too_deep("((", 2), None);
    // In a comment, at the `*` of the `/*` one level too deep; brackets and strings in comments count for nothing.
    assert_eq!(too_deep("( /* /* */ */", 2), Some(6));
    assert_eq!(too_deep("( /* ((( \" */ (", 2), None);
    // Nor do brackets in strings and line comments.
    assert_eq!(too_deep("( \"((\" // ((\n(", 2), None);
    // A closing bracket lowers the count if it can, the `>` of `->` too.
    assert_eq!(too_deep("( -> ( (", 2), None);
    assert_eq!(too_deep("( - ( (", 2), Some(6));
}

#[test]
fn a_long_body_with_errors_far_apart_keeps_everything_else() {
    // Longer than one run of the fast path and than the recovery's longest run: the errors are found where they
    // are, and every other statement is in the tree.
    let mut text = String::from("machine M {\n    event GO;\n");
    let n = 3000;
    for i in 0..n {
        let semi = if i == 5 || i == 2500 { "" } else { ";" };
        text.push_str(&format!("    (S{i}, GO) -> S{}{semi}\n", i + 1));
    }
    text.push_str("}\n");
    assert!(text.len() > crate::fast::RUN);
    let (tree, diags) = parse(FileId(0), &text);
    let lines: Vec<usize> = diags
        .iter()
        .map(|d| {
            text[..d.primary.as_ref().unwrap().span.start as usize]
                .lines()
                .count()
        })
        .collect();
    assert_eq!(lines, [8, 2503], "{diags:#?}");
    // A missing `;` is repaired, so both statements around it stay.
    assert_eq!(tree.unwrap().machines[0].transitions.len(), n);
}

/// Runs `f` on its own thread and fails if it has not returned within a minute: a parse that does work
/// exponential in its input runs for hours on the inputs below, a linear one for microseconds.
fn finishes<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the parse did not finish")
}

#[test]
fn unclosed_nested_comments_do_not_hang_the_parser() {
    // Each `/*` opened in a comment and never closed used to double the parse: pest read it as a nested comment,
    // and when that failed read it again as two characters of the outer comment.
    for text in [
        format!(
            "machine M {{ state A; {} */ }}",
            "/* \"p/*.j2\" ".repeat(30)
        ),
        format!("{}\nmachine M {{ state A; }}", "/*".repeat(30)),
        format!("machine M {{ state A; {} }}", "/* x */ /* x".repeat(30)),
    ] {
        let diags = finishes(move || parse(FileId(0), &text).1);
        assert_eq!(diags[0].code, Code::Syntax);
    }
}

/// Comment and string pieces, the comment openers most often, as they come in specs that comment out code
/// holding globs.
fn adversarial() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => Just("/*"),
        3 => Just("*/"),
        2 => Just("\""),
        1 => Just("//"),
        1 => Just("/"),
        1 => Just("*"),
        1 => Just("\n"),
        1 => Just(" x "),
    ];
    proptest::collection::vec(piece, 0..48).prop_map(|p| p.concat())
}

proptest::proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any nesting of comments and strings parses in bounded time, and the parser skips exactly what the lexer
    /// skips: the file parses when the lexer finds no token in the adversarial part.
    #[test]
    fn comments_and_strings_nest_as_the_lexer_reads_them(noise in adversarial()) {
        let text = format!("machine M {{ state A; {noise} }}\n");
        let tokens = |t: &str| crate::lex::Lexer::new(t, 0).map(|k| (k.kind, k.text(t).to_owned())).collect::<Vec<_>>();
        let clean = tokens(&text) == tokens("machine M { state A; }");
        let diags = finishes(move || parse(FileId(0), &text).1);
        prop_assert_eq!(diags.is_empty(), clean, "{:?}", diags);
    }
}
