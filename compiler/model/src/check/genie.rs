//! Genie Flow's rules (`machine M: genie`): every state is `user` or `invoker` and renders a template the loader
//! could read, a `persist` override is not the transition's default, and `poll` is the runtime's event.

use super::graph::Graph;
use super::system::System;
use crate::spec::{Machine, Spec};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::genie::Persistence;

pub(super) struct Genie;

impl System for Genie {
    fn names(&self, m: &Machine, out: &mut Vec<Diagnostic>) {
        if let Some(e) = m.events.iter().find(|e| e.name.text == "poll") {
            out.push(
                Diagnostic::new(Code::ReservedName, "the event name `poll` is reserved in Genie machines")
                    .at(e.name.span, "reserved")
                    .help("while an invoker runs, the runtime offers only `poll`; pick another name for this event"),
            );
        }
    }

    fn check(&self, m: &Machine, _g: &Graph, out: &mut Vec<Diagnostic>) {
        states(m, out);
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
