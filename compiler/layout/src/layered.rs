//! Step 3, the layered graph: the input read into the top-to-bottom frame, each state a node with its
//! extents, and each arrow a chain of nodes through every layer it crosses, its label the node of one of them.

use crate::{Frame, Graph, Size};

/// How far right of its line a label box starts.
pub(crate) const LABEL_PAD: f64 = 5.;
/// How far a self-loop reaches beyond its state's side.
const LOOP_REACH: f64 = 26.;

/// How far the `k`-th self-loop of a state (counting from 1) reaches, as drawn (a cubic reaches three
/// quarters of its control points' distance).
pub(crate) fn loop_reach(k: usize) -> f64 {
    LOOP_REACH + 12. * k.saturating_sub(1) as f64
}

/// The input as the steps read it, in the top-to-bottom frame.
pub(crate) struct Input {
    /// Each state's size.
    pub(crate) sizes: Vec<Size>,
    /// The edges laid out (in range, not self-loops), in input order.
    pub(crate) plain: Vec<usize>,
    /// Each state's self-loops (input edges) with their labels' sizes (zero for a loop without a label).
    pub(crate) loops: Vec<Vec<(usize, Size)>>,
}

impl Input {
    /// Sorts the edges: self-loops stay with their node, the other edges are laid out, edges whose ends are
    /// out of range are not drawn.
    pub(crate) fn read(g: &Graph, frame: &Frame) -> Input {
        let n = g.nodes.len();
        let sizes: Vec<Size> = g.nodes.iter().map(|v| frame.inner(v.size)).collect();
        let mut loops: Vec<Vec<(usize, Size)>> = vec![Vec::new(); n];
        let mut plain: Vec<usize> = Vec::new();
        for (k, e) in g.edges.iter().enumerate() {
            if e.from >= n || e.to >= n {
                continue;
            }
            if e.from == e.to {
                let label = e.label.map(|l| frame.inner(l)).unwrap_or_default();
                loops[e.from].push((k, label));
            } else {
                plain.push(k);
            }
        }
        Input {
            sizes,
            plain,
            loops,
        }
    }
}

/// A node of the layered graph: a state, a bend point of a long arrow, or an arrow's label.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LNode {
    pub(crate) layer: usize,
    /// Extent left and right of the node's anchor (where lines attach).
    pub(crate) left: f64,
    pub(crate) right: f64,
    pub(crate) height: f64,
    /// The state (input node) this is, if any.
    pub(crate) real: Option<usize>,
    /// The input edge this is the label of, if any.
    pub(crate) label_of: Option<usize>,
    pub(crate) cluster: Option<usize>,
}

impl LNode {
    pub(crate) fn dummy(&self) -> bool {
        self.real.is_none()
    }
}

/// The layered graph: the states first (node `v` is state `v`), then the nodes of the chains.
pub(crate) struct Layered {
    pub(crate) nodes: Vec<LNode>,
    /// One chain of layered nodes per laid-out edge (`Input::plain`), top to bottom.
    pub(crate) chains: Vec<Vec<usize>>,
    pub(crate) layer_count: usize,
}

/// Builds the layered graph of the input, given each laid-out edge `oriented` to point down and each state's
/// rank.
pub(crate) fn build(
    g: &Graph,
    input: &Input,
    oriented: &[(usize, usize)],
    rank: &[usize],
    frame: &Frame,
) -> Layered {
    let mut nodes: Vec<LNode> = (0..g.nodes.len())
        .map(|v| state_node(v, input, 2 * rank[v], g.nodes[v].cluster))
        .collect();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(input.plain.len());
    for (i, &k) in input.plain.iter().enumerate() {
        let label = g.edges[k].label.map(|l| frame.inner(l));
        chains.push(chain(&mut nodes, oriented[i], rank, k, label));
    }
    let layer_count = nodes.iter().map(|v| v.layer + 1).max().unwrap_or(0);
    Layered {
        nodes,
        chains,
        layer_count,
    }
}

/// The node of state `v` in `layer`: its box, with room for its self-loops and their labels on the right.
fn state_node(v: usize, input: &Input, layer: usize, cluster: Option<usize>) -> LNode {
    let (s, loops) = (input.sizes[v], &input.loops[v]);
    let (mut right, mut height) = (s.w / 2., s.h);
    if !loops.is_empty() {
        let widest = loops.iter().map(|(_, l)| l.w).fold(0., f64::max);
        let total: f64 = loops.iter().map(|(_, l)| l.h).sum();
        let reach = loop_reach(loops.len());
        right += if widest > 0. {
            reach + LABEL_PAD + widest
        } else {
            reach
        };
        height = height.max(total);
    }
    LNode {
        layer,
        left: s.w / 2.,
        right,
        height,
        real: Some(v),
        label_of: None,
        cluster,
    }
}

/// The chain of the edge `k` from `a` down to `b`: a new node in every layer between them, the one in the
/// middle odd layer the label's box (when the edge has a label).
fn chain(
    nodes: &mut Vec<LNode>,
    (a, b): (usize, usize),
    rank: &[usize],
    k: usize,
    label: Option<Size>,
) -> Vec<usize> {
    let (la, lb) = (2 * rank[a], 2 * rank[b]);
    if lb < la + 2 {
        // Cannot happen (every edge points down after the cycles are broken); drawn as nothing.
        return Vec::new();
    }
    let mut mid = la.midpoint(lb);
    if mid % 2 == 0 {
        mid -= 1;
    }
    let mut chain = Vec::with_capacity(lb - la + 1);
    chain.push(a);
    for layer in la + 1..lb {
        let (right, height, label_of) = match label {
            Some(l) if layer == mid => (LABEL_PAD + l.w, l.h, Some(k)),
            _ => (0., 0., None),
        };
        chain.push(nodes.len());
        nodes.push(LNode {
            layer,
            left: 0.,
            right,
            height,
            real: None,
            label_of,
            cluster: None,
        });
    }
    chain.push(b);
    chain
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::through_layering;

    /// Four states, as wide as a label.
    fn graph(edges: &[(usize, usize, Option<Size>)]) -> Graph {
        crate::tests::graph(4, Size { w: 60., h: 30. }, edges)
    }

    #[test]
    fn a_long_arrow_has_a_node_in_every_layer_and_its_label_a_box_in_the_middle() {
        let label = Size { w: 50., h: 13. };
        // 0 → 1 → 2 → 3 puts 3 at rank 3; the labelled 0 → 3 crosses layers 1 to 5.
        let g = graph(&[
            (0, 1, None),
            (1, 2, None),
            (2, 3, None),
            (0, 3, Some(label)),
        ]);
        let steps = through_layering(&g);
        let nodes = &steps.graph.nodes;
        let chain = &steps.graph.chains[3];
        let layers: Vec<usize> = chain.iter().map(|&v| nodes[v].layer).collect();
        assert_eq!(layers, [0, 1, 2, 3, 4, 5, 6]);
        let labelled: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&v| nodes[v].label_of.is_some())
            .collect();
        assert_eq!(labelled.len(), 1);
        let box_ = nodes[labelled[0]];
        assert_eq!((box_.layer, box_.label_of), (3, Some(3)));
        assert_eq!(
            (box_.left, box_.right, box_.height),
            (0., LABEL_PAD + 50., 13.)
        );
        // A short arrow's label sits in the odd layer between its ends.
        let short = &steps.graph.chains[0];
        assert_eq!(short.len(), 3);
        assert_eq!(steps.graph.layer_count, 7);
    }

    #[test]
    fn self_loops_reserve_room_on_the_right_and_out_of_range_edges_vanish() {
        let label = Size { w: 40., h: 26. };
        let g = graph(&[
            (1, 1, Some(label)),
            (1, 1, None),
            (0, 9, None),
            (0, 1, None),
        ]);
        let steps = through_layering(&g);
        assert_eq!(steps.input.plain, [3]);
        assert_eq!(steps.input.loops[1].len(), 2);
        let state = steps.graph.nodes[1];
        assert_eq!(state.left, 30.);
        assert_eq!(state.right, 30. + loop_reach(2) + LABEL_PAD + 40.);
        assert_eq!(state.height, 30., "the labels fit beside the state");
        let plain = steps.graph.nodes[0];
        assert_eq!((plain.left, plain.right), (30., 30.));
    }
}
