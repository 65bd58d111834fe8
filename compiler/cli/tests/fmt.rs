//! `fsmc fmt`: the canonical layout is a fixed point (formatting twice changes nothing), never changes what a
//! spec means (the formatted spec compiles to the same generated code, or the same diagnostics), keeps every
//! comment, and the shipped specs are already in it. Checked over every shipped `.fsm` file that parses
//! (specs/invalid included) and over generated specs with comments and whitespace in every place the grammar
//! allows them.

use fsmc::fmt::format;
use fsmc_base::source::FileId;
use fsmc_driver::{Options, compile_str};
use proptest::prelude::*;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Runs `fsmc ARGS…` in process: its exit code and output.
fn fsmc<A: Into<OsString>>(args: impl IntoIterator<Item = A>) -> fsmc_testkit::Output {
    fsmc_testkit::capture(args, |argv, out, err| fsmc::cli::run(argv, out, err, false))
}

/// Every `.fsm` file under specs/, specs/invalid included, sorted.
fn shipped() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("specs/ is readable")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "fsm") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fsmc_testkit::workspace().join("specs"), &mut out);
    assert!(out.len() > 50, "the shipped specs and the invalid ones");
    out
}

/// What a spec means, with every position left out: the generated code when it checks clean, else the skeleton
/// of its model and its diagnostics (code, severity, message, labels' and help's words).
fn meaning(name: &str, text: &str, dir: &Path) -> String {
    let c = compile_str(name, text, dir, &Options::default());
    let mut out = String::new();
    match (&c.checked, &c.spec) {
        (Some(checked), _) => out.push_str(&fsmc_model::codegen::generate(checked).to_string()),
        (None, Some(spec)) => out.push_str(&fsmc_model::codegen::skeleton(spec).to_string()),
        (None, None) => out.push_str("no model"),
    }
    for d in &c.diagnostics {
        out.push_str(&format!(
            "\n{} {:?} {} | {} | {:?} | {:?} | {:?}",
            d.code.id(),
            d.severity,
            d.message,
            d.primary.as_ref().map_or("", |l| l.message.as_str()),
            d.secondary.iter().map(|l| &l.message).collect::<Vec<_>>(),
            d.help,
            d.notes
        ));
    }
    out
}

/// The comments of a text, in order, each with trailing whitespace removed from its lines.
fn comments(text: &str) -> Vec<String> {
    let (tree, _) = fsmc_syntax::parse(FileId(0), text);
    let tree = tree.expect("a tree");
    tree.comments
        .iter()
        .map(|c| {
            text[c.span.range()]
                .lines()
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// The formatter's promises for one text that parses.
fn assert_formats_soundly(name: &str, text: &str, dir: &Path) -> String {
    let once =
        format(FileId(0), text).unwrap_or_else(|d| panic!("{name} does not parse: {d:?}\n{text}"));
    let twice = format(FileId(0), &once)
        .unwrap_or_else(|d| panic!("{name}: formatted text does not parse: {d:?}\n{once}"));
    assert_eq!(twice, once, "{name}: formatting is not idempotent");
    assert_eq!(comments(&once), comments(text), "{name}: comments changed");
    // The verdict first, so that a change of it is reported as such: formatting never makes a spec pass or fail.
    let verdict = |t: &str| {
        compile_str(name, t, dir, &Options::default())
            .diagnostics
            .iter()
            .map(|d| format!("{} {:?}", d.code.id(), d.severity))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        verdict(&once),
        verdict(text),
        "{name}: formatting changed the verdict\n{once}"
    );
    assert_eq!(
        meaning(name, &once, dir),
        meaning(name, text, dir),
        "{name}: the formatted spec means something else\n{once}"
    );
    once
}

#[test]
fn every_shipped_spec_that_parses_formats_soundly() {
    let mut formatted = 0;
    for path in shipped() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // A spec that is not UTF-8 (E0002's) is not text to format.
        let Ok(text) = std::fs::read_to_string(&path) else {
            assert!(
                path.to_string_lossy().contains("invalid"),
                "{name} is not UTF-8"
            );
            continue;
        };
        // Specs that are meant not to parse (or not to be read at all) are refused, never formatted.
        if format(FileId(0), &text).is_err() {
            assert!(
                name.starts_with("E0001") || name.starts_with("E0002"),
                "{name} does not parse"
            );
            continue;
        }
        assert_formats_soundly(&name, &text, path.parent().unwrap());
        formatted += 1;
    }
    assert!(formatted > 50, "{formatted}");
}

/// CI runs this: the shipped specs are in the canonical layout (`fsmc fmt --check specs/`).
#[test]
fn the_shipped_specs_are_in_canonical_format() {
    let specs = fsmc_testkit::workspace().join("specs");
    let invalid = specs.join("invalid");
    for dir in [specs, invalid] {
        let fsmc_testkit::Output {
            code,
            stdout: out,
            stderr: err,
        } = fsmc([
            OsString::from("fmt"),
            "--check".into(),
            dir.clone().into_os_string(),
        ]);
        // specs/invalid holds a file that does not parse (exit 1, with its syntax error), and no other change.
        if dir.ends_with("invalid") {
            assert!(
                !out.contains("+++"),
                "{}: run `fsmc fmt`:\n{out}",
                dir.display()
            );
            assert!(err.contains("E0001_syntax_error.fsm"), "{err}");
        } else {
            assert_eq!(
                code,
                0,
                "{}: run `fsmc fmt specs/`:\n{out}{err}",
                dir.display()
            );
            assert!(out.is_empty(), "{out}");
        }
    }
}

#[test]
fn a_messy_file_formatted() {
    let messy = r#"//!   A file laid out badly on purpose.
#![allow( unused_key )]   import "price.fsm"   as  Price ;
/// The machine.
  #[deny(W0303)]   machine   Messy : abci{ label "Messy";
event DONE,NO_MAJORITY,ROUND_TIMEOUT timeout 30s ;   // events
    /// Kept across periods.
cross_period key price:std::collections::BTreeMap<String,Vec<(u64,[u8;32])>>;



start default state   Collect:collect_same_until_threshold{payload "u64";writes price;}
   /* a block
      comment */
final state Done{ensures price;}
(Collect,DONE)->Done;(Collect , NO_MAJORITY)->Collect ;
       (Collect,ROUND_TIMEOUT)->Collect /* retry */ ;
}
app Oracle{chain Price,Messy;FinishedPrice->Messy::Collect;}
"#;
    let formatted = format(FileId(0), messy).expect("parses");
    assert_eq!(format(FileId(0), &formatted).unwrap(), formatted);
    assert_eq!(comments(&formatted), comments(messy));
    insta::assert_snapshot!("messy", formatted);
}

#[test]
fn check_mode_prints_a_diff_and_fails_and_the_default_mode_rewrites() {
    let scratch = fsmc_testkit::scratch("fmt");
    let dir = scratch.path();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let messy = dir.join("sub/m.fsm");
    std::fs::write(&messy, "machine M{event A;start default state S;(S,A)->S;}").unwrap();
    let clean = dir.join("clean.fsm");
    std::fs::write(&clean, "machine C {\n    event A;\n}\n").unwrap();
    // YAML in a directory is not `.fsm`: left alone.
    std::fs::write(dir.join("fsm_specification.yaml"), "not: [formatted").unwrap();
    let run = |args: &[&str]| {
        let o = fsmc(["fmt"].iter().chain(args).copied());
        (o.code, o.stdout, o.stderr)
    };
    let d = dir.to_str().unwrap();
    let (code, out, err) = run(&["--check", d]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("-machine M{event A;start default state S;(S,A)->S;}"),
        "{out}"
    );
    assert!(out.contains("+    (S, A) -> S;"), "{out}");
    assert!(err.contains("1 of 2 files would be reformatted"), "{err}");
    // Nothing was written.
    assert!(
        std::fs::read_to_string(&messy)
            .unwrap()
            .starts_with("machine M{")
    );
    let (code, out, _) = run(&[d]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "machine M {\n    event A;\n    start default state S;\n    (S, A) -> S;\n}\n"
    );
    let (code, out, _) = run(&["--check", d]);
    assert_eq!((code, out.as_str()), (0, ""));
    // A file that is not `.fsm`, named explicitly: refused.
    let yaml = dir.join("fsm_specification.yaml");
    let (code, _, err) = run(&[yaml.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a `.fsm` file"), "{err}");
    // A file with syntax errors is reported and left as it is.
    std::fs::write(&messy, "machine M { state }").unwrap();
    let (code, _, err) = run(&[messy.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[E0001]") && err.contains("not formatted"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "machine M { state }"
    );
}

/// `fsmc import` writes its `.fsm` through the formatter: what it prints is already in the canonical layout.
#[test]
fn what_import_writes_is_formatted() {
    let yaml = r#"alphabet_in:
- DONE
- NO_MAJORITY
- ROUND_TIMEOUT
default_start_state: RegistrationStartupRound
final_states:
- FinishedRegistrationRound
label: AgentRegistrationAbciApp
start_states:
- RegistrationStartupRound
- RegistrationRound
states:
- FinishedRegistrationRound
- RegistrationRound
- RegistrationStartupRound
transition_func:
    (RegistrationRound, DONE): FinishedRegistrationRound
    (RegistrationRound, NO_MAJORITY): RegistrationRound
    (RegistrationStartupRound, DONE): FinishedRegistrationRound
    (RegistrationStartupRound, ROUND_TIMEOUT): RegistrationRound
"#;
    let dir = fsmc_testkit::scratch("fmt-import");
    let path = fsmc_testkit::write(dir.path(), "fsm_specification.yaml", yaml);
    let o = fsmc([OsString::from("import"), path.into_os_string()]);
    let out = o.stdout;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        out.contains("machine AgentRegistrationAbciApp: abci {"),
        "{out}"
    );
    assert_eq!(format(FileId(0), &out).unwrap(), out);
}

/// A separator between two tokens: whitespace, or a comment, as a person might write one (or a hostile input).
fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        6 => Just(" "),
        2 => Just("\n"),
        1 => Just("\n\n\n"),
        1 => Just("\t  "),
        1 => Just(" /* c */ "),
        1 => Just("\n  /* two\n  lines */\n"),
        1 => Just(" // note\n"),
        1 => Just("\n// own line\n"),
        1 => Just("\r\n"),
        // What Rust would read as doc comments, and a byte order mark, which the grammar skips as whitespace.
        1 => Just(" /** c */ "),
        1 => Just(" /*! c */"),
        1 => Just(" //! c\n"),
        1 => Just("\u{FEFF}"),
    ]
}

/// A spec's statements, each a list of tokens (doc comments are statements of their own: they may only be
/// written before an item).
fn statements() -> impl Strategy<Value = Vec<Vec<String>>> {
    let name = |prefix: &'static str| (0..6usize).prop_map(move |i| format!("{prefix}{i}"));
    let event_list = prop::collection::vec(name("E"), 1..30);
    let transition = (
        name("S"),
        name("E"),
        name("S"),
        any::<bool>(),
        prop::collection::vec(name("act"), 0..3),
    );
    let state = (
        prop::sample::select(vec!["", "start default ", "final "]),
        name("S"),
        prop::sample::select(vec!["", ": voting", ": collect_same_until_threshold"]),
        prop::collection::vec(name("k"), 0..4),
        any::<bool>(),
    );
    (
        event_list,
        prop::collection::vec(state, 1..6),
        prop::collection::vec(transition, 0..8),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(events, states, transitions, abci, fields, head)| {
            let words = |s: &str| {
                s.split(' ')
                    .filter(|w| !w.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            };
            let mut out: Vec<Vec<String>> = Vec::new();
            if head {
                out.push(words("# ! [ allow ( unused_key , W0303 ) ]"));
                out.push(words("import \"other.fsm\" as Other ;"));
            }
            out.push(vec!["/// A generated machine.".into()]);
            if head {
                out.push(words("# [ deny ( unused_event ) ]"));
            }
            let mut head = vec!["machine".into(), "Gen".into()];
            if abci {
                head.extend([":".into(), "abci".into()]);
            }
            head.push("{".into());
            out.push(head);
            let mut ev = vec!["event".to_string()];
            for (i, e) in events.iter().enumerate() {
                if i > 0 {
                    ev.push(",".into());
                }
                ev.push(e.clone());
            }
            if fields {
                ev.push(",".into());
                ev.extend(words(
                    "Payload ( a : Vec < ( String , u32 ) > , b : [ u8 ; 32 ] ) timeout 1.5m",
                ));
            }
            ev.push(";".into());
            out.push(ev);
            out.push(words(
                "cross_period key k0 : std :: collections :: BTreeMap < String , u64 > ;",
            ));
            out.push(words("key k1 : u64 ;"));
            for (i, (modifiers, name, kind, keys, body)) in states.into_iter().enumerate() {
                if i % 2 == 1 {
                    out.push(vec![format!("/// State {i}.")]);
                }
                let mut s = words(modifiers);
                s.push("state".into());
                s.push(name);
                s.extend(words(kind.replace(':', ": ").as_str()));
                if body || !keys.is_empty() {
                    s.push("{".into());
                    if !keys.is_empty() {
                        s.push("reads".into());
                        for (i, k) in keys.iter().enumerate() {
                            if i > 0 {
                                s.push(",".into());
                            }
                            s.push(k.clone());
                        }
                        s.push(";".into());
                    }
                    s.extend(words("payload \"u64\" ; done = E1 ;"));
                    s.push("}".into());
                } else {
                    s.push(";".into());
                }
                out.push(s);
            }
            for (from, event, to, guarded, actions) in transitions {
                if guarded {
                    out.push(vec!["/// Guarded.".into()]);
                }
                let mut t = words(&format!("( {from} , {event} ) -> {to}"));
                if guarded {
                    t.extend(words("if ready unless blocked"));
                }
                if !actions.is_empty() {
                    t.push("do".into());
                    for (i, a) in actions.iter().enumerate() {
                        if i > 0 {
                            t.push(",".into());
                        }
                        t.push(a.clone());
                    }
                }
                t.push(";".into());
                out.push(t);
            }
            out.push(vec!["}".into()]);
            out.push(words("app App { chain Gen , Gen ; S1 -> Gen :: S0 ; }"));
            out
        })
}

/// Joins the statements' tokens with the given separators (cycled), a doc comment always ending its line.
fn render(statements: &[Vec<String>], seps: &[&str]) -> String {
    let mut out = String::new();
    let mut k = 0;
    let mut next = || {
        let s = seps.get(k % seps.len().max(1)).copied().unwrap_or(" ");
        k += 1;
        s
    };
    for stmt in statements {
        for tok in stmt {
            out.push_str(tok);
            out.push_str(if tok.starts_with("///") { "\n" } else { next() });
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_specs_format_soundly(
        stmts in statements(),
        seps in prop::collection::vec(separator(), 1..40),
    ) {
        let text = render(&stmts, &seps);
        let dir = std::env::temp_dir();
        let once = assert_formats_soundly("generated.fsm", &text, &dir);
        // The event list is broken to fit (a line holding a comment may be longer: comments are not moved).
        for line in once.lines() {
            let t = line.trim_start();
            let list = t.starts_with("event ") || t.starts_with('E');
            let comment = t.contains("/*") || t.contains("//");
            prop_assert!(!list || comment || line.chars().count() <= fsmc::fmt::WIDTH, "{line}");
        }
    }
}
