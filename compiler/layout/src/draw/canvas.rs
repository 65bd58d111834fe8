//! Text metrics and SVG markup for the drawing: numbers written so the output is byte-stable, and text
//! widths estimated from real font metrics so boxes fit their text.

use crate::{Point, Rect, Route, Seg};
use std::fmt::Write;

/// Advance widths (thousandths of an em) of the printable ASCII characters, from `' '` to `'~'`: for each
/// character the wider of DejaVu Sans and Liberation Sans (metrically Arial/Helvetica), the fonts the
/// drawing's `Helvetica, Arial, sans-serif` resolves to on most systems. Boxes sized with these fit the text
/// in either.
const ADVANCE: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 556, 1015, 684, 686, 722, 770, 667,
    611, 778, 752, 295, 500, 667, 557, 863, 748, 787, 667, 787, 722, 667, 611, 732, 684, 989, 685,
    667, 685, 390, 337, 390, 838, 556, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];

/// The same for bold text (the title).
const ADVANCE_BOLD: [u16; 95] = [
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696,
    696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 611, 1000, 774, 762, 734, 830, 683,
    683, 821, 837, 372, 556, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771,
    724, 725, 457, 365, 457, 838, 556, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665,
    343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
];

/// The width of one line of text at `font` pixels: ASCII from the tables above, wide (East Asian) characters
/// one em, combining marks nothing, anything else the width of a wide Latin letter.
pub(super) fn text_width(text: &str, font: f64, bold: bool) -> f64 {
    let table = if bold { &ADVANCE_BOLD } else { &ADVANCE };
    let thousandths: u32 = text
        .chars()
        .map(|c| match c as u32 {
            code @ 0x20..=0x7e => u32::from(table[(code - 0x20) as usize]),
            0x300..=0x36f | 0x200b..=0x200d => 0,
            0x1100..=0x115f
            | 0x2e80..=0xa4cf
            | 0xac00..=0xd7a3
            | 0xf900..=0xfaff
            | 0xfe30..=0xfe4f => 1000,
            0xff00..=0xff60 | 0xffe0..=0xffe6 | 0x1f300..=0x1faff | 0x20000..=0x3fffd => 1000,
            _ => 800,
        })
        .sum();
    f64::from(thousandths) * font / 1000.
}

/// A coordinate, with one decimal and no negative zero, so output is byte-stable.
pub fn num(x: f64) -> String {
    let x = if x.is_finite() {
        (x * 10.).round() / 10.
    } else {
        0.
    };
    let s = format!("{x:.1}");
    let s = if s == "-0.0" { "0.0".to_string() } else { s };
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

fn pt(p: Point) -> String {
    format!("{} {}", num(p.x), num(p.y))
}

/// The `d` attribute of an arrow, shifted by `(dx, dy)`.
pub(super) fn path_data(r: &Route) -> String {
    let mut d = format!("M{}", pt(r.start));
    for s in &r.segs {
        match *s {
            Seg::Line(p) => {
                let _ = write!(d, "L{}", pt(p));
            }
            Seg::Curve(a, b, c) => {
                let _ = write!(d, "C{} {} {}", pt(a), pt(b), pt(c));
            }
        }
    }
    d
}

/// The boxes an arrow's pieces stay within (a cubic stays within its control points' hull), to check
/// that something placed later keeps clear of it.
pub(super) fn route_boxes(r: &Route) -> Vec<Rect> {
    let mut out = Vec::with_capacity(r.segs.len());
    let mut at = r.start;
    for s in &r.segs {
        let (pts, end): (Vec<Point>, Point) = match *s {
            Seg::Line(p) => (vec![at, p], p),
            Seg::Curve(a, b, c) => (vec![at, a, b, c], c),
        };
        let (mut lo, mut hi) = (at, at);
        for p in pts {
            lo = Point {
                x: lo.x.min(p.x),
                y: lo.y.min(p.y),
            };
            hi = Point {
                x: hi.x.max(p.x),
                y: hi.y.max(p.y),
            };
        }
        out.push(Rect {
            x: lo.x,
            y: lo.y,
            w: hi.x - lo.x,
            h: hi.y - lo.y,
        });
        at = end;
    }
    out
}

/// Whether two boxes overlap (touching is not overlapping).
pub(super) fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom()
}

/// Whether `inner` lies within `outer`.
pub(super) fn contains(outer: &Rect, inner: &Rect) -> bool {
    inner.x >= outer.x
        && inner.y >= outer.y
        && inner.right() <= outer.right()
        && inner.bottom() <= outer.bottom()
}
