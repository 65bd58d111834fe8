//! The replay of planned blocks on the small app of the driver's tests: register, observe, agree, elect a
//! keeper, let it send, reset.

use super::replay::{Group, Planned, ReplayError, Sending, run};
use super::tests::{State, TestApp};
use super::{App, AppError, AppStep, EncodeError, encode};

const GROUP: Group = Group {
    agents: 4,
    faults: 1,
};

/// Every agent registers: the three honest ones, then the faulty one.
const REGISTER: Planned = ("Register", 0, &[(true, 0, 3), (false, 0, 1)]);

/// A value of each class for each state, of the type its round decodes.
fn payload(s: &Sending<'_, TestApp>) -> Result<Vec<u8>, EncodeError> {
    match (s.state, s.class) {
        ("Register", _) => encode(&"v1".to_string()),
        ("Observe", _) => encode(&(100 + s.me as u64)),
        ("Agree", 0) | ("Send", _) => encode(&Some(7u64)),
        ("Agree", _) => encode(&Some(8u64)),
        ("Elect", class) => encode(&s.candidate(class == 0)),
        _ => encode(&0u64),
    }
}

fn in_agree(app: &App<TestApp>, _: Option<&AppStep<TestApp>>) -> bool {
    app.state() == State::Agree
}

#[test]
fn a_run_ends_where_its_blocks_lead() {
    let blocks = [REGISTER, ("Observe", 0, &[(true, 0, 3)])];
    let end = run(GROUP, &blocks, None, payload, in_agree)
        .unwrap()
        .expect("the blocks apply where planned");
    assert_eq!(end.app.state(), State::Agree);
    let led = end.led.expect("a transition");
    assert_eq!((led.from, led.to), (State::Observe, State::Agree));
    assert!(end.held);
    // Without a loop the run never ends only when the app finishes, which this app never does.
    assert!(!end.ended && !end.never_ends);
}

#[test]
fn payloads_come_from_the_first_agents_of_their_group_that_have_not_sent() {
    let blocks: [Planned; 1] = [("Register", 0, &[(true, 0, 1), (true, 0, 2), (false, 0, 1)])];
    let mut seen = Vec::new();
    let encoder = |s: &Sending<'_, TestApp>| {
        seen.push((s.me, s.next));
        payload(s)
    };
    let end = run(GROUP, &blocks, None, encoder, in_agree).unwrap();
    assert_eq!(end.expect("applies").app.state(), State::Observe);
    // `next` is the first honest agent that has not sent when the group's turn comes, and 0 once all have.
    assert_eq!(seen, [(0, 0), (1, 1), (2, 1), (3, 0)]);
}

#[test]
fn an_app_elsewhere_stops_the_replay() {
    let blocks = [REGISTER, ("Agree", 0, &[(true, 0, 3)])];
    let end = run(GROUP, &blocks, None, payload, in_agree).unwrap();
    assert!(end.is_none(), "the app is in `Observe`, not `Agree`");
}

#[test]
fn a_loop_that_brings_the_app_back_repeats_forever() {
    // The observation round times out with no payload, back into itself, each time round the same.
    let blocks = [REGISTER, ("Observe", 10_000, &[])];
    let end = run(GROUP, &blocks, Some(1), payload, in_agree)
        .unwrap()
        .expect("applies");
    assert!(end.never_ends && !end.held && !end.ended);
    assert_eq!(end.app.state(), State::Observe);
    assert_eq!(end.app.height(), 4, "the stem, then the loop three times");
}

#[test]
fn a_loop_that_changes_the_app_is_not_shown_to_repeat() {
    // A whole period: the first time round it starts without the cross-period estimate, then with it.
    let blocks = [
        REGISTER,
        ("Observe", 0, &[(true, 0, 3)]),
        ("Agree", 0, &[(true, 0, 3)]),
        ("Elect", 0, &[(true, 0, 3)]),
        ("Send", 0, &[(true, 0, 1)]),
        ("Reset", 0, &[(true, 0, 3)]),
    ];
    let end = run(GROUP, &blocks, Some(1), payload, in_agree)
        .unwrap()
        .expect("applies");
    assert!(end.held && end.ended && !end.never_ends);
    assert_eq!((end.app.state(), end.app.period()), (State::Observe, 3));
    assert_eq!(end.app.keeper(), None, "a new period forgets the keeper");
}

#[test]
fn a_block_that_does_not_apply_is_an_error_with_its_index() {
    // The third block's timeout fires at 1.5 s, before the second block's time (2 s).
    let blocks = [REGISTER, ("Observe", 0, &[]), ("Observe", 500, &[])];
    let err = run(GROUP, &blocks, None, payload, in_agree).unwrap_err();
    assert_eq!(
        err,
        ReplayError::Block {
            block: 2,
            error: AppError::TimeWentBack {
                last_ms: 2_000,
                got_ms: 1_500
            }
        }
    );
    assert_eq!(
        err.to_string(),
        "block 2 does not apply: block time 1500 ms is before the previous block's 2000 ms"
    );
}

#[test]
fn a_payload_that_does_not_encode_is_an_error_with_its_block() {
    let refuse = |_: &Sending<'_, TestApp>| Err(EncodeError("a NaN".to_string()));
    let err = run(GROUP, &[REGISTER], None, refuse, in_agree).unwrap_err();
    assert_eq!(err.to_string(), "block 0: cannot encode the payload: a NaN");
}

#[test]
fn a_group_without_agents_builds_no_app() {
    let none = Group {
        agents: 0,
        faults: 0,
    };
    let err = run(none, &[REGISTER], None, payload, in_agree).unwrap_err();
    assert_eq!(err, ReplayError::Genesis(AppError::NoAgents));
}

#[test]
fn the_last_agents_are_the_faulty_ones() {
    assert!(GROUP.honest("agent-2"));
    assert!(!GROUP.honest("agent-3"));
    assert!(!GROUP.honest("someone"));
    let blocks = [REGISTER];
    let end = run(GROUP, &blocks, None, payload, in_agree)
        .unwrap()
        .expect("applies");
    assert_eq!(GROUP.candidate(&end.app, true), "agent-0");
    assert_eq!(GROUP.candidate(&end.app, false), "agent-3");
}
