//! `fsmc verify`: a checked Open Autonomy app explored against every block schedule an adversarial
//! environment can choose, with at most `F` faulty agents.
//!
//! A replica is a deterministic function of its blocks, so one replica checked against every block schedule
//! covers every replica under every network. The environment chooses, block by block, which pending payloads
//! go in (and in which order, where a round compares them as they come), whether the round's timeout passes,
//! what faulty agents send (anything, or nothing), what honest agents send (payloads abstracted by what the
//! round kind can tell apart), and what a custom round decides. Rounds are decided by the runtime's own round
//! kinds ([`round`]); the app's bookkeeping around them (participants, keepers, periods, keys) follows the
//! runtime's replica.
//!
//! - [`model`]: what each state is, read once from the checked machine.
//! - [`round`]: a round in progress by payload class, decided by the runtime's round kinds.
//! - [`explore`]: the abstract states, the environment's blocks, the search.
//! - [`liveness`]: fair cycles that never end a period, and the worst-case period length.
//! - [`report`]: violations as diagnostics labelling the spec along the counterexample.
//!
//! Pure: a checked spec in, findings out.

mod claims;
mod emit;
mod explore;
mod graph;
mod liveness;
mod memory;
mod model;
mod parties;
mod report;
mod round;

pub use emit::emit_test;
pub use explore::Config;
pub use liveness::Bound;

use fsmc_base::diag::Diagnostic;
use fsmc_model::spec::{Checked, Item, Machine};
use fsmc_vocab::Profile;

/// What verifying one app found.
#[derive(Debug)]
pub struct Report {
    /// The app's or machine's name.
    pub name: String,
    /// Distinct abstract states explored.
    pub states: usize,
    /// Blocks (steps between states) explored.
    pub steps: usize,
    /// The search stopped at `max_states` before exploring everything: the findings cover only what was seen.
    pub truncated: bool,
    /// The worst-case period length; `None` when a cycle inside a period makes it unbounded.
    pub bound: Option<Bound>,
    /// Whether the app has a period to end at all (a reset round or a final state): without one, liveness is
    /// not checked.
    pub periodic: bool,
    /// Explored as a state graph (a machine that is not `abci`): steps are transitions, not blocks, and there
    /// are no agents or periods.
    pub graph: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// The blocks of the first violation found, for `--emit-test`.
    pub counterexample: Option<Counterexample>,
}

/// The blocks that lead to a violation, as `--emit-test` replays them on the generated app.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The property violated.
    pub code: fsmc_base::diag::Code,
    pub blocks: Vec<CexBlock>,
    /// For a loop (a period that never ends, or a run that never satisfies an `eventually`): where the loop
    /// begins in `blocks` (it runs to the end).
    pub loop_from: Option<usize>,
    /// The key found missing (E1104).
    pub key: Option<String>,
    /// For a violation found on entering a state (E1101, E1103, E1104): that state, where alone the emitted
    /// test asserts the property, as the verifier checks it on entry.
    pub entered: Option<String>,
    /// The declared property that fails: an invariant (E1106), or an `eventually` (E1107) the blocks never
    /// satisfy, looping from `loop_from` (without a loop, the run ends in a final state).
    pub claim: Option<fsmc_model::spec::Claim>,
}

/// One block of a counterexample.
#[derive(Clone, Debug)]
pub struct CexBlock {
    /// The state the app is in when the block arrives.
    pub state: String,
    /// The round's timeout fires at the start of the block, after this long.
    pub timeout: Option<std::time::Duration>,
    /// The payloads, in order: (honest, class: 0 the agreed value, 1 another, 2 empty, how many).
    pub sends: Vec<(bool, u8, u8)>,
}

/// Verifies every app of the entry file and every `abci` machine it defines.
pub fn verify(checked: &Checked, config: &Config) -> Vec<Report> {
    verify_with_progress(checked, config, &mut |_, _| {})
}

/// [`verify`], telling `progress` the app being explored and how many states it has found, now and then on a
/// long run.
pub fn verify_with_progress(
    checked: &Checked,
    config: &Config,
    progress: &mut dyn FnMut(&str, usize),
) -> Vec<Report> {
    let spec = checked.spec();
    let mut out = Vec::new();
    for item in &spec.entry_items {
        let (machine, chained): (&Machine, bool) = match *item {
            Item::Machine(id) if spec.machine(id).profile == Profile::Abci => {
                let chained = spec
                    .apps
                    .iter()
                    .any(|a| a.chain.iter().any(|(m, _)| *m == id));
                (spec.machine(id), chained)
            }
            Item::App(i) => match checked.composed().get(i) {
                Some(c) if c.machine.profile == Profile::Abci => (&c.machine, false),
                _ => continue,
            },
            // Other machines are verified when they have something to check: declared properties, or two
            // parties to compose.
            Item::Machine(id) => {
                let m = spec.machine(id);
                if !m.claims.is_empty() || m.profile == Profile::Dialogue {
                    out.push(graph::verify(m, config));
                }
                continue;
            }
        };
        if let Some(r) = explore_machine(machine, chained, config, progress) {
            out.push(r);
        }
    }
    out
}

/// Verifies one machine (an `abci` machine or an app's composed machine) as an app of its own.
pub fn verify_machine(machine: &Machine, config: &Config) -> Option<Report> {
    explore_machine(machine, false, config, &mut |_, _| {})
}

/// Explores `machine`, which an app of the spec chains when `chained` (its keeper may then come from an earlier
/// machine of the app).
fn explore_machine(
    machine: &Machine,
    chained: bool,
    config: &Config,
    progress: &mut dyn FnMut(&str, usize),
) -> Option<Report> {
    let model = model::Model::new(machine, chained)?;
    let ex = explore::explore(&model, config, &mut |n| progress(&machine.name.text, n));
    let mut diagnostics = Vec::new();
    // One report per property and state of the spec: the first (shortest) counterexample found.
    let mut seen = std::collections::BTreeSet::new();
    let mut counterexample = None;
    for (at, v) in &ex.violations {
        let state = ex.states[*at as usize].state;
        if seen.insert((state, format!("{v:?}"))) {
            diagnostics.push(report::violation(&model, &ex, *at, v));
            if counterexample.is_none() {
                counterexample = Some(report::counterexample(&model, &ex, *at, v));
            }
        }
    }
    let periodic = model.has_goal();
    // A fair cycle of states no block leaves is the stuck state already reported.
    let stuck: std::collections::BTreeSet<u32> = ex
        .violations
        .iter()
        .filter(|(_, v)| *v == explore::Violation::Stuck)
        .map(|(at, _)| *at)
        .collect();
    if periodic
        && !ex.truncated
        && let Some(scc) = liveness::fair_cycle(&ex)
        && !scc.iter().all(|s| stuck.contains(s))
    {
        diagnostics.push(report::livelock(&model, &ex, &scc));
        counterexample = counterexample.or_else(|| Some(report::lasso(&model, &ex, &scc)));
    }
    let (claimed, broken) = claims::check(&model, &ex);
    diagnostics.extend(claimed);
    counterexample = counterexample.or(broken);
    // A replay of the machine alone starts without the keeper its app elects: a counterexample through one of
    // its keeper rounds replays only on the composed app, which is verified too and gives its own.
    if model.keeper_from_app
        && counterexample
            .as_ref()
            .is_some_and(|c| passes_keeper_round(&model, c))
    {
        counterexample = None;
    }
    // A search cut short has states it never expanded: no bound can be read from it.
    let bound = if periodic && !ex.truncated {
        liveness::period_bound(&ex)
    } else {
        None
    };
    Some(Report {
        name: machine.name.to_string(),
        states: ex.states.len(),
        steps: ex.steps.iter().map(Vec::len).sum(),
        truncated: ex.truncated,
        bound,
        periodic,
        graph: false,
        diagnostics,
        counterexample,
    })
}

/// Whether the blocks of `cex` find the app in a keeper round.
fn passes_keeper_round(model: &model::Model<'_>, cex: &Counterexample) -> bool {
    model.machine.state_ids().any(|s| {
        model.state(s).role == model::Role::Keeper
            && cex
                .blocks
                .iter()
                .any(|b| b.state == model.machine.state(s).name.text)
    })
}
