//! Every diagnostic code has a long explanation (`fsmc explain CODE`, `compiler/diag/src/diag/explain/*.md`), and its
//! examples are compiled here: the erroneous example must trigger the code and the corrected one must check
//! clean, so an explanation cannot drift from what the checks do.
//!
//! An explanation's first block tagged `fsm` or `yaml` is the erroneous example, its second the corrected one.
//! Each is compiled with `fsmc_driver::compile_str`, as `example.fsm`, or as `example_fsm_specification.yaml` when it is
//! tagged `yaml` (the codes only Open Autonomy's format can trigger). The examples about imports name files
//! that must exist on disk; `compile` writes them into a scratch directory first (see there, per code).

use fsmc_base::diag::{Code, Level, Severity};
use std::path::{Path, PathBuf};

/// A fenced block of an explanation: its tag and its text.
struct Block {
    lang: String,
    text: String,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match (open.take(), trimmed.strip_prefix("```")) {
            (None, Some(lang)) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    text: String::new(),
                })
            }
            (Some(block), Some(_)) => out.push(block),
            (Some(mut block), None) => {
                block.text.push_str(line);
                block.text.push('\n');
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    out
}

/// The erroneous and the corrected example of a code, if the explanation has both.
fn examples(code: Code) -> Result<(Block, Block), String> {
    let mut examples = blocks(code.explanation())
        .into_iter()
        .filter(|b| b.lang == "fsm" || b.lang == "yaml");
    match (examples.next(), examples.next()) {
        (Some(wrong), Some(right)) => Ok((wrong, right)),
        _ => Err(format!(
            "{code}: needs an erroneous and a corrected example in blocks tagged `fsm` or `yaml`"
        )),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Wrong,
    Right,
}

/// A machine for the files the import examples name; valid on its own, so it adds no diagnostics.
const REGISTRATION: &str = "machine RegistrationAbciApp: abci {
    event DONE;
    start default state RegistrationRound: collect_same_until_all;
    final state FinishedRegistrationRound;
    (RegistrationRound, DONE) -> FinishedRegistrationRound;
}
";

const LOCK: &str = "machine Lock {
    event TURN;
    start default state Locked;
    final state Unlocked;
    (Locked, TURN) -> Unlocked;
}
";

const DOOR: &str = "machine Door {
    event OPEN;
    start default state Closed;
    final state Opened;
    (Closed, OPEN) -> Opened;
}
";

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a file in a directory")).expect("directory");
    std::fs::write(path, bytes).expect("scratch file");
}

/// Latin-1 bytes of a text that has only Latin-1 characters.
fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).expect("a Latin-1 character"))
        .collect()
}

/// Compiles one example of `code` the way its explanation describes; `other` is the code's other example.
/// For a lint, the corrected example is compiled with the lint denied from the command line (which overrides
/// the spec's attributes), so a "fix" that merely allows the lint does not pass.
fn compile(code: Code, run: Run, example: &Block, other: &Block) -> fsmc_driver::Compilation {
    let scratch = fsmc_testkit::scratch(&format!("explain-{}-{run:?}", code.id()));
    let dir = scratch.path().to_path_buf();
    let mut base = dir.clone();
    let mut entry = if example.lang == "yaml" {
        "example_fsm_specification.yaml"
    } else {
        "example.fsm"
    };
    let mut options = fsmc_driver::Options::default();
    if run == Run::Right && code.is_lint() {
        options.lints.set(code, Level::Deny);
    }
    match code {
        // The erroneous example (menu.fsm) imports `cafe.fsm`, saved as Latin-1; the corrected example is
        // cafe.fsm itself, re-saved as UTF-8. So the erroneous one imports the corrected text encoded as
        // Latin-1, and the corrected one is compiled as cafe.fsm. (`unreadable_file_fix_is_re_saving` imports
        // it as UTF-8.)
        Code::Io => match run {
            Run::Wrong => write(&dir.join("cafe.fsm"), &latin1(&other.text)),
            Run::Right => entry = "cafe.fsm",
        },
        // The spec is in `specs/` and imports `../shared/registration.fsm`; the fix passes `shared/` as a search
        // path (`-I shared`).
        Code::ImportOutsideRoots => {
            base = dir.join("specs");
            std::fs::create_dir_all(&base).expect("specs directory");
            write(
                &dir.join("shared/registration.fsm"),
                REGISTRATION.as_bytes(),
            );
            if run == Run::Right {
                options.load.search_paths = vec![dir.join("shared")];
            }
        }
        // door.fsm imports lock.fsm, which imports door.fsm back. The loader finds the cycle through the file
        // on disk, so the example is written there too.
        Code::ImportCycle => {
            entry = "door.fsm";
            write(
                &dir.join("lock.fsm"),
                format!("import \"door.fsm\";\n\n{LOCK}").as_bytes(),
            );
            write(&dir.join(entry), example.text.as_bytes());
        }
        // The erroneous example misspells `registration.fsm`, which exists.
        Code::ImportNotFound => write(&dir.join("registration.fsm"), REGISTRATION.as_bytes()),
        // `doors.fsm` defines two machines.
        Code::ImportAmbiguous => {
            write(&dir.join("doors.fsm"), format!("{DOOR}\n{LOCK}").as_bytes())
        }
        // The refinements refine upstream's `registration_abci`, imported as `registration.yaml`.
        Code::RefinementChangesBase | Code::BadRefinement => write(
            &dir.join("registration.yaml"),
            include_bytes!("../../../specs/invalid/support/registration.yaml"),
        ),
        _ => {}
    }
    // Genie states name template files, which must exist beside the spec; the erroneous example of E0704
    // names one that does not, so only the corrected example's templates are written for it.
    let mut templates = template_paths(&other.text);
    if code != Code::GenieTemplateNotFound || run == Run::Right {
        templates.extend(template_paths(&example.text));
    }
    for t in templates {
        write(&base.join(t), b"{{ actor_input }}");
    }
    let mut c = fsmc_driver::compile_str(entry, &example.text, &base, &options);
    // The verification codes (family 11) are what `fsmc verify` finds in specs that pass `fsmc check`.
    if code.id().starts_with("E11")
        && let Some(checked) = c.checked.take()
    {
        let config = fsmc_verify::Config {
            agents: 4,
            faults: 1,
            max_states: 1_000_000,
        };
        for r in fsmc_verify::verify(&checked, &config) {
            c.diagnostics.extend(r.diagnostics);
        }
        if c.diagnostics.is_empty() {
            c.checked = Some(checked);
        }
    }
    c
}

/// The paths of `template "…";` properties in a spec's text.
fn template_paths(text: &str) -> Vec<String> {
    text.split("template \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

fn rendered(c: &fsmc_driver::Compilation) -> String {
    fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
}

/// Codes whose erroneous example necessarily reports another error as well, and which one.
const ALONGSIDE: &[(Code, Code)] = &[
    // An event is "never handled" only when the states handling it are unreachable, which is an error.
    (Code::EventNeverHandled, Code::UnreachableState),
    // The state that accepts an unreachable performative is itself unreachable.
    (Code::PerformativeUnreachable, Code::UnreachableState),
    // A keeper round whose keeper cannot send, and which has no timeout, is a state no block leaves.
    (Code::VerifyStuck, Code::VerifyKeeperNotLive),
    // And while its keeper is a silent faulty participant, the round waits forever too.
    (Code::VerifyStuck, Code::VerifyPeriodNeverEnds),
];

/// What is wrong with `code`'s examples, if anything.
fn check_examples(code: Code) -> Vec<String> {
    let (wrong, right) = match examples(code) {
        Ok(pair) => pair,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();

    let c = compile(code, Run::Wrong, &wrong, &right);
    let found = c.diagnostics.iter().filter(|d| d.code == code);
    // A hard error must fail the spec; a lint shows at its default level or the one the example sets.
    let triggered = match code.is_lint() {
        false => found.into_iter().any(|d| d.severity == Severity::Error),
        true => found.count() > 0,
    };
    if !triggered {
        problems.push(format!(
            "{code}: the erroneous example does not trigger it; it reports:\n{}",
            rendered(&c)
        ));
    }
    // The example is about this code: it fails for no other reason (warnings are fine).
    let stray: Vec<Code> = c
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && d.code != code)
        .map(|d| d.code)
        .filter(|other| !ALONGSIDE.contains(&(code, *other)))
        .collect();
    if !stray.is_empty() {
        problems.push(format!(
            "{code}: the erroneous example also fails with {stray:?}:\n{}",
            rendered(&c)
        ));
    }

    let c = compile(code, Run::Right, &right, &wrong);
    if !c.diagnostics.is_empty() || c.checked.is_none() {
        problems.push(format!(
            "{code}: the corrected example does not check clean:\n{}",
            rendered(&c)
        ));
    }
    problems
}

#[test]
fn every_code_has_an_explanation_whose_examples_hold() {
    let problems: Vec<String> = Code::ALL
        .iter()
        .flat_map(|&code| {
            if code.explanation().trim().is_empty() {
                vec![format!(
                    "{code}: no explanation (add explain/{code}.md to the table in codes.rs)"
                )]
            } else {
                check_examples(code)
            }
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn unreadable_file_fix_is_re_saving() {
    // The corrected example of E0002 is the imported file, re-saved as UTF-8: with it, the erroneous example
    // (the file that imports it) checks clean.
    let (wrong, right) = examples(Code::Io).expect("E0002 has both examples");
    let dir = fsmc_testkit::scratch("explain-resaved");
    write(&dir.path().join("cafe.fsm"), right.text.as_bytes());
    let c = fsmc_driver::compile_str(
        "menu.fsm",
        &wrong.text,
        dir.path(),
        &fsmc_driver::Options::default(),
    );
    assert!(
        c.diagnostics.is_empty() && c.checked.is_some(),
        "{}",
        rendered(&c)
    );
}

fn explain_dir() -> PathBuf {
    fsmc_testkit::workspace().join("compiler/base/src/diag/explain")
}

#[test]
fn every_explanation_file_belongs_to_a_code() {
    // A file named after no code (or a misspelt one) would never be shown.
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(explain_dir()).expect("diag/src/diag/explain exists") {
        let name = entry.expect("directory entry").file_name();
        let name = name.to_string_lossy();
        let known = name
            .strip_suffix(".md")
            .and_then(Code::lookup)
            .is_some_and(|c| name == format!("{}.md", c.id()) && !c.explanation().is_empty());
        if !known {
            stray.push(name.to_string());
        }
    }
    assert!(
        stray.is_empty(),
        "files in src/diag/explain for no code: {stray:?}"
    );
}

#[test]
fn explanations_follow_one_shape() {
    let mut problems = Vec::new();
    for &code in Code::ALL {
        let text = code.explanation();
        if text.is_empty() {
            continue; // reported by `every_code_has_an_explanation_whose_examples_hold`
        }
        let first = text.lines().next().unwrap_or("");
        // The first line says what is wrong, as a sentence; the page's heading already shows the code.
        if first.is_empty() || first.starts_with('#') || first.starts_with("```") {
            problems.push(format!("{code}: starts with `{first}`, not a sentence"));
        }
        if !text.contains("Erroneous example") {
            problems.push(format!(
                "{code}: no \"Erroneous example\" before the first example"
            ));
        }
        if !text.ends_with('\n') || text.ends_with("\n\n") {
            problems.push(format!("{code}: must end with exactly one newline"));
        }
        // Read in a terminal: prose fits in 100 columns, and code, indented by four, does too.
        let mut in_code = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_code = !in_code;
                continue;
            }
            let width = line.chars().count() + if in_code { 4 } else { 0 };
            if width > 100 {
                problems.push(format!("{code}:{}: {width} columns", i + 1));
            }
            if line.ends_with(' ') {
                problems.push(format!("{code}:{}: trailing space", i + 1));
            }
        }
        // Lints say how to change their level, in a spec and on the command line.
        if code.is_lint()
            && !(text.contains(&format!("#![allow({})]", code.name())) && text.contains("-A "))
        {
            problems.push(format!(
                "{code}: a lint's explanation shows `#![allow({})]` and `-A`",
                code.name()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn fsmc(args: &[&str]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(args.iter().copied(), |argv, out, err| {
        fsmc::cli::run(argv, out, err, false)
    });
    (o.code, o.stdout, o.stderr)
}

#[test]
fn explain_prints_the_explanation_as_plain_text() {
    let (code, out, err) = fsmc(&["explain", "E0101"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    insta::assert_snapshot!("explain_E0101", out);
    // Fences are gone; the examples are indented by four, so they stand out and copy as they are.
    assert!(!out.contains("```"), "{out}");
    assert!(
        out.contains("\n        state Closed; // error: `Closed` again\n"),
        "{out}"
    );

    // The code in lower case and the name find the same page.
    assert_eq!(fsmc(&["explain", "e0101"]).1, out);
    assert_eq!(fsmc(&["explain", "duplicate_state"]).1, out);

    let (code, out, _) = fsmc(&["explain", "W0606"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(
            "W0606 (unused_key): a data key is never read, written or guaranteed\n\
             A lint, warn by default: silence it with `#![allow(unused_key)]` or `-A W0606`.\n\n"
        ),
        "{out}"
    );
    let (_, out, _) = fsmc(&["explain", "shared_event"]);
    assert!(
        out.contains(
            "A lint, allow by default: turn it on with `#![warn(shared_event)]` or `-W W0507`."
        ),
        "{out}"
    );
    // Every page reads in a terminal of 100 columns, but for its first line: the catalogue's summary.
    for c in Code::ALL {
        let (_, out, _) = fsmc(&["explain", c.id()]);
        let wide: Vec<&str> = out
            .lines()
            .skip(1)
            .filter(|l| l.chars().count() > 100)
            .collect();
        assert!(wide.is_empty(), "{c}: {wide:?}");
    }
}

#[test]
fn explain_refuses_an_unknown_code() {
    let (code, out, err) = fsmc(&["explain", "E9999"]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.starts_with("error: unknown code `E9999`\n"), "{err}");

    let (code, _, err) = fsmc(&["explain", "duplicate_stat"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: unknown code `duplicate_stat`\nhelp: did you mean `duplicate_state`?\n"
    );

    let (code, _, err) = fsmc(&["explain", "zebra"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: unknown code `zebra`\nhelp: `fsmc explain` lists every code\n"
    );
}

#[test]
fn explain_without_a_code_lists_every_code_once() {
    let (code, out, _) = fsmc(&["explain"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), Code::ALL.len(), "{out}");
    for (line, c) in lines.iter().zip(Code::ALL) {
        assert!(
            line.starts_with(c.id()) && line.contains(c.name()) && line.ends_with(c.summary()),
            "{line}"
        );
    }
}
