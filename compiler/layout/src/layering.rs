//! Step 2, layering: a rank per node of the acyclic graph, every edge pointing to a higher rank, and the
//! bound on the layered graph those ranks make.

use crate::{MAX_LAYERED, Refusal};

/// Ranks of an acyclic graph: longest path from the sources, then nodes with more edges out than in moved
/// down as far as their successors allow (every edge still points down).
pub(crate) fn ranks(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for &(a, b) in edges {
        succ[a].push(b);
        indegree[b] += 1;
    }
    let ins = indegree.clone();
    let mut rank = vec![0usize; n];
    let mut queue: std::collections::VecDeque<usize> =
        (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut topo = Vec::with_capacity(n);
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &w in &succ[v] {
            rank[w] = rank[w].max(rank[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    for &v in topo.iter().rev() {
        if succ[v].len() > ins[v]
            && let Some(lowest) = succ[v].iter().map(|&w| rank[w]).min()
        {
            rank[v] = rank[v].max(lowest.saturating_sub(1));
        }
    }
    rank
}

/// Refuses a layering whose layered graph would be too large: `n` states plus, for each edge, a node in every
/// layer it crosses (ranks are doubled, so an edge spanning `d` ranks crosses `2d - 1` layers). Counted before
/// anything of that size is allocated.
pub(crate) fn within_budget(
    n: usize,
    edges: &[(usize, usize)],
    rank: &[usize],
) -> Result<(), Refusal> {
    let bends: usize = edges
        .iter()
        .map(|&(a, b)| (2 * rank[b].saturating_sub(rank[a])).saturating_sub(1))
        .sum();
    let layered = n.saturating_add(bends);
    if layered > MAX_LAYERED {
        return Err(Refusal::TooLarge { layered });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycles::{break_cycles, orient};
    use crate::tests::random_edges;

    #[test]
    fn every_edge_points_down() {
        for (n, pairs) in random_edges(5, 200, 1..21, 3) {
            let edges = orient(&pairs, &break_cycles(n, &pairs, &[0]));
            let rank = ranks(n, &edges);
            for &(a, b) in &edges {
                assert!(rank[a] < rank[b], "{a} → {b} in {edges:?}: {rank:?}");
            }
        }
    }

    #[test]
    fn a_node_with_more_edges_out_than_in_moves_down() {
        // 0 → 1 → 2 → 3, and 4 → 3: longest path puts 4 at the top; with one edge out and none in it moves
        // next to 3, so its arrow is short.
        let rank = ranks(5, &[(0, 1), (1, 2), (2, 3), (4, 3)]);
        assert_eq!(rank, [0, 1, 2, 3, 2]);
        // A fork stays above the nearer of its successors.
        assert_eq!(ranks(3, &[(0, 1), (0, 2), (1, 2)]), [0, 1, 2]);
    }

    #[test]
    fn the_bound_counts_the_layers_crossed_and_refuses_past_it() {
        // 0 at rank 0, 1 at rank 3: the edge crosses five layers (two label layers per rank, minus one).
        assert_eq!(within_budget(2, &[(0, 1)], &[0, 3]), Ok(()));
        let far = MAX_LAYERED / 2;
        assert_eq!(
            within_budget(2, &[(0, 1)], &[0, far + 1]),
            Err(Refusal::TooLarge {
                layered: 2 + 2 * (far + 1) - 1
            })
        );
        assert_eq!(
            within_budget(MAX_LAYERED + 1, &[], &[]),
            Err(Refusal::TooLarge {
                layered: MAX_LAYERED + 1
            })
        );
    }
}
