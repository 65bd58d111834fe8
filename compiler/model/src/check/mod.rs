//! Stage 3: validation. Every check runs on every machine and app, diagnostics accumulate, and lint levels are
//! applied per machine. Only this stage constructs a [`Checked`] model.
//!
//! The checks every machine gets, whatever its system, are generic: `structure` (start and final states,
//! duplicate and conflicting transitions), `names` (identifiers generated code derives from spec names),
//! `graph` (reachability, dead ends, paths to a final state, unused events) and `dataflow` (keys written
//! before they are read). Each system's own rules live in its module — `abci` (rounds, keepers, naming, and
//! the composition of apps), `genie`, `dialogue`, `staged` — behind the `system::System` trait; this
//! module picks a machine's by its profile and runs the passes in order.

mod abci;
mod dataflow;
mod dialogue;
mod genie;
mod graph;
mod names;
mod staged;
mod structure;
mod system;

use crate::spec::{App, Checked, Composed, Machine, Spec, Transition};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::Profile;
use system::System;

/// What checking found: the diagnostics, and the checked model when there were no errors.
#[derive(Debug)]
pub struct Report {
    pub checked: Option<Checked>,
    pub diagnostics: Vec<Diagnostic>,
    /// The model that failed, kept for tools that still want its names (the macro's skeleton).
    pub unchecked: Option<Spec>,
}

/// Runs every check on the spec. Lints are already levelled per machine; diagnostics are sorted.
pub fn check(spec: Spec) -> Report {
    let mut diags = Vec::new();
    for m in &spec.machines {
        diags.extend(
            check_machine(m)
                .into_iter()
                .filter_map(|d| m.lints.apply_in(d, m.profile == Profile::Plain)),
        );
    }
    for m in &spec.machines {
        let mut found = Vec::new();
        system_of(m.profile).files(m, &spec, &mut found);
        let plain = m.profile == Profile::Plain;
        diags.extend(found.into_iter().filter_map(|d| m.lints.apply_in(d, plain)));
    }
    names::modules(&spec, &mut diags);
    let mut composed = Vec::new();
    for app in &spec.apps {
        let (result, found) = check_app(&spec, app);
        let fresh: Vec<Diagnostic> = found
            .into_iter()
            .filter_map(|d| app.lints.apply(d))
            .filter(|d| !said_by_component(&app.name.text, d, &diags))
            .collect();
        diags.extend(fresh);
        composed.push(result);
    }
    let diagnostics = fsmc_base::diag::finish(diags);
    if diagnostics.iter().any(Diagnostic::is_error) {
        Report {
            checked: None,
            diagnostics,
            unchecked: Some(spec),
        }
    } else {
        Report {
            checked: Some(Checked { spec, composed }),
            diagnostics,
            unchecked: None,
        }
    }
}

/// Whether `d`, found on the composed app `app`, repeats what a component machine already reported at the same
/// place: one missing transition is one mistake, reported once, not once per machine and again per app.
fn said_by_component(app: &str, d: &Diagnostic, machines: &[Diagnostic]) -> bool {
    let Some(said) = d
        .message
        .strip_prefix(&format!("in the composed app `{app}`: "))
    else {
        return false;
    };
    let at = d.primary.as_ref().map(|l| l.span);
    machines
        .iter()
        .any(|m| m.message == said && m.primary.as_ref().map(|l| l.span) == at)
}

/// The system whose rules a machine of this profile follows.
fn system_of(profile: Profile) -> &'static dyn System {
    match profile {
        Profile::Plain => &system::Plain,
        Profile::Abci => &abci::Abci,
        Profile::Genie => &genie::Genie,
        Profile::Dialogue => &dialogue::Dialogue,
        Profile::Staged => &staged::Staged,
    }
}

/// Transition `t` of `m` as it is written with `event` (`(From, EVENT) -> To;`) or without one (`From -> To;`),
/// for a help that rewrites it.
fn written(m: &Machine, t: &Transition, event: Option<&str>) -> String {
    let (from, to) = (&m.state(t.from).name, &m.state(t.to).name);
    match event {
        Some(event) => format!("`({from}, {event}) -> {to};`"),
        None => format!("`{from} -> {to};`"),
    }
}

/// Every check that applies to one machine on its own (also run on each composed app).
fn check_machine(m: &Machine) -> Vec<Diagnostic> {
    let system = system_of(m.profile);
    if m.states.is_empty() {
        let mut out = Vec::new();
        structure::check(m, system, &mut out);
        return out;
    }
    // The graph's checks need nothing the others find: on a large machine they run beside them, and their
    // findings follow the others' as they would in order.
    let large = m.transitions.len() + m.states.len() >= 2 * fsmc_base::par::MIN_ITEMS_PER_THREAD;
    let ((graph, found), mut out) = fsmc_base::par::join(
        large,
        || {
            let graph = graph::Graph::build(m);
            let mut found = Vec::new();
            // Graph facts are consequences of one reported problem when transitions were dropped (`incomplete`)
            // or none were written (E0208): every state would be a dead end or unreachable and every event
            // unused.
            if !m.incomplete && !m.transitions.is_empty() {
                // What the system reports in its own words, the graph pass keeps quiet.
                let quiet = system.quiet(m, &graph);
                graph::check(m, &graph, &quiet, &mut found);
            }
            (graph, found)
        },
        || {
            let mut out = Vec::new();
            structure::check(m, system, &mut out);
            names::check(m, &mut out);
            system.names(m, &mut out);
            out
        },
    );
    out.extend(found);
    // Rounds change the data and elect keepers in whichever machine holds them (see `abci::Rounds`).
    let rounds = abci::Rounds::new(m);
    dataflow::check(m, &graph, &|s| rounds.exit(s), &mut out);
    rounds.keepers(&graph, &mut out);
    system.check(m, &graph, &mut out);
    if !out
        .iter()
        .any(|d| d.is_error() && !matches!(d.code, Code::StateNaming | Code::AppNaming))
    {
        system.conventions(m, &mut out);
    }
    out
}

/// The composition's checks on an app, then the composed machine's as an ordinary machine.
fn check_app(spec: &Spec, app: &App) -> (Composed, Vec<Diagnostic>) {
    let (composed, mut found) = abci::compose::check(spec, app);
    if abci::compose::recheck(app, &found) {
        let again = check_machine(&composed.machine);
        found.extend(again.into_iter().map(|d| abci::compose::wrap(app, d)));
    }
    (composed, found)
}
