//! The way out of the frame the steps work in ([`Frame`](crate::Frame)). Every step lays out top to bottom; a left-to-right
//! drawing is laid out with widths and heights swapped, then transposed, so text stays horizontal.

use crate::layered::{Input, LNode};
use crate::routing::Bands;
use crate::{Frame, Laid, Point, Rect, Route, Seg, Size};

impl Frame {
    /// The drawing in the output frame: shifted so its leftmost extent is at the origin, and transposed for
    /// left to right. `routes` holds one route per input edge (`None` for an edge not drawn).
    pub(crate) fn output(
        &self,
        input: &Input,
        nodes: &[LNode],
        x: &[f64],
        bands: &Bands,
        mut routes: Vec<Option<Route>>,
    ) -> Laid {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (v, node) in nodes.iter().enumerate() {
            lo = lo.min(x[v] - node.left);
            hi = hi.max(x[v] + node.right);
        }
        if !lo.is_finite() {
            (lo, hi) = (0., 0.);
        }
        let shift = Shift {
            lo,
            flip: self.flip,
        };
        for r in routes.iter_mut().flatten() {
            shift.route(r);
        }
        let sizes = &input.sizes;
        let boxes = (0..sizes.len())
            .map(|v| {
                shift.rect(Rect {
                    x: x[v] - sizes[v].w / 2.,
                    y: bands.centre_y(nodes, v) - sizes[v].h / 2.,
                    w: sizes[v].w,
                    h: sizes[v].h,
                })
            })
            .collect();
        let size = if self.flip {
            Size {
                w: bands.total,
                h: hi - lo,
            }
        } else {
            Size {
                w: hi - lo,
                h: bands.total,
            }
        };
        Laid {
            nodes: boxes,
            edges: routes.into_iter().map(Option::unwrap_or_default).collect(),
            size,
        }
    }
}

/// The move into the output frame: left by `lo`, then transposed when `flip`.
struct Shift {
    lo: f64,
    flip: bool,
}

impl Shift {
    fn point(&self, p: Point) -> Point {
        let p = Point {
            x: p.x - self.lo,
            y: p.y,
        };
        if self.flip {
            Point { x: p.y, y: p.x }
        } else {
            p
        }
    }

    fn rect(&self, r: Rect) -> Rect {
        let r = Rect {
            x: r.x - self.lo,
            ..r
        };
        if self.flip {
            Rect {
                x: r.y,
                y: r.x,
                w: r.h,
                h: r.w,
            }
        } else {
            r
        }
    }

    fn route(&self, r: &mut Route) {
        r.start = self.point(r.start);
        for s in &mut r.segs {
            *s = match *s {
                Seg::Line(p) => Seg::Line(self.point(p)),
                Seg::Curve(a, b, c) => Seg::Curve(self.point(a), self.point(b), self.point(c)),
            };
        }
        r.label = r.label.map(|l| self.rect(l));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    #[test]
    fn sizes_are_cleaned_and_swapped_across() {
        let odd = Size {
            w: f64::NAN,
            h: -2.,
        };
        assert_eq!(
            Frame::new(Direction::TopToBottom).inner(odd),
            Size::default()
        );
        let s = Size { w: 3., h: 5. };
        assert_eq!(Frame::new(Direction::TopToBottom).inner(s), s);
        assert_eq!(
            Frame::new(Direction::LeftToRight).inner(s),
            Size { w: 5., h: 3. }
        );
    }

    #[test]
    fn the_output_is_shifted_then_transposed() {
        let shift = Shift {
            lo: 10.,
            flip: true,
        };
        assert_eq!(
            shift.rect(Rect {
                x: 12.,
                y: 1.,
                w: 3.,
                h: 4.
            }),
            Rect {
                x: 1.,
                y: 2.,
                w: 4.,
                h: 3.
            }
        );
        let mut r = Route {
            start: Point { x: 10., y: 0. },
            segs: vec![Seg::Line(Point { x: 11., y: 5. })],
            label: None,
        };
        shift.route(&mut r);
        assert_eq!(r.start, Point { x: 0., y: 0. });
        assert_eq!(r.segs, [Seg::Line(Point { x: 5., y: 1. })]);
    }
}
