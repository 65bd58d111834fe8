//! Block confirmations and rejoining, through a generated app: the scenario upstream's `RegistrationRound`
//! exists for. Four agents, a registration threshold of three: without confirmations the round closes on the
//! first three and the fourth's registration a block later is refused; with `confirmations 2;` the round keeps
//! collecting for two more blocks and the late agent becomes a participant. An agent left out of one
//! registration rejoins at the next, as upstream's `_allow_rejoin_payloads` lets it.
//!
//! The round kinds themselves are checked against upstream's classes in `upstream_rounds.rs`; this is the app
//! built from `confirmations N;` and `registration;` by the code generator.

use std::collections::BTreeSet;

use fsmc_runtime::app::{App, Block, BlockReport, Genesis, Rejection, Submission, Tx, encode};
use fsmc_runtime::rounds::RoundError;

fsmc_runtime::fsm!(
    r#"
    /// Registers with a threshold and no confirmations: the first block at the threshold closes the round.
    machine ClosesAbciApp: abci {
        event DONE;
        event NO_MAJORITY;
        /// What the agents registered with.
        cross_period key setup: u64;
        /// Each participant's contribution.
        key work: std::collections::BTreeMap<String, u64>;

        start default state RegistrationRound: collect_same_until_threshold {
            payload "u64";
            registration;
            writes setup;
        }
        state WorkRound: collect_different_until_threshold {
            payload "u64";
            writes work;
        }
        state ResetRound: collect_same_until_threshold {
            payload "u64";
            reset;
        }
        (RegistrationRound, DONE) -> WorkRound;
        (RegistrationRound, NO_MAJORITY) -> RegistrationRound;
        (WorkRound, DONE) -> ResetRound;
        (ResetRound, DONE) -> RegistrationRound;
        (ResetRound, NO_MAJORITY) -> RegistrationRound;
    }

    /// The same service, whose registration waits two blocks after its threshold.
    machine WaitsAbciApp: abci {
        event DONE;
        event NO_MAJORITY;
        /// What the agents registered with.
        cross_period key setup: u64;
        /// Each participant's contribution.
        key work: std::collections::BTreeMap<String, u64>;

        start default state RegistrationRound: collect_same_until_threshold {
            payload "u64";
            registration;
            confirmations 2;
            writes setup;
        }
        state WorkRound: collect_different_until_threshold {
            payload "u64";
            writes work;
        }
        state ResetRound: collect_same_until_threshold {
            payload "u64";
            reset;
        }
        (RegistrationRound, DONE) -> WorkRound;
        (RegistrationRound, NO_MAJORITY) -> RegistrationRound;
        (WorkRound, DONE) -> ResetRound;
        (ResetRound, DONE) -> RegistrationRound;
        (ResetRound, NO_MAJORITY) -> RegistrationRound;
    }
"#
);

const AGENTS: [&str; 4] = ["agent-0", "agent-1", "agent-2", "agent-3"];

fn genesis() -> Genesis {
    Genesis::new(AGENTS, 0)
}

/// A transaction from `sender` carrying `value` for round `round`.
fn tx(sender: &str, round: u64, value: u64) -> Tx {
    Tx {
        sender: sender.to_string(),
        data: Submission {
            round,
            payload: encode(&value).unwrap(),
        }
        .encode(),
    }
}

/// Feeds the next block: `senders` each send `value` to the round the app is in (or to `round`, if given).
fn feed<S: fsmc_runtime::app::AppSpec>(
    app: &mut App<S>,
    senders: &[&str],
    round: Option<u64>,
    value: u64,
) -> BlockReport<S> {
    let round = round.unwrap_or(app.round_count());
    let height = app.height() + 1;
    let block = Block {
        height,
        time_ms: height * 1_000,
        txs: senders.iter().map(|s| tx(s, round, value)).collect(),
    };
    app.deliver_block(&block).unwrap()
}

fn set(agents: &[&str]) -> BTreeSet<String> {
    agents.iter().map(|a| a.to_string()).collect()
}

#[test]
fn without_confirmations_a_registration_one_block_late_is_refused() {
    let mut app = closes_abci_app::App::new(genesis()).unwrap();
    let report = feed(&mut app, &AGENTS[..3], None, 7);
    assert_eq!(
        report.steps.len(),
        1,
        "the first block at the threshold decides"
    );
    assert_eq!(app.state(), closes_abci_app::State::WorkRound);
    // The fourth registers a block later, for the registration round: that round is over.
    let late = feed(&mut app, &AGENTS[3..], Some(0), 7);
    assert!(matches!(
        late.rejected[0].reason,
        Rejection::WrongRound { got: 0, .. }
    ));
    assert_eq!(app.participants(), &set(&AGENTS[..3]));
    // And it is no participant of the work round.
    let work = feed(&mut app, &AGENTS[3..], None, 1);
    assert_eq!(
        work.rejected[0].reason,
        Rejection::Round(RoundError::NotAParticipant)
    );
}

#[test]
fn with_confirmations_the_late_agent_registers_and_takes_part() {
    let mut app = waits_abci_app::App::new(genesis()).unwrap();
    assert!(
        feed(&mut app, &AGENTS[..3], None, 7).steps.is_empty(),
        "threshold reached: first of three blocks"
    );
    let late = feed(&mut app, &AGENTS[3..], None, 7);
    assert!(late.rejected.is_empty() && late.steps.is_empty());
    // A block without transactions counts as well; the third block at the threshold decides, on all four.
    let decided = feed(&mut app, &[], None, 0);
    assert_eq!(decided.steps.len(), 1);
    assert_eq!(app.state(), waits_abci_app::State::WorkRound);
    assert_eq!(app.participants(), &set(&AGENTS));
    assert_eq!(app.data().setup, Some(7));
    let work = feed(&mut app, &AGENTS, None, 1);
    assert!(work.rejected.is_empty());
    assert_eq!(app.data().work.as_ref().map(|w| w.len()), Some(4));
}

#[test]
fn an_agent_left_out_of_one_registration_rejoins_at_the_next() {
    let mut app = waits_abci_app::App::new(genesis()).unwrap();
    // Agent 3 is down during the whole first registration.
    for senders in [&AGENTS[..3], &[], &[]] {
        feed(&mut app, senders, None, 7);
    }
    assert_eq!(app.participants(), &set(&AGENTS[..3]));
    let work = feed(&mut app, &AGENTS, None, 1);
    assert_eq!(
        work.rejected
            .iter()
            .map(|r| (r.sender.as_str(), &r.reason))
            .collect::<Vec<_>>(),
        [("agent-3", &Rejection::Round(RoundError::NotAParticipant))]
    );
    assert_eq!(app.state(), waits_abci_app::State::ResetRound);
    feed(&mut app, &AGENTS[..3], None, 0);
    assert_eq!(
        (app.state(), app.period()),
        (waits_abci_app::State::RegistrationRound, 1)
    );
    // Back, it registers with the others: registration takes payloads from every agent of the genesis.
    for senders in [&AGENTS[..], &[], &[]] {
        let report = feed(&mut app, senders, None, 7);
        assert!(report.rejected.is_empty());
    }
    assert_eq!(app.state(), waits_abci_app::State::WorkRound);
    assert_eq!(app.participants(), &set(&AGENTS));
}
