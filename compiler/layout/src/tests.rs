//! The whole layout's promises, on random graphs and on the odd ones: boxes and labels apart, arrows clear of
//! every box but their ends and from border to border, the same drawing every time; and the shapes the step
//! tests share.

use crate::*;
use fsmc_testkit::Lcg;
use std::ops::Range;

/// A random graph of `n` nodes of varied sizes (three clusters, every fourth node in none) and `m` edges, most
/// of them labelled.
pub(crate) fn random_graph(rng: &mut Lcg, n: usize, m: usize) -> Graph {
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

/// `count` random graphs from `seed`, each with a number of nodes in `nodes` and fewer than three edges a node.
pub(crate) fn random_graphs(
    seed: u64,
    count: usize,
    nodes: Range<usize>,
) -> impl Iterator<Item = Graph> {
    let mut rng = Lcg(seed);
    (0..count).map(move |_| {
        let n = nodes.start + rng.below(nodes.len());
        let m = rng.below(3 * n);
        random_graph(&mut rng, n, m)
    })
}

/// `count` random edge lists from `seed`, each between a number of nodes in `nodes` (given with it), fewer than
/// `per_node` edges a node, self-loops left out.
pub(crate) fn random_edges(
    seed: u64,
    count: usize,
    nodes: Range<usize>,
    per_node: usize,
) -> impl Iterator<Item = (usize, Vec<(usize, usize)>)> {
    let mut rng = Lcg(seed);
    (0..count).map(move |_| {
        let n = nodes.start + rng.below(nodes.len());
        let edges = (0..rng.below(per_node * n))
            .map(|_| (rng.below(n), rng.below(n)))
            .filter(|(a, b)| a != b)
            .collect();
        (n, edges)
    })
}

/// `n` nodes of one size, in no cluster, and the arrows `(from, to, label)`; the root is node 0.
pub(crate) fn graph(n: usize, size: Size, edges: &[(usize, usize, Option<Size>)]) -> Graph {
    Graph {
        nodes: vec![
            NodeIn {
                size,
                cluster: None
            };
            n
        ],
        edges: edges
            .iter()
            .map(|&(from, to, label)| EdgeIn { from, to, label })
            .collect(),
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
                x: u * u * u * at.x + 3. * u * u * t * a.x + 3. * u * t * t * b.x + t * t * t * c.x,
                y: u * u * u * at.y + 3. * u * u * t * a.y + 3. * u * t * t * b.y + t * t * t * c.y,
            });
        }
        at = c;
    }
    out
}

fn strictly_inside(p: Point, r: &Rect, inset: f64) -> bool {
    p.x > r.x + inset && p.x < r.right() - inset && p.y > r.y + inset && p.y < r.bottom() - inset
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
    let label = Size { w: 50., h: 13. };
    let g = graph(
        3,
        Size { w: 60., h: 30. },
        &[
            (0, 1, Some(label)),
            (1, 2, None),
            (2, 0, Some(label)),
            (1, 1, Some(Size { w: 80., h: 26. })),
        ],
    );
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
    let bad_label = Size {
        w: -3.,
        h: f64::NAN,
    };
    let mut g = graph(
        2,
        nan,
        &[
            (0, 7, None),
            (0, 1, Some(bad_label)),
            (1, 0, None),
            (0, 1, None),
            (1, 1, None),
            (1, 1, Some(Size { w: 10., h: 10. })),
        ],
    );
    for node in &mut g.nodes {
        node.cluster = Some(usize::MAX);
    }
    g.roots = vec![9, 1, 1];
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
    let edges: Vec<(usize, usize, Option<Size>)> = (0..n - 1)
        .map(|i| (i, i + 1, None))
        .chain((0..400).map(|i| (n - 1 - i, i, None)))
        .collect();
    let g = graph(n, Size { w: 50., h: 30. }, &edges);
    let started = std::time::Instant::now();
    assert!(matches!(
        lay_out(&g, Direction::TopToBottom),
        Err(Refusal::TooLarge { layered }) if layered > MAX_LAYERED
    ));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// The layered graph of `g` as the steps before ordering leave it, top to bottom.
pub(crate) fn through_layering(g: &Graph) -> Layering {
    Layering::new(g, &Frame::new(Direction::TopToBottom))
        .expect("small graphs are within the budget")
}

#[test]
fn every_label_gets_a_box_self_loops_included() {
    let mut rng = Lcg(31);
    for _ in 0..60 {
        let n = 1 + rng.below(10);
        let m = rng.below(3 * n + 1);
        let g = random_graph(&mut rng, n, m);
        for direction in [Direction::TopToBottom, Direction::LeftToRight] {
            let laid = lay_out(&g, direction).expect("small graphs are laid out");
            for (e, r) in g.edges.iter().zip(&laid.edges) {
                assert_eq!(e.label.is_some(), r.label.is_some(), "{e:?}: {r:?}");
                if let (Some(size), Some(b)) = (e.label, r.label) {
                    assert_eq!((b.w, b.h), (size.w, size.h), "the box is the label's size");
                }
            }
        }
    }
}
