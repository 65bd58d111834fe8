//! FIPA dialogue rules (`machine M: dialogue`): the AEA generator's (two roles, every performative sent by one
//! of them or by the initiator or the responder, an initiation sent by a role and a termination, replies by the
//! other party) plus reachability of every performative, and actions that run at most once on each party's
//! copy.
//!
//! A dialogue says what the graph pass would in its own words: a dialogue that cannot begin is one error, a
//! performative after which it cannot end is reported for the performative, and a performative only unreachable
//! states accept is one that can never be sent.

use super::graph::{Graph, Quiet, Set};
use super::system::System;
use crate::spec::dialogue::{ActionSide, Turn};
use crate::spec::{Machine, Transition};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::TURNS;
use std::collections::{BTreeMap, BTreeSet};

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

    /// `initiator` and `responder` name the parties by who opened the dialogue, in `by …`: no role may take
    /// them.
    fn names(&self, m: &Machine, out: &mut Vec<Diagnostic>) {
        for r in m.roles.iter().filter(|r| TURNS.contains(&r.as_str())) {
            out.push(
                Diagnostic::new(
                    Code::ReservedName,
                    format!("the role name `{r}` is reserved in dialogues"),
                )
                .at(r.span, "reserved")
                .help(format!(
                    "`by {r}` names the party that {} the dialogue, whatever its role; pick another name for this role",
                    if r.as_str() == "initiator" { "opened" } else { "did not open" }
                )),
            );
        }
    }

    fn check(&self, m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
        roles(m, out);
        openings(m, out);
        action_sides(m, out);
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
        if e.role.is_none() && e.turn.is_none() && e.role_span.is_none() {
            out.push(
                Diagnostic::new(
                    Code::PerformativeWithoutRole,
                    format!("performative `{}` does not say who sends it", e.name),
                )
                .at(e.name.span, "no `by role`")
                .help(format!(
                    "write `event {} by {};` (or `by initiator`, `by responder`)",
                    e.name,
                    m.roles.first().map_or("role", |r| r.as_str())
                )),
            );
        }
    }
}

/// The performatives that open a dialogue are sent by a role: the opening fixes which role each party plays,
/// which `by initiator` and `by responder` then refer to.
fn openings(m: &Machine, out: &mut Vec<Diagnostic>) {
    let starts: BTreeSet<_> = m.start_states().collect();
    let mut reported = BTreeSet::new();
    for t in m.transitions.iter().filter(|t| starts.contains(&t.from)) {
        let Some(e) = t.event else { continue };
        let ev = m.event(e);
        let Some(turn) = ev.turn else { continue };
        if !reported.insert(e) {
            continue;
        }
        let roles: Vec<String> = m.roles.iter().map(|r| format!("`by {r}`")).collect();
        out.push(
            Diagnostic::new(
                Code::OpeningWithoutRole,
                format!(
                    "performative `{}` opens the dialogue but is sent `by {}`",
                    ev.name,
                    turn.name()
                ),
            )
            .at(ev.role_span.unwrap_or(ev.name.span), "not a role")
            .with(t.event_span, "it opens the dialogue here")
            .help(format!(
                "the opening performative fixes the role each party plays: send it {}, with one opening performative per role that may open",
                if roles.is_empty() { "by a role".to_string() } else { roles.join(" or ") }
            )),
        );
    }
}

/// An action runs at most once on each party's copy of a transition: named once per side, or once without a
/// side (on both).
fn action_sides(m: &Machine, out: &mut Vec<Diagnostic>) {
    for t in &m.transitions {
        let mut seen: BTreeMap<(&str, ActionSide), fsmc_base::source::Span> = BTreeMap::new();
        for a in &t.actions {
            let sides = match a.side {
                Some((side, _)) => vec![side],
                None => vec![ActionSide::Sender, ActionSide::Receiver],
            };
            for side in sides {
                let Some(first) = seen.insert((a.name.as_str(), side), a.name.span) else {
                    continue;
                };
                out.push(
                    Diagnostic::new(
                        Code::ActionSide,
                        format!(
                            "action `{}` runs twice on the {}'s copy of this transition",
                            a.name,
                            side.name()
                        ),
                    )
                    .at(a.name.span, "named again here")
                    .with(first, "first named here")
                    .help("name it once: with `sender do` or `receiver do` for one party, with a plain `do` for both"),
                );
                break;
            }
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

/// Who sends a performative, as far as the spec tells: a role, or a party named by who opened the dialogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Party {
    Role(usize),
    Turn(Turn),
}

/// The names a party goes by where `t` is taken: its sender, and for an opening performative sent by a role,
/// also the initiator (the role that opens is the initiator).
fn parties(m: &Machine, t: &Transition, starts: &BTreeSet<crate::spec::StateId>) -> Vec<Party> {
    let Some(e) = t.event.map(|e| m.event(e)) else {
        return Vec::new();
    };
    match (e.role, e.turn) {
        (Some(r), _) if starts.contains(&t.from) => {
            vec![Party::Role(r), Party::Turn(Turn::Initiator)]
        }
        (Some(r), _) => vec![Party::Role(r)],
        (None, Some(turn)) => vec![Party::Turn(turn)],
        (None, None) => Vec::new(),
    }
}

fn party_name(m: &Machine, p: Party) -> &str {
    match p {
        Party::Role(r) => m.roles.get(r).map_or("?", |r| r.as_str()),
        Party::Turn(t) => t.name(),
    }
}

/// Parties alternate: whoever sent every performative that led into a state does not send the reply.
fn same_role_replies(m: &Machine, out: &mut Vec<Diagnostic>) {
    let starts: BTreeSet<_> = m.start_states().collect();
    // For each state, the parties that may have sent each performative leading into it.
    let mut into: Vec<Vec<Vec<Party>>> = vec![Vec::new(); m.states.len()];
    for t in &m.transitions {
        let p = parties(m, t, &starts);
        if !p.is_empty() {
            into[t.to.index()].push(p);
        }
    }
    for t in &m.transitions {
        let Some(e) = t.event else { continue };
        let Some(&party) = parties(m, t, &BTreeSet::new()).first() else {
            continue;
        };
        let entering = &into[t.from.index()];
        if entering.is_empty() || !entering.iter().all(|senders| senders.contains(&party)) {
            continue;
        }
        let name = party_name(m, party);
        out.push(
            Diagnostic::new(
                Code::SameRoleReply,
                format!(
                    "`{}` answers a performative that `{name}` itself sent",
                    m.event(e).name
                ),
            )
            .at(t.event_span, format!("sent by `{name}`"))
            .with(
                m.state(t.from).name.span,
                format!("every performative into this state is sent by `{name}`"),
            )
            .help("in a two-party dialogue the other party replies; check the reply's `by`"),
        );
    }
}
