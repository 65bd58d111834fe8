//! The tests `fsmc verify --emit-test` writes, compiled and run: on the broken spec each fails, on the fixed
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

// A broken declared invariant (E1106): the test asserts the spec's formula on the app.
mod broken_invariant {
    include!("emitted/report_without_price.rs");
    pub fn run() {
        replay();
    }
}

mod fixed_invariant {
    include!("emitted/report_with_price.rs");
    pub fn run() {
        replay();
    }
}

// A broken invariant over the transition that led into the state: the test follows the last step of each block.
mod broken_outcome {
    include!("emitted/report_on_no_majority.rs");
    pub fn run() {
        replay();
    }
}

mod fixed_outcome {
    include!("emitted/report_on_agreement.rs");
    pub fn run() {
        replay();
    }
}

// A broken declared `eventually` (E1107): the test replays the stem, then the loop three times, and fails when
// each time round brings the app back to where the loop began without the formula ever holding.
mod broken_eventually {
    include!("emitted/keeper_timeout_resets_forever.rs");
    pub fn run() {
        replay();
    }
}

mod fixed_eventually {
    include!("emitted/keeper_timeout_reelects.rs");
    pub fn run() {
        replay();
    }
}

/// A broken spec and its fix: the specs, the emitted files, and their replays.
struct Pair {
    broken: &'static str,
    fixed: &'static str,
    broken_file: &'static str,
    fixed_file: &'static str,
    broken_run: fn(),
    fixed_run: fn(),
}

const PAIRS: &[Pair] = &[
    Pair {
        broken: "specs/verify/broken/same_all_self_timeout.fsm",
        fixed: "specs/verify/controls/all_with_timeout_to_reset.fsm",
        broken_file: "same_all_self_timeout.rs",
        fixed_file: "all_with_timeout_to_reset.rs",
        broken_run: broken::run,
        fixed_run: fixed::run,
    },
    Pair {
        broken: "specs/verify/broken/report_without_price.fsm",
        fixed: "specs/verify/controls/report_with_price.fsm",
        broken_file: "report_without_price.rs",
        fixed_file: "report_with_price.rs",
        broken_run: broken_invariant::run,
        fixed_run: fixed_invariant::run,
    },
    Pair {
        broken: "specs/verify/broken/report_on_no_majority.fsm",
        fixed: "specs/verify/controls/report_on_agreement.fsm",
        broken_file: "report_on_no_majority.rs",
        fixed_file: "report_on_agreement.rs",
        broken_run: broken_outcome::run,
        fixed_run: fixed_outcome::run,
    },
    Pair {
        broken: "specs/verify/broken/keeper_timeout_resets_forever.fsm",
        fixed: "specs/verify/controls/keeper_timeout_reelects.fsm",
        broken_file: "keeper_timeout_resets_forever.rs",
        fixed_file: "keeper_timeout_reelects.rs",
        broken_run: broken_eventually::run,
        fixed_run: fixed_eventually::run,
    },
];

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
    for p in PAIRS {
        let text = emitted(p.broken, &format!("../{}", p.broken));
        let on_disk = std::fs::read_to_string(dir.join(p.broken_file)).expect("readable");
        assert_eq!(
            text, on_disk,
            "{}: the emitted test changed: emit it again",
            p.broken
        );
        let fixed = std::fs::read_to_string(dir.join(p.fixed_file)).expect("readable");
        assert_eq!(
            fixed,
            on_disk.replace(p.broken, p.fixed),
            "the fixed test names the fixed spec"
        );

        std::panic::set_hook(Box::new(|_| {}));
        let failed = std::panic::catch_unwind(p.broken_run).is_err();
        let passed = std::panic::catch_unwind(p.fixed_run).is_ok();
        let _ = std::panic::take_hook();
        assert!(
            failed,
            "{}: the emitted test passes on the broken spec",
            p.broken
        );
        assert!(
            passed,
            "{}: the emitted test fails on the fixed spec",
            p.fixed
        );
    }
    println!("emitted: each fails on the broken spec, passes on the fixed one");
}
