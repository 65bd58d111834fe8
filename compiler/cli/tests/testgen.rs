//! Tests generated from every shipped spec (`fsmc gen --tests`): a file snapshot of each, one test per
//! transition and a tour, both deterministic; the generated tests themselves compile and run in
//! `examples/systems/tests/generated.rs`.

use fsmc_driver::loader::LoadOptions;
use fsmc_driver::{Options, compile};
use fsmc_model::codegen::tests::{TestOptions, generate};
use std::path::{Path, PathBuf};

fn options() -> Options {
    Options {
        load: LoadOptions {
            display_base: Some(fsmc_testkit::workspace()),
            ..LoadOptions::default()
        },
        ..Options::default()
    }
}

fn specs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    fsmc::cli::collect_specs(&fsmc_testkit::workspace().join("specs"), &mut out)
        .expect("specs/ is readable");
    out.push(fsmc_testkit::workspace().join("examples/pregenerated/turnstile.fsm"));
    out
}

fn tests_of(path: &Path, opts: TestOptions) -> String {
    let c = compile(path, &options()).expect("spec is readable");
    let checked = c.checked.expect("shipped specs check clean");
    fsmc_model::codegen::format(generate(&checked, opts)).expect("the generated tests are Rust")
}

fn name(path: &Path) -> String {
    let root = fsmc_testkit::workspace();
    let rel = path
        .strip_prefix(root.join("specs"))
        .or_else(|_| path.strip_prefix(&root))
        .expect("inside the workspace");
    rel.to_string_lossy()
        .replace(['/', '\\'], "__")
        .replace(".fsm", "")
}

#[test]
fn generated_tests_snapshots() {
    for path in specs() {
        let name = name(&path);
        let per_transition = tests_of(&path, TestOptions::default());
        let tour = tests_of(&path, TestOptions { tour: true });
        assert_eq!(
            per_transition,
            tests_of(&path, TestOptions::default()),
            "{name}: not deterministic"
        );
        insta::assert_snapshot!(format!("tests__{name}"), per_transition);
        insta::assert_snapshot!(format!("tour__{name}"), tour);
    }
}

/// Every transition of every entry item of the shipped apps is taken by some test: the module docs list what
/// none takes, and for these specs the list is empty.
#[test]
fn every_transition_of_the_shipped_apps_is_tested() {
    for spec in [
        "specs/oracle/oracle.fsm",
        "specs/hello_world/hello_world.fsm",
        "specs/tac/tac.fsm",
        "specs/supply_chain/supply_chain.fsm",
        "specs/support/support.fsm",
        "examples/pregenerated/turnstile.fsm",
    ] {
        let path = fsmc_testkit::workspace().join(spec);
        for opts in [TestOptions::default(), TestOptions { tour: true }] {
            let text = tests_of(&path, opts);
            assert!(text.contains("generated from its spec"), "{spec}: no tests");
            assert!(
                !text.contains("Not taken"),
                "{spec}: {opts:?} leaves transitions untested"
            );
        }
    }
}

/// A machine whose second start state no walk from the default start reaches: its transitions are listed as not
/// taken rather than given a test that cannot pass.
#[test]
fn unreachable_transitions_are_listed() {
    let path = fsmc_testkit::workspace().join("specs/oracle/registration.fsm");
    let text = tests_of(&path, TestOptions::default());
    assert!(
        text.contains("Not taken: `(RegistrationRound, DONE) -> FinishedRegistrationRound`"),
        "{text}"
    );
}

/// `fsmc gen --tests` writes the code followed by its tests; `--tour` needs `--tests`.
#[test]
fn gen_tests_on_the_command_line() {
    let spec = fsmc_testkit::workspace().join("examples/pregenerated/turnstile.fsm");
    let run = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> = vec!["fsmc".into(), "gen".into()];
        args.extend(extra.iter().map(Into::into));
        args.push(spec.clone().into());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = fsmc::cli::run(args, &mut out, &mut err, false);
        (code, String::from_utf8(out).unwrap())
    };
    let (code, plain) = run(&[]);
    assert_eq!(code, 0);
    assert!(!plain.contains("mod turnstile_tests"));
    let (code, with_tests) = run(&["--tests"]);
    assert_eq!(code, 0);
    assert!(with_tests.starts_with(&plain));
    assert!(with_tests.contains("mod turnstile_tests"));
    assert!(with_tests.contains("fn locked_coin_to_unlocked()"));
    let (code, tour) = run(&["--tests", "--tour"]);
    assert_eq!(code, 0);
    assert!(tour.contains("fn tour()"));
    assert_ne!(run(&["--tour"]).0, 0);
}

/// `fsmc coverage` merges snapshots (two runs of the turnstile, one transition never taken), reports per machine,
/// names what no run took with its line, writes LCOV, and fails under a threshold.
#[test]
fn coverage_merges_runs_and_maps_them_to_lines() {
    let dir = fsmc_testkit::scratch("coverage");
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::write(
        runs.join("1.fsmcov"),
        "Turnstile\tLocked\tCOIN\tUnlocked\t0\t2\nTurnstile\tLocked\tPUSH\tLocked\t0\t0\n",
    )
    .unwrap();
    std::fs::write(
        runs.join("2.fsmcov"),
        "Turnstile\tLocked\tCOIN\tUnlocked\t0\t1\nTurnstile\tUnlocked\tPUSH\tLocked\t0\t5\n",
    )
    .unwrap();
    let spec = fsmc_testkit::workspace().join("examples/pregenerated/turnstile.fsm");
    let lcov = dir.path().join("lcov.info");
    let run = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> = vec!["fsmc".into(), "coverage".into()];
        args.push(spec.clone().into());
        args.push(runs.clone().into());
        args.extend(extra.iter().map(Into::into));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = fsmc::cli::run(args, &mut out, &mut err, false);
        (code, String::from_utf8(out).unwrap())
    };
    let (code, summary) = run(&["--lcov", lcov.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(summary.contains("Turnstile"), "{summary}");
    assert!(summary.contains("2/4  50.0 %"), "{summary}");
    assert!(
        summary.contains("turnstile.fsm:14: Turnstile (Locked, PUSH) -> Locked"),
        "{summary}"
    );
    assert!(
        summary.contains("turnstile.fsm:16: Turnstile (Unlocked, COIN) -> Unlocked"),
        "{summary}"
    );
    let lcov = std::fs::read_to_string(&lcov).unwrap();
    assert!(lcov.contains("DA:13,3\n"), "{lcov}");
    assert!(lcov.contains("DA:14,0\n"), "{lcov}");
    assert!(lcov.contains("DA:15,5\n"), "{lcov}");
    assert!(lcov.contains("LF:4\nLH:2\nend_of_record"), "{lcov}");
    assert_eq!(run(&["--fail-under", "50"]).0, 0);
    assert_eq!(run(&["--fail-under", "100"]).0, 1);
}
