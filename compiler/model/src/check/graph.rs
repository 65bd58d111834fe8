//! Graph checks with petgraph's traversals: reachability from the start states, dead ends, paths to a final state,
//! unused and never-handled events. Every pass is linear in states plus transitions.
//!
//! The pass is the same for every system: what a system reports in its own words instead, it names in a
//! [`Quiet`], which the pass takes as it takes the graph.

use crate::spec::{Machine, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use petgraph::graph::NodeIndex;
use petgraph::visit::{Bfs, GraphBase, IntoNeighbors, VisitMap, Visitable};

/// The transitions leaving each state, in spec order: [`Machine::outgoing`] in two flat vectors, without a
/// vector per state (a large spec has hundreds of thousands of states).
pub(crate) struct Outgoing {
    /// Where each state's transitions start in `transitions`, and where the last one's end.
    starts: Vec<u32>,
    transitions: Vec<u32>,
}

impl Outgoing {
    /// The indices of the transitions leaving `s`, in spec order.
    pub fn of(&self, s: StateId) -> &[u32] {
        let (a, b) = (self.starts[s.index()], self.starts[s.index() + 1]);
        &self.transitions[a as usize..b as usize]
    }
}

/// One direction of the transition graph, for petgraph's traversals: each state's neighbours (one per
/// transition) in compressed rows, which a search reads in order rather than by following a list per state.
struct Adjacency {
    starts: Vec<u32>,
    targets: Vec<u32>,
}

/// The rows of the graph's three views, built in two passes over the transitions (a large spec's transitions
/// are tens of megabytes: each pass over them costs more than the work done with them).
fn views(m: &Machine) -> (Outgoing, Adjacency, Adjacency) {
    let n = m.states.len();
    // Where each state's row starts, by the transitions leaving it and entering it.
    let mut out_starts = vec![0u32; n + 1];
    let mut in_starts = vec![0u32; n + 1];
    for t in &m.transitions {
        out_starts[t.from.index() + 1] += 1;
        in_starts[t.to.index() + 1] += 1;
    }
    for i in 1..=n {
        out_starts[i] += out_starts[i - 1];
        in_starts[i] += in_starts[i - 1];
    }
    let (mut out_next, mut in_next) = (out_starts.clone(), in_starts.clone());
    let len = m.transitions.len();
    let (mut leaving, mut targets, mut sources) =
        (vec![0u32; len], vec![0u32; len], vec![0u32; len]);
    for (i, t) in m.transitions.iter().enumerate() {
        let at = &mut out_next[t.from.index()];
        leaving[*at as usize] = i as u32;
        targets[*at as usize] = t.to.0;
        *at += 1;
        let at = &mut in_next[t.to.index()];
        sources[*at as usize] = t.from.0;
        *at += 1;
    }
    let outgoing = Outgoing {
        starts: out_starts.clone(),
        transitions: leaving,
    };
    let forward = Adjacency {
        starts: out_starts,
        targets,
    };
    let backward = Adjacency {
        starts: in_starts,
        targets: sources,
    };
    (outgoing, forward, backward)
}

impl GraphBase for Adjacency {
    type NodeId = NodeIndex;
    type EdgeId = usize;
}

impl<'a> IntoNeighbors for &'a Adjacency {
    type Neighbors =
        std::iter::Map<std::iter::Copied<std::slice::Iter<'a, u32>>, fn(u32) -> NodeIndex>;
    fn neighbors(self, a: NodeIndex) -> Self::Neighbors {
        let (s, e) = (self.starts[a.index()], self.starts[a.index() + 1]);
        self.targets[s as usize..e as usize]
            .iter()
            .copied()
            .map(node as fn(u32) -> NodeIndex)
    }
}

fn node(i: u32) -> NodeIndex {
    NodeIndex::new(i as usize)
}

/// The states a search has found.
struct Seen(Vec<bool>);

impl VisitMap<NodeIndex> for Seen {
    fn visit(&mut self, a: NodeIndex) -> bool {
        !std::mem::replace(&mut self.0[a.index()], true)
    }
    fn is_visited(&self, a: &NodeIndex) -> bool {
        self.0[a.index()]
    }
    fn unvisit(&mut self, a: NodeIndex) -> bool {
        std::mem::replace(&mut self.0[a.index()], false)
    }
}

impl Visitable for Adjacency {
    type Map = Seen;
    fn visit_map(&self) -> Seen {
        Seen(vec![false; self.starts.len() - 1])
    }
    fn reset_map(&self, map: &mut Seen) {
        map.0.clear();
        map.0.resize(self.starts.len() - 1, false);
    }
}

/// Facts later checks reuse.
pub(crate) struct Graph {
    pub reachable: Vec<bool>,
    pub coreachable: Vec<bool>,
    pub outgoing: Outgoing,
}

/// Every state reachable from any of `sources`, in one breadth-first search seeded with all of them, so the
/// cost is linear however many start (or final) states there are.
fn visit(graph: &Adjacency, sources: impl Iterator<Item = StateId>) -> Vec<bool> {
    let mut sources = sources.map(|s| NodeIndex::new(s.index())).peekable();
    let Some(&first) = sources.peek() else {
        return vec![false; graph.starts.len() - 1];
    };
    let mut bfs = Bfs::new(graph, first);
    for s in sources {
        if bfs.discovered.visit(s) {
            bfs.stack.push_back(s);
        }
    }
    while bfs.next(graph).is_some() {}
    // Every state the search discovered, it also visited: the discovered map is the reachable set.
    bfs.discovered.0
}

impl Graph {
    pub fn build(m: &Machine) -> Graph {
        let (outgoing, forward, backward) = views(m);
        let reachable = visit(&forward, m.start_states());
        drop(forward);
        let coreachable = visit(&backward, m.final_states());
        Graph {
            reachable,
            coreachable,
            outgoing,
        }
    }

    pub fn out_degree(&self, s: StateId) -> usize {
        self.outgoing.of(s).len()
    }
}

/// Which states or events of a machine a fact is not reported for, by index.
#[derive(Default)]
pub(crate) enum Set {
    #[default]
    None,
    All,
    Some(Vec<bool>),
}

impl Set {
    fn has(&self, i: usize) -> bool {
        match self {
            Set::None => false,
            Set::All => true,
            Set::Some(flags) => flags[i],
        }
    }
}

/// The facts of the graph pass that a machine's system keeps quiet, because it reports them in its own words or
/// because they follow from one of its errors. The system builds it once the graph is known (`System::quiet`);
/// by default nothing is kept quiet.
#[derive(Default)]
pub(crate) struct Quiet {
    /// States not reported as unreachable.
    pub unreachable: Set,
    /// States not reported as dead ends.
    pub dead_ends: Set,
    /// States not reported as unable to reach a final state.
    pub no_path_to_final: Set,
    /// Events not reported as never used.
    pub unused_events: Set,
    /// Events not reported as handled only by unreachable states.
    pub unhandled_events: Set,
    /// The help of a dead end in the system's words, when it has its own.
    pub dead_end_help: Option<&'static str>,
}

/// Reports unreachable states, dead ends, states that cannot reach a final state, and events never used or never
/// handled, except what `quiet` names.
pub(super) fn check(m: &Machine, g: &Graph, quiet: &Quiet, out: &mut Vec<Diagnostic>) {
    states(m, g, quiet, out);
    events(m, g, quiet, out);
}

fn states(m: &Machine, g: &Graph, quiet: &Quiet, out: &mut Vec<Diagnostic>) {
    let has_start = m.start_states().next().is_some();
    let has_final = m.final_states().next().is_some();
    // When no final state is reachable, every state "cannot reach a final state": the unreachable finals say
    // it once.
    let final_reachable = m.final_states().any(|f| g.reachable[f.index()]);
    if has_start {
        unreachable(m, g, quiet, out);
    }
    for s in m.state_ids() {
        let st = m.state(s);
        if !st.is_final && g.out_degree(s) == 0 && !quiet.dead_ends.has(s.index()) {
            let help = quiet
                .dead_end_help
                .unwrap_or("add a transition out of it, or mark it `final`");
            out.push(
                Diagnostic::new(Code::DeadEnd, format!("state `{}` is a dead end", st.name))
                    .at(st.name.span, "not final, and no transition leaves it")
                    .help(help)
                    .note("a machine that enters this state can never move again"),
            );
        } else if has_final
            && final_reachable
            && !st.is_final
            && g.reachable[s.index()]
            && !g.coreachable[s.index()]
            && !quiet.no_path_to_final.has(s.index())
        {
            out.push(
                Diagnostic::new(
                    Code::NoPathToFinal,
                    format!("state `{}` cannot reach a final state", st.name),
                )
                .at(st.name.span, "every path from here loops forever")
                .help("add a transition towards a final state"),
            );
        }
    }
}

/// Reports the unreachable states, one error per region of them: a state that only unreachable states lead to
/// is unreachable because they are, so it is named in a note of the state its region starts at rather than
/// reported again (one missing transition would otherwise report every state behind it).
///
/// A region starts at an unreachable state no other unreachable state leads to; what those regions do not
/// cover (unreachable cycles that nothing enters) starts a region at its first state in spec order. Each
/// state belongs to the first region that reaches it, so the pass stays linear.
fn unreachable(m: &Machine, g: &Graph, quiet: &Quiet, out: &mut Vec<Diagnostic>) {
    let n = m.states.len();
    let lost = |i: usize| !g.reachable[i] && !quiet.unreachable.has(i);
    let mut entered = vec![false; n];
    for t in &m.transitions {
        if t.from != t.to && lost(t.from.index()) {
            entered[t.to.index()] = true;
        }
    }
    let mut covered = vec![false; n];
    let mut regions: Vec<(StateId, Vec<StateId>)> = Vec::new();
    let starts = m
        .state_ids()
        .filter(|s| lost(s.index()) && !entered[s.index()]);
    let rest = m.state_ids().filter(|s| lost(s.index()));
    for s in starts.collect::<Vec<_>>().into_iter().chain(rest) {
        if std::mem::replace(&mut covered[s.index()], true) {
            continue;
        }
        let mut behind = Vec::new();
        let mut stack = vec![s];
        while let Some(at) = stack.pop() {
            for &t in g.outgoing.of(at) {
                let to = m.transitions[t as usize].to;
                if lost(to.index()) && !std::mem::replace(&mut covered[to.index()], true) {
                    behind.push(to);
                    stack.push(to);
                }
            }
        }
        regions.push((s, behind));
    }
    for (s, mut behind) in regions {
        let st = m.state(s);
        let mut d = Diagnostic::new(
            Code::UnreachableState,
            format!("state `{}` is unreachable", st.name),
        )
        .at(st.name.span, "no path from any start state leads here")
        .help("add a transition into it, mark it `start`, or remove it");
        if !behind.is_empty() {
            behind.sort();
            d = d.note(behind_note(m, &behind));
        }
        out.push(d);
    }
}

/// The note naming the states only an unreachable state leads to, the first few by name.
fn behind_note(m: &Machine, behind: &[StateId]) -> String {
    const NAMED: usize = 5;
    let mut names: Vec<String> = behind
        .iter()
        .take(NAMED)
        .map(|s| format!("`{}`", m.state(*s).name))
        .collect();
    if behind.len() > NAMED {
        names.push(format!("{} more", behind.len() - NAMED));
    }
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    };
    let verb = if behind.len() == 1 { "is" } else { "are" };
    format!("{list} {verb} unreachable too: only this state and others behind it lead there")
}

fn events(m: &Machine, g: &Graph, quiet: &Quiet, out: &mut Vec<Diagnostic>) {
    let has_start = m.start_states().next().is_some();
    let mut used = vec![false; m.events.len()];
    let mut live = vec![false; m.events.len()];
    for t in &m.transitions {
        if let Some(e) = t.event {
            used[e.index()] = true;
            live[e.index()] |= g.reachable[t.from.index()];
        }
    }
    for (i, e) in m.events.iter().enumerate() {
        if !used[i] {
            if !quiet.unused_events.has(i) {
                out.push(
                    Diagnostic::new(
                        Code::UnusedEvent,
                        format!("event `{}` is never used", e.name),
                    )
                    .at(e.name.span, "no transition uses this event")
                    .help("use it in a transition or remove it"),
                );
            }
        } else if has_start && !live[i] && !quiet.unhandled_events.has(i) {
            out.push(
                Diagnostic::new(
                    Code::EventNeverHandled,
                    format!("event `{}` can never be handled", e.name),
                )
                .at(e.name.span, "only unreachable states handle this event")
                .help("make one of those states reachable, or remove the event"),
            );
        }
    }
}
