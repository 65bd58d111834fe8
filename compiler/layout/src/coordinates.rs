//! Step 5, coordinates: each layered node's horizontal position, by Brandes and Köpf ("Fast and Simple
//! Horizontal Coordinate Assignment", with the published fixes), keeping the order within each layer and each
//! node's own extents apart.

use crate::adjacency::{self, Adjacency};
use crate::layered::LNode;
use crate::ordering::positions;

/// Space between two states in a layer.
const NODE_SEP: f64 = 28.;
/// Space between a line or a label and its neighbour in a layer.
const EDGE_SEP: f64 = 12.;
/// Space between two states of different clusters in a layer, so the clusters' frames fit between them.
const CLUSTER_SEP: f64 = 44.;

/// Space required between the anchors of `u` and of `v`, `u` left of `v`.
pub(crate) fn separation(u: &LNode, v: &LNode) -> f64 {
    let gap = match (u.real.is_some(), v.real.is_some()) {
        (true, true) if u.cluster != v.cluster => CLUSTER_SEP,
        (true, true) => NODE_SEP,
        _ => EDGE_SEP,
    };
    u.right + gap + v.left
}

/// Horizontal coordinates: four alignments (towards the upper or lower median neighbour, from the left or
/// the right), each compacted, aligned to the narrowest, and balanced (the mean of the two middle values).
pub(crate) fn place(layers: &[Vec<usize>], nodes: &[LNode], adj: &Adjacency) -> Vec<f64> {
    let conflicts = type1_conflicts(layers, nodes, adj);
    let alignment = |down: bool, right: bool| align(layers, nodes, adj, &conflicts, down, right);
    // The four alignments are independent: the two from below run on a second thread when one can be had
    // (the result is the same either way).
    let mut results: Vec<(Vec<f64>, bool)> = Vec::with_capacity(4);
    std::thread::scope(|scope| {
        let below = std::thread::Builder::new()
            .name("fsmc-layout".into())
            .spawn_scoped(scope, || [alignment(true, false), alignment(true, true)]);
        results.push(alignment(false, false));
        results.push(alignment(false, true));
        match below.map(|handle| handle.join()) {
            Ok(Ok(pair)) => results.extend(pair),
            _ => results.extend([alignment(true, false), alignment(true, true)]),
        }
    });
    align_to_narrowest(&mut results, nodes);
    (0..nodes.len())
        .map(|v| {
            let mut four = [0.; 4];
            for (i, (xs, _)) in results.iter().enumerate().take(4) {
                four[i] = xs[v];
            }
            four.sort_by(f64::total_cmp);
            (four[1] + four[2]) / 2.
        })
        .collect()
}

/// One of the four alignments: coordinates with the layers read from the bottom (`down`) or the top, each
/// from the right (`right`) or the left; returned with `right`.
fn align(
    layers: &[Vec<usize>],
    nodes: &[LNode],
    adj: &Adjacency,
    conflicts: &[bool],
    down: bool,
    right: bool,
) -> (Vec<f64>, bool) {
    // The layering as this alignment sees it: layers from the top (or bottom), each from the left (or right).
    let mut order: Vec<Vec<usize>> = if down {
        layers.iter().rev().cloned().collect()
    } else {
        layers.to_vec()
    };
    if right {
        for layer in &mut order {
            layer.reverse();
        }
    }
    let root = vertical_alignment(&order, adj, !down, conflicts, nodes.len());
    let mut xs = horizontal_compaction(&order, nodes, &root, right);
    if right {
        for x in &mut xs {
            *x = -*x;
        }
    }
    (xs, right)
}

/// Shifts every alignment onto the narrowest: its left side to the left for those compacted from the left,
/// its right side to the right for those compacted from the right.
fn align_to_narrowest(results: &mut [(Vec<f64>, bool)], nodes: &[LNode]) {
    let extent = |xs: &[f64]| {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (v, node) in nodes.iter().enumerate() {
            lo = lo.min(xs[v] - node.left);
            hi = hi.max(xs[v] + node.right);
        }
        (lo, hi)
    };
    let extents: Vec<(f64, f64)> = results.iter().map(|(xs, _)| extent(xs)).collect();
    let narrowest = extents
        .iter()
        .enumerate()
        .min_by(|a, b| (a.1.1 - a.1.0).total_cmp(&(b.1.1 - b.1.0)))
        .map_or(0, |(i, _)| i);
    let (target_lo, target_hi) = extents.get(narrowest).copied().unwrap_or((0., 0.));
    for (i, (xs, right)) in results.iter_mut().enumerate() {
        let (lo, hi) = extents[i];
        let delta = if *right {
            target_hi - hi
        } else {
            target_lo - lo
        };
        if delta.is_finite() {
            for x in xs.iter_mut() {
                *x += delta;
            }
        }
    }
}

/// Type 1 conflicts: a segment between a state and a bend that crosses a segment between two bends. The
/// alignment never uses such a segment, so long arrows stay straight. Returned as a flag per segment.
fn type1_conflicts(layers: &[Vec<usize>], nodes: &[LNode], adj: &Adjacency) -> Vec<bool> {
    let mut pos = vec![0usize; nodes.len()];
    positions(layers, &mut pos);
    let mut conflicts = vec![false; adj.upper.len()];
    for pair in layers.windows(2) {
        let (prev, layer) = (&pair[0], &pair[1]);
        let (mut k0, mut scan) = (0usize, 0usize);
        for (i, &v) in layer.iter().enumerate() {
            // The upper end of an inner segment (between two bends) ending at `v`.
            let inner = if nodes[v].dummy() {
                adj.neighbours(v, true).find(|&u| nodes[u].dummy())
            } else {
                None
            };
            let k1 = inner.map_or(prev.len(), |u| pos[u]);
            if inner.is_some() || i + 1 == layer.len() {
                for &w in &layer[scan..=i] {
                    for &s in adj.segs(w, true) {
                        let u = adj.upper[s];
                        if (pos[u] < k0 || k1 < pos[u]) && !(nodes[u].dummy() && nodes[w].dummy()) {
                            conflicts[s] = true;
                        }
                    }
                }
                scan = i + 1;
                k0 = k1;
            }
        }
    }
    conflicts
}

/// Aligns each node with its median neighbour in the layer before it in `order` (above when `up`) unless
/// the segment is in conflict or would cross an alignment already made: blocks of nodes that will share an
/// x. Returns each node's block (the block's first node).
fn vertical_alignment(
    order: &[Vec<usize>],
    adj: &Adjacency,
    up: bool,
    conflicts: &[bool],
    count: usize,
) -> Vec<usize> {
    let mut root: Vec<usize> = (0..count).collect();
    let mut align: Vec<usize> = (0..count).collect();
    let mut pos = vec![0usize; count];
    positions(order, &mut pos);
    let other = if up { &adj.upper } else { &adj.lower };
    let mut ws: Vec<usize> = Vec::new();
    for layer in order {
        let mut prev: Option<usize> = None;
        for &v in layer {
            ws.clear();
            ws.extend_from_slice(adj.segs(v, up));
            if ws.is_empty() {
                continue;
            }
            ws.sort_by_key(|&s| pos[other[s]]);
            let len = ws.len();
            let medians = if len % 2 == 1 {
                [(len - 1) / 2, (len - 1) / 2]
            } else {
                [len / 2 - 1, len / 2]
            };
            let mut last = None;
            for m in medians {
                if last == Some(m) {
                    continue;
                }
                last = Some(m);
                let s = ws[m];
                let w = other[s];
                if align[v] == v && prev.is_none_or(|p| p < pos[w]) && !conflicts[s] {
                    align[w] = v;
                    root[v] = root[w];
                    align[v] = root[v];
                    prev = Some(pos[w]);
                }
            }
        }
    }
    root
}

/// Places the blocks as far left as their separations allow (a longest path over the graph of blocks, each
/// block after the ones left of it), then moves each block right as far as its right neighbours allow.
/// `mirrored` when the layers are read from the right (the extents swap sides).
fn horizontal_compaction(
    order: &[Vec<usize>],
    nodes: &[LNode],
    root: &[usize],
    mirrored: bool,
) -> Vec<f64> {
    let count = nodes.len();
    let edges = block_graph(order, nodes, root, mirrored);
    let froms: Vec<usize> = edges.iter().map(|e| e.0).collect();
    let tos: Vec<usize> = edges.iter().map(|e| e.1).collect();
    let (succ_start, succ) = adjacency::index(count, &froms);
    let (pred_start, pred) = adjacency::index(count, &tos);
    let range = |start: &[usize], v: usize| start[v]..start[v + 1];
    // Topological order of the blocks (the block graph is acyclic: it follows the layers' order).
    let mut indegree: Vec<usize> = (0..count).map(|v| range(&pred_start, v).len()).collect();
    let mut queue: std::collections::VecDeque<usize> = (0..count)
        .filter(|&v| root[v] == v && indegree[v] == 0)
        .collect();
    let mut topo = Vec::with_capacity(count);
    while let Some(b) = queue.pop_front() {
        topo.push(b);
        for &e in &succ[range(&succ_start, b)] {
            let c = edges[e].1;
            indegree[c] -= 1;
            if indegree[c] == 0 {
                queue.push_back(c);
            }
        }
    }
    let mut xs = vec![0.; count];
    for &b in &topo {
        xs[b] = pred[range(&pred_start, b)]
            .iter()
            .map(|&e| xs[edges[e].0] + edges[e].2)
            .fold(0., f64::max);
    }
    // Pull each block with room on its right next to its right neighbours (blocks with none stay).
    for &b in topo.iter().rev() {
        let room = succ[range(&succ_start, b)]
            .iter()
            .map(|&e| xs[edges[e].1] - edges[e].2)
            .fold(f64::INFINITY, f64::min);
        if room.is_finite() {
            xs[b] = xs[b].max(room);
        }
    }
    (0..count).map(|v| xs[root[v]]).collect()
}

/// The block graph: an edge from the block of each node to the block of the node right of it (as `order`
/// reads the layers), with the separation they need, the largest where there are several; sorted.
fn block_graph(
    order: &[Vec<usize>],
    nodes: &[LNode],
    root: &[usize],
    mirrored: bool,
) -> Vec<(usize, usize, f64)> {
    // Read from the right, `u` before `v` means `v` is left of `u` in the drawing.
    let sep = |u: usize, v: usize| {
        if mirrored {
            separation(&nodes[v], &nodes[u])
        } else {
            separation(&nodes[u], &nodes[v])
        }
    };
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for layer in order {
        for pair in layer.windows(2) {
            let (u, v) = (pair[0], pair[1]);
            edges.push((root[u], root[v], sep(u, v)));
        }
    }
    edges.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)));
    edges.dedup_by(|later, kept| later.0 == kept.0 && later.1 == kept.1);
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{graph, random_graphs, through_layering};

    #[test]
    fn the_order_within_a_layer_and_the_separations_are_kept() {
        for g in random_graphs(29, 150, 1..17) {
            let steps = through_layering(&g);
            let (nodes, adj) = (&steps.graph.nodes, &steps.adj);
            let layers = steps.order(&g.roots);
            let x = place(&layers, nodes, adj);
            assert_eq!(x.len(), nodes.len());
            for layer in &layers {
                for pair in layer.windows(2) {
                    let (u, v) = (pair[0], pair[1]);
                    let need = separation(&nodes[u], &nodes[v]);
                    assert!(
                        x[v] - x[u] >= need - 1e-6,
                        "{u} and {v}: {} apart, {need} needed",
                        x[v] - x[u]
                    );
                }
            }
        }
    }

    #[test]
    fn separations_depend_on_what_is_side_by_side() {
        let node = |real: Option<usize>, cluster: Option<usize>| LNode {
            layer: 0,
            left: 10.,
            right: 20.,
            height: 5.,
            real,
            label_of: None,
            cluster,
        };
        let (state, other_cluster, bend) = (
            node(Some(0), None),
            node(Some(1), Some(2)),
            node(None, None),
        );
        assert_eq!(separation(&state, &state), 20. + NODE_SEP + 10.);
        assert_eq!(separation(&state, &other_cluster), 20. + CLUSTER_SEP + 10.);
        assert_eq!(separation(&state, &bend), 20. + EDGE_SEP + 10.);
    }

    #[test]
    fn a_long_arrow_comes_out_straight() {
        // A chain 0 → 1 → 2 → 3 beside a long arrow 0 → 3: the long arrow's bends share one x.
        let size = crate::Size { w: 60., h: 30. };
        let g = graph(
            4,
            size,
            &[(0, 1, None), (1, 2, None), (2, 3, None), (0, 3, None)],
        );
        let steps = through_layering(&g);
        let x = place(&steps.order(&g.roots), &steps.graph.nodes, &steps.adj);
        let chain = &steps.graph.chains[3];
        let bends: Vec<f64> = chain[1..chain.len() - 1].iter().map(|&v| x[v]).collect();
        assert!(bends.windows(2).all(|w| w[0] == w[1]), "{bends:?}");
    }
}
