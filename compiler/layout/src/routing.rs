//! Step 6, routing: the layers' bands, where each arrow leaves and enters its states, and each arrow's path
//! (straight inside a band, an S-shaped curve between two) with its label's box; self-loops beside their
//! state.

use crate::layered::{Input, LABEL_PAD, LNode, Layered, loop_reach};
use crate::{Graph, Point, Rect, Route, Seg};

/// Vertical space between two layers' bands (the curves' room), and next to a band with nothing but bends
/// of long arrows in it (arrows do not stop there: their curves span both gaps).
const GAP: f64 = 18.;
const THIN_GAP: f64 = 12.;
/// Nodes narrower than this (start marks) take every arrow at their centre.
const POINT_NODE: f64 = 20.;
/// Two coordinates closer than this are the same point (a path does not bend or stop between them).
const SAME: f64 = 0.05;

/// The layers' bands, top to bottom: each layer's top and height (its tallest node's), and the height of them
/// all with the gaps between them.
pub(crate) struct Bands {
    pub(crate) top: Vec<f64>,
    pub(crate) height: Vec<f64>,
    pub(crate) total: f64,
}

impl Bands {
    pub(crate) fn new(layers: &[Vec<usize>], nodes: &[LNode]) -> Bands {
        let count = layers.len();
        let mut top = vec![0.; count];
        let mut height = vec![0.; count];
        for (l, layer) in layers.iter().enumerate() {
            height[l] = layer.iter().map(|&v| nodes[v].height).fold(0., f64::max);
        }
        let mut y = 0.;
        for l in 0..count {
            top[l] = y;
            y += height[l];
            if l + 1 < count {
                y += if height[l] > 0. && height[l + 1] > 0. {
                    GAP
                } else {
                    THIN_GAP
                };
            }
        }
        Bands {
            top,
            height,
            total: y,
        }
    }

    /// The vertical centre of node `v`'s band.
    pub(crate) fn centre_y(&self, nodes: &[LNode], v: usize) -> f64 {
        let l = nodes[v].layer;
        self.top[l] + self.height[l] / 2.
    }

    /// The bottom of layer `l`'s band.
    fn bottom(&self, l: usize) -> f64 {
        self.top[l] + self.height[l]
    }
}

/// Ports: where each chain leaves its top state (`out`) and enters its bottom one (`into`), by chain.
struct Ports {
    out: Vec<f64>,
    into: Vec<f64>,
}

impl Ports {
    /// Spreads the chains meeting each side of each state, in the order of the positions they go to next.
    fn new(input: &Input, chains: &[Vec<usize>], x: &[f64]) -> Ports {
        let n = input.sizes.len();
        let mut ports = Ports {
            out: vec![0.; chains.len()],
            into: vec![0.; chains.len()],
        };
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
            let w = input.sizes[v].w;
            spread(&mut ports.out, &mut outs[v], x[v], w, |c| next_x(c, true));
            spread(&mut ports.into, &mut ins[v], x[v], w, |c| next_x(c, false));
        }
        ports
    }
}

/// Spreads the ports of the chains `cs` along a side of a state at `x` of width `w`, in the order of their
/// other ends (so they do not cross): one chain takes the point of the side nearest its other end.
fn spread(port: &mut [f64], cs: &mut [usize], x: f64, w: f64, other: impl Fn(usize) -> f64) {
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

/// The routes of the laid-out edges (the chains), by input edge; `None` for the others. `reversed` says which
/// chains point up in the drawing (their edges were reversed to break cycles).
pub(crate) fn chain_routes(
    g: &Graph,
    input: &Input,
    graph: &Layered,
    reversed: &[bool],
    x: &[f64],
    bands: &Bands,
) -> Vec<Option<Route>> {
    let ports = Ports::new(input, &graph.chains, x);
    let mut routes: Vec<Option<Route>> = vec![None; g.edges.len()];
    for (i, chain) in graph.chains.iter().enumerate() {
        let (Some(&a), Some(&b)) = (chain.first(), chain.last()) else {
            continue;
        };
        let nodes = &graph.nodes;
        let (pa, pb) = (ports.out[i], ports.into[i]);
        // Points top to bottom, each with whether the piece reaching it is a curve.
        let mut pts: Vec<(Point, bool)> = Vec::with_capacity(2 * chain.len());
        pts.push((
            Point {
                x: pa,
                y: bands.centre_y(nodes, a) + input.sizes[a].h / 2.,
            },
            false,
        ));
        pts.push((
            Point {
                x: pa,
                y: bands.bottom(nodes[a].layer),
            },
            false,
        ));
        let label = through_bands(&mut pts, &chain[1..chain.len() - 1], nodes, x, bands);
        let lb = nodes[b].layer;
        pts.push((
            Point {
                x: pb,
                y: bands.top[lb],
            },
            true,
        ));
        pts.push((
            Point {
                x: pb,
                y: bands.centre_y(nodes, b) - input.sizes[b].h / 2.,
            },
            false,
        ));
        routes[input.plain[i]] = Some(route(pts, reversed[i], label));
    }
    routes
}

/// The points of a chain through the bands of its inner nodes (`inner`): in at the top and out at the
/// bottom of each band with anything in it. Returns the box of the chain's label, if it has one.
fn through_bands(
    pts: &mut Vec<(Point, bool)>,
    inner: &[usize],
    nodes: &[LNode],
    x: &[f64],
    bands: &Bands,
) -> Option<Rect> {
    let mut label = None;
    for &v in inner {
        let l = nodes[v].layer;
        if bands.height[l] <= 0. {
            // Nothing to keep clear of in this band: the curve goes straight through it.
            continue;
        }
        pts.push((
            Point {
                x: x[v],
                y: bands.top[l],
            },
            true,
        ));
        pts.push((
            Point {
                x: x[v],
                y: bands.bottom(l),
            },
            false,
        ));
        if nodes[v].label_of.is_some() {
            label = Some(Rect {
                x: x[v] + LABEL_PAD,
                y: bands.centre_y(nodes, v) - nodes[v].height / 2.,
                w: nodes[v].right - LABEL_PAD,
                h: nodes[v].height,
            });
        }
    }
    label
}

/// The path through `pts` (top to bottom), reversed for an edge that points up: straight where the x does
/// not change, an S-curve with vertical ends (control points between the two points' heights) where it does.
pub(crate) fn route(mut pts: Vec<(Point, bool)>, up: bool, label: Option<Rect>) -> Route {
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
        if (p.x - at.x).abs() < SAME && (p.y - at.y).abs() < SAME {
            continue;
        }
        if curve && (p.x - at.x).abs() >= SAME {
            let mid = (at.y + p.y) / 2.;
            segs.push(Seg::Curve(
                Point { x: at.x, y: mid },
                Point { x: p.x, y: mid },
                p,
            ));
        } else if let Some(Seg::Line(last)) = segs.last_mut()
            && (last.x - at.x).abs() < SAME
            && (p.x - at.x).abs() < SAME
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

/// The routes of the self-loops: loops on the right side of their state, each reaching further than the one
/// before, their labels stacked beside them, centred on the state.
pub(crate) fn loop_routes(
    routes: &mut [Option<Route>],
    g: &Graph,
    input: &Input,
    graph: &Layered,
    x: &[f64],
    bands: &Bands,
) {
    for (v, ls) in input.loops.iter().enumerate() {
        let s = input.sizes[v];
        let (cx, cy) = (x[v], bands.centre_y(&graph.nodes, v));
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_follow_the_other_ends_and_stay_on_the_side() {
        let mut port = vec![0.; 3];
        // Three chains leaving a state 100 wide at x = 0, going to x = 50, -50 and 0.
        let other = [50., -50., 0.];
        let mut cs = vec![0, 1, 2];
        spread(&mut port, &mut cs, 0., 100., |c| other[c]);
        assert!(port[1] < port[2] && port[2] < port[0], "{port:?}");
        assert!(port.iter().all(|p| (-50. ..=50.).contains(p)));
        // One chain takes the nearest point of the side; a narrow node takes every chain at its centre.
        let mut one = vec![0];
        spread(&mut port, &mut one, 0., 100., |_| 400.);
        assert_eq!(port[0], 38.);
        let mut all = vec![0, 1];
        spread(&mut port, &mut all, 7., 14., |c| other[c]);
        assert_eq!((port[0], port[1]), (7., 7.));
    }

    #[test]
    fn a_route_is_straight_where_x_stays_and_curved_where_it_moves() {
        let p = |x, y| Point { x, y };
        let pts = vec![
            (p(0., 0.), false),
            (p(0., 10.), false),
            (p(0., 20.), true),
            (p(30., 40.), true),
            (p(30., 50.), false),
        ];
        let (curve_down, curve_up) = (
            Seg::Curve(p(0., 30.), p(30., 30.), p(30., 40.)),
            Seg::Curve(p(30., 30.), p(0., 30.), p(0., 20.)),
        );
        // Pointing up: the same path backwards, curved over the same piece.
        for (up, start, segs) in [
            (
                false,
                p(0., 0.),
                [Seg::Line(p(0., 20.)), curve_down, Seg::Line(p(30., 50.))],
            ),
            (
                true,
                p(30., 50.),
                [Seg::Line(p(30., 40.)), curve_up, Seg::Line(p(0., 0.))],
            ),
        ] {
            let r = route(pts.clone(), up, None);
            assert_eq!((r.start, r.segs.as_slice()), (start, &segs[..]), "up: {up}");
        }
        assert_eq!(route(Vec::new(), false, None), Route::default());
    }

    #[test]
    fn bands_leave_a_thin_gap_beside_an_empty_layer() {
        use crate::layered::LNode;
        let node = |layer, height| LNode {
            layer,
            left: 0.,
            right: 0.,
            height,
            real: None,
            label_of: None,
            cluster: None,
        };
        let nodes = [node(0, 30.), node(1, 0.), node(2, 20.), node(3, 10.)];
        let bands = Bands::new(&[vec![0], vec![1], vec![2], vec![3]], &nodes);
        assert_eq!(
            bands.top,
            [
                0.,
                30. + THIN_GAP,
                30. + 2. * THIN_GAP,
                50. + 2. * THIN_GAP + GAP
            ]
        );
        assert_eq!(bands.total, 60. + 2. * THIN_GAP + GAP);
        assert_eq!(bands.centre_y(&nodes, 2), 30. + 2. * THIN_GAP + 10.);
    }
}
