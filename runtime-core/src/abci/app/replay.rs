//! Replays a counterexample of `fsmc verify` on an app: the driver of the tests `fsmc verify --emit-test`
//! writes, so that an emitted test holds only what is specific to its counterexample.
//!
//! A counterexample is a list of [`Planned`] blocks, each planned for the state it finds the app in. [`run`]
//! builds the app over a [`Group`] of agents and feeds it the blocks through [`App::deliver_block`]: each
//! block's payloads are sent by the first agents of their group (honest or faulty) that the round expects and
//! that have not sent in it yet, with a value the test's payload encoder writes for the state and the payload's
//! class. A lasso (a stem, then a loop of blocks the environment can repeat forever) is replayed as its stem,
//! then the loop three times.
//!
//! Along the way the replay evaluates the test's formula in every state the app goes through, notes whether
//! the period in which the loop began ended, and takes a snapshot of the app at each start of the loop and at
//! the end. What it found is a [`Replayed`]; the test asserts its property on it (docs/verify.md shows a whole
//! emitted test).

use super::{AgentId, App, AppError, AppSpec, AppStep, Block, EncodeError, Genesis, NoRounds, Tx};
use std::collections::BTreeSet;
use std::fmt::{self, Display, Formatter};

/// The agents of a replay, `agent-0` to `agent-{agents - 1}`: the last `faults` of them are the faulty ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// How many agents the genesis names.
    pub agents: usize,
    /// How many of them are faulty.
    pub faults: usize,
}

impl Group {
    /// The name of agent `i`.
    pub fn agent(i: usize) -> AgentId {
        format!("agent-{i}")
    }

    /// Whether `id` is one of the honest agents.
    pub fn honest(&self, id: &str) -> bool {
        (0..self.agents.saturating_sub(self.faults)).any(|i| Self::agent(i) == id)
    }

    /// An agent that may be elected keeper in `app`, honest or not as `from_honest` says: the first
    /// participant of that group that has not failed as keeper this period, or else the last agent.
    pub fn candidate<S: AppSpec>(&self, app: &App<S>, from_honest: bool) -> AgentId {
        app.participants()
            .iter()
            .find(|a| self.honest(a) == from_honest && !app.failed_keepers().contains(*a))
            .cloned()
            .unwrap_or_else(|| Self::agent(self.agents.saturating_sub(1)))
    }
}

/// Payloads of one group in a planned block: whether they come from honest agents, their class (0: the value
/// the group agrees on, 1: another value, 2: an empty payload) and how many agents send one.
pub type Sends = (bool, u8, u8);

/// A planned block: the name of the state it finds the app in, the timeout that fires at its start (its
/// duration in ms; 0: none, and the block comes a second after the one before) and its payloads.
pub type Planned = (&'static str, u64, &'static [Sends]);

/// One agent about to send a payload in a replayed block: what the test's payload encoder writes a value for.
pub struct Sending<'a, S: AppSpec> {
    /// The state the block was planned for (the app is in it).
    pub state: &'a str,
    /// The payload's class, as in [`Sends`].
    pub class: u8,
    /// The index of the sending agent.
    pub me: usize,
    /// The index of the first honest agent the round still expects a payload from (0 when none): a value
    /// tied to another agent than the sender, for rounds that want every agent's value different.
    pub next: usize,
    /// The app before the block.
    pub app: &'a App<S>,
    /// The agents.
    pub group: Group,
}

impl<S: AppSpec> Sending<'_, S> {
    /// An agent that may be elected keeper, honest or not: [`Group::candidate`] in the app before the block.
    pub fn candidate(&self, from_honest: bool) -> AgentId {
        self.group.candidate(self.app, from_honest)
    }
}

/// What a replay found, once every block applied in the state planned for it.
#[derive(Debug)]
pub struct Replayed<S: AppSpec> {
    /// The app after the last block.
    pub app: App<S>,
    /// The last transition of the last block that made one: what led into the app's state.
    pub led: Option<AppStep<S>>,
    /// Whether the formula held in some state on the way, the genesis's included.
    pub held: bool,
    /// Whether the period in which the loop began ended, or the app finished.
    pub ended: bool,
    /// With a loop: whether each time round it brought the app back to where it began, so that it repeats
    /// forever (a replica is a deterministic function of its blocks). Without one: whether the app finished.
    pub never_ends: bool,
}

/// Why a replay could not go on: a fault of the test, not of the app's property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The app could not be built over the group.
    Genesis(AppError),
    /// A payload of block `block` (counted in the order replayed) could not be encoded.
    Payload {
        /// The block's index.
        block: usize,
        /// Why.
        error: EncodeError,
    },
    /// Block `block` (counted in the order replayed) did not apply.
    Block {
        /// The block's index.
        block: usize,
        /// Why.
        error: AppError,
    },
}

impl Display for ReplayError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Genesis(e) => write!(f, "the app cannot be built: {e}"),
            Self::Payload { block, error } => write!(f, "block {block}: {error}"),
            Self::Block { block, error } => write!(f, "block {block} does not apply: {error}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// How many times a lasso's loop is replayed: twice would compare one return to the loop's start; three times
/// also shows the return repeats.
const LOOPS: usize = 3;

/// Replays `blocks` on a new app over `group` (genesis time 0), the loop from `loop_from` on three times, with
/// the payloads `payload` encodes; `holds` is the formula evaluated in every state the app goes through, given
/// the transition that led into it.
///
/// `Ok(None)` when a block finds the app elsewhere than planned, or finished: the blocks no longer lead where
/// they did, so the run they showed is gone.
pub fn run<S: AppSpec<Logic = NoRounds>>(
    group: Group,
    blocks: &[Planned],
    loop_from: Option<usize>,
    mut payload: impl FnMut(&Sending<'_, S>) -> Result<Vec<u8>, EncodeError>,
    mut holds: impl FnMut(&App<S>, Option<&AppStep<S>>) -> bool,
) -> Result<Option<Replayed<S>>, ReplayError> {
    let ids: Vec<AgentId> = (0..group.agents).map(Group::agent).collect();
    let mut app = App::<S>::new(Genesis::new(ids, 0)).map_err(ReplayError::Genesis)?;
    let loop_from = loop_from.filter(|&l| l < blocks.len());
    let stem = loop_from.unwrap_or(blocks.len());
    let planned = || blocks.iter().copied().enumerate();
    let mut schedule: Vec<(usize, Planned)> = planned().take(stem).collect();
    if loop_from.is_some() {
        for _ in 0..LOOPS {
            schedule.extend(planned().skip(stem));
        }
    }
    let mut sent: BTreeSet<AgentId> = BTreeSet::new();
    let mut round = app.round_count();
    let mut period = None;
    let mut ended = false;
    let mut led: Option<AppStep<S>> = None;
    let mut held = holds(&app, None);
    let mut starts: Vec<String> = Vec::new();
    for (n, (i, (state, timeout, sends))) in schedule.into_iter().enumerate() {
        if Some(i) == loop_from {
            period.get_or_insert(app.period());
            starts.push(snapshot(&app));
        }
        if app.state().to_string() != state || app.is_finished() {
            return Ok(None);
        }
        // A round takes one payload from each agent; a new round (even of the same state) takes them anew.
        if app.round_count() != round {
            sent.clear();
            round = app.round_count();
        }
        // A planned timeout fires at the first block whose time has reached it; other blocks come a second apart.
        let time_ms = if timeout > 0 {
            app.round_started_ms().saturating_add(timeout)
        } else {
            app.time_ms().saturating_add(1000)
        };
        let txs = transactions(group, &app, state, sends, &mut sent, &mut payload)
            .map_err(|error| ReplayError::Payload { block: n, error })?;
        let height = app.height().saturating_add(1);
        let report = app
            .deliver_block(&Block {
                height,
                time_ms,
                txs,
            })
            .map_err(|error| ReplayError::Block { block: n, error })?;
        if let Some(step) = report.steps.into_iter().last() {
            led = Some(step);
        }
        if period.is_some_and(|p| app.period() != p) || app.is_finished() {
            ended = true;
        }
        held |= holds(&app, led.as_ref());
    }
    starts.push(snapshot(&app));
    // A replica is a deterministic function of its blocks: a loop that brings the app back to where it began,
    // fed the same blocks again, goes round the same way forever.
    let never_ends = match loop_from {
        Some(_) => starts.windows(2).all(|w| matches!(w, [a, b] if a == b)),
        None => app.is_finished(),
    };
    Ok(Some(Replayed {
        app,
        led,
        held,
        ended,
        never_ends,
    }))
}

/// The transactions of one block in `state`: for each group of `sends`, its first agents the round expects
/// that have not sent in it yet (noted in `sent`), each with the payload `payload` encodes.
fn transactions<S: AppSpec>(
    group: Group,
    app: &App<S>,
    state: &str,
    sends: &[Sends],
    sent: &mut BTreeSet<AgentId>,
    payload: &mut impl FnMut(&Sending<'_, S>) -> Result<Vec<u8>, EncodeError>,
) -> Result<Vec<Tx>, EncodeError> {
    let mut txs = Vec::new();
    for &(from_honest, class, count) in sends {
        let next = (0..group.agents)
            .map(Group::agent)
            .position(|id| group.honest(&id) && app.eligible().contains(&id) && !sent.contains(&id))
            .unwrap_or(0);
        let senders: Vec<usize> = (0..group.agents)
            .filter(|&j| {
                let id = Group::agent(j);
                group.honest(&id) == from_honest && app.expects(&id) && !sent.contains(&id)
            })
            .take(usize::from(count))
            .collect();
        for me in senders {
            let data = payload(&Sending {
                state,
                class,
                me,
                next,
                app,
                group,
            })?;
            sent.insert(Group::agent(me));
            txs.push(Tx {
                sender: Group::agent(me),
                data: app.submission(data),
            });
        }
    }
    Ok(txs)
}

/// Everything the app's next blocks depend on: where it is, its data, the round in progress, the participants,
/// the keeper and the failed keepers (not the height, the time or the period number, which only count).
fn snapshot<S: AppSpec>(app: &App<S>) -> String {
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
