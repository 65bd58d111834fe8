//! Plain machines, dialogues, staged environments and Genie flows: their declared properties over the state
//! graph, explored explicitly. A state of the search is a state of the machine; every transition is a step the
//! environment may choose (a guard is abstracted as either outcome, so a guarded transition may be taken or
//! not), and a staged machine's handler may take any of its direct transitions. No fairness is assumed: the
//! environment chooses the events, so a loop it can keep taking is a run that never leaves it.

use crate::Report;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_model::spec::{Claim, ClaimKind, Machine, StateId};
use std::collections::VecDeque;

/// The state graph: for each state its outgoing transitions (indices into the machine's), and how each state
/// was first reached from a start state, breadth first.
struct Graph<'m> {
    m: &'m Machine,
    outgoing: Vec<Vec<usize>>,
    starts: Vec<StateId>,
}

impl Graph<'_> {
    fn new(m: &Machine) -> Graph<'_> {
        // Any start state may begin a run: the default is the one generated code starts in, the others can be
        // started explicitly.
        let starts = m.state_ids().filter(|&s| m.state(s).start).collect();
        Graph {
            m,
            outgoing: m.outgoing(),
            starts,
        }
    }

    /// Breadth first from the start states through states where `allowed` holds: each state reached, with the
    /// transition it was first reached by.
    fn search(&self, allowed: &dyn Fn(StateId) -> bool) -> (Vec<StateId>, Vec<Option<usize>>) {
        let n = self.m.states.len();
        let mut parent = vec![None; n];
        let mut seen = vec![false; n];
        let mut order = Vec::new();
        let mut queue = VecDeque::new();
        for &s in &self.starts {
            if allowed(s) && !seen[s.index()] {
                seen[s.index()] = true;
                queue.push_back(s);
            }
        }
        while let Some(s) = queue.pop_front() {
            order.push(s);
            for &t in &self.outgoing[s.index()] {
                let to = self.m.transitions[t].to;
                if allowed(to) && !seen[to.index()] {
                    seen[to.index()] = true;
                    parent[to.index()] = Some(t);
                    queue.push_back(to);
                }
            }
        }
        (order, parent)
    }

    /// The transitions from a start state to `to`, following `parent`.
    fn path(&self, parent: &[Option<usize>], to: StateId) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = to;
        while let Some(t) = parent[at.index()] {
            out.push(t);
            at = self.m.transitions[t].from;
        }
        out.reverse();
        out
    }

    /// Labels the transitions of a run (steps numbered from `first`), and lists them in a note.
    fn label(&self, path: &[usize], first: usize, tag: &str, mut d: Diagnostic) -> Diagnostic {
        let mut steps = Vec::new();
        for (i, &t) in path.iter().enumerate() {
            let tr = &self.m.transitions[t];
            d = d.with(tr.span, format!("{tag}step {}", first + i + 1));
            let event = tr.event.map_or_else(
                || "its handler".to_string(),
                |e| format!("`{}`", self.m.event(e).name),
            );
            steps.push(format!(
                "`{}` takes {event} -> `{}`",
                self.m.state(tr.from).name,
                self.m.state(tr.to).name
            ));
        }
        if !steps.is_empty() {
            d = d.note(format!("{tag}{}", steps.join("; ")));
        }
        d
    }
}

/// Whether the claim holds in state `s` (its formula names states only: keys are tracked for `abci` alone).
fn holds(m: &Machine, claim: &Claim, s: StateId) -> bool {
    let here = m.state(s).name.as_str();
    claim.formula.holds(&|name| name == here, &|_| false)
}

/// Verifies a machine that is not an `abci` one: its declared properties, and for a dialogue its two parties.
pub(crate) fn verify(m: &Machine, config: &crate::Config) -> Report {
    let g = Graph::new(m);
    let (reach, _) = g.search(&|_| true);
    let mut diagnostics = Vec::new();
    for claim in &m.claims {
        if let Some(d) = match claim.kind {
            ClaimKind::Invariant => invariant(&g, claim),
            ClaimKind::Eventually => eventually(&g, claim),
        } {
            diagnostics.push(d);
        }
    }
    let mut states = reach.len();
    let mut steps: usize = reach.iter().map(|s| g.outgoing[s.index()].len()).sum();
    let mut truncated = false;
    if m.profile == fsmc_vocab::Profile::Dialogue {
        let parties = crate::parties::compose(m, &g.outgoing, config.max_states);
        states = parties.states;
        steps = parties.steps;
        truncated = parties.truncated;
        diagnostics.extend(parties.diagnostics);
    }
    Report {
        name: m.name.to_string(),
        states,
        steps,
        truncated,
        bound: None,
        periodic: false,
        graph: true,
        diagnostics,
        counterexample: None,
    }
}

fn invariant(g: &Graph<'_>, claim: &Claim) -> Option<Diagnostic> {
    let (order, parent) = g.search(&|_| true);
    let at = *order.iter().find(|&&s| !holds(g.m, claim, s))?;
    let path = g.path(&parent, at);
    let d = Diagnostic::new(
        Code::InvariantViolated,
        format!(
            "invariant \"{}\" fails in `{}` after {}",
            claim.name,
            g.m.state(at).name,
            steps(path.len())
        ),
    )
    .at(claim.name.span, "this property fails")
    .with(g.m.state(at).name.span, "reached here");
    Some(g.label(&path, 0, "", d))
}

/// A run through states where the claim is false that ends (a state without transitions) or loops.
fn eventually(g: &Graph<'_>, claim: &Claim) -> Option<Diagnostic> {
    let bad = |s: StateId| !holds(g.m, claim, s);
    let (order, parent) = g.search(&bad);
    let ends = order.iter().find(|s| g.outgoing[s.index()].is_empty());
    let (prefix, cycle, at) = match ends {
        Some(&end) => (g.path(&parent, end), Vec::new(), end),
        None => {
            let (entry, cycle) = loop_among(g, &order, &bad)?;
            (g.path(&parent, entry), cycle, entry)
        }
    };
    let d = Diagnostic::new(
        Code::EventuallyViolated,
        format!("a run never satisfies eventually \"{}\"", claim.name),
    )
    .at(claim.name.span, "this property is never reached");
    let d = if cycle.is_empty() {
        d.with(g.m.state(at).name.span, "the run ends here")
    } else {
        d.with(g.m.state(at).name.span, "the loop starts here")
            .note("the environment chooses the events, so it can take the loop forever")
    };
    let d = g.label(&prefix, 0, "", d);
    Some(g.label(&cycle, prefix.len(), "loop: ", d))
}

/// A cycle among the reached states where the claim is false: a state of `order` from which a path of such
/// states returns to it, with that path.
fn loop_among(
    g: &Graph<'_>,
    order: &[StateId],
    bad: &dyn Fn(StateId) -> bool,
) -> Option<(StateId, Vec<usize>)> {
    for &entry in order {
        // Breadth first from `entry` back to it.
        let n = g.m.states.len();
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut queue = VecDeque::from([entry]);
        let mut seen = vec![false; n];
        while let Some(s) = queue.pop_front() {
            for &t in &g.outgoing[s.index()] {
                let to = g.m.transitions[t].to;
                if to == entry {
                    let mut cycle = vec![t];
                    let mut at = s;
                    while at != entry {
                        let back = via[at.index()]?;
                        cycle.push(back);
                        at = g.m.transitions[back].from;
                    }
                    cycle.reverse();
                    return Some((entry, cycle));
                }
                if bad(to) && !seen[to.index()] {
                    seen[to.index()] = true;
                    via[to.index()] = Some(t);
                    queue.push_back(to);
                }
            }
        }
    }
    None
}

fn steps(n: usize) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}
