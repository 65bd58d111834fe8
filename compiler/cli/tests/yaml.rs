//! Tests for the Open Autonomy reader: one inline case per diagnostic. The submodules test robustness on
//! garbage (`robust`), the writer against PyYAML (`writer`), every real spec in the shared corpus (`corpus`), and
//! the fast path for canonical texts against the full reader (`fast`).

#[path = "yaml/corpus.rs"]
mod corpus;
#[path = "yaml/fast.rs"]
mod fast;
#[path = "yaml/robust.rs"]
mod robust;
#[path = "yaml/writer.rs"]
mod writer;

use fsmc::export::yaml::write;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use fsmc_driver::yaml::{OaSpec, parse};

const FILE: FileId = FileId(7);

/// A small valid spec in upstream's canonical form.
const HELLO: &str = "\
alphabet_in:
- DONE
- ROUND_TIMEOUT
default_start_state: RegistrationRound
final_states: []
label: HelloWorldAbciApp
start_states:
- RegistrationRound
states:
- PrintMessageRound
- RegistrationRound
transition_func:
    (PrintMessageRound, DONE): RegistrationRound
    (PrintMessageRound, ROUND_TIMEOUT): RegistrationRound
    (RegistrationRound, DONE): PrintMessageRound
";

fn ok(text: &str) -> OaSpec {
    fast::agrees(FILE, text);
    let (spec, diags) = parse(FILE, text);
    assert!(diags.is_empty(), "unexpected diagnostics: {diags:#?}");
    spec.expect("a spec without diagnostics")
}

/// A diagnostic as (code, message, text under the primary span, texts under the secondary spans).
type Seen = (Code, String, String, Vec<String>);

fn report(text: &str) -> (Option<OaSpec>, Vec<Seen>) {
    fast::agrees(FILE, text);
    let (spec, diags) = parse(FILE, text);
    let at = |s: Span| {
        assert_eq!(s.file, FILE);
        text.get(s.range())
            .expect("spans are on character boundaries")
            .to_string()
    };
    let out = fsmc_base::diag::finish(diags)
        .into_iter()
        .map(|d: Diagnostic| {
            let primary = d.primary.as_ref().map(|l| at(l.span)).unwrap_or_default();
            let secondary = d.secondary.iter().map(|l| at(l.span)).collect();
            (d.code, d.message, primary, secondary)
        })
        .collect();
    (spec, out)
}

fn codes(text: &str) -> Vec<Code> {
    report(text).1.into_iter().map(|d| d.0).collect()
}

#[test]
fn reads_names_with_exact_spans() {
    let spec = ok(HELLO);
    let at = |s: Span| &HELLO[s.range()];
    assert_eq!(spec.name(), "HelloWorldAbciApp");
    assert_eq!(at(spec.label.span), "HelloWorldAbciApp");
    assert_eq!(
        spec.alphabet_in
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>(),
        ["DONE", "ROUND_TIMEOUT"]
    );
    assert!(spec.final_states.is_empty());
    assert_eq!(spec.transitions.len(), 3);
    let t = &spec.transitions[1];
    assert_eq!(
        (at(t.from.span), at(t.event.span), at(t.to.span)),
        ("PrintMessageRound", "ROUND_TIMEOUT", "RegistrationRound")
    );
    assert_eq!(at(t.key_span), "(PrintMessageRound, ROUND_TIMEOUT)");
    assert_eq!(at(spec.transition_func_span), "transition_func");
    assert_eq!(spec.span.start, 0);
}

#[test]
fn spans_are_bytes_in_non_ascii_text() {
    // Quoted non-ASCII text before the names: saphyr counts characters, spans count bytes.
    let text = HELLO.replace(
        "label: HelloWorldAbciApp",
        "label: \"Héllo wörld ✓ AbciApp\"",
    );
    let text = text.replace(
        "(RegistrationRound, DONE)",
        "\"(RegistrationRound , DONE)\"",
    );
    let spec = ok(&text);
    assert_eq!(&text[spec.label.span.range()], "Héllo wörld ✓ AbciApp");
    let t = &spec.transitions[2];
    assert_eq!(&text[t.from.span.range()], "RegistrationRound");
    assert_eq!(&text[t.event.span.range()], "DONE");
    assert_eq!(&text[t.key_span.range()], "\"(RegistrationRound , DONE)\"");
    // A syntax error after non-ASCII text points at the right byte.
    let (_, d) = report("label: é ✓ é\n  b: c\n");
    assert_eq!((d[0].0, d[0].2.as_str()), (Code::YamlSyntax, ":"));
    let (_, d) = parse(FILE, "label: \"é\"\nstates: [a, b\n");
    // The unclosed list is reported at the end of the text: 26 bytes, 25 characters.
    assert_eq!(d[0].primary.as_ref().map(|l| l.span.start), Some(26));
}

#[test]
fn missing_key_makes_the_spec_unusable() {
    // A misspelt key is an extra key and a missing one; the extra one suggests the right spelling.
    let (_, diags) = parse(FILE, &HELLO.replace("label:", "lable:"));
    let help: Vec<_> = diags.iter().filter_map(|d| d.help.as_deref()).collect();
    assert_eq!(help, ["did you mean `label`?"]);
    let (spec, d) = report(&HELLO.replace("label: HelloWorldAbciApp\n", ""));
    assert!(spec.is_none());
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].0, d[0].1.as_str(), d[0].2.as_str()),
        (
            Code::YamlSchema,
            "'label' is a required property",
            "alphabet_in"
        )
    );
}

#[test]
fn every_duplicate_key_is_reported() {
    let text = format!("{HELLO}label: Other\nlabel: Last\n");
    let (spec, d) = report(&text);
    assert_eq!(d.len(), 2);
    assert_eq!(
        (d[0].0, d[0].1.as_str(), d[0].2.as_str()),
        (Code::YamlDuplicateKey, "duplicate key `label`", "label")
    );
    assert_eq!(d[0].3, ["label"]);
    // YAML's meaning: the last value wins.
    assert_eq!(spec.map(|s| s.label.text), Some("Last".into()));
    // Every repeat points back at the first occurrence.
    let first = HELLO.find("label:").map(|at| at as u32);
    let (_, diags) = parse(FILE, &text);
    assert!(
        diags
            .iter()
            .all(|d| d.secondary.first().map(|l| l.span.start) == first)
    );
    assert!(
        diags[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("silently keeps only the last"))
    );

    // In a mapping nobody reads, and deep inside a value.
    let text = HELLO.replace(
        "final_states: []",
        "final_states: [{a: 1, b: {c: 1, c: 2}, a: 3}]",
    );
    let found: Vec<_> = report(&text)
        .1
        .into_iter()
        .filter(|d| d.0 == Code::YamlDuplicateKey)
        .map(|d| d.1)
        .collect();
    assert_eq!(found, ["duplicate key `c`", "duplicate key `a`"]);
    let text = format!("{HELLO}extra: {{x: 1, x: 2}}\n");
    assert_eq!(codes(&text), [Code::YamlSchema, Code::YamlDuplicateKey]);
}

#[test]
fn duplicate_transitions_are_all_kept() {
    let text = HELLO.replace(
        "    (RegistrationRound, DONE): PrintMessageRound\n",
        "    (RegistrationRound, DONE): PrintMessageRound\n    (RegistrationRound,DONE): RegistrationRound\n",
    );
    let (spec, d) = report(&text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, Code::YamlDuplicateKey);
    assert_eq!(d[0].1, "duplicate key `(RegistrationRound, DONE)`");
    assert_eq!(
        (d[0].2.as_str(), d[0].3.as_slice()),
        (
            "(RegistrationRound,DONE)",
            &["(RegistrationRound, DONE)".to_string()][..]
        )
    );
    let spec = spec.expect("duplicates keep the spec usable");
    let targets: Vec<_> = spec.transitions[2..]
        .iter()
        .map(|t| t.to.as_str())
        .collect();
    assert_eq!(targets, ["PrintMessageRound", "RegistrationRound"]);
    // The writer keeps the last, as YAML loading would.
    assert!(write(&spec).contains("(RegistrationRound, DONE): RegistrationRound\n"));
}

#[test]
fn bad_transition_keys_are_skipped() {
    for key in [
        "RegistrationRound DONE",
        "(RegistrationRound)",
        "(A, B, C)",
        "(A-B, C)",
        "(, DONE)",
        "((A, B))",
    ] {
        let text = HELLO.replace("(RegistrationRound, DONE)", &format!("\"{key}\""));
        let (spec, d) = report(&text);
        assert_eq!(d.len(), 1, "{key}");
        assert_eq!(d[0].0, Code::YamlTransitionKey, "{key}");
        assert_eq!(d[0].2, format!("\"{key}\""));
        assert_eq!(spec.map(|s| s.transitions.len()), Some(2), "{key}");
    }
    // Spaces are optional (upstream's pattern wants exactly one after the comma; the writer normalises).
    assert_eq!(
        ok(&HELLO.replace("(RegistrationRound, DONE)", "( RegistrationRound ,DONE )"))
            .transitions
            .len(),
        3
    );
}

#[test]
fn wrong_types_are_schema_errors() {
    let cases = [
        (
            "states:\n- PrintMessageRound\n- RegistrationRound\n",
            "states: {a: b}\n",
            "`states` must be a list of strings, found a mapping",
            "{a: b}",
            false,
        ),
        (
            "final_states: []",
            "final_states:",
            "`final_states` must be a list of strings, found null",
            "",
            false,
        ),
        (
            "- DONE\n",
            "- 5\n",
            "each item of `alphabet_in` must be a string, found an integer (`5`)",
            "5",
            true,
        ),
        (
            "- DONE\n",
            "- [DONE]\n",
            "each item of `alphabet_in` must be a string, found a list",
            "[DONE]",
            true,
        ),
        (
            "label: HelloWorldAbciApp",
            "label: [a]",
            "`label` must be a string, found a list",
            "[a]",
            false,
        ),
        (
            "default_start_state: RegistrationRound",
            "default_start_state: yes",
            "`default_start_state` must be a string, found a boolean (`yes`)",
            "yes",
            false,
        ),
        (
            "TIMEOUT): RegistrationRound\n",
            "TIMEOUT): {a: 1}\n",
            "a transition's target must be a string, found a mapping",
            "{a: 1}",
            true,
        ),
        (
            "transition_func:\n",
            "transition_func: []\nx:\n",
            "`transition_func` must be a mapping from `(State, EVENT)` to a state, found a list",
            "[]",
            false,
        ),
    ];
    for (from, to, message, at, usable) in cases {
        let text = HELLO.replacen(from, to, 1);
        let (spec, d) = report(&text);
        let d: Vec<_> = d
            .into_iter()
            .filter(|d| !d.1.contains("Additional properties"))
            .collect();
        assert_eq!(d.len(), 1, "{to}: {d:?}");
        assert_eq!(
            (d[0].0, d[0].1.as_str(), d[0].2.as_str()),
            (Code::YamlSchema, message, at),
            "{to}"
        );
        assert_eq!(spec.is_some(), usable, "{to}");
    }
    // Quoting makes a typed scalar a string.
    assert_eq!(
        ok(&HELLO.replace("- DONE\n", "- '5'\n- !!str 6\n")).alphabet_in[0].as_str(),
        "5"
    );
}

#[test]
fn documents_that_are_not_specs() {
    for (text, message) in [
        ("", "the spec is empty"),
        ("# only a comment\n", "the spec is empty"),
        ("- a\n- b\n", "a spec must be a mapping, found a list"),
        ("just text", "a spec must be a mapping, found a string"),
    ] {
        let (spec, d) = report(text);
        assert!(spec.is_none());
        assert_eq!(
            (d.len(), d[0].0, d[0].1.as_str()),
            (1, Code::YamlSchema, message),
            "{text:?}"
        );
    }
    let (spec, d) = report(&format!("{HELLO}---\n{HELLO}"));
    assert!(spec.is_none());
    assert_eq!(
        (d[0].1.as_str(), d[0].2.as_str()),
        ("the file holds more than one YAML document", "---")
    );
}

#[test]
fn syntax_errors_point_at_the_problem() {
    let text = HELLO.replace("- ROUND_TIMEOUT", "- ROUND_TIMEOUT\n  bad: [");
    let (spec, d) = report(&text);
    assert!(spec.is_none());
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, Code::YamlSyntax);
    assert!(d[0].1.starts_with("invalid YAML: "));
}

#[test]
fn aliases_and_tags_are_rejected() {
    let text = HELLO.replace("- DONE\n", "- &d DONE\n- *d\n");
    let (spec, d) = report(&text);
    assert_eq!(
        (d.len(), d[0].1.as_str(), d[0].2.as_str()),
        (1, "YAML aliases are not supported in a spec", "*d")
    );
    assert_eq!(
        spec.map(|s| s.alphabet_in.len()),
        Some(2),
        "the alias item is skipped"
    );
    let text = HELLO.replace(
        "label: HelloWorldAbciApp",
        "label: !custom HelloWorldAbciApp",
    );
    assert_eq!(
        report(&text).1[0].1,
        "YAML tag `!custom` is not supported in a spec"
    );
    let text = HELLO.replace("final_states: []", "final_states: [[[&x a, *x, !!int 1]]]");
    assert_eq!(
        codes(&text),
        [Code::YamlSchema, Code::YamlSchema, Code::YamlSchema]
    );
}

#[test]
fn a_table_written_twice_reports_the_first_as_written() {
    // YAML keeps the second table; the first is not read, so only its repeated keys are reported, compared as
    // written: `(A,B)` and `(A, B)` are different text there, `12` repeats as a scalar, and the malformed key
    // and the target that is not a string are not reported at all.
    let first = "transition_func:\n    (A,B): X\n    (A, B): Y\n    (A,B): Z\n    12: X\n    12: Y\n    \
                 bad: X\n    (C, D): [1]\n    (C, D): X\n";
    let text = HELLO.replace("transition_func:\n", &format!("{first}transition_func:\n"));
    let (spec, d) = report(&text);
    let seen: Vec<_> = d
        .iter()
        .map(|d| (d.0, d.1.as_str(), d.2.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (Code::YamlDuplicateKey, "duplicate key `(A,B)`", "(A,B)"),
            (Code::YamlDuplicateKey, "duplicate key `12`", "12"),
            (Code::YamlDuplicateKey, "duplicate key `(C, D)`", "(C, D)"),
            (
                Code::YamlDuplicateKey,
                "duplicate key `transition_func`",
                "transition_func"
            ),
        ]
    );
    // Each repeat points at its first occurrence as written.
    let (_, diags) = parse(FILE, &text);
    let pairs: Vec<(u32, u32)> = fsmc_base::diag::finish(diags)
        .iter()
        .filter_map(|d| {
            Some((
                d.primary.as_ref()?.span.start,
                d.secondary.first()?.span.start,
            ))
        })
        .take(3)
        .collect();
    let at = |needle: &str, nth: usize| {
        text.match_indices(needle)
            .nth(nth)
            .map_or(0, |(i, _)| i as u32)
    };
    assert_eq!(
        pairs,
        [
            (at("(A,B)", 1), at("(A,B)", 0)),
            (at("12:", 1), at("12:", 0)),
            (at("(C, D)", 1), at("(C, D)", 0)),
        ]
    );
    assert_eq!(spec.map(|s| s.transitions.len()), Some(3));
    // Read as the table kept, the same first table reports its pairs, its malformed key and its bad target.
    let (_, d) = report(&HELLO.replace("transition_func:\n", first).replace(
        "    (PrintMessageRound, DONE): RegistrationRound\n    (PrintMessageRound, ROUND_TIMEOUT): \
         RegistrationRound\n    (RegistrationRound, DONE): PrintMessageRound\n",
        "",
    ));
    let codes: Vec<_> = d.iter().map(|d| (d.0, d.1.as_str())).collect();
    assert!(
        codes.contains(&(Code::YamlDuplicateKey, "duplicate key `(A, B)`")),
        "{codes:?}"
    );
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == (Code::YamlDuplicateKey, "duplicate key `(A, B)`"))
            .count(),
        2
    );
    assert!(codes.contains(&(
        Code::YamlTransitionKey,
        "transition key `bad` is not of the form `(State, EVENT)`"
    )));
    assert!(codes.contains(&(Code::YamlDuplicateKey, "duplicate key `(C, D)`")));
    assert!(
        !codes.iter().any(|c| c.1 == "duplicate key `12`"),
        "typed keys are reported as keys that are not strings"
    );
}

#[test]
fn repeated_transitions_are_found_in_sorted_and_unsorted_tables() {
    let table = |rows: &[&str]| {
        let rows: String = rows.iter().map(|r| format!("    {r}: B\n")).collect();
        format!(
            "alphabet_in: [E, F]\ndefault_start_state: A\nfinal_states: [B]\nlabel: XAbciApp\nstart_states: \
             [A]\nstates: [A, B, C]\ntransition_func:\n{rows}"
        )
    };
    // The rows written, and the repeated ones as (repeat, first).
    type Case<'a> = (&'a [&'a str], &'a [(usize, usize)]);
    let cases: [Case; 6] = [
        (&["(A, E)", "(A, F)", "(C, E)"], &[]),
        // Upstream's sorted order, with a repeat next to its first.
        (&["(A, E)", "(A, E)", "(C, E)"], &[(1, 0)]),
        // Out of order from the third row on: the rows before still count as written.
        (
            &["(A, E)", "(C, E)", "(A, F)", "(C, E)", "(A, E)"],
            &[(3, 1), (4, 0)],
        ),
        // A repeat of a row whose key is malformed, or whose target is not a string.
        (&["(A, E)", "(A E)", "(A E)"], &[(2, 1)]),
        (
            &["(A, F)", "(C,E)", "( C , E )", "(A, F)"],
            &[(2, 1), (3, 0)],
        ),
        (&["(C, F)", "(A, E)", "(A,E)", "(A, E)"], &[(2, 1), (3, 1)]),
    ];
    for (rows, repeats) in cases {
        let text = table(rows);
        let (_, diags) = parse(FILE, &text);
        let row_at = |i: usize| {
            let mut at = text.find("transition_func:").unwrap_or(0);
            for _ in 0..=i {
                at += text[at..].find("\n    ").unwrap_or(0) + 5;
            }
            at as u32
        };
        let found: Vec<(u32, u32)> = diags
            .iter()
            .filter(|d| d.code == Code::YamlDuplicateKey)
            .filter_map(|d| {
                Some((
                    d.primary.as_ref()?.span.start,
                    d.secondary.first()?.span.start,
                ))
            })
            .collect();
        let expected: Vec<(u32, u32)> = repeats
            .iter()
            .map(|&(r, f)| (row_at(r), row_at(f)))
            .collect();
        assert_eq!(found, expected, "{rows:?}");
    }
}

#[test]
fn a_document_broken_after_the_table_reports_only_the_break() {
    // The reader streams the table, but what it finds stands only once the document is read to its end.
    let broken = format!(
        "{}  bad: [\n",
        HELLO.replace("label: HelloWorldAbciApp", "label: [x]")
    );
    assert_eq!(codes(&broken), [Code::YamlSyntax]);
    let two = format!(
        "{}---\nx: 1\n",
        HELLO.replace("label: HelloWorldAbciApp", "label: [x]")
    );
    assert_eq!(codes(&two), [Code::YamlSchema]);
    assert_eq!(
        report(&two).1[0].1,
        "the file holds more than one YAML document"
    );
}

#[test]
fn one_byte_order_mark_starts_a_file_and_a_second_is_refused_as_upstream_does() {
    ok(&format!("\u{FEFF}{HELLO}"));
    // PyYAML reads the second as part of the first key, which upstream's checker then does not know.
    let (spec, seen) = report(&format!("\u{FEFF}\u{FEFF}{HELLO}"));
    assert!(spec.is_none());
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, Code::YamlSyntax);
    assert_eq!(seen[0].2, "\u{FEFF}");
}

/// A YAML spec cannot hold a lint attribute: the naming lints' help names `-A` instead.
#[test]
fn naming_lints_of_a_yaml_spec_suggest_the_flag() {
    let dir = fsmc_testkit::scratch("yaml-lint-help");
    let spec = dir.path().join("fsm_specification.yaml");
    std::fs::write(
        &spec,
        "alphabet_in:\n- DONE\ndefault_start_state: Idle\nfinal_states:\n- DoneRound\nlabel: Tiny\n\
         start_states:\n- Idle\nstates:\n- DoneRound\n- Idle\ntransition_func:\n  (Idle, DONE): DoneRound\n",
    )
    .unwrap();
    let o = fsmc_testkit::capture(["check", spec.to_str().unwrap()], |argv, out, err| {
        fsmc::cli::run(argv, out, err, false)
    });
    assert!(o.stdout.contains("`-A state_naming`"), "{}", o.stdout);
    assert!(o.stdout.contains("`-A app_naming`"), "{}", o.stdout);
    assert!(!o.stdout.contains("#[allow("), "{}", o.stdout);
}
