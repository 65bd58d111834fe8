//! Step 1, cycle breaking: the edges to reverse so that the graph has no cycle, chosen so that a machine's
//! flow keeps its direction and only its retries and resets point back.

/// Marks the edges a depth-first search finds going back to a node on its stack; reversing them leaves a
/// graph without cycles. Roots first, then nodes nothing points to, then the rest, each in index order.
pub(crate) fn break_cycles(n: usize, edges: &[(usize, usize)], roots: &[usize]) -> Vec<bool> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for (k, &(a, b)) in edges.iter().enumerate() {
        out[a].push(k);
        indegree[b] += 1;
    }
    // 0: not seen, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut reversed = vec![false; edges.len()];
    let order = roots
        .iter()
        .copied()
        .filter(|&r| r < n)
        .chain((0..n).filter(|&v| indegree[v] == 0))
        .chain(0..n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in order {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            match out[v].get(i) {
                Some(&k) => {
                    top.1 += 1;
                    let w = edges[k].1;
                    match state[w] {
                        0 => {
                            state[w] = 1;
                            stack.push((w, 0));
                        }
                        1 => reversed[k] = true,
                        _ => {}
                    }
                }
                None => {
                    state[v] = 2;
                    stack.pop();
                }
            }
        }
    }
    reversed
}

/// The edges with those `reversed` marks turned around.
pub(crate) fn orient(edges: &[(usize, usize)], reversed: &[bool]) -> Vec<(usize, usize)> {
    edges
        .iter()
        .zip(reversed)
        .map(|(&(a, b), &r)| if r { (b, a) } else { (a, b) })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tests::random_edges;

    /// Whether the edges, oriented as `reversed` says, have no cycle (Kahn's algorithm empties the graph).
    pub(crate) fn acyclic(n: usize, edges: &[(usize, usize)], reversed: &[bool]) -> bool {
        let mut indegree = vec![0usize; n];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (&(a, b), &r) in edges.iter().zip(reversed) {
            let (a, b) = if r { (b, a) } else { (a, b) };
            succ[a].push(b);
            indegree[b] += 1;
        }
        let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
        let mut seen = 0;
        while let Some(v) = ready.pop() {
            seen += 1;
            for &w in &succ[v] {
                indegree[w] -= 1;
                if indegree[w] == 0 {
                    ready.push(w);
                }
            }
        }
        seen == n
    }

    #[test]
    fn every_cycle_is_broken() {
        for (n, edges) in random_edges(3, 200, 1..16, 4) {
            let reversed = break_cycles(n, &edges, &[0]);
            assert!(acyclic(n, &edges, &reversed), "{edges:?} {reversed:?}");
        }
    }

    #[test]
    fn the_flow_from_the_root_keeps_its_direction() {
        // 0 → 1 → 2 → 0: from root 0 only the reset 2 → 0 points back.
        let edges = [(0, 1), (1, 2), (2, 0)];
        assert_eq!(break_cycles(3, &edges, &[0]), [false, false, true]);
        // From root 2 the same cycle is broken at 1 → 2.
        assert_eq!(break_cycles(3, &edges, &[2]), [false, true, false]);
        // Roots out of range are skipped; an acyclic graph is left alone.
        assert_eq!(break_cycles(3, &[(0, 1), (0, 2)], &[7]), [false, false]);
    }
}
