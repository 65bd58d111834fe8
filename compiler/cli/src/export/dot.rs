//! Graphviz DOT: the machine as a `digraph`, a composed app's original machines as `cluster` subgraphs.
//!
//! A point node `[*]` leads into the start states (solid to the default start, dashed to the others); final
//! states have a double border, Genie `user` states are filled pills and `invoker` states filled square boxes,
//! each with its type beneath the name. Transition labels carry the timeout's duration, guards and actions.
//! The direction (`rankdir`) is the one the SVG drawing uses. Statements follow the model's order, so the
//! text is stable; every name is made visible and quoted, so no name can end a string or a statement.

use super::{Direction, Target, state_caption, transition_label, visible};
use std::fmt::Write;

/// The machine as DOT text (ending in a newline).
pub fn write(target: &Target<'_>, direction: Direction) -> String {
    let m = target.machine;
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(m.label()));
    let _ = writeln!(
        out,
        "    rankdir={};",
        match direction {
            Direction::TopToBottom => "TB",
            Direction::LeftToRight => "LR",
        }
    );
    out.push_str("    node [shape=box, style=rounded, fontname=\"Helvetica\"];\n");
    out.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("    \"[*]\" [shape=point, width=0.15, label=\"\"];\n");
    let clusters = target.clusters();
    let cluster_of = target.cluster_of();
    for (ci, c) in clusters.iter().enumerate() {
        let _ = writeln!(out, "    subgraph \"cluster_{ci}\" {{");
        let _ = writeln!(out, "        label={};", quote(&c.name));
        out.push_str("        style=\"rounded,dashed\";\n");
        for s in &c.states {
            let _ = writeln!(out, "        {}", node(target, s.index()));
        }
        out.push_str("    }\n");
    }
    for (i, _) in m.states.iter().enumerate() {
        if cluster_of.get(i).copied().flatten().is_none() {
            let _ = writeln!(out, "    {}", node(target, i));
        }
    }
    for s in m.start_states() {
        let style = if m.state(s).default_start {
            ""
        } else {
            " [style=dashed]"
        };
        let _ = writeln!(
            out,
            "    \"[*]\" -> {}{style};",
            quote(m.state(s).name.as_str())
        );
    }
    for t in &m.transitions {
        let (Some(from), Some(to)) = (m.states.get(t.from.index()), m.states.get(t.to.index()))
        else {
            continue;
        };
        let label = transition_label(m, t);
        let attrs = if label.is_empty() {
            String::new()
        } else {
            format!(" [label={}]", quote(&label))
        };
        let _ = writeln!(
            out,
            "    {} -> {}{attrs};",
            quote(from.name.as_str()),
            quote(to.name.as_str())
        );
    }
    out.push_str("}\n");
    out
}

/// One node statement: start states bold, finals with a double border, Genie states filled and captioned.
fn node(target: &Target<'_>, i: usize) -> String {
    let Some(s) = target.machine.states.get(i) else {
        return String::new();
    };
    let mut attrs = Vec::new();
    let caption = state_caption(s);
    let mut style = vec![];
    match caption {
        Some("invoker") => {
            style.push("filled");
            attrs.push("fillcolor=\"#fef9c3\"".to_string());
        }
        Some(_) => {
            style.extend(["rounded", "filled"]);
            attrs.push("fillcolor=\"#e0f2fe\"".to_string());
        }
        None => {}
    }
    if s.start {
        if style.is_empty() {
            style.push("rounded");
        }
        style.push("bold");
    }
    if !style.is_empty() {
        attrs.insert(0, format!("style=\"{}\"", style.join(",")));
    }
    if s.is_final {
        attrs.push("peripheries=2".to_string());
    }
    if let Some(c) = caption {
        attrs.push(format!("label=\"{}\\n«{c}»\"", escaped(s.name.as_str())));
    }
    if attrs.is_empty() {
        format!("{};", quote(s.name.as_str()))
    } else {
        format!("{} [{}];", quote(s.name.as_str()), attrs.join(", "))
    }
}

/// A DOT quoted string of visible text (every control character, line breaks included, made visible).
fn quote(s: &str) -> String {
    format!("\"{}\"", escaped(s))
}

/// The inside of a DOT quoted string: only `"` and `\` need escaping (so no name can write `\l`, `\N` or
/// end the string).
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in visible(s).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out
}
