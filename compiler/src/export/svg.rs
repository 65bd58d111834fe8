//! SVG: the machine laid out in pure Rust by `layout-rs` (a layered, Sugiyama-style layout: no system graphviz)
//! and drawn by our own render backend, so the markup is stable and carries what the HTML page needs.
//!
//! States are `<g class="state" data-state="i">` groups, transitions `<path class="edge" data-from data-to>`;
//! parallel transitions between two states share one arrow whose label lists their events. A composed app's
//! original machines are told apart by fill colour, named in a legend, and framed when their frame would not
//! overlap another machine's states (the layout does not know about clusters, so it cannot promise that).

use super::canvas::{Canvas, num, text_width};
use super::{Target, xml_escape};
use layout::core::geometry::Point;
use std::fmt::Write;

/// Fill colours of a composed app's machines, cycled.
const PALETTE: [&str; 8] = [
    "#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#ccfbf1", "#ffedd5", "#e0e7ff",
];

/// Styles of the standalone document (the HTML page brings its own).
const STYLE: &str = "text{font-family:Helvetica,Arial,sans-serif;font-size:14px;fill:#111}\
.state rect{fill:#fff;stroke:#333;stroke-width:1.5}.state.start rect.box{stroke-width:3}.state rect.inner{fill:none}\
.edge{fill:none;stroke:#555;stroke-width:1.3}.start-edge{stroke-dasharray:4 3}.start-edge.default{stroke-dasharray:none}.start-mark{fill:#111}\
.edge-label{font-size:11px;fill:#333;paint-order:stroke;stroke:#fff;stroke-width:3px}\
.cluster{fill:none;stroke:#888;stroke-dasharray:6 4}.cluster-label{font-size:12px;fill:#555}.title{font-size:16px;font-weight:bold}";

/// A drawn machine: the markup of its parts and the size of the whole.
pub(crate) struct Drawing {
    /// `<defs>`, clusters, edges, states and labels, in `0 0 width height` coordinates.
    pub body: String,
    pub width: f64,
    pub height: f64,
    /// The CSS rules that colour each cluster's states.
    pub cluster_css: String,
}

/// The machine as a standalone SVG document.
pub fn write(target: &Target<'_>) -> Result<String, String> {
    let d = draw(target)?;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">",
        w = num(d.width),
        h = num(d.height)
    );
    let _ = writeln!(out, "<style>{STYLE}{}</style>", d.cluster_css);
    let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
    out.push_str(&d.body);
    out.push_str("</svg>\n");
    Ok(out)
}

/// Lays the machine out and draws it.
pub(crate) fn draw(target: &Target<'_>) -> Result<Drawing, String> {
    let m = target.machine;
    let cluster_of = target.cluster_of();
    let clusters = target.clusters();
    let super::layout::Laid { boxes, mut canvas } = super::layout::lay_out(m, &cluster_of)?;

    // Frames around each composed machine's states, where they do not overlap another machine's states.
    let mut frames = String::new();
    for (ci, c) in clusters.iter().enumerate() {
        let members: Vec<usize> = c.states.iter().map(|s| s.index()).collect();
        let member = |i: usize| cluster_of.get(i).copied().flatten() == Some(ci);
        let (mut lo, mut hi) = (
            Point::new(f64::MAX, f64::MAX),
            Point::new(f64::MIN, f64::MIN),
        );
        for &i in &members {
            lo = Point::new(lo.x.min(boxes[i].0.x - 12.), lo.y.min(boxes[i].0.y - 26.));
            hi = Point::new(hi.x.max(boxes[i].1.x + 12.), hi.y.max(boxes[i].1.y + 12.));
        }
        let overlaps = boxes.iter().enumerate().any(|(i, b)| {
            !member(i) && b.0.x < hi.x && b.1.x > lo.x && b.0.y < hi.y && b.1.y > lo.y
        });
        if members.is_empty() || overlaps {
            continue;
        }
        canvas.grow(lo);
        canvas.grow(hi);
        let _ = writeln!(
            frames,
            "<g class=\"cluster-frame\" data-cluster=\"{ci}\"><rect class=\"cluster\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"10\"/><text class=\"cluster-label\" x=\"{}\" y=\"{}\">{}</text></g>",
            num(lo.x),
            num(lo.y),
            num(hi.x - lo.x),
            num(hi.y - lo.y),
            num(lo.x + 8.),
            num(lo.y + 16.),
            xml_escape(&c.name)
        );
    }
    Ok(assemble(target, &canvas, &frames, &clusters))
}

/// Places the title, the diagram and the legend, shifting the diagram so its top-left corner is at the margin.
fn assemble(
    target: &Target<'_>,
    canvas: &Canvas,
    frames: &str,
    clusters: &[super::Cluster],
) -> Drawing {
    let margin = 16.;
    let title_h = 32.;
    let (lo, hi) = if canvas.lo.x <= canvas.hi.x {
        (canvas.lo, canvas.hi)
    } else {
        (Point::zero(), Point::zero())
    };
    let (dx, dy) = (margin - lo.x, margin + title_h - lo.y);
    let legend_h = if clusters.is_empty() {
        0.
    } else {
        12. + 20. * clusters.len() as f64
    };
    let title = target.machine.label();
    let legend_w = clusters
        .iter()
        .map(|c| text_width(&c.name, 12.) + 40.)
        .fold(0., f64::max);
    let width = (hi.x - lo.x + 2. * margin)
        .max(text_width(title, 16.) + 2. * margin)
        .max(legend_w + 2. * margin);
    let height = hi.y - lo.y + 2. * margin + title_h + legend_h;
    let mut body = String::new();
    body.push_str("<defs><marker id=\"fsmc-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"#555\"/></marker>\
<marker id=\"fsmc-arrow-start\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#555\"/></marker></defs>\n");
    let _ = writeln!(
        body,
        "<text class=\"title\" x=\"{}\" y=\"{}\">{}</text>",
        num(margin),
        num(margin + 14.),
        xml_escape(title)
    );
    let _ = writeln!(
        body,
        "<g class=\"diagram\" transform=\"translate({} {})\">",
        num(dx),
        num(dy)
    );
    body.push_str(frames);
    for part in [&canvas.arrows, &canvas.nodes, &canvas.labels] {
        body.push_str(part);
    }
    body.push_str("</g>\n");
    let mut cluster_css = String::new();
    if !clusters.is_empty() {
        let top = hi.y - lo.y + 2. * margin + title_h;
        body.push_str("<g class=\"legend\">\n");
        for (ci, c) in clusters.iter().enumerate() {
            let y = top + 20. * ci as f64;
            let _ = writeln!(
                body,
                "<g class=\"legend-item\" data-cluster=\"{ci}\"><rect class=\"swatch c{ci}\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" rx=\"3\" fill=\"{}\" stroke=\"#333\"/><text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text></g>",
                num(margin),
                num(y),
                PALETTE[ci % PALETTE.len()],
                num(margin + 22.),
                num(y + 12.),
                xml_escape(&c.name)
            );
            let _ = write!(
                cluster_css,
                ".state.c{ci} rect.box{{fill:{}}}",
                PALETTE[ci % PALETTE.len()]
            );
        }
        body.push_str("</g>\n");
    }
    Drawing {
        body,
        width: width.ceil(),
        height: height.ceil(),
        cluster_css,
    }
}
