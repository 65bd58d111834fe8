//! `fsmc verify` as a command: its exit codes, its summary, and its formats.

use fsmc_testkit::workspace;

fn fsmc(args: &[&str]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(args.iter().copied(), |argv, out, err| {
        fsmc::cli::run(argv, out, err, false)
    });
    (o.code, o.stdout, o.stderr)
}

fn spec(path: &str) -> String {
    workspace().join(path).to_string_lossy().into_owned()
}

#[test]
fn a_clean_app_exits_zero_with_its_summary() {
    let (code, out, err) = fsmc(&["verify", &spec("specs/oracle/oracle.fsm")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("OracleAbciApp: 4366 states")
            && err.contains("worst-case period: 12 blocks, 90s of timeouts; no violation"),
        "{err}"
    );
}

#[test]
fn a_violation_exits_one_and_labels_the_spec() {
    let path = spec("specs/verify/broken/same_all_self_timeout.fsm");
    let (code, out, _) = fsmc(&["verify", &path]);
    assert_eq!(code, 1);
    assert!(out.contains("error[E1102]"), "{out}");
    assert!(out.contains("loop: block"), "{out}");
    let (code, out, _) = fsmc(&["verify", &path, "--format", "json"]);
    assert_eq!(code, 1);
    let first: serde_json::Value =
        serde_json::from_str(out.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["code"], "E1102", "{first}");
    let (_, out, _) = fsmc(&["verify", &path, "--format", "github"]);
    assert!(out.starts_with("::error "), "{out}");
}

#[test]
fn fewer_faults_can_make_it_clean() {
    let path = spec("specs/verify/broken/same_all_self_timeout.fsm");
    let (code, _, err) = fsmc(&["verify", &path, "--faults", "0"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn usage_errors_exit_two() {
    let path = spec("specs/oracle/oracle.fsm");
    let (code, _, err) = fsmc(&["verify", &path, "--agents", "2", "--faults", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("no honest agent"), "{err}");
    let (code, _, err) = fsmc(&["verify", &path, "--max-states", "50"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stopped at --max-states 50"), "{err}");
}
