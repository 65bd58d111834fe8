//! Step 4, crossing reduction: the order of the nodes within each layer, chosen to cross few segments. A
//! first order from a depth-first search, barycenter sweeps that keep the best order seen, then adjacent swaps
//! on small graphs; the states of one cluster stay together throughout.

use crate::adjacency::Adjacency;
use crate::layered::LNode;

/// Graphs up to this many layered nodes get the most sweeps and the adjacent swaps.
const SMALL: usize = 3_000;
/// Graphs up to this many get a middling number of sweeps; larger ones a few.
const MEDIUM: usize = 60_000;

/// A first order: the layered nodes in depth-first order from the roots, each appended to its layer.
pub(crate) fn initial_order(
    nodes: &[LNode],
    adj: &Adjacency,
    roots: &[usize],
    layer_count: usize,
) -> Vec<Vec<usize>> {
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); layer_count];
    let mut seen = vec![false; nodes.len()];
    let mut by_layer: Vec<usize> = (0..nodes.len()).filter(|&v| !nodes[v].dummy()).collect();
    by_layer.sort_by_key(|&v| (nodes[v].layer, v));
    let starts = roots
        .iter()
        .copied()
        .filter(|&r| r < nodes.len())
        .chain(by_layer);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for s in starts {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        layers[nodes[s].layer].push(s);
        stack.push((s, 0));
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            match adj.segs(v, false).get(i).map(|&s| adj.lower[s]) {
                Some(w) => {
                    top.1 += 1;
                    if !seen[w] {
                        seen[w] = true;
                        layers[nodes[w].layer].push(w);
                        stack.push((w, 0));
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
    }
    layers
}

/// Each node's position in its layer.
pub(crate) fn positions(layers: &[Vec<usize>], pos: &mut [usize]) {
    for layer in layers {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
}

/// Barycenter sweeps, keeping the best order found, then adjacent swaps while they help (small graphs).
pub(crate) fn reduce_crossings(layers: &mut [Vec<usize>], nodes: &[LNode], adj: &Adjacency) {
    let size = nodes.len();
    let iterations = if size <= SMALL {
        24
    } else if size <= MEDIUM {
        8
    } else {
        3
    };
    let mut pos = vec![0usize; size];
    positions(layers, &mut pos);
    let mut best = crossings(layers, &pos, adj);
    let mut best_layers = layers.to_vec();
    let mut stale = 0;
    for _ in 0..iterations {
        if best == 0 {
            break;
        }
        for layer in layers.iter_mut().skip(1) {
            sort_layer(layer, &mut pos, nodes, adj, true);
        }
        for layer in layers.iter_mut().rev().skip(1) {
            sort_layer(layer, &mut pos, nodes, adj, false);
        }
        let now = crossings(layers, &pos, adj);
        if now < best {
            best = now;
            best_layers.clone_from_slice(layers);
            stale = 0;
        } else {
            stale += 1;
            if stale >= 4 {
                break;
            }
        }
    }
    layers.clone_from_slice(&best_layers);
    positions(layers, &mut pos);
    if size <= SMALL && best > 0 {
        transpose(layers, &mut pos, nodes, adj);
    }
}

/// Orders one layer by the barycenter of each node's neighbours above (`up`) or below, in the layer just
/// sorted; a node without such neighbours keeps its position. Nodes of one cluster stay together, ordered
/// among the others by their mean barycenter.
fn sort_layer(layer: &mut [usize], pos: &mut [usize], nodes: &[LNode], adj: &Adjacency, up: bool) {
    let key: Vec<f64> = layer
        .iter()
        .map(|&v| {
            let count = adj.segs(v, up).len();
            if count == 0 {
                pos[v] as f64
            } else {
                adj.neighbours(v, up).map(|u| pos[u] as f64).sum::<f64>() / count as f64
            }
        })
        .collect();
    let mut group: std::collections::BTreeMap<usize, (f64, usize)> = Default::default();
    for (i, &v) in layer.iter().enumerate() {
        if let Some(c) = nodes[v].cluster {
            let e = group.entry(c).or_insert((0., 0));
            e.0 += key[i];
            e.1 += 1;
        }
    }
    let mut items: Vec<(f64, usize, f64, usize, usize)> = layer
        .iter()
        .enumerate()
        .map(
            |(i, &v)| match nodes[v].cluster.and_then(|c| group.get(&c).map(|g| (c, g))) {
                Some((c, &(sum, count))) => (sum / count as f64, c, key[i], pos[v], v),
                None => (key[i], usize::MAX - v, key[i], pos[v], v),
            },
        )
        .collect();
    items.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    for (i, item) in items.iter().enumerate() {
        layer[i] = item.4;
        pos[item.4] = i;
    }
}

/// The number of crossings between consecutive layers (each pair of layers: edges sorted by their upper
/// end, crossings counted as inversions of their lower ends with a Fenwick tree).
pub(crate) fn crossings(layers: &[Vec<usize>], pos: &[usize], adj: &Adjacency) -> u64 {
    let mut total = 0u64;
    let mut tree: Vec<u64> = Vec::new();
    for pair in layers.windows(2) {
        let (upper, lower) = (&pair[0], &pair[1]);
        let mut ends: Vec<usize> = Vec::new();
        for &u in upper {
            let start = ends.len();
            ends.extend(adj.neighbours(u, false).map(|w| pos[w]));
            ends[start..].sort_unstable();
        }
        tree.clear();
        tree.resize(lower.len() + 1, 0);
        for (seen, &p) in ends.iter().enumerate() {
            // Edges already seen whose lower end is right of `p` cross this one.
            let mut i = p + 1;
            let mut at_most = 0u64;
            while i > 0 {
                at_most += tree[i];
                i &= i - 1;
            }
            total += seen as u64 - at_most;
            let mut i = p + 1;
            while i < tree.len() {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// Swaps adjacent nodes of a layer while that lowers the crossings with both neighbouring layers (a few
/// passes; never across a cluster's boundary).
fn transpose(layers: &mut [Vec<usize>], pos: &mut [usize], nodes: &[LNode], adj: &Adjacency) {
    // Crossings between the edges of `a` and of `b` (a left of b) with one neighbouring layer.
    let cross = |a: usize, b: usize, pos: &[usize], up: bool| -> usize {
        let mut c = 0;
        for x in adj.neighbours(a, up) {
            for y in adj.neighbours(b, up) {
                if pos[x] > pos[y] {
                    c += 1;
                }
            }
        }
        c
    };
    for _ in 0..8 {
        let mut improved = false;
        for layer in layers.iter_mut() {
            for i in 1..layer.len() {
                let (a, b) = (layer[i - 1], layer[i]);
                if nodes[a].cluster != nodes[b].cluster {
                    continue;
                }
                let now = cross(a, b, pos, true) + cross(a, b, pos, false);
                let swapped = cross(b, a, pos, true) + cross(b, a, pos, false);
                if swapped < now {
                    layer.swap(i - 1, i);
                    pos[a] = i;
                    pos[b] = i - 1;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{graph, random_graph, random_graphs, through_layering};
    use fsmc_testkit::Lcg;

    /// Crossings counted pair by pair.
    fn brute_force(layers: &[Vec<usize>], pos: &[usize], adj: &Adjacency) -> u64 {
        let mut total = 0;
        for layer in layers {
            let segs: Vec<(usize, usize)> = layer
                .iter()
                .flat_map(|&u| adj.neighbours(u, false).map(move |w| (u, w)))
                .collect();
            for (i, &(a, b)) in segs.iter().enumerate() {
                for &(c, d) in &segs[i + 1..] {
                    let (pa, pb, pc, pd) = (pos[a], pos[b], pos[c], pos[d]);
                    if (pa < pc && pb > pd) || (pa > pc && pb < pd) {
                        total += 1;
                    }
                }
            }
        }
        total
    }

    #[test]
    fn crossings_are_counted_exactly_and_never_increased() {
        for g in random_graphs(17, 150, 2..16) {
            let steps = through_layering(&g);
            let (nodes, adj) = (&steps.graph.nodes, &steps.adj);
            let mut layers = initial_order(nodes, adj, &g.roots, steps.graph.layer_count);
            let mut pos = vec![0; nodes.len()];
            positions(&layers, &mut pos);
            let before = crossings(&layers, &pos, adj);
            assert_eq!(before, brute_force(&layers, &pos, adj));
            reduce_crossings(&mut layers, nodes, adj);
            positions(&layers, &mut pos);
            let after = crossings(&layers, &pos, adj);
            assert_eq!(after, brute_force(&layers, &pos, adj));
            assert!(after <= before, "{before} crossings became {after}");
            // Every node is in its own layer, once.
            let mut placed: Vec<usize> = layers.concat();
            placed.sort_unstable();
            assert_eq!(placed, (0..nodes.len()).collect::<Vec<_>>());
            for (l, layer) in layers.iter().enumerate() {
                assert!(layer.iter().all(|&v| nodes[v].layer == l));
            }
        }
    }

    /// A sweep keeps each cluster's nodes together in the layer it sorts. (The order kept in the end is the
    /// one with the fewest crossings, which may be the first order, before any sweep.)
    #[test]
    fn a_sweep_keeps_each_cluster_together() {
        let mut rng = Lcg(23);
        for _ in 0..100 {
            let n = 4 + rng.below(12);
            let g = random_graph(&mut rng, n, 2 * n);
            let steps = through_layering(&g);
            let (nodes, adj) = (&steps.graph.nodes, &steps.adj);
            let mut layers = initial_order(nodes, adj, &g.roots, steps.graph.layer_count);
            let mut pos = vec![0; nodes.len()];
            positions(&layers, &mut pos);
            for (l, layer) in layers.iter_mut().enumerate() {
                sort_layer(layer, &mut pos, nodes, adj, l > 0);
                let clusters: Vec<usize> = layer.iter().filter_map(|&v| nodes[v].cluster).collect();
                let mut runs = clusters.clone();
                runs.dedup();
                let mut distinct = runs.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(
                    runs.len(),
                    distinct.len(),
                    "a cluster split in {clusters:?}"
                );
            }
        }
    }

    #[test]
    fn two_crossing_arrows_are_uncrossed() {
        // 0 and 1 on top, 2 and 3 below; 0 → 3 and 1 → 2 cross in the first order.
        let mut g = graph(
            4,
            crate::Size { w: 50., h: 30. },
            &[(0, 3, None), (1, 2, None)],
        );
        g.roots = vec![0, 1];
        let steps = through_layering(&g);
        let (nodes, adj) = (&steps.graph.nodes, &steps.adj);
        let layers = steps.order(&g.roots);
        let mut pos = vec![0; nodes.len()];
        positions(&layers, &mut pos);
        assert_eq!(crossings(&layers, &pos, adj), 0, "{layers:?}");
    }
}
