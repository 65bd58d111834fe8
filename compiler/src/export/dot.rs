//! Graphviz DOT: the machine as a `digraph`, a composed app's original machines as `cluster` subgraphs.
//!
//! A point node `[*]` leads into the start states (solid to the default start, dashed to the others); final
//! states have a double border. Statements follow the model's order, so the text is stable.

use super::{Target, transition_label};
use std::fmt::Write;

/// The machine as DOT text (ending in a newline).
pub fn write(target: &Target<'_>) -> String {
    let m = target.machine;
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(m.label()));
    out.push_str("    rankdir=TB;\n");
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
        let (from, to) = (&m.state(t.from).name, &m.state(t.to).name);
        let label = transition_label(m, t);
        let attrs = if label.is_empty() {
            String::new()
        } else {
            format!(" [label={}]", quote(&label))
        };
        let _ = writeln!(
            out,
            "    {} -> {}{attrs};",
            quote(from.as_str()),
            quote(to.as_str())
        );
    }
    out.push_str("}\n");
    out
}

/// One node statement: start states bold, finals with a double border.
fn node(target: &Target<'_>, i: usize) -> String {
    let s = &target.machine.states[i];
    let mut attrs = Vec::new();
    if s.start {
        attrs.push("style=\"rounded,bold\"");
    }
    if s.is_final {
        attrs.push("peripheries=2");
    }
    if attrs.is_empty() {
        format!("{};", quote(s.name.as_str()))
    } else {
        format!("{} [{}];", quote(s.name.as_str()), attrs.join(", "))
    }
}

/// A DOT quoted string: only `"` and `\` need escaping; newlines become `\n`.
fn quote(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}
