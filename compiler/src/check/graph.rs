//! Graph checks with petgraph: reachability from the start states, dead ends, paths to a final state,
//! unused and never-handled events. Every pass is linear in states plus transitions.

use crate::diag::{Code, Diagnostic};
use crate::model::{Machine, Profile, StateId};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, Reversed};

/// Facts later checks reuse.
pub(crate) struct Graph {
    pub reachable: Vec<bool>,
    pub coreachable: Vec<bool>,
    pub graph: DiGraph<(), usize>,
}

/// Every node reachable from any of `sources`, in one breadth-first search seeded with all of them, so the
/// cost is linear however many start (or final) states there are.
fn visit<G>(graph: G, n: usize, sources: impl Iterator<Item = NodeIndex>) -> Vec<bool>
where
    G: petgraph::visit::IntoNeighbors<NodeId = NodeIndex> + petgraph::visit::Visitable,
{
    let mut seen = vec![false; n];
    let mut sources = sources.peekable();
    let Some(&first) = sources.peek() else {
        return seen;
    };
    let mut bfs = Bfs::new(graph, first);
    for s in sources {
        if petgraph::visit::VisitMap::visit(&mut bfs.discovered, s) {
            bfs.stack.push_back(s);
        }
    }
    while let Some(node) = bfs.next(graph) {
        seen[node.index()] = true;
    }
    seen
}

impl Graph {
    pub fn build(m: &Machine) -> Graph {
        let mut graph = DiGraph::with_capacity(m.states.len(), m.transitions.len());
        for _ in &m.states {
            graph.add_node(());
        }
        for (i, t) in m.transitions.iter().enumerate() {
            graph.add_edge(
                NodeIndex::new(t.from.index()),
                NodeIndex::new(t.to.index()),
                i,
            );
        }
        let reachable = visit(
            &graph,
            m.states.len(),
            m.start_states().map(|s| NodeIndex::new(s.index())),
        );
        let coreachable = visit(
            Reversed(&graph),
            m.states.len(),
            m.final_states().map(|s| NodeIndex::new(s.index())),
        );
        Graph {
            reachable,
            coreachable,
            graph,
        }
    }

    pub fn out_degree(&self, s: StateId) -> usize {
        self.graph
            .edges_directed(NodeIndex::new(s.index()), Direction::Outgoing)
            .count()
    }
}

pub(super) fn check(m: &Machine, out: &mut Vec<Diagnostic>) -> Graph {
    let g = Graph::build(m);
    let has_start = m.start_states().next().is_some();
    let has_final = m.final_states().next().is_some();
    // When no final state is reachable, every state "cannot reach a final state": the unreachable finals say
    // it once.
    let final_reachable = m.final_states().any(|f| g.reachable[f.index()]);
    // A dialogue that cannot begin reaches nothing: its one error (E0803) replaces a dead-end start and a
    // report for every other state.
    let no_initiation = super::profiles::no_initiation(m);
    // In a dialogue, a state that cannot reach an end is reported through the performative leading into it.
    let cannot_terminate = super::profiles::cannot_terminate(m, &g);
    // Computed in one pass over the transitions, so the check stays linear.
    let mut by_performative = vec![false; m.states.len()];
    for t in &m.transitions {
        if g.reachable[t.from.index()] && t.event.is_some_and(|e| cannot_terminate[e.index()]) {
            by_performative[t.to.index()] = true;
        }
    }
    let reported_by_performative = |s: StateId| by_performative[s.index()];
    for s in m.state_ids() {
        let st = m.state(s);
        if no_initiation {
            continue;
        }
        if has_start && !g.reachable[s.index()] {
            out.push(
                Diagnostic::new(
                    Code::UnreachableState,
                    format!("state `{}` is unreachable", st.name),
                )
                .at(st.name.span, "no path from any start state leads here")
                .help("add a transition into it, mark it `start`, or remove it"),
            );
        }
        // A stage without a handler and without a next stage breaks Phantom's "exactly one next stage"
        // rule, which says it in its own words (E0901).
        let staged_rule = m.profile == Profile::Staged && st.handler.is_none();
        if !st.is_final && g.out_degree(s) == 0 && !staged_rule {
            let help = if m.profile == Profile::Staged {
                "give it its next stages: `A -> B, C;`"
            } else {
                "add a transition out of it, or mark it `final`"
            };
            out.push(
                Diagnostic::new(Code::DeadEnd, format!("state `{}` is a dead end", st.name))
                    .at(st.name.span, "not final, and no transition leaves it")
                    .help(help)
                    .note("a machine that enters this state can never move again"),
            );
        } else if has_final
            // A final stage is itself the error in a staged machine (E0904), not the paths towards it.
            && m.profile != Profile::Staged
            && final_reachable
            && !st.is_final
            && g.reachable[s.index()]
            && !g.coreachable[s.index()]
            && !reported_by_performative(s)
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
    let mut used = vec![false; m.events.len()];
    let mut live = vec![false; m.events.len()];
    for t in &m.transitions {
        if let Some(e) = t.event {
            used[e.index()] = true;
            live[e.index()] |= g.reachable[t.from.index()];
        }
    }
    let explained = super::rounds::required_but_unused(m);
    for (i, e) in m.events.iter().enumerate() {
        if !used[i] {
            // An event some round must emit is reported as that round's missing transition (E0401) instead.
            if !explained[i] {
                out.push(
                    Diagnostic::new(
                        Code::UnusedEvent,
                        format!("event `{}` is never used", e.name),
                    )
                    .at(e.name.span, "no transition uses this event")
                    .help("use it in a transition or remove it"),
                );
            }
        } else if has_start && !live[i] && m.profile != Profile::Dialogue {
            // Dialogues report this as an unreachable performative instead.
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
    g
}
