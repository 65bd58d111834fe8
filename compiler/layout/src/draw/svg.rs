//! SVG: the machine laid out by the layered layout (pure Rust, no system Graphviz) and written as stable
//! markup that carries what the HTML page needs.
//!
//! States are `<g class="state" data-state="i">` groups (a box, the name, for Genie states their type
//! beneath it), transitions `<path class="edge" data-edge data-from data-to>`; parallel transitions between
//! two states share one arrow whose label lists them, one per line (`EVENT (30s) if guard do action`).
//! Labels are `<text class="edge-label" data-edge>`, placed by the layout where no line, state or other
//! label is. A start mark points at each start state (solid to the default one, dashed to the others), final
//! states have a double border, Genie `user` states are rounded pills and `invoker` states square boxes, with
//! their type beneath the name. A composed app's original machines are told apart by fill colour, named in a
//! legend, and framed (with their name in the frame) when the frame crosses no other machine's state and no
//! label, and its name no line, label or state.

use super::canvas::{contains, num, overlaps, path_data, route_boxes, text_width};
use super::{Diagram, Options, visible, xml_escape};
use crate::{EdgeIn, Graph, Laid, NodeIn, Rect, Refusal, Size};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Fill colours of a composed app's machines, cycled.
const PALETTE: [&str; 8] = [
    "#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#ccfbf1", "#ffedd5", "#e0e7ff",
];

/// Text sizes: a state's name, a Genie state's type beneath it, transition labels (and their line
/// height), cluster names and the title.
const STATE_FONT: f64 = 14.;
const CAPTION_FONT: f64 = 11.;
const EDGE_FONT: f64 = 11.;
const EDGE_LINE: f64 = 13.;
const CLUSTER_FONT: f64 = 12.;
/// The legend's names: set by a class (a `font-size` attribute would lose to the page's `text` rule, and a
/// name drawn larger than measured would run past the drawing's edge).
const LEGEND_FONT: f64 = 12.;
const TITLE_FONT: f64 = 16.;
/// How far below the top of a line of text its baseline is (the fonts' ascent, 0.93 em).
const ASCENT: f64 = 0.93;
/// Padding inside a state's box.
const PAD_X: f64 = 14.;
const PAD_Y: f64 = 10.;
/// The start mark's diameter.
const MARK: f64 = 14.;
/// Room around a cluster's states inside its frame, and the height of the frame's name.
const FRAME_PAD: f64 = 10.;
const FRAME_TITLE: f64 = 18.;

/// Styles of the standalone document (the HTML page brings its own).
const STYLE: &str = "text{font-family:Helvetica,Arial,sans-serif;font-size:14px;fill:#111}\
.state rect{fill:#fff;stroke:#333;stroke-width:1.5}.state.start rect.box{stroke-width:3}.state rect.inner{fill:none}\
.state.user rect.box{fill:#e0f2fe}.state.invoker rect.box{fill:#fef9c3}.caption{font-size:11px;font-style:italic;fill:#555}\
.edge{fill:none;stroke:#555;stroke-width:1.3}.start-edge{stroke-dasharray:4 3}.start-edge.default{stroke-dasharray:none}.start-mark{fill:#111}\
.edge-label{font-size:11px;fill:#333}\
.cluster{fill:none;stroke:#888;stroke-dasharray:6 4}.cluster-label{font-size:12px;fill:#555}.legend-label{font-size:12px}.title{font-size:16px;font-weight:bold}";

/// A drawn machine: the markup of its parts and the size of the whole.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// `<defs>`, the title, clusters, edges, states, labels and the legend, in `0 0 width height` coordinates.
    pub body: String,
    pub width: f64,
    pub height: f64,
    /// The CSS rules that colour each cluster's states (scoped to the drawing when it has a scope).
    pub cluster_css: String,
}

/// The drawing as an SVG document: standalone (with an XML declaration), or, when it has a scope, an `<svg>`
/// element to embed in a page whose styles apply only inside it and which shrinks to the page's width.
pub fn document(diagram: &Diagram, options: &Options) -> Result<String, Refusal> {
    let d = draw(diagram, options)?;
    let (w, h) = (num(d.width), num(d.height));
    let mut out = String::new();
    match &options.scope {
        None => {
            out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            let _ = writeln!(
                out,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
            );
            let _ = writeln!(out, "<style>{STYLE}{}</style>", d.cluster_css);
        }
        Some(scope) => {
            let _ = writeln!(
                out,
                "<svg id=\"{scope}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" style=\"max-width:100%;height:auto\">"
            );
            let _ = writeln!(
                out,
                "<style>{}{}</style>",
                scoped(STYLE, scope),
                scoped(&d.cluster_css, scope)
            );
        }
    }
    let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
    out.push_str(&d.body);
    out.push_str("</svg>\n");
    Ok(out)
}

/// CSS rules (`selector{…}`, no commas in selectors) each limited to the element with id `scope`.
fn scoped(rules: &str, scope: &str) -> String {
    rules
        .split_inclusive('}')
        .map(|rule| format!("#{scope} {rule}"))
        .collect()
}

/// One arrow of the drawing: all transitions from one state to another.
struct Arrow {
    from: usize,
    to: usize,
    labels: Vec<String>,
}

/// The transitions merged per pair of states, in first-appearance order; labels made visible.
fn arrows(d: &Diagram) -> Vec<Arrow> {
    let n = d.states.len();
    let mut out: Vec<Arrow> = Vec::new();
    let mut index: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for t in &d.transitions {
        let key = (t.from, t.to);
        if key.0 >= n || key.1 >= n {
            continue;
        }
        let label = visible(&t.label).into_owned();
        match index.get(&key) {
            Some(&k) => out[k].labels.push(label),
            None => {
                index.insert(key, out.len());
                out.push(Arrow {
                    from: key.0,
                    to: key.1,
                    labels: vec![label],
                });
            }
        }
    }
    for a in &mut out {
        a.labels.retain(|l| !l.is_empty());
    }
    out
}

/// A state's box size: its name, and its caption beneath.
fn state_size(name: &str, caption: Option<&str>) -> Size {
    let mut w = text_width(name, STATE_FONT, false);
    let mut h = STATE_FONT * 1.25;
    if let Some(c) = caption {
        w = w.max(text_width(c, CAPTION_FONT, false));
        h += CAPTION_FONT * 1.25;
    }
    Size {
        w: (w + 2. * PAD_X).ceil(),
        h: (h + 2. * PAD_Y).ceil(),
    }
}

/// A label's box: the widest line, one line height per line, a pixel of margin around.
fn label_size(lines: &[String]) -> Option<Size> {
    if lines.is_empty() {
        return None;
    }
    let w = lines
        .iter()
        .map(|l| text_width(l, EDGE_FONT, false))
        .fold(0., f64::max);
    Some(Size {
        w: (w + 2.).ceil(),
        h: EDGE_LINE * lines.len() as f64 + 2.,
    })
}

/// The machine as the layout sees it: the states (nodes `0..n`) and a start mark per start state after them,
/// the arrows (edges in the order of `arrows`) and an arrow from each mark to its state after them.
struct Scene {
    graph: Graph,
    arrows: Vec<Arrow>,
    /// The start states, each with whether it is the default one, the default first: start mark `j` is node
    /// `n + j`, its arrow edge `arrows.len() + j`.
    starts: Vec<(usize, bool)>,
}

/// The graph to lay out, from the diagram's states (named `names`) and transitions.
fn scene(d: &Diagram, names: &[String]) -> Scene {
    let n = d.states.len();
    let mut graph = Graph::default();
    for (i, s) in d.states.iter().enumerate() {
        graph.nodes.push(NodeIn {
            size: state_size(&names[i], s.caption),
            cluster: s.cluster,
        });
    }
    let arrows = arrows(d);
    for a in &arrows {
        graph.edges.push(EdgeIn {
            from: a.from,
            to: a.to,
            label: label_size(&a.labels),
        });
    }
    // A start mark for each start state, with an arrow into it (the default one first): one mark for all
    // would send long arrows across the drawing to start states far from the first.
    let mut starts: Vec<(usize, bool)> = d
        .states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.start)
        .map(|(i, s)| (i, s.default_start))
        .collect();
    starts.sort_by_key(|&(s, default)| (!default, s));
    for (j, &(s, _)) in starts.iter().enumerate() {
        graph.nodes.push(NodeIn {
            size: Size { w: MARK, h: MARK },
            cluster: None,
        });
        graph.roots.push(n + j);
        graph.edges.push(EdgeIn {
            from: n + j,
            to: s,
            label: None,
        });
    }
    graph.roots.extend(starts.iter().map(|&(s, _)| s));
    Scene {
        graph,
        arrows,
        starts,
    }
}

/// Lays the diagram out and draws it, or says why it is too large to lay out.
pub fn draw(d: &Diagram, options: &Options) -> Result<Drawing, Refusal> {
    let names: Vec<String> = d
        .states
        .iter()
        .map(|s| visible(&s.name).into_owned())
        .collect();
    let cluster_of: Vec<Option<usize>> = d.states.iter().map(|s| s.cluster).collect();
    let scene = scene(d, &names);
    let laid = crate::lay_out(&scene.graph, options.direction)?;
    let marker = match &options.scope {
        Some(scope) => format!("{scope}-arrow"),
        None => "fsmc-arrow".to_string(),
    };
    let mut lines = draw_arrows(&scene, &laid, &marker);
    let mut states = draw_states(d, &names, &laid);
    // Cluster names keep clear of the marks as of lines.
    let n = d.states.len();
    states.push_str(&draw_marks(&scene.starts, n, &laid, &mut lines.boxes));
    let state_boxes: Vec<(Rect, Option<usize>)> = (0..n)
        .filter_map(|i| {
            laid.nodes
                .get(i)
                .map(|b| (*b, cluster_of.get(i).copied().flatten()))
        })
        .collect();
    let (frames, titles, extent) = frames(
        &d.clusters,
        &state_boxes,
        &lines.label_boxes,
        &lines.boxes,
        laid.size,
    );
    Ok(assemble(
        d,
        options,
        &marker,
        &Parts {
            frames,
            edges: lines.edges,
            states,
            labels: lines.labels,
            titles,
        },
        extent,
    ))
}

/// The drawn arrows and labels, and the boxes they cover (which a cluster's frame and name keep clear of).
struct Lines {
    /// `<path class="edge">` of each arrow, then of each start mark's arrow.
    edges: String,
    /// `<text class="edge-label">` of each labelled arrow.
    labels: String,
    label_boxes: Vec<Rect>,
    /// Boxes around the arrows' paths.
    boxes: Vec<Rect>,
}

/// The arrows (`data-edge` is the arrow's index, `data-from` and `data-to` its states), their labels, and the
/// start marks' arrows.
fn draw_arrows(scene: &Scene, laid: &Laid, marker: &str) -> Lines {
    let mut lines = Lines {
        edges: String::new(),
        labels: String::new(),
        label_boxes: Vec::new(),
        boxes: Vec::new(),
    };
    for (k, a) in scene.arrows.iter().enumerate() {
        let Some(r) = laid.edges.get(k) else { continue };
        lines.boxes.extend(route_boxes(r));
        let _ = writeln!(
            lines.edges,
            "<path class=\"edge\" data-edge=\"{k}\" data-from=\"{}\" data-to=\"{}\" d=\"{}\" marker-end=\"url(#{marker})\"/>",
            a.from,
            a.to,
            path_data(r)
        );
        if let Some(b) = r.label {
            lines.label_boxes.push(b);
            let mut tspans = String::new();
            for (j, line) in a.labels.iter().enumerate() {
                let _ = write!(
                    tspans,
                    "<tspan x=\"{}\" y=\"{}\">{}</tspan>",
                    num(b.x + 1.),
                    num(b.y + 1. + EDGE_LINE * j as f64 + EDGE_FONT * ASCENT),
                    xml_escape(line)
                );
            }
            let _ = writeln!(
                lines.labels,
                "<text class=\"edge-label\" data-edge=\"{k}\">{tspans}</text>"
            );
        }
    }
    for (j, &(s, default)) in scene.starts.iter().enumerate() {
        let Some(r) = laid.edges.get(scene.arrows.len() + j) else {
            continue;
        };
        lines.boxes.extend(route_boxes(r));
        let _ = writeln!(
            lines.edges,
            "<path class=\"edge start-edge{}\" data-to=\"{s}\" d=\"{}\" marker-end=\"url(#{marker})\"/>",
            if default { " default" } else { "" },
            path_data(r)
        );
    }
    lines
}

/// The states: `<g class="state">` with the state's kinds and cluster as classes, a box (rounded for Genie
/// `user` states, square for `invoker` ones, doubled for final states), the name and the caption beneath.
fn draw_states(d: &Diagram, names: &[String], laid: &Laid) -> String {
    let mut states = String::new();
    for (i, s) in d.states.iter().enumerate() {
        let Some(b) = laid.nodes.get(i) else { continue };
        let mut class = String::from("state");
        for (flag, word) in [
            (s.start, " start"),
            (s.default_start, " default"),
            (s.is_final, " final"),
        ] {
            if flag {
                class.push_str(word);
            }
        }
        let caption = s.caption;
        if let Some(c) = caption {
            let _ = write!(class, " {c}");
        }
        if let Some(c) = s.cluster {
            let _ = write!(class, " c{c}");
        }
        let radius = if caption == Some("user") {
            b.h / 2.
        } else if caption == Some("invoker") {
            1.
        } else {
            6.
        };
        let _ = write!(
            states,
            "<g class=\"{class}\" data-state=\"{i}\" data-name=\"{}\"><rect class=\"box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\"/>",
            xml_escape(&names[i]),
            num(b.x),
            num(b.y),
            num(b.w),
            num(b.h),
            num(radius)
        );
        if s.is_final {
            let _ = write!(
                states,
                "<rect class=\"inner\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\"/>",
                num(b.x + 4.),
                num(b.y + 4.),
                num(b.w - 8.),
                num(b.h - 8.),
                num((radius - 4.).max(1.))
            );
        }
        state_text(&mut states, b, &names[i], caption);
        states.push_str("</g>\n");
    }
    states
}

/// A state's name, centred near the top of its box `b`, and its caption beneath.
fn state_text(states: &mut String, b: &Rect, name: &str, caption: Option<&str>) {
    let cx = b.x + b.w / 2.;
    let name_top = b.y + PAD_Y + STATE_FONT * 0.125;
    let _ = write!(
        states,
        "<text class=\"name\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        num(cx),
        num(name_top + STATE_FONT * ASCENT),
        xml_escape(name)
    );
    if let Some(c) = caption {
        let _ = write!(
            states,
            "<text class=\"caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{c}</text>",
            num(cx),
            num(name_top + STATE_FONT * 1.25 + CAPTION_FONT * ASCENT)
        );
    }
}

/// The start marks (`<circle class="start-mark">`, nodes `n..` of the layout), each box added to `boxes`.
fn draw_marks(starts: &[(usize, bool)], n: usize, laid: &Laid, boxes: &mut Vec<Rect>) -> String {
    let mut marks = String::new();
    for (j, &(s, _)) in starts.iter().enumerate() {
        if let Some(b) = laid.nodes.get(n + j) {
            boxes.push(*b);
            let _ = writeln!(
                marks,
                "<circle class=\"start-mark\" data-to=\"{s}\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
                num(b.x + b.w / 2.),
                num(b.y + b.h / 2.),
                num(MARK / 2.)
            );
        }
    }
    marks
}

/// The frames of a composed app's machines (`<rect class="cluster">`), their names, and the extent of the
/// drawing with them. A frame is drawn only when it crosses no other machine's state, no label and no
/// earlier frame, and its name fits in a strip along the frame's top (or bottom) edge where no line, label,
/// state or other name is; otherwise the machine is shown by its colour and the legend alone.
fn frames(
    clusters: &[String],
    states: &[(Rect, Option<usize>)],
    labels: &[Rect],
    lines: &[Rect],
    size: Size,
) -> (String, String, Rect) {
    let mut extent = Rect {
        x: 0.,
        y: 0.,
        w: size.w,
        h: size.h,
    };
    let (mut frames, mut titles) = (String::new(), String::new());
    let mut drawn: Vec<Rect> = Vec::new();
    let mut names: Vec<Rect> = Vec::new();
    for (ci, c) in clusters.iter().enumerate() {
        let members: Vec<Rect> = states
            .iter()
            .filter(|(_, of)| *of == Some(ci))
            .map(|(b, _)| *b)
            .collect();
        let Some(first) = members.first() else {
            continue;
        };
        let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) =
            (first.x, first.y, first.right(), first.bottom());
        for b in &members {
            lo_x = lo_x.min(b.x);
            lo_y = lo_y.min(b.y);
            hi_x = hi_x.max(b.right());
            hi_y = hi_y.max(b.bottom());
        }
        let name = xml_escape(c);
        let name_w = text_width(&visible(c), CLUSTER_FONT, false);
        let plain = Rect {
            x: lo_x - FRAME_PAD,
            y: lo_y - FRAME_PAD,
            w: (hi_x - lo_x + 2. * FRAME_PAD).max(name_w + 2. * FRAME_PAD),
            h: hi_y - lo_y + 2. * FRAME_PAD,
        };
        // The name's strip on top, or at the bottom.
        let candidates = [
            (
                Rect {
                    y: plain.y - FRAME_TITLE,
                    h: plain.h + FRAME_TITLE,
                    ..plain
                },
                true,
            ),
            (
                Rect {
                    h: plain.h + FRAME_TITLE,
                    ..plain
                },
                false,
            ),
        ];
        let clean_frame = |f: &Rect| {
            let crosses = |b: &Rect| overlaps(f, b) && !contains(f, b);
            states.iter().all(|(b, of)| {
                if *of == Some(ci) {
                    true
                } else {
                    !overlaps(f, b)
                }
            }) && !labels.iter().any(crosses)
                && !drawn.iter().any(|d| overlaps(d, f))
        };
        let chosen = candidates.into_iter().find_map(|(f, top)| {
            let strip = Rect {
                x: f.x + 6.,
                y: if top {
                    f.y + 2.
                } else {
                    f.bottom() - FRAME_TITLE
                },
                w: name_w + 4.,
                h: FRAME_TITLE - 2.,
            };
            let clear = !lines.iter().any(|b| overlaps(&strip, b))
                && !labels.iter().any(|b| overlaps(&strip, b))
                && !states.iter().any(|(b, _)| overlaps(&strip, b))
                && !names.iter().any(|b| overlaps(&strip, b));
            (clean_frame(&f) && clear).then_some((f, strip))
        });
        let Some((f, strip)) = chosen else { continue };
        drawn.push(f);
        let _ = writeln!(
            frames,
            "<rect class=\"cluster\" data-cluster=\"{ci}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"10\"/>",
            num(f.x),
            num(f.y),
            num(f.w),
            num(f.h)
        );
        names.push(strip);
        let _ = writeln!(
            titles,
            "<text class=\"cluster-label\" data-cluster=\"{ci}\" x=\"{}\" y=\"{}\">{name}</text>",
            num(strip.x + 2.),
            num(strip.y + (strip.h - CLUSTER_FONT * 1.15) / 2. + CLUSTER_FONT * ASCENT)
        );
        let (x0, y0) = (extent.x.min(f.x), extent.y.min(f.y));
        let (x1, y1) = (
            extent.right().max(f.right()),
            extent.bottom().max(f.bottom()),
        );
        extent = Rect {
            x: x0,
            y: y0,
            w: x1 - x0,
            h: y1 - y0,
        };
    }
    (frames, titles, extent)
}

/// The layers of the diagram, bottom to top.
struct Parts {
    frames: String,
    edges: String,
    states: String,
    labels: String,
    titles: String,
}

/// Places the title, the diagram and the legend (below the diagram, or beside it when the diagram is
/// taller than wide, so the whole stays closer to the screen's shape), shifting the diagram so its extent
/// starts at the margin.
fn assemble(d: &Diagram, options: &Options, marker: &str, parts: &Parts, extent: Rect) -> Drawing {
    let (clusters, titled) = (&d.clusters, options.titled);
    let margin = 16.;
    let title = visible(&d.title).into_owned();
    let title_h = if titled { 32. } else { 0. };
    let (dx, dy) = (margin - extent.x, margin + title_h - extent.y);
    let legend_w = clusters
        .iter()
        .map(|c| text_width(&visible(c), LEGEND_FONT, false) + 22.)
        .fold(0., f64::max);
    let legend_h = if clusters.is_empty() {
        0.
    } else {
        20. * clusters.len() as f64 - 6.
    };
    let beside = !clusters.is_empty() && extent.h > extent.w;
    let (legend_x, legend_y) = if beside {
        (extent.w + 2. * margin, margin + title_h)
    } else {
        (margin, extent.h + 2. * margin + title_h)
    };
    let mut width = (extent.w + 2. * margin).max(legend_w + 2. * margin);
    let mut height = extent.h + 2. * margin + title_h;
    if beside {
        width = width.max(legend_x + legend_w + margin);
        height = height.max(legend_y + legend_h + margin);
    } else if !clusters.is_empty() {
        height += legend_h + margin;
    }
    if titled {
        width = width.max(text_width(&title, TITLE_FONT, true) + 2. * margin);
    }
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<defs><marker id=\"{marker}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"#555\"/></marker></defs>"
    );
    if titled {
        let _ = writeln!(
            body,
            "<text class=\"title\" x=\"{}\" y=\"{}\">{}</text>",
            num(margin),
            num(margin + TITLE_FONT * ASCENT),
            xml_escape(&title)
        );
    }
    let _ = writeln!(
        body,
        "<g class=\"diagram\" transform=\"translate({} {})\">",
        num(dx),
        num(dy)
    );
    for (class, part) in [
        ("clusters", &parts.frames),
        ("edges", &parts.edges),
        ("states", &parts.states),
        ("labels", &parts.labels),
        ("cluster-labels", &parts.titles),
    ] {
        if !part.is_empty() {
            let _ = write!(body, "<g class=\"{class}\">\n{part}</g>\n");
        }
    }
    body.push_str("</g>\n");
    let mut cluster_css = String::new();
    if !clusters.is_empty() {
        body.push_str("<g class=\"legend\">\n");
        for (ci, c) in clusters.iter().enumerate() {
            let y = legend_y + 20. * ci as f64;
            let _ = writeln!(
                body,
                "<g class=\"legend-item\" data-cluster=\"{ci}\"><rect class=\"swatch c{ci}\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" rx=\"3\" fill=\"{}\" stroke=\"#333\"/><text class=\"legend-label\" x=\"{}\" y=\"{}\">{}</text></g>",
                num(legend_x),
                num(y),
                PALETTE[ci % PALETTE.len()],
                num(legend_x + 22.),
                num(y + 12.),
                xml_escape(c)
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
