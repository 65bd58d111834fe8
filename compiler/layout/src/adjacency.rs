//! The layered graph's edges, as the ordering and coordinate steps read them: each node's neighbours in the
//! layer above and below.

/// The segments of the layered graph (an edge between consecutive layers), and each node's segments to
/// the layer above and below, stored flat (one allocation each, whatever the size).
pub(crate) struct Adjacency {
    /// Each segment's end in the upper layer, and in the lower one.
    pub(crate) upper: Vec<usize>,
    pub(crate) lower: Vec<usize>,
    up_start: Vec<usize>,
    up_segs: Vec<usize>,
    down_start: Vec<usize>,
    down_segs: Vec<usize>,
}

impl Adjacency {
    /// The segments of `chains` (each a path of layered nodes, top to bottom) among `count` nodes.
    pub(crate) fn new(count: usize, chains: &[Vec<usize>]) -> Adjacency {
        let (mut upper, mut lower) = (Vec::new(), Vec::new());
        for chain in chains {
            for pair in chain.windows(2) {
                upper.push(pair[0]);
                lower.push(pair[1]);
            }
        }
        let (up_start, up_segs) = index(count, &lower);
        let (down_start, down_segs) = index(count, &upper);
        Adjacency {
            upper,
            lower,
            up_start,
            up_segs,
            down_start,
            down_segs,
        }
    }

    /// The segments from `v` to the layer above (`up`) or below.
    pub(crate) fn segs(&self, v: usize, up: bool) -> &[usize] {
        let (start, segs) = if up {
            (&self.up_start, &self.up_segs)
        } else {
            (&self.down_start, &self.down_segs)
        };
        match (start.get(v), start.get(v + 1)) {
            (Some(&a), Some(&b)) => segs.get(a..b).unwrap_or_default(),
            _ => &[],
        }
    }

    /// The neighbours of `v` in the layer above (`up`) or below.
    pub(crate) fn neighbours(&self, v: usize, up: bool) -> impl Iterator<Item = usize> + '_ {
        let other = if up { &self.upper } else { &self.lower };
        self.segs(v, up).iter().map(move |&s| other[s])
    }
}

/// For each of `count` nodes, the items whose `end` is that node, in item order (a counting sort): the items
/// of node `v` are `items[start[v]..start[v + 1]]`.
pub(crate) fn index(count: usize, end: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut start = vec![0usize; count + 1];
    for &v in end {
        start[v + 1] += 1;
    }
    for v in 0..count {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut items = vec![0usize; end.len()];
    for (s, &v) in end.iter().enumerate() {
        items[fill[v]] = s;
        fill[v] += 1;
    }
    (start, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_above_and_below_in_chain_order() {
        // Two chains through node 2: 0 → 2 → 3 and 1 → 2 → 4.
        let adj = Adjacency::new(5, &[vec![0, 2, 3], vec![1, 2, 4]]);
        let up: Vec<usize> = adj.neighbours(2, true).collect();
        let down: Vec<usize> = adj.neighbours(2, false).collect();
        assert_eq!((up, down), (vec![0, 1], vec![3, 4]));
        assert_eq!(adj.segs(0, true), &[] as &[usize]);
        assert_eq!(adj.segs(99, false), &[] as &[usize], "out of range: none");
    }

    #[test]
    fn index_groups_items_by_end() {
        let (start, items) = index(3, &[2, 0, 2, 1]);
        assert_eq!(start, [0, 1, 2, 4]);
        assert_eq!(items, [1, 3, 0, 2]);
    }
}
