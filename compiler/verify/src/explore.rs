//! The explicit-state search: every abstract state of the app reachable under the adversarial environment,
//! each stored once by value (its fingerprint is its hash in the table), with every block's step out of it.
//!
//! An abstract state is the replica's state with agents counted instead of named: the current state, which keys
//! are present, the participants and the keeper by group (honest, faulty), how many keepers of each group failed
//! this period, and the round's payloads by class. The period number is left out (a period's behaviour does not
//! depend on it, so two periods that reach the same abstract state continue alike), except as far as a declared
//! property compares it; so is the transition that led into the state, except as far as one speaks of it.

use crate::model::{Edge, Model, Role};
use crate::round::{self, A, B, CLASSES, Collected, FAULTY, HONEST, Members, NONE, Sends};
use fsmc_base::source::Span;
use fsmc_model::spec::{KeyId, StateId};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use indexmap::IndexSet;
use std::time::Duration;

/// The environment's size: agents, of which at most `faults` are faulty (crashed, silent or Byzantine).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub agents: u8,
    pub faults: u8,
    /// The search stops after this many distinct states.
    pub max_states: usize,
}

/// One abstract state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Abs {
    pub state: StateId,
    pub keys: Box<[u64]>,
    /// Participants, by group.
    pub part: [u8; 2],
    /// The elected keeper's group, and whether it failed this period.
    pub keeper: Option<usize>,
    pub keeper_failed: bool,
    /// How many keepers of each group failed this period.
    pub failed: [u8; 2],
    pub round: Collected,
    /// Whether a round is open (a non-final state with someone to send).
    pub open: bool,
    /// Whether the service has started: its first registration decided. A service starts once all its agents
    /// are up, so until then every agent is honest; the faulty ones are picked among the registered.
    pub started: bool,
    /// The class of the transition that led into the state, for the claims that speak of it (always 0 when none
    /// does: see [`crate::memory::Memory`]).
    pub led: u32,
    /// The period number, counted up to the claims' cap (always 0 when no claim compares it).
    pub period: u32,
}

impl Abs {
    pub fn has(&self, k: KeyId) -> bool {
        self.keys[k.index() / 64] & (1 << (k.index() % 64)) != 0
    }
    /// Whether honest agents sent different payloads in the current round. Fairness assumes honest agents
    /// eventually agree, so no fair run stays in such a state forever.
    pub fn honest_disagree(&self) -> bool {
        self.round.counts[HONEST].iter().filter(|&&n| n > 0).count() > 1
    }
    fn set(&mut self, k: KeyId) {
        self.keys[k.index() / 64] |= 1 << (k.index() % 64);
    }
}

/// What one block did.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub to: u32,
    /// The round's timeout fired at the start of the block.
    pub timeout: Option<Duration>,
    /// The payloads the block delivered.
    pub sends: Sends,
    /// The transition the block took, and the outcome that took it (`None`: a timeout or a custom decision).
    pub fired: Option<(usize, Option<OutcomeKind>)>,
    /// The environment must take it eventually when the state recurs (fairness).
    pub fair: bool,
    /// Every pending honest agent delivered in this block, agreeing (the environment of the period bound).
    pub prompt: bool,
    /// It ends the period: a reset round's `done`, or a final state entered.
    pub goal: bool,
}

/// A property violated at a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Violation {
    /// A keeper round entered without a live elected keeper.
    Keeper,
    /// A key read or required on entry is missing.
    Key(KeyId, Span),
    /// No block leaves the state.
    Stuck,
}

pub(crate) struct Explored {
    pub states: IndexSet<Abs, foldhash::fast::RandomState>,
    pub steps: Vec<Vec<Step>>,
    /// How each state was first reached: its predecessor and the step's index there.
    pub parent: Vec<Option<(u32, usize)>>,
    pub violations: Vec<(u32, Violation)>,
    pub truncated: bool,
    /// How many agents are faulty (`Config::faults`): a counterexample names them as the replay does.
    pub faults: u8,
}

/// How often the search reports how far it got.
const PROGRESS_EVERY: usize = 100_000;

/// Explores every state reachable from the start; `progress` hears the number of states found every
/// [`PROGRESS_EVERY`].
pub(crate) fn explore(
    model: &Model<'_>,
    config: &Config,
    progress: &mut dyn FnMut(usize),
) -> Explored {
    let mut ex = Explored {
        states: IndexSet::default(),
        steps: Vec::new(),
        parent: Vec::new(),
        violations: Vec::new(),
        truncated: false,
        faults: config.faults,
    };
    let words = model.machine.keys.len().div_ceil(64).max(1);
    let mut init = Abs {
        state: model.start,
        keys: vec![0; words].into_boxed_slice(),
        part: genesis(config),
        keeper: given_keeper(model, config),
        keeper_failed: false,
        failed: [0, 0],
        round: Collected::default(),
        open: false,
        started: !model.states.iter().any(|s| s.role == Role::Registration),
        led: 0,
        period: 0,
    };
    for k in &model.initial_keys {
        init.set(*k);
    }
    let init = enter(model, config, init, model.start);
    check_entry(model, &init, 0, &mut ex.violations);
    ex.states.insert(init);
    ex.parent.push(None);
    let mut next = 0usize;
    while next < ex.states.len() {
        let Some(x) = ex.states.get_index(next).cloned() else {
            break;
        };
        let mut steps = Vec::new();
        for (to, step) in successors(model, config, &x) {
            let (id, fresh) = ex.states.insert_full(to);
            if fresh {
                if ex.states.len().is_multiple_of(PROGRESS_EVERY) {
                    progress(ex.states.len());
                }
                if ex.states.len() > config.max_states {
                    ex.truncated = true;
                    ex.states.pop();
                    break;
                }
                ex.parent.push(Some((next as u32, steps.len())));
                check_entry(model, &ex.states[id], id as u32, &mut ex.violations);
            }
            steps.push(Step {
                to: id as u32,
                ..step
            });
        }
        let moves = steps
            .iter()
            .any(|s| s.to as usize != next || s.fired.is_some());
        if x.open && !moves || is_dead(model, &x) {
            ex.violations.push((next as u32, Violation::Stuck));
        }
        ex.steps.push(steps);
        if ex.truncated {
            break;
        }
        next += 1;
    }
    ex
}

/// The keeper a machine starts with when its app elected it (`Model::keeper_from_app`): a faulty one where
/// any agent may be faulty, since a faulty keeper may send what an honest one would, or fail, or stay silent.
fn given_keeper(model: &Model<'_>, config: &Config) -> Option<usize> {
    model
        .keeper_from_app
        .then_some(if config.faults > 0 { FAULTY } else { HONEST })
}

fn genesis(config: &Config) -> [u8; 2] {
    [config.agents.saturating_sub(config.faults), config.faults]
}

/// A non-final state without a round: nobody is eligible, and the runtime waits forever.
fn is_dead(model: &Model<'_>, x: &Abs) -> bool {
    !x.open && !model.state(x.state).is_final
}

/// The properties checked when a state is entered: its keys, and a keeper round's keeper.
fn check_entry(model: &Model<'_>, x: &Abs, id: u32, out: &mut Vec<(u32, Violation)>) {
    let sm = model.state(x.state);
    for (k, span) in &sm.needs {
        if !x.has(*k) {
            out.push((id, Violation::Key(*k, *span)));
        }
    }
    // A keeper that is no longer a participant (it did not register again) cannot send either.
    let gone = x.keeper.is_some_and(|g| x.part[g] == 0);
    if sm.role == Role::Keeper && !sm.is_final && (x.keeper.is_none() || x.keeper_failed || gone) {
        out.push((id, Violation::Keeper));
    }
}

/// The agents the round of `x` takes payloads from.
fn members(model: &Model<'_>, config: &Config, x: &Abs) -> Members {
    let sm = model.state(x.state);
    let [honest, faulty] = match sm.role {
        Role::Registration if !x.started => [config.agents, 0],
        Role::Registration => genesis(config),
        _ => x.part,
    };
    Members {
        honest,
        faulty,
        keeper: if sm.role == Role::Keeper {
            x.keeper
        } else {
            None
        },
    }
}

/// Enters state `to`: opens its round.
fn enter(model: &Model<'_>, config: &Config, mut x: Abs, to: StateId) -> Abs {
    x.state = to;
    x.round = Collected::default();
    let m = members(model, config, &x);
    x.open = !model.state(to).is_final && m.honest.saturating_add(m.faulty) > 0;
    x
}

/// The keeper failed: it may not be elected again this period; once every participant has, the slate is
/// wiped (the runtime's `keeper_failed`).
fn keeper_failed(x: &mut Abs) {
    if let Some(g) = x.keeper
        && !x.keeper_failed
    {
        x.failed[g] = x.failed[g].saturating_add(1);
        x.keeper_failed = true;
    }
    wipe_failed(x);
}

/// Once every participant has failed as keeper, the slate is wiped. Counted by group, a failed keeper that is
/// no longer a participant still counts: the model wipes no later than the runtime, and no earlier when the
/// participants did not change.
fn wipe_failed(x: &mut Abs) {
    if x.failed[HONEST] >= x.part[HONEST] && x.failed[FAULTY] >= x.part[FAULTY] {
        x.failed = [0, 0];
        x.keeper_failed = false;
    }
}

/// What a decision does besides entering the next state, in the runtime's order: the round's part (new
/// participants, a keeper elected or failed), the writes, and a reset's new period.
struct Decided {
    edge: Edge,
    outcome: Option<OutcomeKind>,
    /// The decision is a real `done`: it writes (a custom round writes on every decision) and resets.
    done: bool,
    writes: bool,
    elected: Option<usize>,
    senders: [u8; 2],
}

fn decide(model: &Model<'_>, config: &Config, x: &Abs, d: &Decided) -> (Abs, bool) {
    let sm = model.state(x.state);
    let mut y = x.clone();
    match sm.role {
        Role::Registration if d.done && !x.started => {
            // The faulty agents are among the registered.
            let [h, _] = d.senders;
            let faulty = h.min(config.faults);
            y.part = [h - faulty, faulty];
            y.started = true;
        }
        Role::Registration if d.done => {
            y.part = d.senders;
            wipe_failed(&mut y);
        }
        Role::Election if d.done => {
            y.keeper = d.elected;
            y.keeper_failed = false;
        }
        Role::Keeper if d.outcome == Some(OutcomeKind::Fail) => keeper_failed(&mut y),
        _ => {}
    }
    if d.writes {
        for k in &sm.writes {
            y.set(*k);
        }
    }
    let reset = sm.reset && d.done;
    if reset {
        for (i, cross) in model.cross.iter().enumerate() {
            if !cross {
                y.keys[i / 64] &= !(1 << (i % 64));
            }
        }
        y.keeper = None;
        y.keeper_failed = false;
        y.failed = [0, 0];
        y.period = (y.period + 1).min(model.memory.period_cap);
    }
    let goal = reset || model.state(d.edge.to).is_final;
    (enter(model, config, y, d.edge.to), goal)
}

/// Every block the environment can deliver in `x`, with the state it leads to.
fn successors(model: &Model<'_>, config: &Config, x: &Abs) -> Vec<(Abs, Step)> {
    let mut out = Vec::new();
    if !x.open {
        return out;
    }
    let sm = model.state(x.state);
    let blank = Step {
        to: 0,
        timeout: None,
        sends: Vec::new(),
        fired: None,
        fair: false,
        prompt: false,
        goal: false,
    };
    if let Some((edge, duration)) = sm.timeout {
        let mut y = x.clone();
        if sm.role == Role::Keeper {
            keeper_failed(&mut y);
        }
        let goal = model.state(edge.to).is_final;
        let y = enter(model, config, y, edge.to);
        let step = Step {
            timeout: Some(duration),
            fired: Some((edge.transition, None)),
            goal,
            ..blank.clone()
        };
        out.push((y, step));
    }
    if sm.kind == RoundKind::Custom {
        custom(model, config, x, &blank, &mut out);
    } else {
        blocks(model, config, x, &blank, &mut out);
    }
    for (y, step) in &mut out {
        if let Some((t, _)) = step.fired {
            y.led = model.memory.led[t];
        }
    }
    fairness(x, &mut out);
    out
}

/// A custom round: the app's code may decide any of its transitions at the end of any block, or wait. What it
/// collected does not matter to the model: its decisions are all possible whatever the payloads.
fn custom(model: &Model<'_>, config: &Config, x: &Abs, blank: &Step, out: &mut Vec<(Abs, Step)>) {
    let sm = model.state(x.state);
    out.push((x.clone(), blank.clone()));
    let eligible = members(model, config, x);
    for (edge, done) in &sm.choices {
        let d = Decided {
            edge: *edge,
            outcome: done.then_some(OutcomeKind::Done),
            done: *done,
            writes: true,
            elected: None,
            senders: [eligible.honest, eligible.faulty],
        };
        let (y, goal) = decide(model, config, x, &d);
        let step = Step {
            fired: Some((edge.transition, None)),
            fair: true,
            prompt: true,
            goal,
            ..blank.clone()
        };
        out.push((y, step));
    }
}

/// The classes a group may send in the round of `x`.
fn classes(model: &Model<'_>, x: &Abs, group: usize) -> Vec<usize> {
    let sm = model.state(x.state);
    let none = sm.allows_none();
    let mut c: Vec<usize> = match sm.kind {
        RoundKind::CollectSameUntilAll => vec![A, B],
        RoundKind::CollectDifferentUntilAll if group == HONEST => vec![A],
        RoundKind::CollectDifferentUntilAll => vec![A, B],
        RoundKind::CollectDifferentUntilThreshold => vec![A],
        RoundKind::CollectNonEmptyUntilThreshold | RoundKind::OnlyKeeperSends => vec![A, NONE],
        _ if none => vec![A, B, NONE],
        _ => vec![A, B],
    };
    if sm.role == Role::Election {
        // A candidate must be a participant that has not failed as keeper: `A` an honest one, `B` a faulty one.
        c.retain(|&k| match k {
            A => x.part[HONEST] > x.failed[HONEST],
            B => x.part[FAULTY] > x.failed[FAULTY],
            _ => true,
        });
    }
    c
}

/// Every way to deliver payloads in one block (and an empty block), each ended by the runtime's round.
fn blocks(model: &Model<'_>, config: &Config, x: &Abs, blank: &Step, out: &mut Vec<(Abs, Step)>) {
    let sm = model.state(x.state);
    let m = members(model, config, x);
    let mut pending = [
        m.honest.saturating_sub(x.round.sent(HONEST)),
        m.faulty.saturating_sub(x.round.sent(FAULTY)),
    ];
    if sm.role == Role::Keeper {
        // Only the keeper sends.
        pending = [0, 0];
        if let Some(g) = x.keeper
            && x.round.sent(g) == 0
        {
            pending[g] = 1;
        }
    }
    let honest_classes = classes(model, x, HONEST);
    // The value honest agents agree on when they make progress: the one they already sent, else the first
    // they may send.
    let before = x.round.counts[HONEST];
    let agreed = honest_classes
        .iter()
        .copied()
        .find(|&c| before[c] > 0)
        .or_else(|| honest_classes.first().copied())
        .unwrap_or(A);
    let mut honest = splits(&honest_classes, pending[HONEST]);
    if sm.kind == RoundKind::CollectSameUntilAll {
        // Honest agents of an all-agree round send one value: were they to disagree, the round could never
        // decide whatever the protocol, which is no fault of the app.
        honest.retain(|h| {
            let mut classes = (0..CLASSES).filter(|&c| h[c] > 0 || before[c] > 0);
            classes.next().is_none() || classes.next().is_none()
        });
    }
    if sm.role == Role::Registration {
        // Registration waits for late agents (upstream's block confirmations): an honest agent that is up is
        // registered. Otherwise one honest agent left out, plus a silent faulty one, would stop every
        // threshold of the period, which no deployment that starts its agents together sees.
        honest.retain(|h| h.iter().sum::<u8>() == pending[HONEST]);
    }
    let faulty = splits(&classes(model, x, FAULTY), pending[FAULTY]);
    let ordered = matches!(
        sm.kind,
        RoundKind::CollectSameUntilAll | RoundKind::CollectDifferentUntilAll
    );
    for h in &honest {
        // Every pending honest agent delivers, and they agree on the first class: the environment of the
        // period bound, and what fairness eventually grants.
        // In an election the agreed candidate may be any eligible agent, faulty ones included.
        let agree_on = |c: usize| h[c] == pending[HONEST];
        let prompt = if sm.role == Role::Election {
            honest_classes.iter().any(|&c| agree_on(c))
        } else {
            agree_on(agreed)
        };
        for f in &faulty {
            for &order in orders(ordered) {
                let sends = arrange(h, f, order);
                if let Some((y, step)) = block(model, config, x, &m, sends, prompt, blank) {
                    out.push((y, step));
                }
            }
        }
    }
}

/// The block delivering `sends`, ended by the runtime's round.
fn block(
    model: &Model<'_>,
    config: &Config,
    x: &Abs,
    m: &Members,
    sends: Sends,
    prompt: bool,
    blank: &Step,
) -> Option<(Abs, Step)> {
    let sm = model.state(x.state);
    let ended = round::end_block(sm.kind, m, sm.confirmations, &x.round, &sends)?;
    let step = Step {
        sends: sends.clone(),
        prompt,
        ..blank.clone()
    };
    let Some(outcome) = ended.outcome else {
        let mut y = x.clone();
        y.round = ended.collected;
        return Some((y, step));
    };
    // An outcome the state has no transition for decides nothing: the round goes on collecting.
    let Some(edge) = sm.outcome(outcome) else {
        let mut y = x.clone();
        y.round = ended.collected;
        return Some((y, step));
    };
    let done = outcome == OutcomeKind::Done;
    let d = Decided {
        edge,
        outcome: Some(outcome),
        done,
        writes: done,
        elected: ended.elected,
        senders: [ended.collected.sent(HONEST), ended.collected.sent(FAULTY)],
    };
    let (y, goal) = decide(model, config, x, &d);
    Some((
        y,
        Step {
            fired: Some((edge.transition, Some(outcome))),
            goal,
            ..step
        },
    ))
}

/// Every way `n` agents or fewer split over `classes`: how many send each class (the rest send nothing).
fn splits(classes: &[usize], n: u8) -> Vec<[u8; CLASSES]> {
    let mut out = vec![[0u8; CLASSES]];
    for &c in classes {
        let mut next = Vec::new();
        for v in &out {
            let used: u8 = v.iter().sum();
            for k in 0..=n.saturating_sub(used) {
                let mut w = *v;
                w[c] = k;
                next.push(w);
            }
        }
        out = next;
    }
    out
}

/// The delivery orders that matter: only a round that compares payloads as they come (`until_all`) cares
/// which arrives first, and then only the first class (or the first group) matters.
fn orders(ordered: bool) -> &'static [bool] {
    if ordered { &[false, true] } else { &[false] }
}

/// The block's payloads in order: honest then faulty, classes in order; `flip` puts faulty agents and the
/// second class first.
fn arrange(h: &[u8; CLASSES], f: &[u8; CLASSES], flip: bool) -> Sends {
    let mut sends: Sends = Vec::new();
    let groups = if flip {
        [FAULTY, HONEST]
    } else {
        [HONEST, FAULTY]
    };
    let order: [usize; CLASSES] = if flip { [B, A, NONE] } else { [A, B, NONE] };
    for c in order {
        for g in groups {
            let n = if g == HONEST { h[c] } else { f[c] };
            if n > 0 {
                sends.push((g, c, n));
            }
        }
    }
    sends
}

/// Marks what fairness requires of a recurring state: honest agents that agree eventually deliver (the block
/// where every pending honest agent sends the first class and faulty agents send nothing); a round that makes
/// no progress that way eventually times out; a custom round eventually takes each of its decisions.
fn fairness(x: &Abs, out: &mut [(Abs, Step)]) {
    let progress = out.iter().position(|(_, s)| {
        s.timeout.is_none() && s.prompt && s.sends.iter().all(|&(g, _, _)| g == HONEST)
    });
    let stalled = progress.is_none_or(|i| out[i].1.fired.is_none() && out[i].0 == *x);
    for (i, (_, s)) in out.iter_mut().enumerate() {
        if Some(i) == progress || s.timeout.is_some() && stalled {
            s.fair = true;
        }
    }
}
