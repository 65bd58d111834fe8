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

// A keeper round without a live keeper (E1103): the test asserts, in that round, a keeper that is a participant
// and has not failed this period.
mod broken_keeper {
    include!("emitted/keeper_elected_before_registration.rs");
    pub fn run() {
        replay();
    }
}

mod fixed_keeper {
    include!("emitted/keeper_elected_after_registration.rs");
    pub fn run() {
        replay();
    }
}

// A key missing on entry (E1104): the test asserts, in the state that needs it, that the key is present.
mod broken_key {
    include!("emitted/asset_dropped_by_reset.rs");
    pub fn run() {
        replay();
    }
}

mod fixed_key {
    include!("emitted/asset_kept_across_periods.rs");
    pub fn run() {
        replay();
    }
}

/// A broken spec and its fix: the specs, the emitted files, their replays, and what the broken one's failure
/// says (the property's message, not a replay that went wrong).
struct Pair {
    broken: &'static str,
    fixed: &'static str,
    broken_file: &'static str,
    fixed_file: &'static str,
    broken_run: fn(),
    fixed_run: fn(),
    message: &'static str,
}

const PAIRS: &[Pair] = &[
    Pair {
        broken: "specs/verify/broken/same_all_self_timeout.fsm",
        fixed: "specs/verify/controls/all_with_timeout_to_reset.fsm",
        broken_file: "same_all_self_timeout.rs",
        fixed_file: "all_with_timeout_to_reset.rs",
        broken_run: broken::run,
        fixed_run: fixed::run,
        message: "the app stays in `CollectRound` (period 0)",
    },
    Pair {
        broken: "specs/verify/broken/report_without_price.fsm",
        fixed: "specs/verify/controls/report_with_price.fsm",
        broken_file: "report_without_price.rs",
        fixed_file: "report_with_price.rs",
        broken_run: broken_invariant::run,
        fixed_run: fixed_invariant::run,
        message: "invariant \"a report has a price\" fails in `ReportRound`",
    },
    Pair {
        broken: "specs/verify/broken/report_on_no_majority.fsm",
        fixed: "specs/verify/controls/report_on_agreement.fsm",
        broken_file: "report_on_no_majority.rs",
        fixed_file: "report_on_agreement.rs",
        broken_run: broken_outcome::run,
        fixed_run: fixed_outcome::run,
        message: "invariant \"a report follows an agreed observation\" fails in `ReportRound`",
    },
    Pair {
        broken: "specs/verify/broken/keeper_timeout_resets_forever.fsm",
        fixed: "specs/verify/controls/keeper_timeout_reelects.fsm",
        broken_file: "keeper_timeout_resets_forever.rs",
        fixed_file: "keeper_timeout_reelects.rs",
        broken_run: broken_eventually::run,
        fixed_run: fixed_eventually::run,
        message: "eventually \"a transaction settles\" is never satisfied",
    },
    Pair {
        broken: "specs/verify/broken/keeper_elected_before_registration.fsm",
        fixed: "specs/verify/controls/keeper_elected_after_registration.fsm",
        broken_file: "keeper_elected_before_registration.rs",
        fixed_file: "keeper_elected_after_registration.rs",
        broken_run: broken_keeper::run,
        fixed_run: fixed_keeper::run,
        message: "keeper round `SettleRound` runs without a live keeper",
    },
    Pair {
        broken: "specs/verify/broken/asset_dropped_by_reset.fsm",
        fixed: "specs/verify/controls/asset_kept_across_periods.fsm",
        broken_file: "asset_dropped_by_reset.rs",
        fixed_file: "asset_kept_across_periods.rs",
        broken_run: broken_key::run,
        fixed_run: fixed_key::run,
        message: "`ObserveRound` is entered without `asset`",
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
        let failed = std::panic::catch_unwind(p.broken_run).err();
        let passed = std::panic::catch_unwind(p.fixed_run).is_ok();
        let _ = std::panic::take_hook();
        let failure = failed
            .unwrap_or_else(|| panic!("{}: the emitted test passes on the broken spec", p.broken));
        // `assert!` with arguments panics with a `String`, one without them with a `&str`.
        let said = failure
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| failure.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        assert!(
            said.contains(p.message),
            "{}: the emitted test fails with {said:?}, not with the property's message {:?}",
            p.broken,
            p.message
        );
        assert!(
            passed,
            "{}: the emitted test fails on the fixed spec",
            p.fixed
        );
    }
    println!(
        "emitted: each fails on the broken spec with its property's message, passes on the fixed one"
    );
}
