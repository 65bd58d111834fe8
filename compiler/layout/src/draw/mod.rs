//! A state machine drawn as SVG over the layout: what the tool's `svg` and `html` exports and the code
//! generator's `cargo doc` diagrams share, so the three draw a machine the same way.
//!
//! A [`Diagram`] goes in (states with their names and kinds, transitions with their labels, the clusters of
//! a composed app), markup comes out. The caller knows what a state is; this module knows only boxes, text
//! and arrows. Its text may come from a hostile spec: every name and label is made [`visible`] (control,
//! format and bidirectional characters written as `\u{…}`) and XML-escaped here, so no text can break the
//! markup, inject an element, or reorder what a reader sees. Output depends only on the input: the same
//! diagram gives the same bytes.

mod canvas;
mod svg;

use std::borrow::Cow;

pub use canvas::num;
pub use svg::{Drawing, document, draw};

/// What to draw. Text is shown as written: the drawing makes it visible and escapes it.
#[derive(Clone, Debug, Default)]
pub struct Diagram {
    /// The title above the drawing (when one is asked for).
    pub title: String,
    pub states: Vec<StateBox>,
    pub transitions: Vec<Transition>,
    /// The names of a composed app's original machines, which [`StateBox::cluster`] indexes; empty for a
    /// single machine.
    pub clusters: Vec<String>,
}

/// One state.
#[derive(Clone, Debug, Default)]
pub struct StateBox {
    pub name: String,
    /// A word shown beneath the name (a Genie state's type: `user` boxes are pills, `invoker` ones square).
    pub caption: Option<&'static str>,
    pub start: bool,
    pub default_start: bool,
    pub is_final: bool,
    pub cluster: Option<usize>,
}

/// One transition; the transitions between two states share one arrow, their labels a line each.
#[derive(Clone, Debug, Default)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    /// Empty for a transition without an event, guard or action.
    pub label: String,
}

/// How to write the drawing.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub direction: crate::Direction,
    /// A title above the drawing (an HTML page has its own header instead).
    pub titled: bool,
    /// For a drawing that shares a page with others (a `cargo doc` page): the `id` of its `<svg>` element,
    /// which its styles are scoped to and its marker's id begins with, so two drawings on one page neither
    /// restyle each other nor share a marker. `None` for a drawing alone in its document.
    pub scope: Option<String>,
}

/// Whether a character must not reach output as itself: control characters (C0, DEL, C1; they drive
/// terminals, and XML 1.0 forbids most of them even as references), invisible format characters and
/// bidirectional controls (they reorder or hide text: U+202E shows a name backwards), line and paragraph
/// separators, and the non-characters U+FFFE and U+FFFF (not XML characters).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{FFFE}'
                | '\u{FFFF}'
        )
}

/// Spec text made safe to show: each [`hidden`] character becomes `\u{…}` (its code in hex), so it is seen
/// instead of acting. Text without such characters is returned as it is.
pub fn visible(s: &str) -> Cow<'_, str> {
    visible_keeping(s, false)
}

/// [`visible`], keeping line breaks and tabs when `lines` (for docs, shown as preformatted text).
pub fn visible_keeping(s: &str, lines: bool) -> Cow<'_, str> {
    let keep = |c: char| lines && matches!(c, '\n' | '\t');
    if !s.chars().any(|c| hidden(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if hidden(c) && !keep(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for an XML/HTML attribute or element body: [`visible`], then the five XML escapes.
pub fn xml_escape(s: &str) -> String {
    let s = visible(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
