//! Profile rules for the systems beyond Open Autonomy: Genie Flow states and persistence, dialogue protocols
//! (the AEA generator's rules plus reachability of every performative), and staged environments.

use super::graph::Graph;
use crate::diag::{Code, Diagnostic};
use crate::model::{Machine, Persistence, Profile};
use std::collections::BTreeSet;

pub(super) fn check(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    for t in &m.transitions {
        match (m.profile, t.event) {
            (Profile::Staged, Some(_)) => out.push(
                Diagnostic::new(Code::EventInStaged, "a staged machine moves between stages directly, not on events")
                    .at(t.event_span, "event not expected here")
                    .help(format!("write `{} -> {};`", m.state(t.from).name, m.state(t.to).name)),
            ),
            (p, None) if p != Profile::Staged => out.push(
                Diagnostic::new(Code::DirectTransition, "a transition without an event is only allowed in a `staged` machine")
                    .at(t.span, "no event")
                    .help(format!("name the event: `({}, EVENT) -> {};`", m.state(t.from).name, m.state(t.to).name)),
            ),
            _ => {}
        }
    }
    match m.profile {
        Profile::Genie => genie(m, out),
        Profile::Dialogue => dialogue(m, g, out),
        Profile::Staged => staged(m, out),
        Profile::Plain | Profile::Abci => {}
    }
}

fn genie(m: &Machine, out: &mut Vec<Diagnostic>) {
    for st in &m.states {
        if st.genie.is_none() && st.kind_span.is_none() {
            out.push(
                Diagnostic::new(Code::GenieMissingType, format!("Genie state `{}` is neither `user` nor `invoker`", st.name))
                    .at(st.name.span, "no state type")
                    .help(format!("write `state {}: user {{ … }}` or `state {}: invoker {{ … }}`", st.name, st.name)),
            );
        }
        if st.template.is_none() {
            out.push(
                Diagnostic::new(Code::GenieMissingTemplate, format!("Genie state `{}` has no template", st.name))
                    .at(st.name.span, "no `template`")
                    .help("every Genie state renders a template: add `template \"path/to/template.jinja2\";`"),
            );
        }
    }
    for t in &m.transitions {
        let (Some(from), Some(to), Some((p, span))) = (m.state(t.from).genie, m.state(t.to).genie, t.persist) else { continue };
        let default = Persistence::default_for(from, to);
        if p == default {
            out.push(
                Diagnostic::new(Code::RedundantPersistence, format!("`persist {}` is already the default for a {} → {} transition", p.name(), from.name(), to.name()))
                    .at(span, "redundant override")
                    .help("remove it"),
            );
        }
    }
}

fn dialogue(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    if m.roles.len() != 2 {
        let d = Diagnostic::new(Code::DialogueRoles, format!("a dialogue has exactly two roles; `{}` declares {}", m.name, m.roles.len()));
        out.push(match m.roles.get(2) {
            Some(extra) => d.at(extra.span, "a third role").help("a FIPA dialogue is between two parties"),
            None => d.at(m.name.span, "declare the two roles").help("write `roles buyer, seller;`"),
        });
    }
    for e in &m.events {
        if e.role.is_none() && e.role_span.is_none() {
            out.push(
                Diagnostic::new(Code::PerformativeWithoutRole, format!("performative `{}` does not say who sends it", e.name))
                    .at(e.name.span, "no `by role`")
                    .help(format!("write `event {} by {};`", e.name, m.roles.first().map_or("role", |r| r.as_str()))),
            );
        }
    }
    let outgoing = m.outgoing();
    let initiation: Vec<usize> = m.start_states().flat_map(|s| outgoing[s.index()].iter().copied()).collect();
    if m.start_states().next().is_some() && initiation.is_empty() {
        out.push(
            Diagnostic::new(Code::NoInitiation, format!("dialogue `{}` has no initiating performative", m.name))
                .at(m.name.span, "no transition leaves a start state")
                .help("add the opening move, e.g. `(Start, CFP) -> Proposed;`"),
        );
    }
    let termination = m.transitions.iter().any(|t| m.state(t.to).is_final);
    if !termination {
        out.push(
            Diagnostic::new(Code::NoTermination, format!("dialogue `{}` has no terminating performative", m.name))
                .at(m.name.span, "no transition enters a final state")
                .help("declare the end states `final state Accepted;` and the performatives that reach them"),
        );
    }
    // Reachability facts are unreliable when resolution dropped transitions; those errors come first.
    for (i, e) in m.events.iter().enumerate().filter(|_| !m.incomplete) {
        let uses: Vec<_> = m.transitions.iter().filter(|t| t.event.map(|x| x.index()) == Some(i)).collect();
        if uses.is_empty() {
            continue; // reported as an unused event
        }
        if !uses.iter().any(|t| g.reachable[t.from.index()]) {
            out.push(
                Diagnostic::new(Code::PerformativeUnreachable, format!("performative `{}` can never be sent", e.name))
                    .at(e.name.span, "no dialogue from the initiation reaches a state that accepts it")
                    .help("make it a reply to a reachable performative, or remove it"),
            );
        } else if termination && !uses.iter().any(|t| g.coreachable[t.to.index()]) {
            out.push(
                Diagnostic::new(Code::PerformativeCannotTerminate, format!("after `{}` the dialogue can never terminate", e.name))
                    .at(e.name.span, "no path from its replies reaches an end state")
                    .help("give its target state a reply that leads to a terminating performative"),
            );
        }
    }
    // Roles alternate: whoever sent the performative that led into a state does not send the reply.
    let mut into: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); m.states.len()];
    for t in &m.transitions {
        if let Some(role) = t.event.and_then(|e| m.event(e).role) {
            into[t.to.index()].insert(role);
        }
    }
    for t in &m.transitions {
        let Some(e) = t.event else { continue };
        let Some(role) = m.event(e).role else { continue };
        if into[t.from.index()].len() == 1 && into[t.from.index()].contains(&role) {
            out.push(
                Diagnostic::new(
                    Code::SameRoleReply,
                    format!("`{}` answers a performative that `{}` itself sent", m.event(e).name, m.roles[role]),
                )
                .at(t.event_span, format!("sent by `{}`", m.roles[role]))
                .with(m.state(t.from).name.span, format!("every performative into this state is sent by `{}`", m.roles[role]))
                .help("in a two-party dialogue the other role replies; check the reply's `by` role"),
            );
        }
    }
}

fn staged(m: &Machine, out: &mut Vec<Diagnostic>) {
    let outgoing = m.outgoing();
    for s in m.state_ids() {
        let st = m.state(s);
        let targets: BTreeSet<_> = outgoing[s.index()].iter().map(|&t| m.transitions[t].to).collect();
        if st.handler.is_none() && !st.is_final && targets.len() > 1 {
            out.push(
                Diagnostic::new(Code::StageNextCount, format!("stage `{}` has no handler but {} next stages", st.name, targets.len()))
                    .at(st.name.span, "which next stage? only a handler can choose")
                    .help("add `handler;` to the stage, or keep exactly one next stage"),
            );
        }
        if st.acting.is_empty() && !st.is_final {
            out.push(
                Diagnostic::new(Code::NoAgents, format!("stage `{}` has no acting agents", st.name))
                    .at(st.name.span, "nobody acts in this stage")
                    .help("list them: `acting a, b;`"),
            );
        }
    }
}
