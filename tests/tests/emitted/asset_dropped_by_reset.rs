// A counterexample of `fsmc verify` (E1104), as a regression test: the blocks that break the app, replayed on
// the generated app by `fsmc_runtime::app::replay`. It fails while the spec has the bug, and passes once it is
// fixed.

fsmc_runtime::include_fsm!("../specs/verify/broken/asset_dropped_by_reset.fsm");

use fsmc_runtime::app::replay::{Group, Planned, Sending};
use fsmc_runtime::app::{App, AppStep, EncodeError, encode};

type Spec = price_abci_app::Spec;

const GROUP: Group = Group { agents: 4, faults: 1 };
/// Where the loop of blocks the environment can repeat forever begins (`None`: no loop).
const LOOP_FROM: Option<usize> = None;
/// The blocks, each planned for the state it finds the app in: (state, timeout that fires at its start in ms,
/// payloads as (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many)).
const BLOCKS: &[Planned] = &[
    ("ObserveRound", 0, &[(true, 1, 2), (false, 1, 1)]),
    ("ResetRound", 0, &[(true, 1, 2), (false, 1, 1)]),
];

/// A payload of the class `s` names for the state's payload type.
// A value is written as `n as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(s: &Sending<'_, Spec>) -> Result<Vec<u8>, EncodeError> {
    match (s.state, s.class) {
        ("ObserveRound", 0) => encode(&{ let v: String = ::std::format!("v{}", 0); v }),
        ("ObserveRound", 1) => encode(&{ let v: String = ::std::format!("v{}", 1); v }),
        ("ResetRound", 0) => encode(&{ let v: () = (); v }),
        ("ResetRound", 1) => encode(&{ let v: () = (); v }),
        _ => Ok(Vec::new()),
    }
}

/// Whether `asset` is present in the app's data, if the app is in `ObserveRound`.
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: Option<&AppStep<Spec>>) -> bool {
    !(app.state().to_string() == "ObserveRound") || app.data().asset.is_some()
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
        holds(&end.app, end.led.as_ref()),
        "`{}` is entered without `asset`",
        end.app.state()
    );
}
