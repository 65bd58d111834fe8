//! FIPA dialogue rules (`machine M: dialogue`): the AEA generator's (two roles, every performative sent by one,
//! an initiation and a termination, replies by the other role) plus reachability of every performative.
//!
//! A dialogue says what the graph pass would in its own words: a dialogue that cannot begin is one error, a
//! performative after which it cannot end is reported for the performative, and a performative only unreachable
//! states accept is one that can never be sent.

use super::graph::{Graph, Quiet, Set};
use super::system::System;
use crate::spec::{Machine, Transition};
use fsmc_base::diag::{Code, Diagnostic};
use std::collections::BTreeSet;

pub(super) struct Dialogue;

impl System for Dialogue {
    fn quiet(&self, m: &Machine, g: &Graph) -> Quiet {
        // A dialogue that cannot begin reaches nothing: its one error (E0803) replaces a dead-end start and a
        // report for every other state.
        if no_initiation(m) {
            return Quiet {
                unreachable: Set::All,
                dead_ends: Set::All,
                no_path_to_final: Set::All,
                unhandled_events: Set::All,
                ..Quiet::default()
            };
        }
        // A state that cannot reach an end is reported through the performative leading into it (E0806).
        // Computed in one pass over the transitions, so the check stays linear.
        let cannot_terminate = cannot_terminate(m, g);
        let mut by_performative = vec![false; m.states.len()];
        for t in &m.transitions {
            if g.reachable[t.from.index()] && t.event.is_some_and(|e| cannot_terminate[e.index()]) {
                by_performative[t.to.index()] = true;
            }
        }
        Quiet {
            no_path_to_final: Set::Some(by_performative),
            // Reported as an unreachable performative instead (E0805).
            unhandled_events: Set::All,
            ..Quiet::default()
        }
    }

    fn check(&self, m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
        roles(m, out);
        // With transitions dropped by resolution, or none written, these facts would repeat those errors.
        if !m.incomplete && !m.transitions.is_empty() {
            ends(m, out);
            // Without an initiation nothing is reachable: that one error says it.
            if !no_initiation(m) {
                performatives(m, g, out);
            }
        }
        same_role_replies(m, out);
    }
}

/// Two roles, and a role for every performative.
fn roles(m: &Machine, out: &mut Vec<Diagnostic>) {
    if m.roles.len() != 2 {
        let d = Diagnostic::new(
            Code::DialogueRoles,
            format!(
                "a dialogue has exactly two roles; `{}` declares {}",
                m.name,
                m.roles.len()
            ),
        );
        out.push(match m.roles.get(2) {
            Some(extra) => d
                .at(extra.span, "a third role")
                .help("a FIPA dialogue is between two parties"),
            None => d
                .at(m.name.span, "declare the two roles")
                .help("write `roles buyer, seller;`"),
        });
    }
    for e in &m.events {
        if e.role.is_none() && e.role_span.is_none() {
            out.push(
                Diagnostic::new(
                    Code::PerformativeWithoutRole,
                    format!("performative `{}` does not say who sends it", e.name),
                )
                .at(e.name.span, "no `by role`")
                .help(format!(
                    "write `event {} by {};`",
                    e.name,
                    m.roles.first().map_or("role", |r| r.as_str())
                )),
            );
        }
    }
}

/// An initiating performative (one leaving a start state) and a terminating one (one entering a final state).
fn ends(m: &Machine, out: &mut Vec<Diagnostic>) {
    if no_initiation(m) {
        let start = m
            .default_start()
            .or_else(|| m.start_states().next())
            .map(|s| m.state(s));
        let (at, name) = start.map_or((m.name.span, "Start"), |s| (s.name.span, s.name.as_str()));
        let opening = m.events.first().map_or("Cfp", |e| e.name.as_str());
        out.push(
            Diagnostic::new(
                Code::NoInitiation,
                format!("dialogue `{}` has no initiating performative", m.name),
            )
            .at(at, "no performative leaves this start state")
            .help(format!(
                "add the opening move, e.g. `({name}, {opening}) -> NextState;`"
            ))
            .note("every other state is unreachable until the dialogue can begin"),
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
}

/// Every performative can be sent (some state that accepts it is reachable), and after each the dialogue can
/// still end.
fn performatives(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    let cannot_terminate = cannot_terminate(m, g);
    let by_event = uses_by_event(m);
    for (i, e) in m.events.iter().enumerate() {
        let uses = &by_event[i];
        if uses.is_empty() {
            continue; // reported as an unused event
        }
        if !uses.iter().any(|t| g.reachable[t.from.index()]) {
            let d = Diagnostic::new(
                Code::PerformativeUnreachable,
                format!("performative `{}` can never be sent", e.name),
            )
            .at(
                e.name.span,
                "no dialogue from the initiation reaches a state that accepts it",
            );
            // Point at where it is accepted, so the reader sees which state needs a way in.
            let d = uses.iter().fold(d, |d, t| {
                d.with(
                    t.event_span,
                    format!("accepted only in `{}`", m.state(t.from).name),
                )
            });
            out.push(d.help("make it a reply to a reachable performative, or remove it"));
        } else if cannot_terminate[i] {
            let d = Diagnostic::new(
                Code::PerformativeCannotTerminate,
                format!("after `{}` the dialogue can never terminate", e.name),
            )
            .at(e.name.span, "no path from its replies reaches an end state");
            let d = uses
                .iter()
                .filter(|t| g.reachable[t.from.index()])
                .fold(d, |d, t| {
                    d.with(
                        t.to_span,
                        format!(
                            "leads to `{}`, which cannot reach an end state",
                            m.state(t.to).name
                        ),
                    )
                });
            out.push(
                d.help("give its target state a reply that leads to a terminating performative"),
            );
        }
    }
}

/// A dialogue whose start states no performative leaves: it can never begin.
fn no_initiation(m: &Machine) -> bool {
    m.start_states().next().is_some() && !m.transitions.is_empty() && {
        let starts: BTreeSet<_> = m.start_states().collect();
        !m.transitions.iter().any(|t| starts.contains(&t.from))
    }
}

/// The transitions of each event, in one pass (per-event scans would make dialogue checks quadratic).
fn uses_by_event(m: &Machine) -> Vec<Vec<&Transition>> {
    let mut by_event = vec![Vec::new(); m.events.len()];
    for t in &m.transitions {
        if let Some(e) = t.event {
            by_event[e.index()].push(t);
        }
    }
    by_event
}

/// For each performative: it can be sent (some use leaves a reachable state), the dialogue can terminate at
/// all, and yet no use leads to a state from which an end state is reachable (E0806).
fn cannot_terminate(m: &Machine, g: &Graph) -> Vec<bool> {
    let mut out = vec![false; m.events.len()];
    if !m.transitions.iter().any(|t| m.state(t.to).is_final) {
        return out;
    }
    let by_event = uses_by_event(m);
    for (flag, uses) in out.iter_mut().zip(&by_event) {
        *flag = uses.iter().any(|t| g.reachable[t.from.index()])
            && !uses.iter().any(|t| g.coreachable[t.to.index()]);
    }
    out
}

/// Roles alternate: whoever sent the performative that led into a state does not send the reply.
fn same_role_replies(m: &Machine, out: &mut Vec<Diagnostic>) {
    let mut into: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); m.states.len()];
    for t in &m.transitions {
        if let Some(role) = t.event.and_then(|e| m.event(e).role) {
            into[t.to.index()].insert(role);
        }
    }
    for t in &m.transitions {
        let Some(e) = t.event else { continue };
        let Some(role) = m.event(e).role else {
            continue;
        };
        if into[t.from.index()].len() == 1 && into[t.from.index()].contains(&role) {
            out.push(
                Diagnostic::new(
                    Code::SameRoleReply,
                    format!(
                        "`{}` answers a performative that `{}` itself sent",
                        m.event(e).name,
                        m.roles[role]
                    ),
                )
                .at(t.event_span, format!("sent by `{}`", m.roles[role]))
                .with(
                    m.state(t.from).name.span,
                    format!(
                        "every performative into this state is sent by `{}`",
                        m.roles[role]
                    ),
                )
                .help(
                    "in a two-party dialogue the other role replies; check the reply's `by` role",
                ),
            );
        }
    }
}
