//! Broken variants of shipped and corpus apps that pass `fsmc check` but hang, livelock or break an invariant,
//! and correct apps that look suspicious: verify flags every broken one and none of the controls.

use super::common::{FOUR_ONE, codes, specs_in};
use fsmc_testkit::workspace;

#[test]
fn every_broken_app_is_flagged() {
    let broken = specs_in(&workspace().join("specs/verify/broken"));
    assert!(broken.len() >= 43, "{} broken apps", broken.len());
    for f in broken {
        let text = std::fs::read_to_string(&f).expect("readable");
        assert!(
            text.starts_with("// "),
            "{}: say what is wrong",
            f.display()
        );
        let found = codes(&f, &FOUR_ONE);
        assert!(!found.is_empty(), "{}: not flagged", f.display());
        assert!(found.iter().all(|c| c.starts_with("E11")), "{found:?}");
    }
}

#[test]
fn no_control_is_flagged() {
    let controls = specs_in(&workspace().join("specs/verify/controls"));
    assert!(controls.len() >= 24, "{} controls", controls.len());
    for f in controls {
        let found = codes(&f, &FOUR_ONE);
        assert!(found.is_empty(), "{}: false alarm {found:?}", f.display());
    }
}

#[test]
fn without_faults_an_all_agree_round_is_fine() {
    // The same broken app with no faulty agent: every agent sends, so the round decides.
    let f = workspace().join("specs/verify/broken/same_all_no_timeout.fsm");
    let none = fsmc_verify::Config {
        faults: 0,
        ..FOUR_ONE
    };
    assert!(codes(&f, &none).is_empty());
}

/// The oracle app with `claims` declared in it, verified: the codes found.
fn oracle_with(claims: &str) -> Vec<&'static str> {
    let dir = workspace().join("specs/oracle");
    let text = std::fs::read_to_string(dir.join("oracle.fsm")).expect("the oracle spec");
    let end = text.rfind('}').expect("the app's closing brace");
    let text = format!("{}{claims}\n}}\n", &text[..end]);
    let c = fsmc_driver::compile_str("oracle.fsm", &text, &dir, &fsmc_driver::Options::default());
    let checked = c
        .checked
        .expect("the oracle with its properties passes `fsmc check`");
    fsmc_verify::verify(&checked, &FOUR_ONE)
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.code.id()))
        .collect()
}

#[test]
fn an_apps_declared_properties_are_checked_on_the_composed_app() {
    // Keys and states of different chained machines, in one formula.
    assert_eq!(
        oracle_with(
            "invariant \"submits with an estimate\": not (in SubmitPriceRound and missing estimate);\n\
             eventually \"resets\": in ResetAndPauseRound;"
        ),
        Vec::<&str>::new()
    );
    assert_eq!(
        oracle_with("invariant \"always an estimate\": has estimate;"),
        ["E1106"]
    );
    // The app registers at start up in its own round; `RegistrationRound` is entered only after a reset that
    // failed, which a fair run need never see.
    assert_eq!(
        oracle_with("eventually \"registers again\": in RegistrationRound;"),
        ["E1107"]
    );
}

/// The oracle app with `claims` declared in it: the codes `fsmc check` reports.
fn oracle_check(claims: &str) -> Vec<&'static str> {
    let dir = workspace().join("specs/oracle");
    let text = std::fs::read_to_string(dir.join("oracle.fsm")).expect("the oracle spec");
    let end = text.rfind('}').expect("the app's closing brace");
    let text = format!("{}{claims}\n}}\n", &text[..end]);
    let c = fsmc_driver::compile_str("oracle.fsm", &text, &dir, &fsmc_driver::Options::default());
    c.diagnostics.iter().map(|d| d.code.id()).collect()
}

#[test]
fn an_apps_properties_speak_of_outcomes_and_the_period() {
    // Every period after the first starts at the observation: registration at start up happens in period 0.
    assert_eq!(
        oracle_with(
            "invariant \"start-up registration in the first period\": not (in RegistrationStartupRound and period at least 1);\n\
             invariant \"a submission follows an election\": not in SubmitPriceRound or after SelectKeeperRound and outcome DONE;\n\
             eventually \"a second period\": period at least 1;"
        ),
        Vec::<&str>::new()
    );
    // A keeper that fails is followed by a new election, not a second submission.
    assert_eq!(
        oracle_with(
            "invariant \"no second submission\": not (in SubmitPriceRound and period is 0 and after SubmitPriceRound);"
        ),
        Vec::<&str>::new()
    );
    assert_eq!(
        oracle_with("invariant \"never a failed submission\": not outcome SUBMISSION_FAILED;"),
        ["E1106"]
    );
    assert_eq!(oracle_check("invariant \"x\": outcome DOEN;"), ["E1105"]);
    assert_eq!(
        oracle_check("invariant \"x\": not after FinishedPriceAggregationRound;"),
        ["E1109"]
    );
    assert_eq!(
        oracle_check("invariant \"x\": not (after SubmitPriceRound and outcome NO_MAJORITY);"),
        ["E1109"]
    );
    assert_eq!(
        oracle_check("invariant \"x\": period at most 5000;"),
        ["E1110"]
    );
}

#[test]
fn a_keeper_from_the_app_is_given_only_to_a_chained_machine() {
    // The control's keeper machine elects no keeper: chained after the election it starts with one, and the
    // composed app is what checks that; on its own nobody ever elects its keeper.
    let dir = workspace().join("specs/verify/controls");
    let text = std::fs::read_to_string(dir.join("chain_keeper_in_later_machine.fsm"))
        .expect("the control");
    let app = text.rfind("\napp ").expect("the control's app");
    let c = fsmc_driver::compile_str(
        "alone.fsm",
        &text[..app],
        &dir,
        &fsmc_driver::Options::default(),
    );
    let checked = c.checked.expect("the machines alone pass `fsmc check`");
    let found: Vec<_> = fsmc_verify::verify(&checked, &FOUR_ONE)
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.code.id()))
        .collect();
    assert_eq!(found, ["E1103"]);
}

#[test]
fn a_chained_keeper_machines_counterexample_is_the_apps() {
    // The keeper round has no timeout: a silent faulty keeper stops the machine alone and the app. The machine
    // alone starts with the app's keeper, which no replay of it can supply, so only the app's run is kept.
    let dir = workspace().join("specs/verify/controls");
    let text = std::fs::read_to_string(dir.join("chain_keeper_in_later_machine.fsm"))
        .expect("the control");
    let text = text.replace("    (SendRound, ROUND_TIMEOUT) -> ResetRound;\n", "");
    let c = fsmc_driver::compile_str("stuck.fsm", &text, &dir, &fsmc_driver::Options::default());
    let checked = c
        .checked
        .expect("the keeper round without a timeout passes `fsmc check`");
    let reports = fsmc_verify::verify(&checked, &FOUR_ONE);
    let flagged: Vec<_> = reports
        .iter()
        .filter(|r| !r.diagnostics.is_empty())
        .map(|r| (r.name.as_str(), r.counterexample.is_some()))
        .collect();
    assert_eq!(
        flagged,
        [("SendAbciApp", false), ("RegisterElectSendAbciApp", true)]
    );
}
