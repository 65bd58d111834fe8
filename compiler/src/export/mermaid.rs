//! Mermaid `stateDiagram-v2`, in the form Open Autonomy's docs use: `[*] --> Start`, one `A --> B: EVENT`
//! line per transition, `Final --> [*]`.
//!
//! A composed app is drawn flat: Mermaid cannot draw a transition between states of two different composite
//! states, which is exactly what composition creates, so the original machines are not drawn as clusters here.

use super::{Target, transition_label};
use std::fmt::Write;

/// The machine as Mermaid text (ending in a newline).
pub fn write(target: &Target<'_>) -> String {
    let m = target.machine;
    let mut out = String::from("stateDiagram-v2\n");
    // The default start first: Mermaid places the first `[*]` edge's target at the top.
    let mut starts: Vec<_> = m.start_states().collect();
    starts.sort_by_key(|s| !m.state(*s).default_start);
    for s in starts {
        let _ = writeln!(out, "    [*] --> {}", id(m.state(s).name.as_str()));
    }
    for t in &m.transitions {
        let (from, to) = (
            id(m.state(t.from).name.as_str()),
            id(m.state(t.to).name.as_str()),
        );
        let label = transition_label(m, t);
        if label.is_empty() {
            let _ = writeln!(out, "    {from} --> {to}");
        } else {
            let _ = writeln!(out, "    {from} --> {to}: {}", text(&label));
        }
    }
    for s in m.final_states() {
        let _ = writeln!(out, "    {} --> [*]", id(m.state(s).name.as_str()));
    }
    // States with no transition at all would otherwise be missing from the drawing.
    let mut touched = vec![false; m.states.len()];
    for t in &m.transitions {
        touched[t.from.index()] = true;
        touched[t.to.index()] = true;
    }
    for s in m.start_states().chain(m.final_states()) {
        touched[s.index()] = true;
    }
    for (i, s) in m.states.iter().enumerate() {
        if !touched[i] {
            let _ = writeln!(out, "    {}", id(s.name.as_str()));
        }
    }
    out
}

/// A state id Mermaid accepts: names are identifiers already; anything else is replaced, never dropped.
fn id(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Label text: a newline or `;` would end the statement, `#` starts an entity code.
fn text(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | ';' | '#') {
                ' '
            } else {
                c
            }
        })
        .collect()
}
