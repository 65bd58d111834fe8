//! Genie Flow's rules (`machine M: genie`): every state is `user` or `invoker` and renders a template the loader
//! could read, an invoker state names the work it runs and has a way out when that work fails, a `persist`
//! override is not the transition's default, and `poll`, `retry` and `abandon` are the runtime's events.

use super::graph::Graph;
use super::system::System;
use crate::ident;
use crate::spec::genie::FailurePolicy;
use crate::spec::{EventId, Machine, Spec, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Name;
use fsmc_vocab::genie::{Persistence, RESERVED_EVENTS, StateType};
use std::collections::{BTreeMap, BTreeSet};

pub(super) struct Genie;

impl System for Genie {
    fn names(&self, m: &Machine, out: &mut Vec<Diagnostic>) {
        for e in m
            .events
            .iter()
            .filter(|e| RESERVED_EVENTS.contains(&e.name.as_str()))
        {
            out.push(
                Diagnostic::new(
                    Code::ReservedName,
                    format!("the event name `{}` is reserved in Genie machines", e.name),
                )
                .at(e.name.span, "reserved")
                .help("the runtime answers `poll` (while an invoker works), `retry` and `abandon` (while failed work waits) itself; pick another name for this event"),
            );
        }
        work_names(m, out);
    }

    fn check(&self, m: &Machine, _g: &Graph, out: &mut Vec<Diagnostic>) {
        states(m, out);
        work(m, out);
        persistence(m, out);
    }

    fn files(&self, m: &Machine, spec: &Spec, out: &mut Vec<Diagnostic>) {
        templates(m, spec, out);
    }
}

fn states(m: &Machine, out: &mut Vec<Diagnostic>) {
    for st in &m.states {
        let genie = st.genie();
        if genie.is_none_or(|g| g.ty.is_none()) && st.kind_span.is_none() {
            out.push(
                Diagnostic::new(
                    Code::GenieMissingType,
                    format!("Genie state `{}` is neither `user` nor `invoker`", st.name),
                )
                .at(st.name.span, "no state type")
                .help(format!(
                    "write `state {}: user {{ … }}` or `state {}: invoker {{ … }}`",
                    st.name, st.name
                )),
            );
        }
        if genie.is_none_or(|g| g.template.is_none()) {
            out.push(
                Diagnostic::new(Code::GenieMissingTemplate, format!("Genie state `{}` has no template", st.name))
                    .at(st.name.span, "no `template`")
                    .help("every Genie state renders a template: add `template \"path/to/template.jinja2\";`"),
            );
        }
    }
}

/// Every invoker state names its work (`runs NAME;`) and has a way out when it fails; `runs` and `on_failure`
/// are about invoker states only.
fn work(m: &Machine, out: &mut Vec<Diagnostic>) {
    // The (state, event) pairs with a transition, looked up once per invoker state with a failure event: built
    // only when there is one, so the check stays linear in the spec.
    let mut handled: Option<BTreeSet<(StateId, EventId)>> = None;
    for (i, st) in m.states.iter().enumerate() {
        let Some(genie) = st.genie() else { continue };
        if genie.ty != Some(StateType::Invoker) {
            let user = genie.ty == Some(StateType::User);
            let props = [
                ("runs", genie.runs().map(|n| n.span)),
                ("on_failure", genie.on_failure().map(|(_, s)| s)),
            ];
            for (name, span) in props.into_iter().filter(|_| user) {
                let Some(span) = span else { continue };
                out.push(
                    Diagnostic::new(
                        Code::UnknownProperty,
                        format!("`{name}` applies only to invoker states"),
                    )
                    .at(span, format!("`{}` is a user state", st.name))
                    .help("a user state waits for the user and runs no work"),
                );
            }
            continue;
        }
        if genie.runs().is_none() {
            out.push(
                Diagnostic::new(
                    Code::GenieMissingWork,
                    format!("invoker state `{}` does not name the work it runs", st.name),
                )
                .at(st.name.span, "no `runs`")
                .help("name it, and the invoker dispatches on it: `runs retrieval;`"),
            );
        }
        let Some((FailurePolicy::Event(event), span)) = m.genie.on_failure(genie) else {
            continue;
        };
        let handled = handled.get_or_insert_with(|| {
            m.transitions
                .iter()
                .filter_map(|t| Some((t.from, t.event?)))
                .collect()
        });
        if handled.contains(&(StateId(i as u32), event)) {
            continue;
        }
        let ev = &m.event(event).name;
        out.push(
            Diagnostic::new(
                Code::GenieFailureUnhandled,
                format!(
                    "when its work fails, `{}` sends `{ev}`, which it has no transition on",
                    st.name
                ),
            )
            .at(span, "the failure policy")
            .with(st.name.span, "this invoker state")
            .help(format!(
                "add `({}, {ev}) -> …;`, or give the state another `on_failure`",
                st.name
            )),
        );
    }
}

/// The names of the work invoker states run become the variants of one `Work` enum: two spellings of one
/// variant would be one variant twice.
fn work_names(m: &Machine, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<String, &Name> = BTreeMap::new();
    // An empty name stands for one given in the wrong shape, reported by the resolver already.
    let names = m.states.iter().filter_map(|s| s.genie()?.runs());
    for n in names.filter(|n| !n.text.is_empty()) {
        let rust = ident::camel(&n.text);
        if n.text.bytes().all(|c| c == b'_') || rust == "Self" {
            out.push(
                Diagnostic::new(Code::ReservedName, format!("`{n}` cannot name a work"))
                    .at(n.span, format!("becomes `{rust}` in generated Rust"))
                    .help("give the work a name with a letter in it, other than `self`"),
            );
            continue;
        }
        match seen.get(&rust) {
            Some(prev) if prev.text != n.text => out.push(
                Diagnostic::new(
                    Code::NameCollision,
                    format!(
                        "works `{prev}` and `{n}` both become `Work::{rust}` in generated Rust"
                    ),
                )
                .at(n.span, format!("becomes `{rust}`"))
                .with(prev.span, format!("also becomes `{rust}`"))
                .help("spell the work the same way everywhere"),
            ),
            Some(_) => {}
            None => {
                seen.insert(rust, n);
            }
        }
    }
}

/// A `persist` override that says what the transition type records anyway.
fn persistence(m: &Machine, out: &mut Vec<Diagnostic>) {
    let ty = |s| m.state(s).genie().and_then(|g| g.ty);
    for t in &m.transitions {
        let (Some(from), Some(to), Some((p, span))) = (ty(t.from), ty(t.to), t.persist) else {
            continue;
        };
        let default = Persistence::default_for(from, to);
        if p == default {
            out.push(
                Diagnostic::new(
                    Code::RedundantPersistence,
                    format!(
                        "`persist {}` is already the default for a {} → {} transition",
                        p.name(),
                        from.name(),
                        to.name()
                    ),
                )
                .at(span, "redundant override")
                .help("remove it"),
            );
        }
    }
}

/// Every template a Genie machine's states name was read (the loader reads them, relative to the spec); one
/// that could not be is reported where its path is written. A template given in the wrong shape was reported
/// by the resolver already (its path is empty here).
fn templates(m: &Machine, spec: &Spec, out: &mut Vec<Diagnostic>) {
    for st in &m.states {
        let Some(path) = st
            .genie()
            .and_then(|g| g.template.as_ref())
            .filter(|p| !p.text.is_empty())
        else {
            continue;
        };
        let why = match spec.templates.get(&path.span) {
            Some(Ok(_)) => continue,
            Some(Err(why)) => why.as_str(),
            // Only a spec that did not come through the loader has templates it did not read.
            None => "it was not read",
        };
        out.push(
            Diagnostic::new(
                Code::GenieTemplateNotFound,
                format!(
                    "cannot read the template `{path}` of Genie state `{}`",
                    st.name
                ),
            )
            .at(path.span, why.to_string())
            .help("a template's path is relative to the spec that names it"),
        );
    }
}
