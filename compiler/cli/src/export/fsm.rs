//! `.fsm` source for a machine: what `fsmc import` prints for an Open Autonomy spec.
//!
//! This module decides what is written and in which order; how it is laid out (indentation, line breaks, wrapping
//! long lists) is the formatter's ([`crate::fmt`]), which the text passes through last. The order: label,
//! events, keys, then states (start states first, the default before the others,
//! finals last, otherwise in the model's order), then transitions grouped by source state in that order
//! (keeping their relative order, which matters for guarded alternatives). A kind is written only when it is
//! not the default one (`degenerate` for finals, `custom` otherwise), so an imported spec reads as written.

use fsmc_model::spec::genie::FailurePolicy;
use fsmc_model::spec::{Action, Machine, State, Transition};
use fsmc_vocab::NOBODY;
use fsmc_vocab::Profile;
use fsmc_vocab::abci::RoundKind;
use std::fmt::Write;

/// The machine as `.fsm` source (ending in a newline). `header` lines are written first as `//` comments.
/// Fails when a name cannot be written as a `.fsm` identifier.
pub fn write(m: &Machine, header: &[String]) -> Result<String, String> {
    check_names(m)?;
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "// {line}");
    }
    if !header.is_empty() {
        out.push('\n');
    }
    docs(&mut out, "", &m.docs);
    let profile = if m.profile == Profile::Plain {
        String::new()
    } else {
        format!(": {}", m.profile.name())
    };
    let _ = writeln!(out, "machine {}{profile} {{", m.name);
    let mut sections: Vec<String> = Vec::new();
    let mut head = String::new();
    if m.label() != m.name.as_str() {
        let _ = writeln!(head, "    label {};", string(m.label()));
    }
    if !m.roles.is_empty() {
        list(
            &mut head,
            "    roles ",
            &m.roles
                .iter()
                .map(|r| r.text.to_string())
                .collect::<Vec<_>>(),
            ";",
        );
    }
    if !m.agents.is_empty() {
        list(
            &mut head,
            "    agents ",
            &m.agents
                .iter()
                .enumerate()
                .map(|(i, r)| match m.roster.is_group(i) {
                    true => format!("{r}[]"),
                    false => r.text.to_string(),
                })
                .collect::<Vec<_>>(),
            ";",
        );
    }
    if !m.roster.scripted.is_empty() {
        list(
            &mut head,
            "    scripted ",
            &m.roster
                .scripted
                .iter()
                .filter_map(|&(i, _)| m.agents.get(i).map(|a| a.text.to_string()))
                .collect::<Vec<_>>(),
            ";",
        );
    }
    if let Some((policy, _)) = m.genie.on_failure {
        let _ = writeln!(head, "    {}", on_failure(m, policy));
    }
    sections.push(head);
    sections.push(events(m));
    let mut keys = String::new();
    for k in &m.keys {
        docs(&mut keys, "    ", &k.docs);
        let _ = writeln!(
            keys,
            "    {}key {}: {};",
            if k.cross_period { "cross_period " } else { "" },
            k.name,
            k.ty
        );
    }
    sections.push(keys);
    let order = state_order(m);
    let mut states = String::new();
    for &i in &order {
        state(&mut states, m, &m.states[i]);
    }
    sections.push(states);
    let outgoing = m.outgoing();
    let mut transitions = String::new();
    for &i in &order {
        for &ti in &outgoing[i] {
            transition(&mut transitions, m, &m.transitions[ti]);
        }
    }
    sections.push(transitions);
    let mut claims = String::new();
    for c in &m.claims {
        docs(&mut claims, "    ", &c.docs);
        let _ = writeln!(
            claims,
            "    {} {}: {};",
            c.kind.keyword(),
            string(c.name.as_str()),
            c.formula.to_fsm()
        );
    }
    sections.push(claims);
    let body: Vec<&str> = sections
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    out.push_str(&body.join("\n"));
    out.push_str("}\n");
    crate::fmt::format_str(&out)
}

/// Start states (the default first), then the others, finals last; stable within each group.
fn state_order(m: &Machine) -> Vec<usize> {
    let mut order: Vec<usize> = (0..m.states.len()).collect();
    order.sort_by_key(|&i| {
        let s = &m.states[i];
        (!s.default_start, !s.start, s.is_final)
    });
    order
}

/// Untimed events on wrapped lines; documented or timed or typed events one per line.
fn events(m: &Machine) -> String {
    let mut out = String::new();
    let plain: Vec<String> = m
        .events
        .iter()
        .filter(|e| {
            e.docs.is_empty()
                && e.timeout.is_none()
                && e.fields.is_empty()
                && e.role.is_none()
                && e.turn.is_none()
        })
        .map(|e| e.name.text.to_string())
        .collect();
    if !plain.is_empty() {
        list(&mut out, "    event ", &plain, ";");
    }
    for e in m.events.iter().filter(|e| {
        !(e.docs.is_empty()
            && e.timeout.is_none()
            && e.fields.is_empty()
            && e.role.is_none()
            && e.turn.is_none())
    }) {
        docs(&mut out, "    ", &e.docs);
        let _ = write!(out, "    event {}", e.name);
        if !e.fields.is_empty() {
            let fields: Vec<String> = e
                .fields
                .iter()
                .map(|f| format!("{}: {}", f.name, f.ty))
                .collect();
            let _ = write!(out, "({})", fields.join(", "));
        }
        if let Some(t) = e.timeout {
            let _ = write!(out, " timeout {}", duration(t.duration));
        }
        if let Some(role) = e.role.and_then(|r| m.roles.get(r)) {
            let _ = write!(out, " by {role}");
        } else if let Some(turn) = e.turn {
            let _ = write!(out, " by {}", turn.name());
        }
        out.push_str(";\n");
    }
    out
}

fn state(out: &mut String, m: &Machine, s: &State) {
    docs(out, "    ", &s.docs);
    let mut line = String::from("    ");
    for (flag, word) in [
        (s.start && !s.default_start, "start "),
        (s.default_start, "start default "),
        (s.is_final, "final "),
    ] {
        if flag {
            line.push_str(word);
        }
    }
    let _ = write!(line, "state {}", s.name);
    let default_kind = if s.is_final {
        RoundKind::Degenerate
    } else {
        RoundKind::Custom
    };
    match (s.round().and_then(|r| r.kind), s.genie().and_then(|g| g.ty)) {
        (Some(k), _) if k != default_kind || m.profile != Profile::Abci => {
            let _ = write!(line, ": {}", k.name());
        }
        (_, Some(g)) => {
            let _ = write!(line, ": {}", g.name());
        }
        _ => {}
    }
    let body = properties(m, s);
    if body.is_empty() {
        let _ = writeln!(out, "{line};");
    } else {
        let _ = writeln!(out, "{line} {{");
        for p in body {
            let _ = writeln!(out, "        {p}");
        }
        out.push_str("    }\n");
    }
}

fn properties(m: &Machine, s: &State) -> Vec<String> {
    let mut out = Vec::new();
    let key = |k: &fsmc_model::spec::KeyId| {
        m.keys
            .get(k.index())
            .map_or_else(String::new, |k| k.name.text.to_string())
    };
    for (name, keys) in [
        ("reads", &s.reads),
        ("writes", &s.writes),
        ("requires", &s.requires),
        ("ensures", &s.ensures),
    ] {
        if !keys.is_empty() {
            out.push(format!(
                "{name} {};",
                keys.iter()
                    .map(|(k, _)| key(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if let Some(round) = s.round() {
        for (outcome, event, _) in &round.outcomes {
            if let Some(e) = m.events.get(event.index()) {
                out.push(format!("{} = {};", outcome.name(), e.name));
            }
        }
        if round.registration.is_some() {
            out.push("registration;".to_string());
        }
        if round.elects_keeper.is_some() {
            out.push("elects_keeper;".to_string());
        }
        if let Some((blocks, _)) = round.confirmations {
            out.push(format!("confirmations {blocks};"));
        }
        if round.reset {
            out.push("reset;".to_string());
        }
    }
    if let Some(t) = s.genie().and_then(|g| g.template.as_ref()) {
        out.push(format!("template {};", string(t.as_str())));
    }
    if let Some(work) = s.genie().and_then(|g| g.runs()) {
        out.push(format!("runs {work};"));
    }
    if let Some((policy, _)) = s.genie().and_then(|g| g.on_failure()) {
        out.push(on_failure(m, policy));
    }
    // No `acting` is nobody acting; a `rewarded` list is written even when empty (`rewarded none;`), since
    // leaving it out means "the acting agents".
    let stage = s.stage();
    let lists = [
        ("acting", stage.map(|st| &st.acting)),
        ("rewarded", stage.and_then(|st| st.rewarded.as_ref())),
    ];
    for (name, agents) in lists {
        let Some(agents) = agents else { continue };
        if agents.is_empty() && name == "acting" {
            continue;
        }
        let names: Vec<String> = agents
            .iter()
            .filter_map(|(a, _)| m.agents.get(*a).map(|n| n.text.to_string()))
            .collect();
        let list = if names.is_empty() {
            NOBODY.to_string()
        } else {
            names.join(", ")
        };
        out.push(format!("{name} {list};"));
    }
    if stage.is_some_and(|st| st.handler.is_some()) {
        out.push("handler;".to_string());
    }
    for (name, value) in &s.attributes {
        out.push(match value {
            Some(v) => format!("{name} {};", string(v)),
            None => format!("{name};"),
        });
    }
    out
}

fn transition(out: &mut String, m: &Machine, t: &Transition) {
    docs(out, "    ", &t.docs);
    let name =
        |id: fsmc_model::spec::StateId| m.states.get(id.index()).map_or("", |s| s.name.as_str());
    let mut line = match t.event.and_then(|e| m.events.get(e.index())) {
        Some(e) => format!("    ({}, {}) -> {}", name(t.from), e.name, name(t.to)),
        None => format!("    {} -> {}", name(t.from), name(t.to)),
    };
    for g in &t.guards {
        let _ = write!(
            line,
            " {} {}",
            if g.negated { "unless" } else { "if" },
            g.name
        );
    }
    if !t.actions.is_empty() {
        let _ = write!(line, " {}", Action::written(&t.actions));
    }
    if let Some((p, _)) = t.persist {
        let _ = write!(line, " persist {}", p.name());
    }
    let _ = writeln!(out, "{line};");
}

/// `prefix a, b, c;` on one line (the formatter wraps it).
fn list(out: &mut String, prefix: &str, names: &[String], end: &str) {
    let _ = writeln!(out, "{prefix}{}{end}", names.join(", "));
}

fn docs(out: &mut String, indent: &str, docs: &[String]) {
    for d in docs {
        let _ = writeln!(
            out,
            "{indent}///{}{d}",
            if d.is_empty() || d.starts_with(' ') {
                ""
            } else {
                " "
            }
        );
    }
}

/// A `.fsm` string literal.
fn string(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A duration literal: the largest unit that writes it exactly (the drawings label timeouts the same way).
pub(crate) use fsmc_model::diagram::duration;

/// Every name written must be a `.fsm` identifier (Open Autonomy allows any `\w`, including non-ASCII).
fn check_names(m: &Machine) -> Result<(), String> {
    let names = std::iter::once(&m.name)
        .chain(m.states.iter().map(|s| &s.name))
        .chain(m.events.iter().map(|e| &e.name));
    for n in names {
        if !is_identifier(n.as_str()) {
            return Err(format!(
                "`{n}` is not a valid `.fsm` name (letters, digits and `_`, not starting with a digit)"
            ));
        }
    }
    Ok(())
}

/// The grammar's `ident`: an ASCII letter or `_`, then ASCII letters, digits and `_`.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A Genie failure policy as the spec writes it: `on_failure retry;` or `on_failure = EVENT;`.
fn on_failure(m: &Machine, policy: FailurePolicy) -> String {
    match policy {
        FailurePolicy::Word(word) => format!("on_failure {};", word.name()),
        FailurePolicy::Event(e) => format!("on_failure = {};", m.event(e).name),
    }
}
