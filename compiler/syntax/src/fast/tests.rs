//! The fast path against the obvious one: on the shipped specs, on edited specs and on generated machines, the
//! pieces parse exactly when the whole file does, into the same tree, and a broken file is diagnosed the same.

use super::RUN;
use super::chunk::parse;
use super::plan::plan;
use fsmc_base::source::FileId;
use proptest::prelude::*;

/// The tree of `text` parsed whole, with its comments, as text (the tree types do not compare), or `None` when
/// it does not parse.
fn whole(text: &str) -> Option<String> {
    let mut tree = crate::parse::whole(FileId(0), text).ok()?;
    tree.comments = crate::trivia::comments(FileId(0), text);
    Some(format!("{tree:#?}"))
}

/// Parses `text` in pieces with runs of `run` bytes and checks it against the whole parse: the same tree
/// when the whole file parses, no tree when it does not; and nesting measured as `too_deep` measures it.
/// Returns whether it was cut at all.
fn same_as_whole(text: &str, run: usize) -> bool {
    let plan = plan(text, run);
    if let Some(p) = &plan {
        assert!(crate::parse::too_deep(text, p.deepest).is_none(), "{text}");
        assert!(
            p.deepest == 0 || crate::parse::too_deep(text, p.deepest - 1).is_some(),
            "{text}"
        );
    }
    // One thread, and more threads than cores, share the runs differently: the tree must not show it.
    let threads = 1 + run % 5;
    let pieces = plan
        .as_ref()
        .and_then(|p| parse(FileId(0), text, p, threads).ok())
        .map(|t| format!("{t:#?}"));
    let whole = whole(text);
    match (&pieces, &whole) {
        (Some(p), Some(w)) => assert_eq!(p, w, "run {run}, text:\n{text}"),
        (Some(_), None) => {
            panic!("the pieces parse but the whole does not, run {run}:\n{text}")
        }
        // Cut where the whole parses, the pieces must parse too: otherwise a spec would take the slow path.
        (None, Some(_)) => assert!(
            plan.is_none(),
            "a file that parses failed in pieces, run {run}:\n{text}"
        ),
        (None, None) => {}
    }
    pieces.is_some()
}

fn shipped_specs() -> &'static [(std::path::PathBuf, String)] {
    static SPECS: std::sync::OnceLock<Vec<(std::path::PathBuf, String)>> =
        std::sync::OnceLock::new();
    SPECS.get_or_init(read_shipped_specs)
}

fn read_shipped_specs() -> Vec<(std::path::PathBuf, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "fsm") {
                // One spec is not UTF-8 on purpose (it tests the error for that).
                if let Ok(text) = std::fs::read_to_string(&path) {
                    out.push((path, text));
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs"),
        &mut out,
    );
    assert!(out.len() > 50, "the shipped specs were not found");
    out
}

/// A spec with every construct, and `;`, `{` and `}` where they end nothing: in strings, comments, doc
/// comments, array types, state bodies.
const TRICKY: &str = r#"#![allow(unused_key)] // a; }
import "a;b}.fsm" as A;
/* block ; } /* nested ; } */ still; } */
/// The machine; with a `}`.
#[deny(no_path_to_final)]
machine M: abci {
label "x \" ; } {";
/// Doc; }
event GO, STOP(x: [u8; 32], y: Vec<(String, [u8; 4])>) timeout 30s by seller;
cross_period key k: std::collections::BTreeMap<String, [u8; 32]>;
start state A: kind { reads a, b; done = GO; template "t;}.j2"; }
//// not a doc; }
final state B;
state C { }
(A, GO) -> B if ok unless bad do log, send persist raw; // trailing; }
A -> B, C;
/* ; */ (B, STOP) -> A;
}
machine N {
state X;
(X, GO) -> X;
}
app P {
chain M, N;
M::B -> N::X;
label "p";
}
"#;

#[test]
fn pieces_make_the_tree_of_the_whole() {
    for run in [1, 2, 8, 64] {
        assert!(same_as_whole(TRICKY, run), "run {run}");
    }
    assert!(!same_as_whole(TRICKY, 1000), "no body is that long");
    // Long bodies one after the other, and a long body last.
    let long = |name: &str| {
        let mut m = format!("machine {name} {{\n");
        for i in 0..200 {
            m.push_str(&format!("    state S{i};\n    (S{i}, GO) -> S{};\n", i + 1));
        }
        m.push_str("}\n");
        m
    };
    let text = format!("{TRICKY}{}{}{}", long("L1"), long("L2"), long("L3"));
    for run in [1, 100, 4096] {
        assert!(same_as_whole(&text, run));
    }
}

#[test]
fn shipped_specs_parse_the_same_in_pieces() {
    let mut cut = 0;
    for (_, text) in shipped_specs() {
        for run in [1, 3, 50] {
            if same_as_whole(text, run) {
                cut += 1;
            }
        }
    }
    assert!(cut > 100, "only {cut} specs were cut");
}

#[test]
fn the_public_parse_cuts_a_large_file_and_keeps_its_tree() {
    let mut text = String::from("/// Big.\nmachine Big {\n    event GO;\n");
    let mut i = 0;
    while text.len() < 3 * RUN {
        text.push_str(&format!(
            "    state S{i} {{ reads a; }}\n    (S{i}, GO) -> S{};\n",
            i + 1
        ));
        i += 1;
    }
    text.push_str("}\napp A { chain Big; }\n");
    assert!(plan(&text, RUN).is_some_and(|p| p.cuts.len() >= 2));
    let (tree, diags) = crate::parse::parse(FileId(0), &text);
    assert!(diags.is_empty());
    let mut expected = crate::parse::whole(FileId(0), &text).unwrap();
    expected.comments = crate::trivia::comments(FileId(0), &text);
    assert_eq!(format!("{:#?}", tree.unwrap()), format!("{expected:#?}"));
    // An error in the last run: the whole file is parsed and diagnosed as before.
    let broken = text.replace("(S3, GO) -> S4;", "(S3, GO) -> S4").replacen(
        &format!("(S{}, GO)", i - 1),
        &format!("(S{}, GO", i - 1),
        1,
    );
    let (tree, diags) = crate::parse::parse(FileId(0), &broken);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert!(tree.is_some_and(|t| t.machines.len() == 1 && t.apps.len() == 1));
}

#[test]
fn a_long_body_nested_too_deeply_is_still_an_error() {
    let mut text = String::from("machine M {\n");
    while text.len() < 2 * RUN {
        text.push_str("    state S;\n");
    }
    text.push_str(&format!(
        "    key k: {}u8{};\n}}\n",
        "Vec<".repeat(70),
        ">".repeat(70)
    ));
    assert!(plan(&text, RUN).is_some_and(|p| p.deepest > crate::parse::MAX_NESTING));
    let (tree, diags) = crate::parse::parse(FileId(0), &text);
    assert!(tree.is_none());
    assert!(
        diags[0].message.contains("nesting deeper than"),
        "{diags:#?}"
    );
}

/// What parsing is without the fast path: whole, then recovered when it fails. The fast path must give the
/// same tree and the same diagnostics.
fn reference(text: &str) -> String {
    format!("{:#?}", crate::parse::obvious(FileId(0), text))
}

/// The public parse, with runs of `run` bytes, against [`reference`].
fn same_as_reference(text: &str, run: usize) {
    let out = crate::parse::parse_in_runs(FileId(0), text, run, || 1 + run % 3);
    assert_eq!(format!("{out:#?}"), reference(text), "run {run}:\n{text}");
}

#[test]
fn errors_in_pieces_are_reported_as_in_the_whole() {
    // An error in a run, in the head, after the body, in a state's body, past the last run; and two.
    let errors = [
        ("(S3, GO) -> S4;", "(S3, GO) -> S4"),
        ("(S3, GO) -> S4;", "(S3 GO) -> S4;"),
        ("machine Big {", "machine Big: {"),
        ("app A { chain Big; }", "app A { chain Big }"),
        ("state S5 { reads a; }", "state S5 { reads a b; }"),
        ("state S5 { reads a; }", "stat S5 { reads a; }"),
    ];
    let mut text = String::from("/// Big.\nmachine Big {\n    event GO;\n");
    for i in 0..40 {
        text.push_str(&format!(
            "    state S{i} {{ reads a; }}\n    (S{i}, GO) -> S{};\n",
            i + 1
        ));
    }
    text.push_str("    (S40, GO) -> S0;\n}\napp A { chain Big; }\n");
    same_as_reference(&text, 64);
    // How many of the broken files the pieces told where the whole parse stops (rather than parsing whole).
    let mut told = Vec::new();
    for (from, to) in errors {
        let broken = text.replacen(from, to, 1);
        assert_ne!(broken, text);
        for run in [1, 64, 300] {
            same_as_reference(&broken, run);
            let plan = plan(&broken, run).unwrap();
            if let Err(Some(_)) = parse(FileId(0), &broken, &plan, 2) {
                told.push((to, run));
            }
        }
    }
    assert_eq!(told.len(), errors.len() * 3, "{told:?}");
    let two = text
        .replacen(errors[0].0, errors[0].1, 1)
        .replacen("(S30, GO)", "(S30, GO", 1);
    same_as_reference(&two, 64);
}

/// One random edit: a byte range removed, or a piece of grammar put somewhere.
#[derive(Clone, Debug)]
enum Edit {
    Remove(usize, usize),
    Insert(usize, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    const PIECES: &[&str] = &[
        ";",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "\"",
        "/*",
        "*/",
        "//",
        "///",
        "\n",
        " ",
        "\r",
        "\t",
        "\r\n",
        ",",
        "->",
        "start state S;",
        "state",
        "machine",
        "app",
        "(A, B) -> C;",
        "state X { p; }",
        "#",
        "#![allow(x)]",
        "\\",
    ];
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(at, len)| Edit::Remove(at, len)),
        (any::<usize>(), proptest::sample::select(PIECES)).prop_map(|(at, p)| Edit::Insert(at, p)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_string();
    for e in edits {
        // Positions are taken modulo the length, moved back to a character boundary.
        let at = |p: usize, s: &str| {
            let mut p = p % (s.len() + 1);
            while !s.is_char_boundary(p) {
                p -= 1;
            }
            p
        };
        match *e {
            Edit::Remove(p, len) => {
                let a = at(p, &out);
                let b = at(a + len, &out).max(a);
                out.replace_range(a..b, "");
            }
            Edit::Insert(p, piece) => {
                let a = at(p, &out);
                out.insert_str(a, piece);
            }
        }
    }
    out
}

/// What may separate two tokens: nothing (where that keeps them apart), whitespace, comments holding `;` and
/// braces. `word` is true between two words, which need something.
fn gap(word: bool) -> impl Strategy<Value = &'static str> {
    const GAPS: &[&str] = &[
        " ",
        "  ",
        "\n    ",
        "\t",
        "\r\n",
        " /* c; } */ ",
        " // c; }\n",
        "\u{FEFF}",
        "/* a /* b; */ c */",
        "\n//// not a doc; }\n",
        "\n\n",
    ];
    let gaps = proptest::sample::select(GAPS);
    if word {
        gaps.boxed()
    } else {
        prop_oneof![3 => Just(""), 2 => gaps].boxed()
    }
}

/// A token of a generated member; `Word` tokens need a gap between them.
#[derive(Clone, Debug)]
enum Tok {
    Word(String),
    Punct(&'static str),
    /// A doc comment, which runs to the end of its line.
    Doc(&'static str),
}

fn name() -> impl Strategy<Value = String> {
    proptest::sample::select(
        &[
            "A", "B", "Start", "state_x", "stateful", "iffy", "event", "key", "GO", "E_1", "_x",
            "do_it",
        ][..],
    )
    .prop_map(str::to_string)
}

fn words(ws: &[&str]) -> Vec<Tok> {
    ws.iter().map(|w| Tok::Word(w.to_string())).collect()
}

/// Fixed tokens, written with a space between each two: a piece that starts with a letter, a digit or `_` is a
/// word, any other a punctuation mark.
fn toks(spaced: &'static str) -> Vec<Tok> {
    spaced
        .split_whitespace()
        .map(|t| {
            if t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                Tok::Word(t.to_string())
            } else {
                Tok::Punct(t)
            }
        })
        .collect()
}

/// `if g`, `unless g`, `do a, b` or `persist p`, after a transition's target.
fn transition_option() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    prop_oneof![
        name().prop_map(|n| vec![Word("if".into()), Word(n)]),
        name().prop_map(|n| vec![Word("unless".into()), Word(n)]),
        (name(), name()).prop_map(|(a, b)| vec![Word("do".into()), Word(a), Punct(","), Word(b)]),
        name().prop_map(|n| vec![Word("persist".into()), Word(n)]),
    ]
}

/// `(A, E) -> B` with options, and its `;`.
fn transition() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    (
        name(),
        name(),
        name(),
        proptest::collection::vec(transition_option(), 0..3),
    )
        .prop_map(|(a, e, b, opts)| {
            let mut t = vec![
                Punct("("),
                Word(a),
                Punct(","),
                Word(e),
                Punct(")"),
                Punct("->"),
                Word(b),
            ];
            t.extend(opts.into_iter().flatten());
            t.push(Punct(";"));
            t
        })
}

/// `A -> B, C;`
fn direct() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    (name(), name(), proptest::option::of(name())).prop_map(|(a, b, c)| {
        let mut t = vec![Word(a), Punct("->"), Word(b)];
        if let Some(c) = c {
            t.extend([Punct(","), Word(c)]);
        }
        t.push(Punct(";"));
        t
    })
}

/// A property, in each of its forms.
fn property() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    prop_oneof![
        name().prop_map(|n| vec![Word(n), Punct(";")]),
        (name(), name()).prop_map(|(n, v)| vec![Word(n), Punct("="), Word(v), Punct(";")]),
        name().prop_map(|n| vec![Word(n), Punct("\"t; {}.j2\""), Punct(";")]),
        name().prop_map(|n| vec![Word(n), Word("30s".into()), Punct(";")]),
        (name(), name()).prop_map(|(n, a)| vec![
            Word(n),
            Word(a),
            Punct(","),
            Word("b".into()),
            Punct(";")
        ]),
    ]
}

/// A state, with modifiers, a kind and a body or not.
fn state() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    (
        proptest::sample::subsequence(&["start", "default", "final"][..], 0..=2),
        name(),
        proptest::option::of(name()),
        proptest::option::of(proptest::collection::vec(property(), 0..3)),
    )
        .prop_map(|(mods, n, kind, body)| {
            let mut t = words(&mods);
            t.extend([Word("state".into()), Word(n)]);
            if let Some(k) = kind {
                t.extend([Punct(":"), Word(k)]);
            }
            match body {
                Some(props) => {
                    t.push(Punct("{"));
                    t.extend(props.into_iter().flatten());
                    t.push(Punct("}"));
                }
                None => t.push(Punct(";")),
            }
            t
        })
}

/// An event, with fields and a timeout or not.
fn event() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    (name(), proptest::bool::ANY, proptest::bool::ANY).prop_map(|(n, fields, timeout)| {
        let mut t = vec![Word("event".into()), Word(n)];
        if fields {
            t.extend(toks("( x : [ u8 ; 32 ] )"));
        }
        if timeout {
            t.extend(toks("timeout 1.5m"));
        }
        t.extend(toks(", OTHER ;"));
        t
    })
}

/// A key of a nested type.
fn key() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    (proptest::bool::ANY, name()).prop_map(|(cross, n)| {
        let mut t = toks(if cross { "cross_period key" } else { "key" });
        t.push(Word(n));
        t.extend(toks(": Vec < ( u8 , [ u8 ; 4 ] ) > ;"));
        t
    })
}

/// One member of a machine body, as tokens.
fn member() -> impl Strategy<Value = Vec<Tok>> {
    use Tok::*;
    let docs = proptest::collection::vec(
        proptest::sample::select(&["/// doc", "/// doc; } {", "///"][..]).prop_map(Doc),
        0..2,
    );
    let body = prop_oneof![4 => transition(), 2 => state(), 1 => direct(), 1 => property(), 1 => event(), 1 => key()];
    (docs, body).prop_map(|(mut d, b)| {
        d.extend(b);
        d
    })
}

/// A machine of generated members, with random gaps between its tokens.
fn machine() -> impl Strategy<Value = String> {
    proptest::collection::vec(member(), 0..12)
        .prop_flat_map(|members| {
            let toks: Vec<Tok> = members.into_iter().flatten().collect();
            let gaps: Vec<_> = toks
                .windows(2)
                .map(|w| gap(matches!((&w[0], &w[1]), (Tok::Word(_), Tok::Word(_)))))
                .collect();
            (Just(toks), gaps)
        })
        .prop_map(|(toks, gaps)| {
            let mut text = String::from("machine M {\n");
            for (i, t) in toks.iter().enumerate() {
                match t {
                    Tok::Word(w) => text.push_str(w),
                    Tok::Punct(p) => text.push_str(p),
                    Tok::Doc(d) => {
                        text.push_str(d);
                        text.push('\n');
                    }
                }
                text.push_str(gaps.get(i).copied().unwrap_or("\n"));
            }
            text.push_str("}\n");
            text
        })
}

/// 256 cases, unless `PROPTEST_CASES` asks for more; no failure files in the source tree.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Whatever the edits, the pieces parse exactly when the whole does, into the same tree.
    #[test]
    fn edited_specs_parse_the_same_in_pieces(
        spec in 0usize..1000,
        edits in proptest::collection::vec(edit(), 1..4),
        run in prop_oneof![Just(1usize), 1usize..200],
    ) {
        let mut texts: Vec<&str> = shipped_specs().iter().map(|(_, t)| t.as_str()).collect();
        texts.push(TRICKY);
        let text = apply(texts[spec % texts.len()], &edits);
        same_as_whole(&text, run);
        same_as_reference(&text, run);
    }

    /// Brackets, comments and strings in any order: where the scan makes a plan, its nesting is `too_deep`'s.
    #[test]
    fn bracket_soup_nests_as_too_deep_counts(
        parts in proptest::collection::vec(proptest::sample::select(&[
            "{", "}", "(", ")", "[", "]", "<", ">", "->", "/*", "*/", "//c\n", "\"s\"", "a;", " ", "\n",
            "state S;", "(A, B) -> C;",
        ][..]), 0..80),
        run in 1usize..8,
    ) {
        let text = format!("machine M {{ {} }}", parts.concat());
        same_as_whole(&text, run);
    }

    /// Valid machines with every kind of member, separated every way: the pieces make the same tree.
    #[test]
    fn generated_machines_parse_the_same_in_pieces(text in machine(), run in 1usize..64) {
        prop_assert!(whole(&text).is_some(), "not a valid machine:\n{}", text);
        same_as_whole(&text, run);
    }
}
