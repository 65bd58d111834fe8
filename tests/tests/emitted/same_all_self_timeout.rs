// A counterexample of `fsmc verify` (E1102), as a regression test: the blocks that break the app, replayed on
// the generated app by `fsmc_runtime::app::replay`. It fails while the spec has the bug, and passes once it is
// fixed.

fsmc_runtime::include_fsm!("../specs/verify/broken/same_all_self_timeout.fsm");

use fsmc_runtime::app::replay::{Group, Planned, Sending};
use fsmc_runtime::app::{App, AppStep, EncodeError, encode};

type Spec = loop_abci_app::Spec;

const GROUP: Group = Group { agents: 4, faults: 1 };
/// Where the loop of blocks the environment can repeat forever begins (`None`: no loop).
const LOOP_FROM: Option<usize> = Some(0);
/// The blocks, each planned for the state it finds the app in: (state, timeout that fires at its start in ms,
/// payloads as (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many)).
const BLOCKS: &[Planned] = &[
    ("CollectRound", 0, &[(true, 0, 3)]),
    ("CollectRound", 30000, &[]),
];

/// A payload of the class `s` names for the state's payload type.
// A value is written as `n as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(s: &Sending<'_, Spec>) -> Result<Vec<u8>, EncodeError> {
    match (s.state, s.class) {
        ("CollectRound", 0) => encode(&{ let v: () = (); v }),
        ("CollectRound", 1) => encode(&{ let v: () = (); v }),
        _ => Ok(Vec::new()),
    }
}

/// No condition on one state: a period that never ends is a property of the run (the replay's `ended`).
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: Option<&AppStep<Spec>>) -> bool {
    false
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
        end.ended || !end.never_ends,
        "the app stays in `{}` (period {}): each time round, the loop of blocks brings the app back to where the loop began without ending the period",
        end.app.state(),
        end.app.period()
    );
}
