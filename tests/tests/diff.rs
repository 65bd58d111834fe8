//! `fsmc diff`, run in-process: exit codes (0 passes, 1 a change of a class not allowed, 2 cannot compare), the
//! three output formats pointing into both files, `--allow`, `--git`, a YAML spec against its `.fsm` twin, and
//! the example of docs/diff.md.

use fsmc_testkit::{scratch, write};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

fn fsmc(args: &[&dyn AsRef<OsStr>]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(
        args.iter().map(|a| a.as_ref().to_owned()),
        |argv, out, err| fsmc::cli::run(argv, out, err, false),
    );
    (o.code, o.stdout, o.stderr)
}

const OLD: &str = "machine ToyAbciApp: abci {
    event DONE;
    event NO_MAJORITY;
    event ROUND_TIMEOUT timeout 30s;
    start default state CollectRound: collect_same_until_threshold {
        payload \"u64\";
    }
    final state DoneRound;
    (CollectRound, DONE) -> DoneRound;
    (CollectRound, NO_MAJORITY) -> CollectRound;
    (CollectRound, ROUND_TIMEOUT) -> CollectRound;
}
";

/// The timeout doubled (consensus-breaking) and the docs of the round written (cosmetic).
fn new() -> String {
    OLD.replace("timeout 30s", "timeout 1m").replace(
        "    start default",
        "    /// Agree on a number.\n    start default",
    )
}

#[test]
fn a_consensus_breaking_change_fails_and_points_into_both_files() {
    let dir = scratch("diff-human");
    let (old, new) = (
        write(dir.path(), "old.fsm", OLD),
        write(dir.path(), "new.fsm", new()),
    );
    let (code, out, err) = fsmc(&[&"diff", &old, &new]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "error[consensus-breaking]: round `CollectRound`: its timeout is now 1m (was 30s)"
        ),
        "{out}"
    );
    assert!(out.contains("new.fsm:12:5"), "{out}");
    assert!(out.contains("old.fsm:11:5"), "{out}");
    assert!(
        out.contains("warning[cosmetic]: the docs of state `CollectRound` changed"),
        "{out}"
    );
    assert!(
        err.contains(
            "3 changes (1 consensus-breaking, 1 code-breaking, 1 cosmetic): consensus-breaking"
        ),
        "{err}"
    );
    assert!(err.contains("fingerprint of `ToyAbciApp`: "), "{err}");
    assert!(err.contains(" → "), "{err}");
}

#[test]
fn allowed_classes_pass_as_warnings() {
    let dir = scratch("diff-allow");
    let (old, new) = (
        write(dir.path(), "old.fsm", OLD),
        write(dir.path(), "new.fsm", new()),
    );
    let (code, out, err) = fsmc(&[
        &"diff",
        &"--allow",
        &"consensus",
        &"--allow",
        &"code-breaking",
        &old,
        &new,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("error["), "{out}");
    assert!(out.contains("warning[consensus-breaking]"), "{out}");
    let (code, _, err) = fsmc(&[&"diff", &"--allow", &"breaking", &old, &new]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown class `breaking`"), "{err}");
}

#[test]
fn json_and_github_name_the_class_and_the_rule() {
    let dir = scratch("diff-json");
    let (old, new) = (
        write(dir.path(), "old.fsm", OLD),
        write(dir.path(), "new.fsm", new()),
    );
    let (code, out, _) = fsmc(&[&"diff", &"--message-format", &"json", &old, &new]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let exit = lines
        .iter()
        .find(|v| v["code"] == "consensus-breaking")
        .expect("a consensus-breaking finding");
    assert_eq!(exit["name"], "exit");
    assert_eq!(exit["severity"], "error");
    let files: Vec<&str> = exit["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .filter_map(|l| l["file"].as_str())
        .collect();
    assert!(files.iter().any(|f| f.ends_with("new.fsm")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("old.fsm")), "{files:?}");
    let (_, out, _) = fsmc(&[&"diff", &"--message-format", &"github", &old, &new]);
    assert!(out.contains("title=consensus-breaking exit::"), "{out}");
}

#[test]
fn the_same_spec_passes_and_what_cannot_be_compared_exits_two() {
    let dir = scratch("diff-usage");
    let old = write(dir.path(), "old.fsm", OLD);
    let (code, _, err) = fsmc(&[&"diff", &old, &old]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no change in what the specs mean"), "{err}");
    assert!(err.contains("(unchanged)"), "{err}");
    let (code, _, err) = fsmc(&[&"diff", &old]);
    assert_eq!(code, 2);
    assert!(err.contains("--git REV"), "{err}");
    let broken = write(
        dir.path(),
        "broken.fsm",
        OLD.replace("-> DoneRound", "-> Nowhere"),
    );
    let (code, out, err) = fsmc(&[&"diff", &old, &broken]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("error[E0104]"), "{out}");
    assert!(err.contains("cannot compare"), "{err}");
}

#[test]
fn a_yaml_spec_and_its_fsm_twin_mean_the_same() {
    let dir = scratch("diff-yaml");
    let yaml = write(
        dir.path(),
        "fsm_specification.yaml",
        "alphabet_in:\n- DONE\n- ROUND_TIMEOUT\ndefault_start_state: RegistrationRound\nfinal_states:\n- FinishedRound\n\
         label: ToyAbciApp\nstart_states:\n- RegistrationRound\nstates:\n- FinishedRound\n- RegistrationRound\n\
         transition_func:\n    (RegistrationRound, DONE): FinishedRound\n    (RegistrationRound, ROUND_TIMEOUT): RegistrationRound\n",
    );
    let fsm = write(
        dir.path(),
        "toy.fsm",
        "machine ToyAbciApp: abci {\n    event DONE;\n    event ROUND_TIMEOUT;\n    final state FinishedRound;\n    \
         start default state RegistrationRound;\n    (RegistrationRound, DONE) -> FinishedRound;\n    \
         (RegistrationRound, ROUND_TIMEOUT) -> RegistrationRound;\n}\n",
    );
    let (code, out, err) = fsmc(&[&"diff", &yaml, &fsm]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    let retargeted = write(
        dir.path(),
        "retargeted.fsm",
        std::fs::read_to_string(&fsm).expect("written").replace(
            "(RegistrationRound, ROUND_TIMEOUT) -> RegistrationRound",
            "(RegistrationRound, ROUND_TIMEOUT) -> FinishedRound",
        ),
    );
    let (code, out, _) = fsmc(&[&"diff", &yaml, &retargeted]);
    assert_eq!(code, 1);
    assert!(
        out.contains("round `RegistrationRound`: event `ROUND_TIMEOUT` now leads to `FinishedRound` (was `RegistrationRound`)"),
        "{out}"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=fsmc",
            "-c",
            "user.email=fsmc@example.invalid",
        ])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn git_revisions_stand_in_for_files_imports_included() {
    let dir = scratch("diff-git");
    let root = dir.path();
    git(root, &["init", "-q"]);
    let app = "import \"toy.fsm\";\nimport \"end.fsm\";\n\napp ToyApp {\n    chain ToyAbciApp, EndAbciApp;\n    \
               DoneRound -> EndRound;\n}\n";
    let end = "machine EndAbciApp: abci {\n    event DONE;\n    start default state EndRound: collect_same_until_all {\n        \
               payload \"u64\";\n    }\n    final state FinishedEndRound;\n    (EndRound, DONE) -> FinishedEndRound;\n}\n";
    let spec = write(root, "specs/app.fsm", app);
    write(root, "specs/end.fsm", end);
    write(root, "specs/toy.fsm", OLD);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "first"]);
    write(root, "specs/toy.fsm", new());
    git(root, &["commit", "-q", "-a", "-m", "second"]);
    write(root, "specs/toy.fsm", OLD);
    // The working tree is back to the first version: against the first commit, nothing changed.
    let (code, out, err) = fsmc(&[&"diff", &"--git", &"HEAD~1", &spec]);
    assert_eq!(code, 0, "{out}{err}");
    // Between the two commits the imported machine's timeout changed, which the app's rounds inherit.
    let (code, out, err) = fsmc(&[&"diff", &"--git", &"HEAD~1..HEAD", &spec]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("its timeout is now 1m (was 30s)"), "{out}");
    assert!(out.contains("HEAD~1:/specs/toy.fsm"), "{out}");
    assert!(out.contains("HEAD:/specs/toy.fsm"), "{out}");
    let (code, _, err) = fsmc(&[&"diff", &"--git", &"no-such-revision", &spec]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a revision"), "{err}");
    let outside = scratch("diff-no-repository");
    let alone = write(outside.path(), "toy.fsm", OLD);
    let (code, _, err) = fsmc(&[&"diff", &"--git", &"HEAD", &alone]);
    assert_eq!(code, 2);
    assert!(err.contains("git rev-parse: "), "{err}");
}

/// The fenced block after `<!-- diff-example: NAME -->` in docs/diff.md.
fn docs_block(docs: &str, name: &str) -> String {
    let marker = format!("<!-- diff-example: {name} -->");
    let after = &docs[docs
        .find(&marker)
        .unwrap_or_else(|| panic!("{marker} in docs/diff.md"))..];
    let body = &after[after.find("```").expect("a fenced block")..];
    let body = &body[body.find('\n').expect("the fence's line") + 1..];
    body[..body.find("```").expect("the closing fence")].to_string()
}

/// docs/diff.md's example is what `fsmc diff` prints for it, summary and exit status included.
#[test]
fn the_docs_example_is_what_fsmc_diff_prints() {
    let docs = std::fs::read_to_string(fsmc_testkit::workspace().join("docs/diff.md"))
        .expect("docs/diff.md");
    let dir = scratch("diff-docs");
    let (old, new) = (
        write(dir.path(), "old.fsm", docs_block(&docs, "old.fsm")),
        write(dir.path(), "new.fsm", docs_block(&docs, "new.fsm")),
    );
    let (code, out, err) = fsmc(&[&"diff", &old, &new]);
    assert_eq!(code, 1, "{out}{err}");
    let prefix = format!("{}/", dir.path().display());
    let printed = format!("{out}{err}").replace(&prefix, "");
    assert_eq!(
        printed,
        docs_block(&docs, "output"),
        "docs/diff.md's example output"
    );
}
