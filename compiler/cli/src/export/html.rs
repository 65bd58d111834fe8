//! HTML: one self-contained page (inline CSS, JS and SVG; nothing fetched) showing the machine as an
//! interactive diagram: pan with the mouse, zoom with the wheel or buttons, click a state to see its
//! transitions, round kind, data keys and docs, find a state or event by name.
//!
//! The diagram is the SVG drawing; the details come from a JSON island the script reads, so the page's
//! content is plain data and the script is the same for every machine. The page opens with the whole
//! drawing fitted to the space beside the details panel, however large; names in the panel wrap only between
//! their words. Every text of the spec is made visible ([`super::visible`]; docs keep
//! their line breaks) and escaped: XML escapes in the markup, and in the JSON island `<` as `\u003c`, so
//! no text can close the script element or open another.

use super::{Direction, Target, visible, visible_keeping, xml_escape};
use fsmc_model::spec::{KeyId, Machine};
use fsmc_vocab::abci::RoundKind;
use serde::Serialize;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

#[derive(Serialize)]
struct Page {
    name: String,
    label: String,
    profile: &'static str,
    docs: Vec<String>,
    clusters: Vec<String>,
    states: Vec<StateData>,
    transitions: Vec<TransitionData>,
}

#[derive(Serialize)]
struct StateData {
    name: String,
    kind: String,
    start: bool,
    default: bool,
    #[serde(rename = "final")]
    is_final: bool,
    reset: bool,
    cluster: Option<usize>,
    reads: Vec<String>,
    writes: Vec<String>,
    requires: Vec<String>,
    ensures: Vec<String>,
    docs: Vec<String>,
    attributes: Vec<(String, Option<String>)>,
}

#[derive(Serialize)]
struct TransitionData {
    from: usize,
    to: usize,
    event: Option<String>,
    timeout: Option<String>,
    guards: Vec<String>,
    actions: Vec<String>,
}

/// The machine as a standalone HTML page.
pub fn write(target: &Target<'_>, direction: Direction) -> Result<String, String> {
    let m = target.machine;
    let drawing = super::svg::drawing(target, direction, false)?;
    let page = page(target);
    // `<` is escaped so no text in the data can close the script element.
    let json = serde_json::to_string(&page)
        .map_err(|e| format!("cannot encode the page data: {e}"))?
        .replace('<', "\\u003c");
    let title = xml_escape(m.name.as_str());
    let mut meta = vec![];
    if m.label() != m.name.as_str() {
        meta.push(format!("label {}", visible(m.label())));
    }
    meta.push(format!("{} profile", m.profile.name()));
    meta.push(plural(m.states.len(), "state"));
    meta.push(plural(m.transitions.len(), "transition"));
    if !page.clusters.is_empty() {
        // Already visible.
        meta.push(format!("composed of {}", page.clusters.join(", ")));
    }
    let (w, h) = (
        fsmc_layout::draw::num(drawing.width),
        fsmc_layout::draw::num(drawing.height),
    );
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"generator\" content=\"fsmc\">\n<title>{title} — fsmc</title>\n<style>\n{CSS}{css}\n</style>\n</head>\n<body>\n\
<header><h1>{title}</h1><span class=\"meta\">{meta}</span>\
<input id=\"search\" type=\"search\" placeholder=\"Find a state or event\" aria-label=\"Find a state or event\"><span id=\"found\" aria-live=\"polite\"></span>\
<button id=\"zoom-in\" title=\"Zoom in\">+</button><button id=\"zoom-out\" title=\"Zoom out\">−</button><button id=\"fit\" title=\"Show everything\">Fit</button></header>\n\
<main>\n<div id=\"viewport\"><svg id=\"diagram\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\">\n{body}</svg></div>\n\
<aside id=\"details\"><noscript>Scripts are off: the diagram is shown, but clicking a state needs JavaScript.</noscript></aside>\n</main>\n\
<script type=\"application/json\" id=\"fsm-data\">{json}</script>\n<script>\n{JS}</script>\n</body>\n</html>\n",
        css = drawing.cluster_css,
        meta = xml_escape(&meta.join(" · ")),
        body = drawing.body,
    ))
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn page(target: &Target<'_>) -> Page {
    let m = target.machine;
    let cluster_of = target.cluster_of();
    let states = m
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| StateData {
            name: text(&s.name.text),
            kind: kind(
                s.round().and_then(|r| r.kind),
                s.genie().and_then(|g| g.ty).map(|t| t.name()),
            ),
            start: s.start,
            default: s.default_start,
            is_final: s.is_final,
            reset: s.round().is_some_and(|r| r.reset),
            cluster: cluster_of.get(i).copied().flatten(),
            reads: keys(m, &s.reads),
            writes: keys(m, &s.writes),
            requires: keys(m, &s.requires),
            ensures: keys(m, &s.ensures),
            docs: s.docs.iter().map(|d| doc(d)).collect(),
            attributes: s
                .attributes
                .iter()
                .map(|(n, v)| (text(&n.text), v.as_deref().map(doc)))
                .collect(),
        })
        .collect();
    let transitions = m
        .transitions
        .iter()
        .map(|t| {
            let event = t.event.and_then(|e| m.events.get(e.index()));
            TransitionData {
                from: t.from.index(),
                to: t.to.index(),
                event: event.map(|e| text(&e.name.text)),
                timeout: event
                    .and_then(|e| e.timeout)
                    .map(|t| super::fsm::duration(t.duration)),
                guards: t
                    .guards
                    .iter()
                    .map(|g| {
                        format!(
                            "{} {}",
                            if g.negated { "unless" } else { "if" },
                            text(&g.name.text)
                        )
                    })
                    .collect(),
                actions: t
                    .actions
                    .iter()
                    .map(|a| match a.side {
                        Some((side, _)) => text(&format!("{} {}", side.name(), a.name)),
                        None => text(&a.name.text),
                    })
                    .collect(),
            }
        })
        .collect();
    Page {
        name: text(&m.name.text),
        label: text(m.label()),
        profile: m.profile.name(),
        docs: m.docs.iter().map(|d| doc(d)).collect(),
        clusters: target
            .clusters()
            .into_iter()
            .map(|c| text(&c.name))
            .collect(),
        states,
        transitions,
    }
}

/// The state's kind as written in `.fsm`: its round kind or Genie type.
fn kind(round: Option<RoundKind>, genie: Option<&str>) -> String {
    round
        .map(|k| k.name())
        .or(genie)
        .unwrap_or_default()
        .to_string()
}

fn keys(m: &Machine, list: &[(KeyId, fsmc_base::source::Span)]) -> Vec<String> {
    list.iter()
        .filter_map(|(k, _)| m.keys.get(k.index()).map(|k| text(&k.name.text)))
        .collect()
}

/// A name for the page data: visible.
fn text(s: &str) -> String {
    visible(s).into_owned()
}

/// A doc comment or free text for the page data: trimmed and visible, keeping its line breaks.
fn doc(s: &str) -> String {
    visible_keeping(s.trim(), true).into_owned()
}
