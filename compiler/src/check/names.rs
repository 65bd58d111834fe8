//! Name checks beyond resolution: names that collide once turned into Rust identifiers, reserved names, and
//! Open Autonomy's naming conventions (a lint).

use crate::diag::{Code, Diagnostic};
use crate::ident;
use crate::model::{Machine, Origin, Profile};
use crate::source::Name;
use std::collections::BTreeMap;

pub(super) fn check(m: &Machine, out: &mut Vec<Diagnostic>) {
    collisions("state", m.states.iter().map(|s| &s.name), ident::camel, out);
    collisions("event", m.events.iter().map(|e| &e.name), ident::camel, out);
    collisions("key", m.keys.iter().map(|k| &k.name), ident::snake, out);
    if m.profile == Profile::Genie
        && let Some(e) = m.events.iter().find(|e| e.name.text == "poll")
    {
        out.push(
            Diagnostic::new(Code::ReservedName, "the event name `poll` is reserved in Genie machines")
                .at(e.name.span, "reserved")
                .help("while an invoker runs, the runtime offers only `poll`; pick another name for this event"),
        );
    }
    for s in &m.states {
        if matches!(s.name.as_str(), "Self" | "self" | "crate" | "super") {
            out.push(
                Diagnostic::new(
                    Code::ReservedName,
                    format!("`{}` cannot name a state", s.name),
                )
                .at(s.name.span, "reserved in Rust")
                .help("rename the state"),
            );
        }
    }
}

fn collisions<'a>(
    what: &str,
    names: impl Iterator<Item = &'a Name>,
    convert: fn(&str) -> String,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: BTreeMap<String, &Name> = BTreeMap::new();
    for n in names {
        let rust = convert(&n.text);
        match seen.get(&rust) {
            Some(prev) if prev.text != n.text => out.push(
                Diagnostic::new(
                    Code::NameCollision,
                    format!("{what}s `{prev}` and `{n}` both become `{rust}` in generated Rust"),
                )
                .at(n.span, format!("becomes `{rust}`"))
                .with(prev.span, format!("also becomes `{rust}`"))
                .help(format!("rename one of the {what}s")),
            ),
            Some(_) => {}
            None => {
                seen.insert(rust, n);
            }
        }
    }
}

/// Open Autonomy naming conventions: app labels end in `AbciApp`, states in `Round`.
pub(super) fn naming(m: &Machine, out: &mut Vec<Diagnostic>) {
    if m.profile != Profile::Abci {
        return;
    }
    let label = m.label.as_ref().unwrap_or(&m.name);
    if !label.text.ends_with("AbciApp") {
        let what = if m.origin == Origin::Composed {
            "app"
        } else {
            "machine"
        };
        out.push(
            Diagnostic::new(
                Code::AppNaming,
                format!("{what} label `{label}` does not end in `AbciApp`"),
            )
            .at(label.span, "Open Autonomy names apps `…AbciApp`")
            .help("rename it, or allow the lint with `#[allow(app_naming)]`"),
        );
    }
    for s in &m.states {
        if !s.name.text.ends_with("Round") {
            out.push(
                Diagnostic::new(
                    Code::StateNaming,
                    format!("state `{}` does not end in `Round`", s.name),
                )
                .at(s.name.span, "Open Autonomy names rounds `…Round`")
                .help("rename it, or allow the lint with `#[allow(state_naming)]`"),
            );
        }
    }
}
