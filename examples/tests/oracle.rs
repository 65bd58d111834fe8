//! The price oracle app run end to end on generated code: rounds decide by the kind's rule, the data flows
//! between rounds and machines, periods reset, a failing keeper is replaced, and runs are deterministic.

use fsmc_examples::oracle::{self, Decision};
use oracle::oracle_abci_app::{Event, State};

fn states(ds: &[Decision]) -> Vec<(State, Event)> {
    ds.iter().map(|d| (d.state, d.event)).collect()
}

#[test]
fn three_periods_run_through_every_machine_of_the_composition() {
    let run = oracle::run(3, None).expect("the app runs");
    assert_eq!(run.data.period(), 3);
    let seen: Vec<&str> = run.decisions.iter().map(|d| d.state.machine()).collect();
    for machine in [
        "AgentRegistrationAbciApp",
        "PriceAggregationAbciApp",
        "ResetPauseAbciApp",
    ] {
        assert!(seen.contains(&machine), "{machine} never ran");
    }
    // Registration happens once; each later period starts at the reset round.
    assert_eq!(
        run.decisions
            .iter()
            .filter(|d| d.state == State::RegistrationStartupRound)
            .count(),
        1
    );
    assert_eq!(
        run.decisions
            .iter()
            .filter(|d| d.state == State::ResetAndPauseRound)
            .count(),
        2
    );
    // The median of 1000, 1007, 1014, 1021 (upper median) was reported, and survived the reset.
    let data = run.data.current();
    assert_eq!(data.last_reported_price, Some(Some(1014)));
    // Cross-period keys carry over; the rest start empty in a new period.
    assert_eq!(data.participants.as_ref().map(|p| p.len()), Some(4));
    assert!(data.estimate.is_none() && data.tx_hash.is_none());
}

#[test]
fn a_failing_keeper_is_replaced_by_a_new_election() {
    // Find who is elected first, then make exactly that instance fail to submit.
    let clean = oracle::run(1, None).unwrap();
    let keeper_of_first_period = {
        let ds = &clean.decisions;
        assert!(ds.iter().any(|d| d.state == State::SelectKeeperRound));
        clean
            .data
            .history()
            .next()
            .and_then(|d| d.keeper.clone())
            .or_else(|| clean.data.current().keeper.clone())
    };
    let keeper = keeper_of_first_period.expect("a keeper was elected");
    let run = oracle::run(1, Some(&keeper)).expect("the app recovers");
    let trail = states(&run.decisions);
    let failed = trail
        .iter()
        .position(|&(s, e)| s == State::SubmitPriceRound && e == Event::SubmissionFailed)
        .expect("the keeper failed");
    // After the failure the app draws new randomness and elects again, then settles.
    assert_eq!(trail[failed + 1].0, State::RandomnessRound);
    assert!(trail[failed..].contains(&(State::SubmitPriceRound, Event::Done)));
}

#[test]
fn runs_are_deterministic() {
    let a = oracle::run(2, None).unwrap();
    let b = oracle::run(2, None).unwrap();
    assert_eq!(a.decisions, b.decisions);
}

#[test]
fn round_thresholds_follow_two_thirds_plus_one() {
    assert_eq!(fsmc_runtime::rounds::threshold(4), 3);
    assert_eq!(fsmc_runtime::rounds::threshold(7), 5);
    assert_eq!(
        State::ValidatePriceRound.round_kind(),
        Some(fsmc_runtime::rounds::RoundKind::Voting)
    );
    assert_eq!(
        State::SubmitPriceRound.outcome_event(fsmc_runtime::rounds::OutcomeKind::Fail),
        Some(Event::SubmissionFailed)
    );
    assert!(State::ResetAndPauseRound.is_reset());
    assert_eq!(
        Event::RoundTimeout.timeout(),
        Some(std::time::Duration::from_secs(30))
    );
}
