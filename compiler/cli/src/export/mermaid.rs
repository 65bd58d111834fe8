//! Mermaid `stateDiagram-v2`, in the form Open Autonomy's docs use: `[*] --> Start`, one `A --> B: EVENT`
//! line per transition, `Final --> [*]`; `direction TB` or `LR` as the SVG drawing; Genie `user` and
//! `invoker` states styled by `classDef`.
//!
//! A composed app is drawn flat: Mermaid cannot draw a transition between states of two different composite
//! states, which is exactly what composition creates, so the original machines are not drawn as clusters here.
//!
//! Names that are not plain identifiers get an id of their own (`fsmc_state_N`) and are declared with
//! `state "text" as id`; label text has Mermaid's entity codes for every character that could end or
//! change a statement, so no name can add a line, a directive or markup.

use super::{Direction, Target, state_caption, transition_label, visible};
use std::fmt::Write;

/// The machine as Mermaid text (ending in a newline).
pub fn write(target: &Target<'_>, direction: Direction) -> String {
    let m = target.machine;
    let mut out = String::from("stateDiagram-v2\n");
    let _ = writeln!(
        out,
        "    direction {}",
        match direction {
            Direction::TopToBottom => "TB",
            Direction::LeftToRight => "LR",
        }
    );
    let ids = ids(m);
    for (i, s) in m.states.iter().enumerate() {
        if ids[i] != s.name.as_str() {
            let _ = writeln!(out, "    state \"{}\" as {}", text(s.name.as_str()), ids[i]);
        }
    }
    // The default start first: Mermaid places the first `[*]` edge's target at the top.
    let mut starts: Vec<usize> = m
        .start_states()
        .map(|s| s.index())
        .filter(|&s| s < ids.len())
        .collect();
    starts.sort_by_key(|&s| !m.states[s].default_start);
    for s in starts {
        let _ = writeln!(out, "    [*] --> {}", ids[s]);
    }
    let mut touched = vec![false; m.states.len()];
    for t in &m.transitions {
        let (from, to) = (t.from.index(), t.to.index());
        let (Some(a), Some(b)) = (ids.get(from), ids.get(to)) else {
            continue;
        };
        touched[from] = true;
        touched[to] = true;
        let label = transition_label(m, t);
        if label.is_empty() {
            let _ = writeln!(out, "    {a} --> {b}");
        } else {
            let _ = writeln!(out, "    {a} --> {b}: {}", text(&label));
        }
    }
    for s in m.final_states() {
        if let Some(id) = ids.get(s.index()) {
            let _ = writeln!(out, "    {id} --> [*]");
        }
    }
    // States with no transition at all would otherwise be missing from the drawing.
    for s in m.start_states().chain(m.final_states()) {
        if let Some(t) = touched.get_mut(s.index()) {
            *t = true;
        }
    }
    for (i, id) in ids.iter().enumerate() {
        if !touched[i] && ids[i] == m.states[i].name.as_str() {
            let _ = writeln!(out, "    {id}");
        }
    }
    // Genie state types, as classes.
    for (kind, style) in [
        ("user", "fill:#e0f2fe,stroke:#333"),
        ("invoker", "fill:#fef9c3,stroke:#333"),
    ] {
        let members: Vec<&str> = m
            .states
            .iter()
            .enumerate()
            .filter(|(_, s)| state_caption(s) == Some(kind))
            .map(|(i, _)| ids[i].as_str())
            .collect();
        if !members.is_empty() {
            let _ = writeln!(out, "    classDef {kind} {style}");
            let _ = writeln!(out, "    class {} {kind}", members.join(", "));
        }
    }
    out
}

/// Each state's id: its name when that is an ASCII identifier no other state's id takes, else
/// `fsmc_state_N` (made unique).
fn ids(m: &fsmc_model::spec::Machine) -> Vec<String> {
    let plain = |s: &str| {
        let mut cs = s.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut taken: std::collections::BTreeSet<String> = m
        .states
        .iter()
        .map(|s| s.name.as_str())
        .filter(|s| plain(s))
        .map(str::to_string)
        .collect();
    m.states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if plain(s.name.as_str()) {
                return s.name.text.to_string();
            }
            let mut id = format!("fsmc_state_{i}");
            while taken.contains(&id) {
                id.push('_');
            }
            taken.insert(id.clone());
            id
        })
        .collect()
}

/// Label text: visible, with Mermaid's entity codes (`#59;` and the like) for the characters that would
/// end the statement or the string, start a comment, a directive or an entity, or be read as markup.
fn text(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for c in visible(label).chars() {
        match c {
            ';' | '#' | '%' | '<' | '>' | '&' | '"' | ':' | '{' | '}' | '[' | ']' | '`' | '\\' => {
                let _ = write!(out, "#{};", c as u32);
            }
            _ => out.push(c),
        }
    }
    out
}
