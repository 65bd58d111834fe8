//! Plain machines, dialogues, staged environments and Genie flows: their declared properties over the state
//! graph, explored explicitly. A state of the search is a state of the machine (and the transition that led into
//! it, as far as a claim speaks of it: `outcome` there is the event of the last transition); every transition is a step the
//! environment may choose (a guard is abstracted as either outcome, so a guarded transition may be taken or
//! not), and a staged machine's handler may take any of its direct transitions. No fairness is assumed: the
//! environment chooses the events, so a loop it can keep taking is a run that never leaves it.

use crate::Report;
use crate::claims::At;
use crate::memory::Memory;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_model::spec::{Claim, ClaimKind, Machine, StateId};
use std::collections::{BTreeMap, VecDeque};

/// A node of the search: a state of the machine, and the class of the transition that led into it (0 unless a
/// claim speaks of that transition, see [`Memory`]; then a state entered by transitions the claims tell apart is
/// one node per class).
type Node = (StateId, u32);

/// The graph of the nodes reachable from a start state: for each its outgoing transitions (indices into the
/// machine's) with the node each leads to.
struct Graph<'m> {
    m: &'m Machine,
    nodes: Vec<Node>,
    out: Vec<Vec<(usize, usize)>>,
    /// The nodes a run may begin at: the start states, before any transition.
    starts: Vec<usize>,
}

impl Graph<'_> {
    fn new(m: &Machine) -> Graph<'_> {
        let memory = Memory::new(m);
        let outgoing = m.outgoing();
        let mut index: BTreeMap<Node, usize> = BTreeMap::new();
        let mut nodes: Vec<Node> = Vec::new();
        // Any start state may begin a run: the default is the one generated code starts in, the others can be
        // started explicitly.
        let starts: Vec<usize> = m
            .state_ids()
            .filter(|&s| m.state(s).start)
            .map(|s| {
                *index.entry((s, 0)).or_insert_with(|| {
                    nodes.push((s, 0));
                    nodes.len() - 1
                })
            })
            .collect();
        let mut out = Vec::new();
        let mut next = 0;
        while next < nodes.len() {
            let (s, _) = nodes[next];
            let mut here = Vec::new();
            for &t in &outgoing[s.index()] {
                let to = (m.transitions[t].to, memory.led[t]);
                let id = *index.entry(to).or_insert_with(|| {
                    nodes.push(to);
                    nodes.len() - 1
                });
                here.push((t, id));
            }
            out.push(here);
            next += 1;
        }
        Graph {
            m,
            nodes,
            out,
            starts,
        }
    }

    /// Breadth first from the start nodes through nodes where `allowed` holds: each node reached, with the
    /// node and transition it was first reached by.
    fn search(&self, allowed: &dyn Fn(usize) -> bool) -> (Vec<usize>, Vec<Option<(usize, usize)>>) {
        let n = self.nodes.len();
        let mut parent = vec![None; n];
        let mut seen = vec![false; n];
        let mut order = Vec::new();
        let mut queue = VecDeque::new();
        for &s in &self.starts {
            if allowed(s) && !seen[s] {
                seen[s] = true;
                queue.push_back(s);
            }
        }
        while let Some(s) = queue.pop_front() {
            order.push(s);
            for &(t, to) in &self.out[s] {
                if allowed(to) && !seen[to] {
                    seen[to] = true;
                    parent[to] = Some((s, t));
                    queue.push_back(to);
                }
            }
        }
        (order, parent)
    }

    /// The transitions from a start node to `to`, following `parent`.
    fn path(&self, parent: &[Option<(usize, usize)>], to: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = to;
        while let Some((from, t)) = parent[at] {
            out.push(t);
            at = from;
        }
        out.reverse();
        out
    }

    /// The span of node `n`'s state.
    fn span(&self, n: usize) -> fsmc_base::source::Span {
        self.m.state(self.nodes[n].0).name.span
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

/// Whether the claim holds at node `n` (keys are tracked for `abci` machines alone, periods too).
fn holds(g: &Graph<'_>, claim: &Claim, n: usize) -> bool {
    let (state, led) = g.nodes[n];
    claim.formula.holds(&At {
        m: g.m,
        state,
        keys: None,
        led,
        period: 0,
    })
}

/// Verifies a machine that is not an `abci` one: its declared properties, and for a dialogue its two parties.
pub(crate) fn verify(m: &Machine, config: &crate::Config) -> Report {
    let g = Graph::new(m);
    let mut diagnostics = Vec::new();
    for claim in &m.claims {
        if let Some(d) = match claim.kind {
            ClaimKind::Invariant => invariant(&g, claim),
            ClaimKind::Eventually => eventually(&g, claim),
        } {
            diagnostics.push(d);
        }
    }
    let mut states = g.nodes.len();
    let mut steps: usize = g.out.iter().map(Vec::len).sum();
    let mut truncated = false;
    if m.profile == fsmc_vocab::Profile::Dialogue {
        let parties = crate::parties::compose(m, &m.outgoing(), config.max_states);
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
    let at = *order.iter().find(|&&n| !holds(g, claim, n))?;
    let path = g.path(&parent, at);
    let d = Diagnostic::new(
        Code::InvariantViolated,
        format!(
            "invariant \"{}\" fails in `{}` after {}",
            claim.name,
            g.m.state(g.nodes[at].0).name,
            steps(path.len())
        ),
    )
    .at(claim.name.span, "this property fails")
    .with(g.span(at), "reached here");
    Some(g.label(&path, 0, "", d))
}

/// A run through nodes where the claim is false that ends (a state without transitions) or loops.
fn eventually(g: &Graph<'_>, claim: &Claim) -> Option<Diagnostic> {
    let bad = |n: usize| !holds(g, claim, n);
    let (order, parent) = g.search(&bad);
    let ends = order.iter().find(|&&n| g.out[n].is_empty());
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
        d.with(g.span(at), "the run ends here")
    } else {
        d.with(g.span(at), "the loop starts here")
            .note("the environment chooses the events, so it can take the loop forever")
    };
    let d = g.label(&prefix, 0, "", d);
    Some(g.label(&cycle, prefix.len(), "loop: ", d))
}

/// A cycle among the reached nodes where the claim is false: a node of `order` from which a path of such
/// nodes returns to it, with that path's transitions.
fn loop_among(
    g: &Graph<'_>,
    order: &[usize],
    bad: &dyn Fn(usize) -> bool,
) -> Option<(usize, Vec<usize>)> {
    for &entry in order {
        // Breadth first from `entry` back to it.
        let n = g.nodes.len();
        let mut via: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut queue = VecDeque::from([entry]);
        let mut seen = vec![false; n];
        while let Some(s) = queue.pop_front() {
            for &(t, to) in &g.out[s] {
                if to == entry {
                    let mut cycle = vec![t];
                    let mut at = s;
                    while at != entry {
                        let (back, bt) = via[at]?;
                        cycle.push(bt);
                        at = back;
                    }
                    cycle.reverse();
                    return Some((entry, cycle));
                }
                if bad(to) && !seen[to] {
                    seen[to] = true;
                    via[to] = Some((s, t));
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
