//! The test `fsmc verify --emit-test` writes, compiled and run: on the broken spec it fails, on the fixed
//! spec (the same test, naming the fixed spec) it passes, and emitting it again gives the same text.
//!
//! Built without the test harness, so the emitted `#[test]` functions are left out and `main` runs each
//! replay, expecting a failure or not.

mod broken {
    include!("emitted/same_all_self_timeout.rs");
    pub fn run() {
        replay();
    }
}

mod fixed {
    include!("emitted/all_with_timeout_to_reset.rs");
    pub fn run() {
        replay();
    }
}

const BROKEN: &str = "specs/verify/broken/same_all_self_timeout.fsm";
const FIXED: &str = "specs/verify/controls/all_with_timeout_to_reset.fsm";

fn emitted(spec: &str, named: &str) -> String {
    let path = fsmc_testkit::workspace().join(spec);
    let c = fsmc_driver::compile(&path, &fsmc_driver::Options::default()).expect("readable");
    let checked = c.checked.expect("the spec checks");
    let config = fsmc_verify::Config {
        agents: 4,
        faults: 1,
        max_states: 1_000_000,
    };
    let reports = fsmc_verify::verify(&checked, &config);
    let cex = reports[0]
        .counterexample
        .as_ref()
        .expect("a counterexample");
    let machine = &checked.spec().machines[0];
    fsmc_verify::emit_test(machine, cex, &config, named).expect("a test")
}

fn main() {
    let dir = fsmc_testkit::workspace().join("tests/tests/emitted");
    let text = emitted(BROKEN, &format!("../{BROKEN}"));
    let on_disk = std::fs::read_to_string(dir.join("same_all_self_timeout.rs")).expect("readable");
    assert_eq!(text, on_disk, "the emitted test changed: emit it again");
    let fixed =
        std::fs::read_to_string(dir.join("all_with_timeout_to_reset.rs")).expect("readable");
    assert_eq!(
        fixed,
        on_disk.replace(BROKEN, FIXED),
        "the fixed test names the fixed spec"
    );

    std::panic::set_hook(Box::new(|_| {}));
    let failed = std::panic::catch_unwind(broken::run).is_err();
    let passed = std::panic::catch_unwind(fixed::run).is_ok();
    let _ = std::panic::take_hook();
    assert!(failed, "the emitted test passes on the broken spec");
    assert!(passed, "the emitted test fails on the fixed spec");
    println!("emitted: fails on the broken spec, passes on the fixed one");
}
