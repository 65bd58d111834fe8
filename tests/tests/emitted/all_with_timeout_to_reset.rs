// A counterexample of `fsmc verify` (E1102), as a regression test: the blocks that break the app, fed to
// the generated app's `deliver_block`. It fails while the spec has the bug, and passes once it is fixed.

fsmc_runtime::include_fsm!("../specs/verify/controls/all_with_timeout_to_reset.fsm");

use fsmc_runtime::app::{App, Block, Genesis, Tx, encode};
use std::collections::BTreeSet;

type Spec = loop_abci_app::Spec;

const AGENTS: usize = 4;
const FAULTS: usize = 1;
/// Where the loop of blocks that never ends the period begins (`usize::MAX`: no loop).
const LOOP_FROM: usize = 0;
/// A block: the state it finds the app in, the timeout that fires at its start (ms, 0: none), and its
/// payloads: (from honest agents, class: 0 the agreed value, 1 another, 2 empty, how many).
type Planned = (&'static str, u64, &'static [(bool, u8, u8)]);

const BLOCKS: &[Planned] = &[
    ("CollectRound", 0, &[(true, 0, 3)]),
    ("CollectRound", 30000, &[]),
];

fn agent(i: usize) -> String {
    format!("agent-{i}")
}

fn honest(id: &str) -> bool {
    (0..AGENTS - FAULTS).any(|i| agent(i) == id)
}

/// An agent of the group that may be elected keeper: a participant that has not failed this period.
#[allow(dead_code)]
fn candidate(app: &App<Spec>, from_honest: bool) -> String {
    app.participants()
        .iter()
        .find(|a| honest(a) == from_honest && !app.failed_keepers().contains(*a))
        .cloned()
        .unwrap_or_else(|| agent(AGENTS - 1))
}

// A value is written as `(n) as T` whatever `n` is, a literal included.
#[allow(clippy::unnecessary_cast)]
fn payload(state: &str, class: u8, me: usize, next: usize, app: &App<Spec>) -> Vec<u8> {
    let _ = (me, next, app);
    let bytes = match (state, class) {
        ("CollectRound", 0) => encode(&{ let v: () = (); v }),
        ("CollectRound", 1) => encode(&{ let v: () = (); v }),
        _ => Ok(Vec::new()),
    };
    bytes.expect("the payload encodes")
}

/// Whether the `eventually` the blocks break holds in the app's state (`led`: the transition that led into it).
#[allow(unused_variables, unused_parens, clippy::nonminimal_bool)]
fn holds(app: &App<Spec>, led: &Option<(String, String)>) -> bool {
    false
}

/// Everything the app's next blocks depend on: where it is, its data, the round in progress, the participants
/// and the keeper (not the height, the time or the period number, which only count).
fn snapshot(app: &App<Spec>) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?}",
        app.state(),
        app.data(),
        app.round(),
        app.participants(),
        app.keeper(),
        app.failed_keepers()
    )
}

#[test]
fn counterexample() {
    replay();
}

/// Replays the blocks and asserts the property they break.
// `LOOP_FROM` is `usize::MAX` when there is no loop, which makes its comparisons constant; the property's formula
// is written as the spec states it, not as clippy would simplify it.
#[allow(clippy::absurd_extreme_comparisons, clippy::nonminimal_bool)]
fn replay() {
    let ids: Vec<String> = (0..AGENTS).map(agent).collect();
    let mut app = App::<Spec>::new(Genesis::new(ids.clone(), 0)).expect("genesis");
    let mut sent: BTreeSet<String> = BTreeSet::new();
    let mut round = app.round_count();
    let prefix = if LOOP_FROM < BLOCKS.len() { LOOP_FROM } else { BLOCKS.len() };
    let mut schedule: Vec<usize> = (0..prefix).collect();
    if LOOP_FROM < BLOCKS.len() {
        for _ in 0..3 {
            schedule.extend(LOOP_FROM..BLOCKS.len());
        }
    }
    let mut period = None;
    let mut ended = false;
    // The transition that led into the current state: the state it left and its event.
    let mut led: Option<(String, String)> = None;
    // For an `eventually`: whether its formula held in a state on the way, and the app at each start of the loop.
    let mut held = holds(&app, &led);
    let mut starts: Vec<String> = Vec::new();
    for (n, &i) in schedule.iter().enumerate() {
        let (state, timeout, sends) = BLOCKS[i];
        if i == LOOP_FROM && period.is_none() {
            period = Some(app.period());
        }
        if i == LOOP_FROM {
            starts.push(snapshot(&app));
        }
        if app.state().to_string() != state || app.is_finished() {
            // The app is elsewhere: the blocks no longer lead where they did.
            return;
        }
        if app.round_count() != round {
            sent.clear();
            round = app.round_count();
        }
        let time_ms = if timeout > 0 {
            app.round_started_ms() + timeout
        } else {
            app.time_ms() + 1000
        };
        let mut txs = Vec::new();
        for &(from_honest, class, count) in sends {
            let next = (0..AGENTS)
                .find(|j| honest(&agent(*j)) && app.eligible().contains(&agent(*j)) && !sent.contains(&agent(*j)))
                .unwrap_or(0);
            let senders: Vec<usize> = (0..AGENTS)
                .filter(|j| {
                    let id = agent(*j);
                    honest(&id) == from_honest && app.expects(&id) && !sent.contains(&id)
                })
                .take(usize::from(count))
                .collect();
            for j in senders {
                let data = payload(state, class, j, next, &app);
                sent.insert(agent(j));
                txs.push(Tx { sender: agent(j), data: app.submission(data) });
            }
        }
        let height = app.height() + 1;
        match app.deliver_block(&Block { height, time_ms, txs }) {
            Ok(report) => {
                if let Some(s) = report.steps.last() {
                    led = Some((s.from.to_string(), s.event.to_string()));
                }
            }
            Err(e) => panic!("block {n} does not apply: {e}"),
        }
        if period.is_some_and(|p| app.period() != p) || app.is_finished() {
            ended = true;
        }
        held |= holds(&app, &led);
    }
    starts.push(snapshot(&app));
    // The loop repeats forever when every time round it brings the app back to where it began: a replica is a
    // deterministic function of its blocks. Without a loop, the run ends.
    let never_ends = if LOOP_FROM < BLOCKS.len() {
        starts.windows(2).all(|w| w[0] == w[1])
    } else {
        app.is_finished()
    };
    let _ = (ended, held, never_ends);
    assert!(
        ended || !never_ends,
        "the app stays in `{}` (period {}): each time round, the loop of blocks brings the app back to where the loop began without ending the period",
        app.state(),
        app.period()
    );
}
