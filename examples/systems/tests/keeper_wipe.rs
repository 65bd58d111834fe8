//! A registration that leaves only agents that failed as keeper this period wipes their failures, as a
//! keeper failure that leaves none does: otherwise no election could succeed before the next period, and the
//! app would loop between the election and the registration.

fsmc_runtime::include_fsm!("tests/specs/keeper_wipe.fsm");

use fsmc_runtime::app::{App, Block, Genesis, Tx, encode};
use keeper_wipe_abci_app::{Spec, State};

const AGENTS: [&str; 4] = ["a", "b", "c", "d"];

/// Delivers one block holding each `(sender, payload)` for the current round.
fn block(app: &mut App<Spec>, txs: &[(&str, Vec<u8>)]) {
    let txs = txs
        .iter()
        .map(|(s, p)| Tx {
            sender: s.to_string(),
            data: app.submission(p.clone()),
        })
        .collect();
    let height = app.height() + 1;
    let time_ms = app.time_ms() + 1_000;
    app.deliver_block(&Block {
        height,
        time_ms,
        txs,
    })
    .unwrap();
}

/// Everyone in `who` registers.
fn register(app: &mut App<Spec>, who: &[&str]) {
    assert_eq!(app.state(), State::RegistrationRound);
    let txs: Vec<(&str, Vec<u8>)> = who.iter().map(|w| (*w, encode(&()).unwrap())).collect();
    block(app, &txs);
}

/// The participants elect `keeper`, who then reports failure.
fn elect_and_fail(app: &mut App<Spec>, keeper: &str) {
    assert_eq!(app.state(), State::SelectKeeperRound);
    let voters: Vec<String> = app.participants().iter().cloned().collect();
    let txs: Vec<(&str, Vec<u8>)> = voters
        .iter()
        .map(|v| (v.as_str(), encode(&keeper.to_string()).unwrap()))
        .collect();
    block(app, &txs);
    assert_eq!(app.keeper().map(String::as_str), Some(keeper));
    block(app, &[(keeper, encode(&Option::<()>::None).unwrap())]);
}

#[test]
fn a_registration_of_failed_keepers_only_wipes_their_failures() {
    let mut app = App::<Spec>::new(Genesis::new(AGENTS, 0)).unwrap();
    register(&mut app, &AGENTS);
    for keeper in ["a", "b", "c"] {
        elect_and_fail(&mut app, keeper);
    }
    assert_eq!(app.failed_keepers().len(), 3);
    // The election times out and the app registers again, without `d`: every participant has failed.
    let started = app.round_started_ms();
    let height = app.height() + 1;
    app.deliver_block(&Block {
        height,
        time_ms: started + 30_000,
        txs: Vec::new(),
    })
    .unwrap();
    register(&mut app, &["a", "b", "c"]);
    assert_eq!(app.participants().len(), 3);
    assert!(
        app.failed_keepers().is_empty(),
        "{:?}",
        app.failed_keepers()
    );
    // So an election succeeds.
    let txs: Vec<(&str, Vec<u8>)> = ["a", "b", "c"]
        .iter()
        .map(|v| (*v, encode(&"a".to_string()).unwrap()))
        .collect();
    block(&mut app, &txs);
    assert_eq!(app.state(), State::SendRound);
}
