//! The render backend of the SVG drawing: layout-rs calls it to draw each shape, and it records markup in
//! layers (arrows under states under labels) with classes and `data-` attributes the HTML page uses, and the
//! extent of everything drawn. Coordinates are rounded to one decimal, so the output is byte-stable.

use super::xml_escape;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use std::fmt::Write;

pub(super) const STATE_FONT: usize = 14;
/// The font size layout-rs is told for transition labels. It reserves one font size per character, which
/// for real proportional text is far too wide; 7 per character matches 11px text (drawn at that size).
pub(super) const EDGE_LAYOUT_FONT: usize = 7;
/// The drawn size and line height of transition labels.
const EDGE_FONT: f64 = 11.;
const EDGE_LINE: f64 = 13.;
/// One arrow of the drawing: all transitions from one state to another.
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) labels: Vec<String>,
}

/// What the drawing needs of a state (owned, so the layout can run on a thread of its own).
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) name: String,
    /// The group's classes: `state`, then `start`, `default`, `final`, `cN` (its cluster) as they apply.
    pub(super) class: String,
    pub(super) is_final: bool,
}

/// The render backend: records markup per layer and the extent of everything drawn.
#[derive(Debug)]
pub(super) struct Canvas {
    pub(super) states: Vec<Node>,
    /// `(from, to)` state indices of each drawn edge.
    pub(super) edges: Vec<(usize, usize)>,
    pub(super) nodes: String,
    pub(super) arrows: String,
    pub(super) labels: String,
    /// A state group opened by its box and closed by its name, which layout-rs draws right after it.
    open_group: bool,
    pub(super) lo: Point,
    pub(super) hi: Point,
}

impl Canvas {
    pub(super) fn new(states: Vec<Node>, edges: Vec<(usize, usize)>) -> Canvas {
        Canvas {
            states,
            edges,
            nodes: String::new(),
            arrows: String::new(),
            labels: String::new(),
            open_group: false,
            lo: Point::new(f64::MAX, f64::MAX),
            hi: Point::new(f64::MIN, f64::MIN),
        }
    }

    pub(super) fn grow(&mut self, p: Point) {
        self.lo = Point::new(self.lo.x.min(p.x), self.lo.y.min(p.y));
        self.hi = Point::new(self.hi.x.max(p.x), self.hi.y.max(p.y));
    }

    fn close_group(&mut self) {
        if self.open_group {
            self.nodes.push_str("</g>\n");
            self.open_group = false;
        }
    }
}

impl RenderBackend for Canvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        self.close_group();
        self.grow(xy);
        self.grow(xy.add(size));
        let index = properties
            .as_deref()
            .and_then(|p| p.strip_prefix('s'))
            .and_then(|i| i.parse::<usize>().ok());
        let Some((i, s)) = index.and_then(|i| self.states.get(i).cloned().map(|s| (i, s))) else {
            let _ = writeln!(
                self.nodes,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                num(xy.x),
                num(xy.y),
                num(size.x),
                num(size.y)
            );
            return;
        };
        let class = &s.class;
        let _ = write!(
            self.nodes,
            "<g class=\"{class}\" data-state=\"{i}\" data-name=\"{}\"><rect class=\"box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\"/>",
            xml_escape(&s.name),
            num(xy.x),
            num(xy.y),
            num(size.x),
            num(size.y)
        );
        if s.is_final {
            let _ = write!(
                self.nodes,
                "<rect class=\"inner\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>",
                num(xy.x + 4.),
                num(xy.y + 4.),
                num(size.x - 8.),
                num(size.y - 8.)
            );
        }
        self.open_group = true;
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        _look: &StyleAttr,
        _properties: Option<String>,
    ) {
        self.close_group();
        self.grow(start);
        self.grow(stop);
        let _ = writeln!(
            self.arrows,
            "<line class=\"edge\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            num(start.x),
            num(start.y),
            num(stop.x),
            num(stop.y)
        );
    }

    fn draw_circle(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        _properties: Option<String>,
    ) {
        self.close_group();
        self.grow(xy.sub(size.scale(0.5)));
        self.grow(xy.add(size.scale(0.5)));
        let _ = writeln!(
            self.nodes,
            "<circle class=\"start-mark\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            num(xy.x),
            num(xy.y),
            num(size.x / 2.)
        );
    }

    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        if lines.is_empty() {
            self.close_group();
            return;
        }
        // A state's name (its group is open) or a transition label.
        let (font, line_h) = if self.open_group {
            (STATE_FONT as f64, STATE_FONT as f64 * 1.2)
        } else {
            (EDGE_FONT, EDGE_LINE)
        };
        let width = lines.iter().map(|l| text_width(l, font)).fold(0., f64::max);
        let height = line_h * lines.len() as f64;
        self.grow(Point::new(xy.x - width / 2., xy.y - height / 2.));
        self.grow(Point::new(xy.x + width / 2., xy.y + height / 2.));
        // Baseline of the first line, so the block is centred on `xy`.
        let first = xy.y - height / 2. + line_h * 0.8;
        let mut markup = String::new();
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                markup,
                "<tspan x=\"{}\" y=\"{}\">{}</tspan>",
                num(xy.x),
                num(first + line_h * k as f64),
                xml_escape(line)
            );
        }
        if self.open_group {
            let _ = write!(self.nodes, "<text text-anchor=\"middle\">{markup}</text>");
            self.close_group();
        } else {
            let _ = writeln!(
                self.labels,
                "<text class=\"edge-label\" text-anchor=\"middle\">{markup}</text>"
            );
        }
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        self.close_group();
        let (Some(first), Some(second)) = (path.first(), path.get(1)) else {
            return;
        };
        for (a, b) in path {
            self.grow(*a);
            self.grow(*b);
        }
        let mut d = format!(
            "M{} {}C{} {} {} {} {} {}",
            num(first.0.x),
            num(first.0.y),
            num(first.1.x),
            num(first.1.y),
            num(second.0.x),
            num(second.0.y),
            num(second.1.x),
            num(second.1.y)
        );
        for (a, b) in path.iter().skip(2) {
            let _ = write!(d, "S{} {} {} {}", num(a.x), num(a.y), num(b.x), num(b.y));
        }
        let props = properties.unwrap_or_default();
        let attrs = if let Some(k) = props
            .strip_prefix('e')
            .and_then(|k| k.parse::<usize>().ok())
            .and_then(|k| self.edges.get(k).map(|e| (k, e)))
        {
            format!(
                "class=\"edge\" data-edge=\"{}\" data-from=\"{}\" data-to=\"{}\"",
                k.0, k.1.0, k.1.1
            )
        } else if let Some(s) = props.strip_prefix("td") {
            format!(
                "class=\"edge start-edge default\" data-to=\"{}\"",
                xml_escape(s)
            )
        } else if let Some(s) = props.strip_prefix('t') {
            format!("class=\"edge start-edge\" data-to=\"{}\"", xml_escape(s))
        } else {
            "class=\"edge\"".to_string()
        };
        // layout-rs draws an edge it reversed (to break a cycle) from its target, with the head at the start.
        let marker = match head {
            (true, _) => " marker-start=\"url(#fsmc-arrow-start)\"",
            (_, true) => " marker-end=\"url(#fsmc-arrow)\"",
            _ => "",
        };
        let _ = writeln!(self.arrows, "<path {attrs} d=\"{d}\"{marker}/>");
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded_px: usize) -> ClipHandle {
        // Only record shapes use clips, and we draw none.
        0
    }
}

/// The width of a line of text, estimated as a proportional sans-serif font.
pub(super) fn text_width(text: &str, font: f64) -> f64 {
    text.chars().count() as f64 * font * 0.62
}

/// A coordinate, with one decimal and no negative zero, so output is byte-stable.
pub(crate) fn num(x: f64) -> String {
    let x = if x.is_finite() {
        (x * 10.).round() / 10.
    } else {
        0.
    };
    let s = format!("{x:.1}");
    let s = if s == "-0.0" { "0.0".to_string() } else { s };
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}
