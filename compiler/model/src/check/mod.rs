//! Stage 3: validation. Every check runs on every machine and app, diagnostics accumulate, and lint levels are
//! applied per machine. Only this stage constructs a [`Checked`] model.

mod compose;
mod dataflow;
mod graph;
mod names;
mod profiles;
mod rounds;
mod structure;

use crate::compose::Composed;
use crate::spec::{Checked, Machine, Spec};
use fsmc_base::diag::{Code, Diagnostic};

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
                .filter_map(|d| m.lints.apply(d)),
        );
    }
    for m in &spec.machines {
        let mut found = Vec::new();
        profiles::templates(m, &spec.templates, &mut found);
        diags.extend(found.into_iter().filter_map(|d| m.lints.apply(d)));
    }
    names::modules(&spec, &mut diags);
    let mut composed = Vec::new();
    for app in &spec.apps {
        let (result, found) = compose::check(&spec, app);
        diags.extend(found.into_iter().filter_map(|d| app.lints.apply(d)));
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

/// Every check that applies to one machine on its own (also run on each composed app).
pub(crate) fn check_machine(m: &Machine) -> Vec<Diagnostic> {
    if m.states.is_empty() {
        let mut out = Vec::new();
        structure::check(m, &mut out);
        return out;
    }
    // The graph's checks need nothing the others find: on a large machine they run beside them, and their
    // findings follow the others' as they would in order.
    let large = m.transitions.len() + m.states.len() >= 2 * fsmc_base::par::MIN_ITEMS_PER_THREAD;
    let ((graph, found), mut out) = fsmc_base::par::join(
        large,
        || {
            let mut found = Vec::new();
            // Graph facts are consequences of one reported problem when transitions were dropped (`incomplete`)
            // or none were written (E0208): every state would be a dead end or unreachable and every event
            // unused.
            let graph = if m.incomplete || m.transitions.is_empty() {
                graph::Graph::build(m)
            } else {
                graph::check(m, &mut found)
            };
            (graph, found)
        },
        || {
            let mut out = Vec::new();
            structure::check(m, &mut out);
            names::check(m, &mut out);
            out
        },
    );
    out.extend(found);
    rounds::check(m, &graph.outgoing, &mut out);
    dataflow::check(m, &graph, &mut out);
    profiles::check(m, &graph, &mut out);
    // Upstream checks naming only once everything else passes; so do we, so a broken spec is not buried in
    // naming noise.
    if !out
        .iter()
        .any(|d| d.is_error() && !matches!(d.code, Code::StateNaming | Code::AppNaming))
    {
        names::naming(m, &mut out);
    }
    out
}

/// Exposed for the composed re-check.
pub(crate) fn recheck(c: &Composed) -> Vec<Diagnostic> {
    check_machine(&c.machine)
}
