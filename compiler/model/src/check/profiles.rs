//! Profile rules for the systems beyond Open Autonomy: Genie Flow states and persistence, dialogue protocols
//! (the AEA generator's rules plus reachability of every performative), and staged environments.

use super::graph::Graph;
use crate::spec::Machine;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::Profile;
use fsmc_vocab::genie::Persistence;
use std::collections::BTreeSet;

pub(super) fn check(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    for t in &m.transitions {
        match (m.profile, t.event) {
            (Profile::Staged, Some(_)) => out.push(
                Diagnostic::new(
                    Code::EventInStaged,
                    "a staged machine moves between stages directly, not on events",
                )
                .at(t.event_span, "event not expected here")
                .help(format!(
                    "write `{} -> {};`",
                    m.state(t.from).name,
                    m.state(t.to).name
                )),
            ),
            (p, None) if p != Profile::Staged => out.push(
                Diagnostic::new(
                    Code::DirectTransition,
                    "a transition without an event is only allowed in a `staged` machine",
                )
                .at(t.span, "no event")
                .help(format!(
                    "name the event: `({}, EVENT) -> {};`",
                    m.state(t.from).name,
                    m.state(t.to).name
                )),
            ),
            _ => {}
        }
    }
    match m.profile {
        Profile::Genie => genie(m, out),
        Profile::Dialogue => dialogue(m, g, out),
        Profile::Staged => staged(m, g, out),
        Profile::Plain | Profile::Abci => {}
    }
}

fn genie(m: &Machine, out: &mut Vec<Diagnostic>) {
    for st in &m.states {
        if st.genie.is_none() && st.kind_span.is_none() {
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
        if st.template.is_none() {
            out.push(
                Diagnostic::new(Code::GenieMissingTemplate, format!("Genie state `{}` has no template", st.name))
                    .at(st.name.span, "no `template`")
                    .help("every Genie state renders a template: add `template \"path/to/template.jinja2\";`"),
            );
        }
    }
    for t in &m.transitions {
        let (Some(from), Some(to), Some((p, span))) =
            (m.state(t.from).genie, m.state(t.to).genie, t.persist)
        else {
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
pub(super) fn templates(
    m: &Machine,
    read: &std::collections::BTreeMap<fsmc_base::source::Span, Result<String, String>>,
    out: &mut Vec<Diagnostic>,
) {
    if m.profile != Profile::Genie {
        return;
    }
    for st in &m.states {
        let Some(path) = st.template.as_ref().filter(|p| !p.text.is_empty()) else {
            continue;
        };
        let why = match read.get(&path.span) {
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

fn dialogue(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
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
    // With transitions dropped by resolution, or none written, these facts would repeat those errors.
    if m.incomplete || m.transitions.is_empty() {
        same_role_replies(m, out);
        return;
    }
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
    // Without an initiation nothing is reachable: that one error says it.
    let cannot_terminate = cannot_terminate(m, g);
    let by_event = uses_by_event(m);
    let begins = !no_initiation(m);
    for (i, e) in m.events.iter().enumerate().filter(|_| begins) {
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
    same_role_replies(m, out);
}

/// A dialogue whose start states no performative leaves: it can never begin.
pub(super) fn no_initiation(m: &Machine) -> bool {
    m.profile == Profile::Dialogue
        && m.start_states().next().is_some()
        && !m.transitions.is_empty()
        && {
            let starts: BTreeSet<_> = m.start_states().collect();
            !m.transitions.iter().any(|t| starts.contains(&t.from))
        }
}

/// The transitions of each event, in one pass (per-event scans would make dialogue checks quadratic).
fn uses_by_event(m: &Machine) -> Vec<Vec<&crate::spec::Transition>> {
    let mut by_event = vec![Vec::new(); m.events.len()];
    for t in &m.transitions {
        if let Some(e) = t.event {
            by_event[e.index()].push(t);
        }
    }
    by_event
}

/// For each performative of a dialogue: it can be sent (some use leaves a reachable state), the dialogue can
/// terminate at all, and yet no use leads to a state from which an end state is reachable (E0806).
pub(super) fn cannot_terminate(m: &Machine, g: &Graph) -> Vec<bool> {
    let mut out = vec![false; m.events.len()];
    if m.profile != Profile::Dialogue || !m.transitions.iter().any(|t| m.state(t.to).is_final) {
        return out;
    }
    let by_event = uses_by_event(m);
    for (flag, uses) in out.iter_mut().zip(&by_event) {
        *flag = uses.iter().any(|t| g.reachable[t.from.index()])
            && !uses.iter().any(|t| g.coreachable[t.to.index()]);
    }
    out
}

fn same_role_replies(m: &Machine, out: &mut Vec<Diagnostic>) {
    // Roles alternate: whoever sent the performative that led into a state does not send the reply.
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

// Phantom's definition rules: "Stage without handler must have exactly one next stage" (zero included), and
// a stage may have no acting agents. Phantom has no final stage: an episode ends by `num_steps` or when the
// environment says it is terminated, so `final` is refused rather than given a meaning of our own.
fn staged(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    let outgoing = &g.outgoing;
    for s in m.state_ids() {
        let st = m.state(s);
        if st.is_final {
            let modifier = if st.start { "start and final" } else { "final" };
            out.push(
                Diagnostic::new(
                    Code::FinalStage,
                    format!("stage `{}` is marked `final`", st.name),
                )
                .at(st.name.span, format!("a {modifier} stage"))
                .note("an episode ends after `num_steps` steps, or when the environment says it is terminated; it never ends in a stage")
                .help("remove `final`, and give the stage its next stages"),
            );
            continue;
        }
        let targets: BTreeSet<_> = outgoing
            .of(s)
            .iter()
            .map(|&t| m.transitions[t as usize].to)
            .collect();
        if st.handler.is_none() && targets.len() != 1 {
            let (message, label, help) = if targets.is_empty() {
                (
                    format!("stage `{}` has no handler and no next stage", st.name),
                    "where does it go? it has no next stage",
                    format!("give it its next stage: `{} -> …;`", st.name),
                )
            } else {
                (
                    format!(
                        "stage `{}` has no handler but {} next stages",
                        st.name,
                        targets.len()
                    ),
                    "which next stage? only a handler can choose",
                    "add `handler;` to the stage, or keep exactly one next stage".to_string(),
                )
            };
            out.push(
                Diagnostic::new(Code::StageNextCount, message)
                    .at(st.name.span, label)
                    .help(help),
            );
        }
    }
}
