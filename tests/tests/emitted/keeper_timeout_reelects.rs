// A counterexample of `fsmc verify` (E1107), as a regression test: the blocks that break the app, replayed on
// the generated app by `fsmc_runtime::app::replay`. It fails while the spec has the bug, and passes once it is
// fixed.

fsmc_runtime::include_fsm!("../specs/verify/controls/keeper_timeout_reelects.fsm");

use fsmc_runtime::app::replay::{Group, Planned, Sending};
use fsmc_runtime::app::{App, AppStep, EncodeError, encode};

type Spec = settle_abci_app::Spec;

const GROUP: Group = Group { agents: 4, faults: 1 };
/// Where the loop of blocks the environment can repeat forever begins (`None`: no loop).
const LOOP_FROM: Option<usize> = Some(0);
/// The blocks, each planned for the state it finds the app in: (state, timeout that fires at its start in ms,
/// payloads as (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many)).
const BLOCKS: &[Planned] = &[
    ("SelectKeeperRound", 0, &[(true, 1, 3)]),
    ("SendRound", 30000, &[]),
    ("ResetRound", 0, &[(true, 0, 3)]),
    ("SelectKeeperRound", 0, &[(true, 1, 3)]),
    ("SendRound", 0, &[]),
    ("SendRound", 30000, &[]),
    ("ResetRound", 0, &[(true, 1, 2), (false, 1, 1)]),
    ("SelectKeeperRound", 0, &[(true, 0, 1), (false, 0, 1), (true, 1, 2)]),
];

/// A payload of the class `s` names for the state's payload type.
// A value is written as `n as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(s: &Sending<'_, Spec>) -> Result<Vec<u8>, EncodeError> {
    match (s.state, s.class) {
        ("SelectKeeperRound", 0) => encode(&{ s.candidate(true) }),
        ("SelectKeeperRound", 1) => encode(&{ s.candidate(false) }),
        ("SendRound", 0) => encode(&{ let v: Option<()> = Some(()); v }),
        ("SendRound", 1) => encode(&{ let v: Option<()> = Some(()); v }),
        ("SendRound", 2) => encode(&{ let v: Option<()> = None; v }),
        ("ResetRound", 0) => encode(&{ let v: () = (); v }),
        ("ResetRound", 1) => encode(&{ let v: () = (); v }),
        _ => Ok(Vec::new()),
    }
}

/// Whether the `eventually` the blocks break holds in the app's state (`led`: the transition that led into it).
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: Option<&AppStep<Spec>>) -> bool {
    (led.is_some_and(|l| l.from.to_string() == "SendRound") && led.is_some_and(|l| l.event.to_string() == "DONE"))
}

#[test]
fn counterexample() {
    replay();
}

/// Replays the blocks and asserts the property they break.
fn replay() {
    let run = fsmc_runtime::app::replay::run(GROUP, BLOCKS, LOOP_FROM, payload, holds);
    // `None`: the app is elsewhere than planned, so the blocks no longer lead where they did.
    let Some(end) = run.unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    assert!(
        end.held || !end.never_ends,
        "eventually \"a transaction settles\" is never satisfied: each time round, the loop of blocks brings the app back to where the loop began, so it repeats forever (now in `{}`)",
        end.app.state()
    );
}
