//! A layered (Sugiyama) layout for state machines, in pure Rust: boxes (states), arrows between them and a
//! label per arrow, placed so that no label overlaps a line, a state or another label.
//!
//! The steps, each linear or close to it in the size of the layered graph (states, one bend point per layer
//! a long arrow crosses, and label boxes):
//!
//! 1. **Cycle breaking**: a depth-first search from the roots (start marks, then start states) reverses
//!    its back edges, so retries and resets point up and the machine's flow points down.
//! 2. **Layering**: longest path from the sources, then each node with more arrows out than in is moved as
//!    far down as its successors allow (shorter arrows). Ranks are doubled: the odd layers between two ranks
//!    hold the labels of the arrows that cross them, as boxes of their own.
//! 3. **Long arrows** get a virtual node in every layer they cross; a label becomes the virtual node of its
//!    arrow's middle odd layer, with the label's size, the line running along the box's left side.
//! 4. **Crossing reduction**: barycenter sweeps down and up, a bounded number of times, keeping the order with
//!    the fewest crossings (counted exactly, with a Fenwick tree), then adjacent swaps on small graphs. The
//!    states of one cluster (a composed app's original machine) are kept together in every layer.
//! 5. **Coordinates**: Brandes and Köpf's four alignments, balanced, with each node's own left and right extent
//!    (a label box extends to the right of its line; a state with a self-loop reserves room for the loop and
//!    its label). Long arrows come out straight.
//! 6. **Routing**: inside a layer's band every arrow runs vertically at its node's position (boxes in a
//!    layer are disjoint, so no line crosses a box), and between two bands it is an S-shaped cubic curve whose
//!    control points stay between the bands (a band holding only bends of long arrows has no boxes to avoid,
//!    and the curve passes through it). Several arrows at one side of a state get spread ports, ordered as
//!    their other ends are. Self-loops are loops on the state's right side (below it, left to right), their
//!    labels beside them.
//!
//! Everything is computed top to bottom; a left-to-right drawing is laid out with widths and heights swapped
//! and transposed at the end, so text stays horizontal. The result depends only on the input's order (no
//! hashing, no randomness): the same machine gives the same drawing, byte for byte. Nothing here panics on
//! any input: out-of-range edges are ignored and sizes that are not finite count as zero.
//!
//! The work is bounded: the layered graph grows with the sum of the arrows' lengths, quadratic in the states
//! for machines whose arrows jump anywhere. Past [`MAX_LAYERED`] layered nodes the layout is refused (DOT and
//! Mermaid have no such limit).

use super::Direction;

/// The most layered nodes (states, bend points of long arrows, labels) laid out: about 1.5 s of work and
/// 350 MB. A 500-state machine with 2,000 transitions to random states needs 424 thousand (0.6 s), a chain of
/// 2,000 rounds with retries, skips and a reset every ten rounds 412 thousand.
pub(super) const MAX_LAYERED: usize = 1_000_000;

/// Space between two states in a layer.
const NODE_SEP: f64 = 28.;
/// Space between a line or a label and its neighbour in a layer.
const EDGE_SEP: f64 = 12.;
/// Space between two states of different clusters in a layer, so the clusters' frames fit between them.
const CLUSTER_SEP: f64 = 44.;
/// Vertical space between two layers' bands (the curves' room), and next to a band with nothing but bends
/// of long arrows in it (arrows do not stop there: their curves span both gaps).
const GAP: f64 = 18.;
const THIN_GAP: f64 = 12.;
/// How far right of its line a label box starts.
const LABEL_PAD: f64 = 5.;
/// How far a self-loop reaches beyond its state's side.
const LOOP_REACH: f64 = 26.;
/// Nodes narrower than this (start marks) take every arrow at their centre.
const POINT_NODE: f64 = 20.;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Size {
    pub w: f64,
    pub h: f64,
}

/// An axis-aligned box: top-left corner and size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub(super) fn right(&self) -> f64 {
        self.x + self.w
    }
    pub(super) fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// What to lay out.
#[derive(Clone, Debug, Default)]
pub(super) struct Graph {
    pub nodes: Vec<NodeIn>,
    pub edges: Vec<EdgeIn>,
    /// Nodes the depth-first search starts from, in order, before any other (start marks, start states).
    pub roots: Vec<usize>,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NodeIn {
    pub size: Size,
    /// Nodes of one cluster are kept together in each layer.
    pub cluster: Option<usize>,
}

/// One arrow; `from == to` is a self-loop.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct EdgeIn {
    pub from: usize,
    pub to: usize,
    pub label: Option<Size>,
}

/// One piece of an arrow's path, from the end of the previous one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Seg {
    Line(Point),
    Curve(Point, Point, Point),
}

/// An arrow as drawn: from `start` through `segs`, ending at its target (the head goes at the end).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Route {
    pub start: Point,
    pub segs: Vec<Seg>,
    pub label: Option<Rect>,
}

/// The laid-out drawing, in `0 0 size.w size.h` coordinates.
#[derive(Clone, Debug, Default)]
pub(super) struct Laid {
    pub nodes: Vec<Rect>,
    /// One per input edge, in input order (empty for an edge whose ends are out of range).
    pub edges: Vec<Route>,
    pub size: Size,
}

/// Why a graph was not laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The layered graph would have this many nodes, more than [`MAX_LAYERED`].
    TooLarge { layered: usize },
}

/// A node of the layered graph: a state, a bend point of a long arrow, or an arrow's label.
#[derive(Clone, Copy, Debug)]
struct LNode {
    layer: usize,
    /// Extent left and right of the node's anchor (where lines attach).
    left: f64,
    right: f64,
    height: f64,
    /// The state (input node) this is, if any.
    real: Option<usize>,
    /// The input edge this is the label of, if any.
    label_of: Option<usize>,
    cluster: Option<usize>,
}

impl LNode {
    fn dummy(&self) -> bool {
        self.real.is_none()
    }
}

/// Lays the graph out; refused only when it is too large (see [`MAX_LAYERED`]).
pub(super) fn lay_out(g: &Graph, direction: Direction) -> Result<Laid, Refusal> {
    let n = g.nodes.len();
    let flip = direction == Direction::LeftToRight;
    let clean = |v: f64| if v.is_finite() && v > 0. { v } else { 0. };
    // Sizes in the top-to-bottom frame.
    let inner = |s: Size| {
        let s = Size {
            w: clean(s.w),
            h: clean(s.h),
        };
        if flip { Size { w: s.h, h: s.w } } else { s }
    };
    let sizes: Vec<Size> = g.nodes.iter().map(|v| inner(v.size)).collect();

    // Self-loops stay with their node; the other edges are laid out.
    let mut loops: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut plain: Vec<usize> = Vec::new();
    for (k, e) in g.edges.iter().enumerate() {
        if e.from >= n || e.to >= n {
            continue;
        }
        if e.from == e.to {
            loops[e.from].push(k);
        } else {
            plain.push(k);
        }
    }
    let pairs: Vec<(usize, usize)> = plain
        .iter()
        .map(|&k| (g.edges[k].from, g.edges[k].to))
        .collect();
    let reversed = break_cycles(n, &pairs, &g.roots);
    let oriented: Vec<(usize, usize)> = pairs
        .iter()
        .zip(&reversed)
        .map(|(&(a, b), &r)| if r { (b, a) } else { (a, b) })
        .collect();
    let rank = ranks(n, &oriented);

    // The budget, before anything of that size is allocated.
    let bends: usize = oriented
        .iter()
        .map(|&(a, b)| (2 * rank[b].saturating_sub(rank[a])).saturating_sub(1))
        .sum();
    let layered = n.saturating_add(bends);
    if layered > MAX_LAYERED {
        return Err(Refusal::TooLarge { layered });
    }

    // Each state's extents, with room for its self-loops and their labels on the right.
    let loop_labels: Vec<Vec<(usize, Size)>> = loops
        .iter()
        .map(|ks| {
            ks.iter()
                .map(|&k| (k, g.edges[k].label.map(inner).unwrap_or_default()))
                .collect()
        })
        .collect();
    let mut nodes: Vec<LNode> = (0..n)
        .map(|v| {
            let s = sizes[v];
            let (mut right, mut height) = (s.w / 2., s.h);
            if !loops[v].is_empty() {
                let widest = loop_labels[v].iter().map(|(_, l)| l.w).fold(0., f64::max);
                let total: f64 = loop_labels[v].iter().map(|(_, l)| l.h).sum();
                let reach = loop_reach(loops[v].len());
                right += if widest > 0. {
                    reach + LABEL_PAD + widest
                } else {
                    reach
                };
                height = height.max(total);
            }
            LNode {
                layer: 2 * rank[v],
                left: s.w / 2.,
                right,
                height,
                real: Some(v),
                label_of: None,
                cluster: g.nodes[v].cluster,
            }
        })
        .collect();

    // Chains of layered nodes, top to bottom, one per laid-out edge.
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(plain.len());
    for (i, &k) in plain.iter().enumerate() {
        let (a, b) = oriented[i];
        let (la, lb) = (2 * rank[a], 2 * rank[b]);
        if lb < la + 2 {
            // Cannot happen (every edge points down after the cycles are broken); drawn as nothing.
            chains.push(Vec::new());
            continue;
        }
        let label = g.edges[k].label.map(inner);
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
        chains.push(chain);
    }
    let layer_count = nodes.iter().map(|v| v.layer + 1).max().unwrap_or(0);
    let adj = Adjacency::new(nodes.len(), &chains);

    let mut layers = initial_order(&nodes, &adj, &g.roots, layer_count);
    reduce_crossings(&mut layers, &nodes, &adj);
    let x = place(&layers, &nodes, &adj);

    // Bands: each layer's top and height.
    let mut top = vec![0.; layer_count];
    let mut height = vec![0.; layer_count];
    for (l, layer) in layers.iter().enumerate() {
        height[l] = layer.iter().map(|&v| nodes[v].height).fold(0., f64::max);
    }
    let mut y = 0.;
    for l in 0..layer_count {
        top[l] = y;
        y += height[l];
        if l + 1 < layer_count {
            y += if height[l] > 0. && height[l + 1] > 0. {
                GAP
            } else {
                THIN_GAP
            };
        }
    }
    let total_h = y;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (v, node) in nodes.iter().enumerate() {
        lo = lo.min(x[v] - node.left);
        hi = hi.max(x[v] + node.right);
    }
    if !lo.is_finite() {
        (lo, hi) = (0., 0.);
    }
    let centre_y = |v: usize| top[nodes[v].layer] + height[nodes[v].layer] / 2.;

    // Ports: where each chain leaves its top state and enters its bottom one.
    let mut port_out = vec![0.; chains.len()];
    let mut port_in = vec![0.; chains.len()];
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (c, chain) in chains.iter().enumerate() {
        if let (Some(&a), Some(&b)) = (chain.first(), chain.last()) {
            outs[a].push(c);
            ins[b].push(c);
        }
    }
    let next_x = |c: usize, from_top: bool| {
        let chain = &chains[c];
        let k = if from_top {
            1
        } else {
            chain.len().saturating_sub(2)
        };
        chain.get(k).map_or(0., |&v| x[v])
    };
    for v in 0..n {
        ports(&mut port_out, &mut outs[v], x[v], sizes[v].w, |c| {
            next_x(c, true)
        });
        ports(&mut port_in, &mut ins[v], x[v], sizes[v].w, |c| {
            next_x(c, false)
        });
    }

    let mut routes: Vec<Option<Route>> = vec![None; g.edges.len()];
    for (i, chain) in chains.iter().enumerate() {
        let k = plain[i];
        let (Some(&a), Some(&b)) = (chain.first(), chain.last()) else {
            continue;
        };
        // Points top to bottom, each with whether the piece reaching it is a curve.
        let mut pts: Vec<(Point, bool)> = Vec::with_capacity(2 * chain.len());
        let (pa, pb) = (port_out[i], port_in[i]);
        pts.push((
            Point {
                x: pa,
                y: centre_y(a) + sizes[a].h / 2.,
            },
            false,
        ));
        let la = nodes[a].layer;
        pts.push((
            Point {
                x: pa,
                y: top[la] + height[la],
            },
            false,
        ));
        let mut label = None;
        for &v in &chain[1..chain.len() - 1] {
            let l = nodes[v].layer;
            if height[l] <= 0. {
                // Nothing to keep clear of in this band: the curve goes straight through it.
                continue;
            }
            pts.push((Point { x: x[v], y: top[l] }, true));
            pts.push((
                Point {
                    x: x[v],
                    y: top[l] + height[l],
                },
                false,
            ));
            if nodes[v].label_of.is_some() {
                label = Some(Rect {
                    x: x[v] + LABEL_PAD,
                    y: centre_y(v) - nodes[v].height / 2.,
                    w: nodes[v].right - LABEL_PAD,
                    h: nodes[v].height,
                });
            }
        }
        let lb = nodes[b].layer;
        pts.push((Point { x: pb, y: top[lb] }, true));
        pts.push((
            Point {
                x: pb,
                y: centre_y(b) - sizes[b].h / 2.,
            },
            false,
        ));
        routes[k] = Some(route(pts, reversed[i], label));
    }
    for (v, ls) in loop_labels.iter().enumerate() {
        let s = sizes[v];
        let (cx, cy) = (x[v], centre_y(v));
        let side = cx + s.w / 2.;
        let dy = (s.h / 4.).clamp(2., 9.);
        let total: f64 = ls.iter().map(|(_, l)| l.h).sum();
        let mut label_y = cy - total / 2.;
        for (j, &(k, l)) in ls.iter().enumerate() {
            let reach = loop_reach(j + 1) / 0.75;
            let label = g.edges[k].label.map(|_| {
                let r = Rect {
                    x: side + loop_reach(ls.len()) + LABEL_PAD,
                    y: label_y,
                    w: l.w,
                    h: l.h,
                };
                label_y += l.h;
                r
            });
            routes[k] = Some(Route {
                start: Point {
                    x: side,
                    y: cy - dy,
                },
                segs: vec![Seg::Curve(
                    Point {
                        x: side + reach,
                        y: cy - dy - 8.,
                    },
                    Point {
                        x: side + reach,
                        y: cy + dy + 8.,
                    },
                    Point {
                        x: side,
                        y: cy + dy,
                    },
                )],
                label,
            });
        }
    }

    // Into the output frame: shifted to the origin, transposed for left to right.
    let out = |p: Point| {
        let p = Point {
            x: p.x - lo,
            y: p.y,
        };
        if flip { Point { x: p.y, y: p.x } } else { p }
    };
    let out_rect = |r: Rect| {
        let r = Rect { x: r.x - lo, ..r };
        if flip {
            Rect {
                x: r.y,
                y: r.x,
                w: r.h,
                h: r.w,
            }
        } else {
            r
        }
    };
    for r in routes.iter_mut().flatten() {
        r.start = out(r.start);
        for s in &mut r.segs {
            *s = match *s {
                Seg::Line(p) => Seg::Line(out(p)),
                Seg::Curve(a, b, c) => Seg::Curve(out(a), out(b), out(c)),
            };
        }
        r.label = r.label.map(out_rect);
    }
    let boxes = (0..n)
        .map(|v| {
            out_rect(Rect {
                x: x[v] - sizes[v].w / 2.,
                y: centre_y(v) - sizes[v].h / 2.,
                w: sizes[v].w,
                h: sizes[v].h,
            })
        })
        .collect();
    let size = if flip {
        Size {
            w: total_h,
            h: hi - lo,
        }
    } else {
        Size {
            w: hi - lo,
            h: total_h,
        }
    };
    Ok(Laid {
        nodes: boxes,
        edges: routes.into_iter().map(Option::unwrap_or_default).collect(),
        size,
    })
}

/// How far the `k`-th self-loop of a state (counting from 1) reaches, as drawn (a cubic reaches three
/// quarters of its control points' distance).
fn loop_reach(k: usize) -> f64 {
    LOOP_REACH + 12. * k.saturating_sub(1) as f64
}

/// Spreads the ports of the chains `cs` along a side of a state at `x` of width `w`, in the order of their
/// other ends (so they do not cross): one chain takes the point of the side nearest its other end.
fn ports(port: &mut [f64], cs: &mut [usize], x: f64, w: f64, other: impl Fn(usize) -> f64) {
    if cs.is_empty() {
        return;
    }
    let inset = (w * 0.15).min(12.);
    let (lo, hi) = (x - w / 2. + inset, x + w / 2. - inset);
    if w < POINT_NODE || hi <= lo {
        for &c in cs.iter() {
            port[c] = x;
        }
        return;
    }
    if let [c] = cs {
        port[*c] = other(*c).clamp(lo, hi);
        return;
    }
    cs.sort_by(|&a, &b| other(a).total_cmp(&other(b)).then(a.cmp(&b)));
    let m = cs.len() as f64;
    for (k, &c) in cs.iter().enumerate() {
        port[c] = lo + (k as f64 + 0.5) * (hi - lo) / m;
    }
}

/// The path through `pts` (top to bottom), reversed for an edge that points up: straight where the x does
/// not change, an S-curve with vertical ends (control points between the two points' heights) where it does.
fn route(mut pts: Vec<(Point, bool)>, up: bool, label: Option<Rect>) -> Route {
    if up {
        // The flag belongs to the piece between a point and the one before it: shift it along.
        let flags: Vec<bool> = pts.iter().map(|p| p.1).collect();
        pts.reverse();
        let len = pts.len();
        for (i, p) in pts.iter_mut().enumerate() {
            p.1 = i > 0 && flags.get(len - i).copied().unwrap_or(false);
        }
    }
    let Some(&(start, _)) = pts.first() else {
        return Route::default();
    };
    let mut segs: Vec<Seg> = Vec::new();
    let mut at = start;
    for &(p, curve) in &pts[1..] {
        if (p.x - at.x).abs() < 0.05 && (p.y - at.y).abs() < 0.05 {
            continue;
        }
        if curve && (p.x - at.x).abs() >= 0.05 {
            let mid = (at.y + p.y) / 2.;
            segs.push(Seg::Curve(
                Point { x: at.x, y: mid },
                Point { x: p.x, y: mid },
                p,
            ));
        } else if let Some(Seg::Line(last)) = segs.last_mut()
            && (last.x - at.x).abs() < 0.05
            && (p.x - at.x).abs() < 0.05
        {
            // Still straight down (or up): extend the line.
            *last = p;
        } else {
            segs.push(Seg::Line(p));
        }
        at = p;
    }
    Route { start, segs, label }
}

/// Marks the edges a depth-first search finds going back to a node on its stack; reversing them leaves a
/// graph without cycles. Roots first, then nodes nothing points to, then the rest, each in index order.
fn break_cycles(n: usize, edges: &[(usize, usize)], roots: &[usize]) -> Vec<bool> {
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

/// Ranks of an acyclic graph: longest path from the sources, then nodes with more edges out than in moved
/// down as far as their successors allow (every edge still points down).
fn ranks(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
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

/// The segments of the layered graph (an edge between consecutive layers), and each node's segments to
/// the layer above and below, stored flat (one allocation each, whatever the size).
struct Adjacency {
    upper: Vec<usize>,
    lower: Vec<usize>,
    up_start: Vec<usize>,
    up_segs: Vec<usize>,
    down_start: Vec<usize>,
    down_segs: Vec<usize>,
}

impl Adjacency {
    fn new(count: usize, chains: &[Vec<usize>]) -> Adjacency {
        let (mut upper, mut lower) = (Vec::new(), Vec::new());
        for chain in chains {
            for pair in chain.windows(2) {
                upper.push(pair[0]);
                lower.push(pair[1]);
            }
        }
        let (up_start, up_segs) = Self::index(count, &lower);
        let (down_start, down_segs) = Self::index(count, &upper);
        Adjacency {
            upper,
            lower,
            up_start,
            up_segs,
            down_start,
            down_segs,
        }
    }

    /// For each node, the segments whose `end` is that node, in segment order (counting sort).
    fn index(count: usize, end: &[usize]) -> (Vec<usize>, Vec<usize>) {
        let mut start = vec![0usize; count + 1];
        for &v in end {
            start[v + 1] += 1;
        }
        for v in 0..count {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut segs = vec![0usize; end.len()];
        for (s, &v) in end.iter().enumerate() {
            segs[fill[v]] = s;
            fill[v] += 1;
        }
        (start, segs)
    }

    /// The segments from `v` to the layer above (`up`) or below.
    fn segs(&self, v: usize, up: bool) -> &[usize] {
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
    fn neighbours(&self, v: usize, up: bool) -> impl Iterator<Item = usize> + '_ {
        let other = if up { &self.upper } else { &self.lower };
        self.segs(v, up).iter().map(move |&s| other[s])
    }
}

/// A first order: the layered nodes in depth-first order from the roots, each appended to its layer.
fn initial_order(
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

/// Barycenter sweeps, keeping the best order found, then adjacent swaps while they help (small graphs).
fn reduce_crossings(layers: &mut [Vec<usize>], nodes: &[LNode], adj: &Adjacency) {
    let size = nodes.len();
    let iterations = if size <= 3_000 {
        24
    } else if size <= 60_000 {
        8
    } else {
        3
    };
    let mut pos = vec![0usize; size];
    let index = |layers: &[Vec<usize>], pos: &mut [usize]| {
        for layer in layers {
            for (i, &v) in layer.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    index(layers, &mut pos);
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
    index(layers, &mut pos);
    if size <= 3_000 && best > 0 {
        transpose(layers, &mut pos, nodes, adj);
    }
}

/// Orders one layer by the barycenter of each node's neighbours above (`up`) or below, in the layer just
/// sorted; a node
/// without such neighbours keeps its position. Nodes of one cluster stay together, ordered among the
/// others by their mean barycenter.
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
fn crossings(layers: &[Vec<usize>], pos: &[usize], adj: &Adjacency) -> u64 {
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

/// Space required between the anchors of `u` and of `v`, `u` left of `v`.
fn separation(u: &LNode, v: &LNode) -> f64 {
    let gap = match (u.real.is_some(), v.real.is_some()) {
        (true, true) if u.cluster != v.cluster => CLUSTER_SEP,
        (true, true) => NODE_SEP,
        _ => EDGE_SEP,
    };
    u.right + gap + v.left
}

/// Horizontal coordinates by Brandes and Köpf ("Fast and Simple Horizontal Coordinate Assignment", with
/// the published fixes): four alignments (towards the upper or lower median neighbour, from the left or
/// the right), each compacted, aligned to the narrowest, and balanced (the mean of the two middle values).
fn place(layers: &[Vec<usize>], nodes: &[LNode], adj: &Adjacency) -> Vec<f64> {
    let count = nodes.len();
    let conflicts = type1_conflicts(layers, nodes, adj);
    let alignment = |down: bool, right: bool| {
        // The layering as this alignment sees it: layers from the top (or bottom), each from the left (or
        // right).
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
        let root = vertical_alignment(&order, adj, !down, &conflicts, count);
        let mut xs = horizontal_compaction(&order, nodes, &root, right);
        if right {
            for x in &mut xs {
                *x = -*x;
            }
        }
        (xs, right)
    };
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
    // Align every result to the narrowest: its left side to the left, its right side to the right.
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
    (0..count)
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

/// Type 1 conflicts: a segment between a state and a bend that crosses a segment between two bends. The
/// alignment never uses such a segment, so long arrows stay straight. Returned as a flag per segment.
fn type1_conflicts(layers: &[Vec<usize>], nodes: &[LNode], adj: &Adjacency) -> Vec<bool> {
    let mut pos = vec![0usize; nodes.len()];
    for layer in layers {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
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
    for layer in order {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
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
    // Read from the right, `u` before `v` means `v` is left of `u` in the drawing.
    let sep = |u: usize, v: usize| {
        if mirrored {
            separation(&nodes[v], &nodes[u])
        } else {
            separation(&nodes[u], &nodes[v])
        }
    };
    // Block graph: an edge from the block of each node to the block of the node right of it, the largest
    // separation where there are several.
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for layer in order {
        for pair in layer.windows(2) {
            let (u, v) = (pair[0], pair[1]);
            edges.push((root[u], root[v], sep(u, v)));
        }
    }
    edges.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)));
    edges.dedup_by(|later, kept| later.0 == kept.0 && later.1 == kept.1);
    let froms: Vec<usize> = edges.iter().map(|e| e.0).collect();
    let tos: Vec<usize> = edges.iter().map(|e| e.1).collect();
    let (succ_start, succ) = Adjacency::index(count, &froms);
    let (pred_start, pred) = Adjacency::index(count, &tos);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator, so the shapes are reproducible.
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    fn random_graph(rng: &mut Lcg, n: usize, m: usize) -> Graph {
        let nodes = (0..n)
            .map(|i| NodeIn {
                size: Size {
                    w: 40. + rng.below(120) as f64,
                    h: 30. + rng.below(20) as f64,
                },
                cluster: (i % 4 != 0).then_some(i % 3),
            })
            .collect();
        let edges = (0..m)
            .map(|_| EdgeIn {
                from: rng.below(n),
                to: rng.below(n),
                label: (rng.below(4) != 0).then(|| Size {
                    w: 20. + rng.below(150) as f64,
                    h: 15. * (1 + rng.below(3)) as f64,
                }),
            })
            .collect();
        Graph {
            nodes,
            edges,
            roots: vec![0],
        }
    }

    /// Points along a route, every pixel or so.
    fn samples(r: &Route) -> Vec<Point> {
        let mut out = vec![r.start];
        let mut at = r.start;
        for s in &r.segs {
            let (a, b, c) = match *s {
                Seg::Line(p) => (at, p, p),
                Seg::Curve(a, b, c) => (a, b, c),
            };
            for k in 1..=64 {
                let t = f64::from(k) / 64.;
                let u = 1. - t;
                out.push(Point {
                    x: u * u * u * at.x
                        + 3. * u * u * t * a.x
                        + 3. * u * t * t * b.x
                        + t * t * t * c.x,
                    y: u * u * u * at.y
                        + 3. * u * u * t * a.y
                        + 3. * u * t * t * b.y
                        + t * t * t * c.y,
                });
            }
            at = c;
        }
        out
    }

    fn strictly_inside(p: Point, r: &Rect, inset: f64) -> bool {
        p.x > r.x + inset
            && p.x < r.right() - inset
            && p.y > r.y + inset
            && p.y < r.bottom() - inset
    }

    fn disjoint(a: &Rect, b: &Rect) -> bool {
        a.right() <= b.x + 1e-6
            || b.right() <= a.x + 1e-6
            || a.bottom() <= b.y + 1e-6
            || b.bottom() <= a.y + 1e-6
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.01
    }

    /// Everything the drawing promises: boxes and labels apart, arrows clear of every box but their ends,
    /// arrows from the border of their source to the border of their target, all inside the drawing.
    fn check(g: &Graph, laid: &Laid, direction: Direction) {
        let n = g.nodes.len();
        assert_eq!(laid.nodes.len(), n);
        assert_eq!(laid.edges.len(), g.edges.len());
        let within = |r: &Rect| {
            r.x >= -0.01
                && r.y >= -0.01
                && r.right() <= laid.size.w + 0.01
                && r.bottom() <= laid.size.h + 0.01
        };
        let labels: Vec<Rect> = laid.edges.iter().filter_map(|r| r.label).collect();
        for (i, a) in laid.nodes.iter().enumerate() {
            assert!(within(a), "node {i} {a:?} outside {:?}", laid.size);
            for b in &laid.nodes[i + 1..] {
                assert!(disjoint(a, b), "nodes overlap: {a:?} {b:?}");
            }
            for l in &labels {
                assert!(disjoint(a, l), "label {l:?} overlaps node {a:?}");
            }
        }
        for (i, a) in labels.iter().enumerate() {
            assert!(within(a), "label {a:?} outside {:?}", laid.size);
            for b in &labels[i + 1..] {
                assert!(disjoint(a, b), "labels overlap: {a:?} {b:?}");
            }
        }
        for (k, (e, r)) in g.edges.iter().zip(&laid.edges).enumerate() {
            let pts = samples(r);
            for p in &pts {
                assert!(p.x.is_finite() && p.y.is_finite());
                for l in &labels {
                    assert!(
                        !strictly_inside(*p, l, 0.01),
                        "edge {k} runs through label {l:?} at {p:?}"
                    );
                }
                for (v, b) in laid.nodes.iter().enumerate() {
                    if v != e.from && v != e.to {
                        assert!(
                            !strictly_inside(*p, b, 0.01),
                            "edge {k} runs through node {v} at {p:?}"
                        );
                    }
                }
            }
            let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
                continue;
            };
            let (a, b) = (&laid.nodes[e.from], &laid.nodes[e.to]);
            let on_border = |p: &Point, r: &Rect| {
                (near(p.x, r.x) || near(p.x, r.right()))
                    && p.y >= r.y - 0.01
                    && p.y <= r.bottom() + 0.01
                    || (near(p.y, r.y) || near(p.y, r.bottom()))
                        && p.x >= r.x - 0.01
                        && p.x <= r.right() + 0.01
            };
            assert!(
                on_border(first, a),
                "edge {k} starts at {first:?}, not on {a:?}"
            );
            assert!(
                on_border(last, b),
                "edge {k} ends at {last:?}, not on {b:?}"
            );
            if e.from == e.to {
                // A loop on the far side of the flow: right of the state top to bottom, below it left to right.
                let beyond = match direction {
                    Direction::TopToBottom => {
                        pts.iter().map(|p| p.x).fold(0., f64::max) > a.right() + 10.
                    }
                    Direction::LeftToRight => {
                        pts.iter().map(|p| p.y).fold(0., f64::max) > a.bottom() + 10.
                    }
                };
                assert!(beyond, "self-loop {k} is not a loop: {r:?}");
            }
        }
    }

    #[test]
    fn random_graphs_keep_every_promise_in_both_directions() {
        let mut rng = Lcg(11);
        for round in 0..120 {
            let n = 1 + rng.below(if round % 10 == 0 { 60 } else { 12 });
            let m = rng.below(3 * n + 1);
            let g = random_graph(&mut rng, n, m);
            for direction in [Direction::TopToBottom, Direction::LeftToRight] {
                let laid = lay_out(&g, direction).expect("small graphs are laid out");
                check(&g, &laid, direction);
                let again = lay_out(&g, direction).expect("again");
                assert_eq!(laid.edges, again.edges, "deterministic");
                assert_eq!(laid.nodes, again.nodes, "deterministic");
            }
        }
    }

    #[test]
    fn the_flow_goes_down_or_across() {
        let size = Size { w: 60., h: 30. };
        let g = Graph {
            nodes: vec![
                NodeIn {
                    size,
                    cluster: None
                };
                3
            ],
            edges: vec![
                EdgeIn {
                    from: 0,
                    to: 1,
                    label: Some(Size { w: 50., h: 13. }),
                },
                EdgeIn {
                    from: 1,
                    to: 2,
                    label: None,
                },
                EdgeIn {
                    from: 2,
                    to: 0,
                    label: Some(Size { w: 50., h: 13. }),
                },
                EdgeIn {
                    from: 1,
                    to: 1,
                    label: Some(Size { w: 80., h: 26. }),
                },
            ],
            roots: vec![0],
        };
        let tb = lay_out(&g, Direction::TopToBottom).expect("laid out");
        assert!(tb.nodes[0].bottom() < tb.nodes[1].y && tb.nodes[1].bottom() < tb.nodes[2].y);
        let lr = lay_out(&g, Direction::LeftToRight).expect("laid out");
        assert!(lr.nodes[0].right() < lr.nodes[1].x && lr.nodes[1].right() < lr.nodes[2].x);
        // The back edge 2 → 0 points up (or left): it ends at the bottom (right) of state 0.
        let end = |r: &Route| match r.segs.last() {
            Some(Seg::Line(p) | Seg::Curve(_, _, p)) => *p,
            None => r.start,
        };
        assert!(near(end(&tb.edges[2]).y, tb.nodes[0].bottom()));
        assert!(near(end(&lr.edges[2]).x, lr.nodes[0].right()));
        check(&g, &tb, Direction::TopToBottom);
        check(&g, &lr, Direction::LeftToRight);
    }

    #[test]
    fn odd_input_is_drawn_or_ignored_never_a_panic() {
        let nan = Size {
            w: f64::NAN,
            h: f64::INFINITY,
        };
        let g = Graph {
            nodes: vec![
                NodeIn {
                    size: nan,
                    cluster: Some(usize::MAX)
                };
                2
            ],
            edges: vec![
                EdgeIn {
                    from: 0,
                    to: 7,
                    label: None,
                },
                EdgeIn {
                    from: 0,
                    to: 1,
                    label: Some(Size {
                        w: -3.,
                        h: f64::NAN,
                    }),
                },
                EdgeIn {
                    from: 1,
                    to: 0,
                    label: None,
                },
                EdgeIn {
                    from: 0,
                    to: 1,
                    label: None,
                },
                EdgeIn {
                    from: 1,
                    to: 1,
                    label: None,
                },
                EdgeIn {
                    from: 1,
                    to: 1,
                    label: Some(Size { w: 10., h: 10. }),
                },
            ],
            roots: vec![9, 1, 1],
        };
        for direction in [Direction::TopToBottom, Direction::LeftToRight] {
            let laid = lay_out(&g, direction).expect("laid out");
            assert_eq!(
                laid.edges[0],
                Route::default(),
                "an edge to nowhere is not drawn"
            );
            assert!(laid.size.w.is_finite() && laid.size.h.is_finite());
        }
        let empty = lay_out(&Graph::default(), Direction::TopToBottom).expect("nothing to lay out");
        assert_eq!(empty.size, Size::default());
    }

    #[test]
    fn a_graph_too_large_is_refused_quickly() {
        // A long chain with edges from each end to the other: the long edges cross every layer.
        let n = 3_000;
        let g = Graph {
            nodes: vec![
                NodeIn {
                    size: Size { w: 50., h: 30. },
                    cluster: None
                };
                n
            ],
            edges: (0..n - 1)
                .map(|i| EdgeIn {
                    from: i,
                    to: i + 1,
                    label: None,
                })
                .chain((0..400).map(|i| EdgeIn {
                    from: n - 1 - i,
                    to: i,
                    label: None,
                }))
                .collect(),
            roots: vec![0],
        };
        let started = std::time::Instant::now();
        assert!(matches!(
            lay_out(&g, Direction::TopToBottom),
            Err(Refusal::TooLarge { layered }) if layered > MAX_LAYERED
        ));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
