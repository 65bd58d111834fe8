//! The command line, run in-process through `fsmc::cli::run`: exit codes (0 clean, 1 spec errors, 2 usage or
//! I/O problems), the three output formats, lint levels from flags, and `explain`.

use fsmc_testkit::{scratch, workspace};
use std::ffi::OsStr;
use std::path::Path;

/// Runs `fsmc ARGS…` and returns the exit code, stdout and stderr.
fn fsmc(args: &[&dyn AsRef<OsStr>]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(
        args.iter().map(|a| a.as_ref().to_owned()),
        |argv, out, err| fsmc::cli::run(argv, out, err, false),
    );
    (o.code, o.stdout, o.stderr)
}

/// Writes a file in a scratch directory, hands its path to `f`, and removes it afterwards.
fn with_file<T>(name: &str, bytes: &[u8], f: impl FnOnce(&Path) -> T) -> T {
    let dir = scratch("cli");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    f(&path)
}

/// A clean spec except for one key nobody uses: a warning by default.
const WARNS: &str = "machine PriceAbciApp: abci {
    event DONE;
    key price: u64;
    key unused: u64;
    start default state CollectPriceRound: collect_same_until_all { payload \"u64\"; writes price; }
    final state FinishedPriceRound { ensures price; }
    (CollectPriceRound, DONE) -> FinishedPriceRound;
}
";

#[test]
fn a_clean_spec_exits_zero() {
    let (code, out, err) = fsmc(&[&"check", &workspace().join("specs/oracle/oracle.fsm")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    // It says what it covered: the file given, the three it imports, their machines and the app.
    assert!(
        err.contains("fsmc: checked 4 files, 3 machines, 1 app: ok"),
        "{err}"
    );
}

#[test]
fn spec_errors_exit_one() {
    let (code, out, err) = fsmc(&[
        &"check",
        &workspace().join("specs/invalid/E0101_duplicate_state.fsm"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("error[E0101]: state `Closed` is declared more than once"),
        "{out}"
    );
    assert!(err.contains("1 error, 0 warnings"), "{err}");
}

#[test]
fn warnings_alone_exit_zero_unless_denied() {
    with_file("warns.fsm", WARNS.as_bytes(), |p| {
        let (code, out, _) = fsmc(&[&"check", &p]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("warning[W0606]: key `unused` is never read, written or guaranteed"),
            "{out}"
        );

        let (code, out, err) = fsmc(&[&"check", &"--deny-warnings", &p]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[W0606]"), "{out}");
        assert!(err.contains("1 error, 0 warnings"), "{err}");
    });
}

#[test]
fn lint_flags_allow_and_deny_by_name_or_code() {
    with_file("lints.fsm", WARNS.as_bytes(), |p| {
        let (code, out, err) = fsmc(&[&"check", &"-A", &"unused_key", &p]);
        assert_eq!((code, out.as_str()), (0, ""), "{err}");
        assert!(err.contains("checked 1 file, 1 machine: ok"), "{err}");

        let (code, out, _) = fsmc(&[&"check", &"-D", &"W0606", &p]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[W0606]"), "{out}");
    });
}

#[test]
fn an_unknown_lint_on_the_command_line_is_a_usage_error() {
    with_file("unknown-lint.fsm", WARNS.as_bytes(), |p| {
        let (code, out, err) = fsmc(&[&"check", &"-A", &"unused_keys", &p]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains("unused_keys"), "{err}");
    });
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    let (code, out, err) = fsmc(&[&"check", &"--no-such-flag"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--no-such-flag"), "{err}");
}

#[test]
fn a_missing_file_exits_two() {
    let dir = scratch("cli-missing");
    let missing = dir.path().join("missing.fsm");
    let (code, out, err) = fsmc(&[&"check", &missing]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("error[E0002]") && err.contains("no such file"),
        "{err}"
    );
    // The path as given, with its directory, and no "ok" for a file that was never checked.
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(
        err.contains("fsmc: checked 0 files, 0 machines; 1 could not be read"),
        "{err}"
    );
    assert!(!err.contains(": ok"), "{err}");
}

#[test]
fn a_missing_file_beside_a_good_one_is_counted_apart() {
    let dir = scratch("cli-gone");
    let missing = dir.path().join("gone.fsm");
    let good = workspace().join("specs/oracle/oracle.fsm");
    let (code, _, err) = fsmc(&[&"check", &good, &missing]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fsmc: checked 4 files, 3 machines, 1 app: ok; 1 could not be read"),
        "{err}"
    );
    // Machine-readable formats report it in their own format, on stdout with the rest.
    let (code, out, _) = fsmc(&[&"check", &"--message-format", &"json", &missing]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["code"], "E0002");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("gone.fsm")),
        "{v}"
    );
}

#[test]
fn a_directory_without_specs_exits_two() {
    let dir = scratch("cli-empty-dir");
    std::fs::write(dir.path().join("notes.txt"), "not a spec").expect("scratch file");
    let (code, out, err) = fsmc(&[&"check", &dir.path()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("no specs"), "{err}");
}

#[test]
fn unusable_files_exit_two_with_a_reason() {
    for (name, bytes, reason) in [
        ("empty.fsm", &b"  \n\n"[..], "file is empty"),
        ("binary.fsm", &b"machine\0\x01\x02"[..], "binary"),
        (
            "latin1.fsm",
            &b"// caf\xe9\nmachine M { }\n"[..],
            "not UTF-8",
        ),
    ] {
        with_file(name, bytes, |p| {
            let (code, out, err) = fsmc(&[&"check", &p]);
            assert_eq!(code, 2, "{name}: {out}{err}");
            assert!(
                err.contains("error[E0002]") && err.contains(reason),
                "{name}: {err}"
            );
            assert!(out.is_empty(), "{name}: {out}");
        });
    }
}

#[test]
fn json_output_is_one_object_per_line() {
    let spec = workspace().join("tests/fixtures/multi_error.fsm");
    let (code, out, err) = fsmc(&[&"check", &"--message-format", &"json", &spec]);
    assert_eq!(code, 1, "{err}");
    // The JSON format is for tools: no human summary on stderr.
    assert!(err.is_empty(), "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let codes: Vec<&str> = lines
        .iter()
        .map(|v| v["code"].as_str().expect("code"))
        .collect();
    assert_eq!(codes, ["E0010", "W0606", "E0101", "E0104"]);
    for v in &lines {
        for field in ["code", "severity", "file", "message"] {
            assert!(v[field].is_string(), "{field} in {v}");
        }
        for field in ["line", "column"] {
            assert!(v[field].as_u64().is_some_and(|n| n >= 1), "{field} in {v}");
        }
        assert!(
            v["file"]
                .as_str()
                .expect("file")
                .ends_with("multi_error.fsm"),
            "{v}"
        );
    }
    assert_eq!(lines[1]["severity"], "warning");
    assert_eq!(lines[3]["severity"], "error");
    assert_eq!(
        (lines[3]["line"].as_u64(), lines[3]["column"].as_u64()),
        (Some(13), Some(34))
    );
    assert_eq!(lines[3]["help"], "did you mean `FinishedPriceRound`?");
}

#[test]
fn github_output_is_workflow_annotations() {
    let spec = workspace().join("tests/fixtures/multi_error.fsm");
    let (code, out, _) = fsmc(&[&"check", &"--message-format", &"github", &spec]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("::error file="), "{out}");
    assert!(lines[1].starts_with("::warning file="), "{out}");
    assert!(
        lines[3].contains("multi_error.fsm,line=13,col=34,"),
        "{out}"
    );
    assert!(
        lines[3].contains(
            "title=E0104 unknown_state::unknown state `FinishedPriceRund`%0Ahelp: did you mean"
        ),
        "{out}"
    );
}

#[test]
fn human_output_of_a_multi_error_spec() {
    // A relative path: `run` shows paths relative to the current directory, which cargo sets to tests/.
    let (code, out, err) = fsmc(&[&"check", &"fixtures/multi_error.fsm"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("multi_error_human", format!("{out}--- stderr ---\n{err}"));
}

#[test]
fn explain_describes_a_code() {
    let (code, out, err) = fsmc(&[&"explain", &"E0101"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("E0101 (duplicate_state): a state is declared twice"),
        "{out}"
    );
    assert!(out.contains("cannot be allowed"), "{out}");

    let (code, out, _) = fsmc(&[&"explain", &"unused_key"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("W0606 (unused_key)"), "{out}");

    let (code, _, err) = fsmc(&[&"explain", &"E9999"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown code `E9999`"), "{err}");
}

#[test]
fn explain_lists_every_code() {
    let (code, out, _) = fsmc(&[&"explain"]);
    assert_eq!(code, 0);
    for c in fsmc_base::diag::Code::ALL {
        assert!(
            out.lines()
                .any(|l| l.starts_with(c.id()) && l.contains(c.name())),
            "{c} missing:\n{out}"
        );
    }
}

#[test]
fn every_command_names_the_diagnostics_format_alike() {
    let spec = workspace().join("tests/fixtures/multi_error.fsm");
    for command in [
        &["check"][..],
        &["gen"],
        &["export"],
        &["graph", "--format", "dot"],
    ] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = command.iter().map(|a| a as _).collect();
        let rest: [&dyn AsRef<std::ffi::OsStr>; 3] = [&"--message-format", &"json", &spec];
        args.extend(rest);
        let (code, out, err) = fsmc(&args);
        let command = command[0];
        assert_eq!(code, 1, "{command}: {err}");
        let diagnostics = if command == "check" { &out } else { &err };
        let first = diagnostics.lines().next().unwrap_or_default();
        let v: serde_json::Value =
            serde_json::from_str(first).unwrap_or_else(|e| panic!("{command}: {e}: {first}"));
        assert!(v["code"].is_string(), "{command}: {v}");
    }
    // `--format` names what `export` and `graph` write; `check` has no such flag.
    let (code, _, err) = fsmc(&[&"check", &"--format", &"json", &spec]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--message-format"), "{err}");
}
