//! Running layout-rs safely: bounded size and time, and no crash on its internal assertions.
//!
//! layout-rs orients edges greedily in the order given (an edge whose target already reaches its source is
//! reversed), asking reachability with a depth-first search that unmarks nodes on the way back: it enumerates
//! paths, exponential on graphs with many of them (chains of diamonds are common in real apps). It also
//! re-verifies the whole graph after every edge. So we turn the verification off, compute the same greedy
//! orientation ourselves with a linear search per edge, and hand the edges over already oriented and sorted
//! by the topological position of their source: each target then has no successors yet when its edge
//! arrives, and every search of layout-rs stops at once. The resulting graph is the one it would have built.
//!
//! Some of its later passes assert floating-point invariants that rare graphs break: a failed assertion is
//! caught and the layout retried with fewer passes; its message is not printed. Its placement loops until
//! every column is placed, which could in principle never end, so the layout runs on its own thread under
//! a time budget. Machines larger than [`MAX_ELEMENTS`] are refused outright: no layered layout is readable
//! at that size, and DOT or Mermaid serve better.

use super::canvas::{Canvas, EDGE_LAYOUT_FONT, Edge, Node, STATE_FONT, text_width};
use crate::model::Machine;
use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use std::collections::BTreeMap;
use std::time::Duration;

const ORIENTATION: Orientation = Orientation::LeftToRight;
/// States plus drawn edges beyond which the crossing optimisation (quadratic in the nodes of a rank, and
/// long edges add one per rank they cross) and the column placement are skipped. The largest real Open
/// Autonomy app, 47 states and 150 drawn edges, lays out with them in a tenth of a second.
const LARGE: usize = 400;
/// States plus drawn edges beyond which a machine is not laid out at all.
pub(super) const MAX_ELEMENTS: usize = 2500;
/// How long a layout may take; far above what [`MAX_ELEMENTS`] needs.
const BUDGET: Duration = Duration::from_secs(120);

/// A laid-out drawing: each state's box (top-left, bottom-right) and the recorded markup.
pub(super) struct Laid {
    pub(super) boxes: Vec<(Point, Point)>,
    pub(super) canvas: Canvas,
}

/// The machine's transitions merged per pair of states, in first-appearance order.
pub(super) fn merge_edges(m: &Machine) -> Vec<Edge> {
    let mut edges: Vec<Edge> = Vec::new();
    let mut index: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for t in &m.transitions {
        let key = (t.from.index(), t.to.index());
        let label = super::transition_label(m, t);
        match index.get(&key) {
            Some(&k) => edges[k].labels.push(label),
            None => {
                index.insert(key, edges.len());
                edges.push(Edge {
                    from: key.0,
                    to: key.1,
                    labels: vec![label],
                });
            }
        }
    }
    edges
}

/// Lays out and draws the machine.
pub(super) fn lay_out(m: &Machine, cluster_of: &[Option<usize>]) -> Result<Laid, String> {
    let edges = merge_edges(m);
    if m.states.len() + edges.len() > MAX_ELEMENTS {
        return Err(format!(
            "`{}` is too large to lay out ({} states, {} transitions); draw it with `--format dot` (Graphviz) or `--format mermaid`",
            m.name,
            m.states.len(),
            m.transitions.len()
        ));
    }
    let nodes: Vec<Node> = m
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut class = String::from("state");
            for (flag, word) in [
                (s.start, " start"),
                (s.default_start, " default"),
                (s.is_final, " final"),
            ] {
                if flag {
                    class.push_str(word);
                }
            }
            if let Some(c) = cluster_of.get(i).copied().flatten() {
                class.push_str(&format!(" c{c}"));
            }
            Node {
                name: s.name.text.clone(),
                class,
                is_final: s.is_final,
            }
        })
        .collect();
    let starts: Vec<(usize, bool)> = m
        .start_states()
        .map(|s| (s.index(), m.state(s).default_start))
        .collect();
    let failed = || {
        format!(
            "the layout engine failed on `{}`; draw it with `--format dot` (Graphviz) instead",
            m.name
        )
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("fsmc-layout".into())
        .spawn(move || {
            let _ = tx.send(attempts(nodes, edges, starts));
        });
    if spawned.is_err() {
        return Err(failed());
    }
    match rx.recv_timeout(BUDGET) {
        Ok(Some(laid)) => Ok(laid),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "laying out `{}` took too long; draw it with `--format dot` (Graphviz) instead",
            m.name
        )),
        _ => Err(failed()),
    }
}

/// Runs layout-rs, with fewer of its passes after a failed assertion; `None` when every attempt failed.
fn attempts(nodes: Vec<Node>, edges: Vec<Edge>, starts: Vec<(usize, bool)>) -> Option<Laid> {
    quiet_layout_panics();
    let starts_only: Vec<usize> = starts.iter().map(|(s, _)| *s).collect();
    let oriented = orient(nodes.len(), &edges, &starts_only);
    let large = nodes.len() + edges.len() > LARGE;
    // Past [`LARGE`], only layering and ordering: the crossing optimisation and layout-rs's column placement
    // are superlinear, and at that size the picture is for panning through, not for its fine placement.
    let passes: &[(bool, bool)] = if large {
        &[(true, true)]
    } else {
        &[(false, false), (true, false), (true, true)]
    };
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
    for &(disable_opt, disable_layout) in passes {
        let (mut vg, handles) = build(&nodes, &edges, &starts, &oriented);
        let mut canvas = Canvas::new(nodes.clone(), pairs.clone());
        if !nodes.is_empty() {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                vg.do_it(false, disable_opt, disable_layout, &mut canvas)
            }));
            if ran.is_err() {
                continue;
            }
        }
        let boxes = handles.iter().map(|h| vg.pos(*h).bbox(false)).collect();
        return Some(Laid { boxes, canvas });
    }
    None
}

/// A greedy orientation like layout-rs's own (an edge whose target already reaches its source is reversed),
/// computed in linear time per edge and taking edges in breadth-first order from the start states, so edges
/// follow the machine's flow and the back edges are its retries and resets. Returns, in the order to add them
/// (by topological position of the oriented source, ties in edge order), each edge and whether it is reversed.
fn orient(n: usize, edges: &[Edge], starts: &[usize]) -> Vec<(usize, bool)> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges.iter().filter(|e| e.from != e.to) {
        out[e.from].push(e.to);
    }
    let mut distance = vec![usize::MAX; n];
    let mut queue: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    for &s in starts {
        if distance[s] == usize::MAX {
            distance[s] = 0;
            queue.push_back(s);
        }
    }
    while let Some(v) = queue.pop_front() {
        for &w in &out[v] {
            if distance[w] == usize::MAX {
                distance[w] = distance[v] + 1;
                queue.push_back(w);
            }
        }
    }
    let mut by_flow: Vec<usize> = (0..edges.len()).collect();
    by_flow.sort_by_key(|&k| (distance[edges[k].from], k));

    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut mark = vec![0usize; n];
    let mut stamp = 0;
    let mut reversed = vec![false; edges.len()];
    for k in by_flow {
        let e = &edges[k];
        if e.from == e.to {
            continue;
        }
        // Does `to` already reach `from`? A search that never revisits a node.
        stamp += 1;
        let mut stack = vec![e.to];
        mark[e.to] = stamp;
        let mut reaches = false;
        while let Some(v) = stack.pop() {
            if v == e.from {
                reaches = true;
                break;
            }
            for &w in &succ[v] {
                if mark[w] != stamp {
                    mark[w] = stamp;
                    stack.push(w);
                }
            }
        }
        reversed[k] = reaches;
        let (a, b) = if reaches {
            (e.to, e.from)
        } else {
            (e.from, e.to)
        };
        succ[a].push(b);
    }
    // Topological positions (Kahn, smallest index first, so the order is stable).
    let mut indegree = vec![0usize; n];
    for list in &succ {
        for &w in list {
            indegree[w] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut position = vec![0usize; n];
    let mut next = 0;
    while let Some(v) = ready.pop_first() {
        position[v] = next;
        next += 1;
        for &w in &succ[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.insert(w);
            }
        }
    }
    let mut order: Vec<(usize, usize, bool)> = edges
        .iter()
        .enumerate()
        .map(|(k, e)| {
            (
                position[if reversed[k] { e.to } else { e.from }],
                k,
                reversed[k],
            )
        })
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, k, back)| (k, back)).collect()
}

/// The visual graph: a box per state, a start mark, and the edges in `oriented` order and direction.
fn build(
    nodes: &[Node],
    edges: &[Edge],
    starts: &[(usize, bool)],
    oriented: &[(usize, bool)],
) -> (VisualGraph, Vec<NodeHandle>) {
    let mut vg = VisualGraph::new(ORIENTATION);
    vg.dag.set_validate(false);
    let look = StyleAttr::new(Color::fast("black"), 1, None, 6, STATE_FONT);
    let handles: Vec<NodeHandle> = nodes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let size = Point::new(
                text_width(&s.name, STATE_FONT as f64) + 28.,
                STATE_FONT as f64 + 22.,
            );
            let shape = ShapeKind::new_box(&s.name);
            vg.add_node(Element::create_with_properties(
                shape,
                look.clone(),
                ORIENTATION,
                size,
                format!("s{i}"),
            ))
        })
        .collect();
    let edge_look = StyleAttr::new(Color::fast("black"), 1, None, 0, EDGE_LAYOUT_FONT);
    if !starts.is_empty() {
        // The mark has no incoming edge: its edges are forward, and searches from their targets are empty.
        let mark = Element::create_with_properties(
            ShapeKind::new_circle(""),
            look,
            ORIENTATION,
            Point::new(14., 14.),
            "start",
        );
        let mark = vg.add_node(mark);
        for &(s, default) in starts {
            let mut arrow = Arrow::simple_with_properties(
                "",
                format!("t{}{s}", if default { "d" } else { "" }),
            );
            arrow.look = edge_look.clone();
            vg.add_edge(arrow, mark, handles[s]);
        }
    }
    for &(k, back) in oriented {
        let e = &edges[k];
        // One event per line, with blank lines between so layout-rs (7px per line) reserves the 13px each
        // drawn line needs; the blank lines are not drawn.
        let mut arrow = Arrow::simple_with_properties(&e.labels.join("\n\n"), format!("e{k}"));
        arrow.look = edge_look.clone();
        if back {
            vg.add_edge(arrow.reverse(), handles[e.to], handles[e.from]);
        } else {
            vg.add_edge(arrow, handles[e.from], handles[e.to]);
        }
    }
    (vg, handles)
}

/// Silences the panic messages of layout-rs's own assertions (we recover from them); every other panic is
/// reported as before. Installed once, for the whole process.
fn quiet_layout_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_layout = info
                .location()
                .is_some_and(|l| l.file().contains("layout-rs-"));
            if !in_layout {
                previous(info);
            }
        }));
    });
}
