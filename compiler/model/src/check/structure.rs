//! Structure checks: start and final states, transitions out of finals, transitions without events, duplicate and
//! conflicting transitions, empty machines.

use super::system::System;
use crate::spec::{Machine, Origin};
use fsmc_base::diag::{Code, Diagnostic};

pub(super) fn check(m: &Machine, system: &dyn System, out: &mut Vec<Diagnostic>) {
    // An incomplete machine without states lost them to a reported error (a refinement whose base is missing).
    if m.states.is_empty() && m.incomplete {
        return;
    }
    if m.states.is_empty() {
        out.push(
            Diagnostic::new(
                Code::EmptyMachine,
                format!("machine `{}` declares no states", m.name),
            )
            .at(m.name.span, "this machine is empty")
            .help("declare states with `start default state A;` and `final state Done;`"),
        );
        return;
    }
    default_start(m, out);
    // When the system refuses `final` itself, what a final state may not do is not reported besides.
    let finals = !system.refuses_finals();
    if finals {
        start_is_final(m, out);
    }
    // When resolution dropped every transition (each one named something unknown), those errors say what is
    // wrong; "no transitions" would only repeat them.
    if m.transitions.is_empty() && !m.incomplete {
        let at = if m.origin == Origin::OaYaml {
            m.span
        } else {
            m.name.span
        };
        out.push(
            Diagnostic::new(
                Code::NoTransitions,
                format!("machine `{}` has no transitions", m.name),
            )
            .at(at, "empty transition table")
            .help("add transitions `(State, EVENT) -> Next;`"),
        );
    }
    transitions(m, finals, system.moves_directly(), out);
}

/// Exactly one start state is the default.
fn default_start(m: &Machine, out: &mut Vec<Diagnostic>) {
    let defaults: Vec<_> = m
        .state_ids()
        .filter(|s| m.state(*s).default_start)
        .collect();
    match defaults.as_slice() {
        [] => {
            let starts: Vec<_> = m.start_states().collect();
            let d = Diagnostic::new(
                Code::NoDefaultStart,
                format!("machine `{}` has no default start state", m.name),
            );
            out.push(match starts.as_slice() {
                [] => d
                    .at(m.name.span, "no state is marked `start`")
                    .help("mark the entry state: `start default state A;`"),
                [only] => {
                    let name = &m.state(*only).name;
                    d.at(
                        name.span,
                        format!("`{name}` is the only start state, but it is not marked `default`"),
                    )
                    .help(format!("write `start default state {name};`"))
                }
                many => many
                    .iter()
                    .fold(
                        d.at(m.name.span, "several start states, none marked `default`"),
                        |d, s| d.with(m.state(*s).name.span, "a start state"),
                    )
                    .help("mark exactly one start state `default`"),
            });
        }
        [_] => {}
        [first, rest @ ..] => {
            for s in rest {
                out.push(
                    Diagnostic::new(
                        Code::MultipleDefaultStarts,
                        format!("machine `{}` has more than one default start state", m.name),
                    )
                    .at(m.state(*s).name.span, "another default start")
                    .with(m.state(*first).name.span, "first default start")
                    .help("keep `default` on exactly one start state"),
                );
            }
        }
    }
}

fn start_is_final(m: &Machine, out: &mut Vec<Diagnostic>) {
    for s in m.state_ids() {
        let st = m.state(s);
        if st.start && st.is_final {
            out.push(
                Diagnostic::new(
                    Code::StartIsFinal,
                    format!(
                        "state `{}` is both a start state and a final state",
                        st.name
                    ),
                )
                .at(st.name.span, "start and final")
                .help("a machine that ends where it starts does nothing: split the state in two"),
            );
        }
    }
}

/// Transitions out of final states (when `finals` are checked), transitions without an event (unless the system
/// `moves_directly`), and transitions written twice or in conflict.
fn transitions(m: &Machine, finals: bool, moves_directly: bool, out: &mut Vec<Diagnostic>) {
    // Group by (state, event): duplicates and conflicts. Direct transitions (no event) may fan out. One sorted
    // list rather than a map of lists: no allocation per group on large specs. Sorting by (state, event, index)
    // visits the groups in key order and each group in spec order.
    let mut keyed: Vec<(u32, Option<u32>, usize)> = Vec::with_capacity(m.transitions.len());
    for (i, t) in m.transitions.iter().enumerate() {
        let from = m.state(t.from);
        if from.is_final && finals {
            out.push(
                Diagnostic::new(Code::TransitionFromFinal, format!("final state `{}` has an outgoing transition", from.name))
                    .at(t.span, "transition out of a final state")
                    .with(from.name.span, "declared final here")
                    .help("a final state ends the machine: remove the transition or make the state non-final"),
            );
        }
        if t.event.is_none() && !moves_directly {
            out.push(
                Diagnostic::new(
                    Code::DirectTransition,
                    "a transition without an event is only allowed in a `staged` machine",
                )
                .at(t.span, "no event")
                .help(format!(
                    "name the event: {}",
                    super::written(m, t, Some("EVENT"))
                )),
            );
        }
        keyed.push((t.from.0, t.event.map(|e| e.0), i));
    }
    conflicts(m, keyed, out);
}

/// Duplicate and conflicting transitions, from the transitions keyed by (state, event, index).
fn conflicts(m: &Machine, mut keyed: Vec<(u32, Option<u32>, usize)>, out: &mut Vec<Diagnostic>) {
    keyed.sort_unstable();
    for group in keyed.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let event = group[0].1;
        for (k, &(_, _, i)) in group.iter().enumerate() {
            let t = &m.transitions[i];
            for &(_, _, j) in &group[..k] {
                let prev = &m.transitions[j];
                let same_guards = prev.guards.len() == t.guards.len()
                    && prev
                        .guards
                        .iter()
                        .zip(&t.guards)
                        .all(|(a, b)| a.negated == b.negated && a.name.text == b.name.text);
                if prev.to == t.to && same_guards {
                    out.push(
                        Diagnostic::new(
                            Code::DuplicateTransition,
                            "this transition is written twice",
                        )
                        .at(t.span, "duplicate")
                        .with(prev.span, "first written here")
                        .help("remove one of them"),
                    );
                    break;
                }
                // With an event, an unguarded transition always fires: anything after it on the same pair is dead,
                // and two unguarded ones are a conflict (which one wins?).
                if event.is_some() && prev.guards.is_empty() && prev.to != t.to {
                    let ev = t.event.map_or("", |e| m.event(e).name.as_str());
                    out.push(
                        Diagnostic::new(
                            Code::ConflictingTransition,
                            format!(
                                "`({}, {ev})` leads to both `{}` and `{}`",
                                m.state(t.from).name,
                                m.state(prev.to).name,
                                m.state(t.to).name
                            ),
                        )
                        .at(t.span, "conflicting transition")
                        .with(prev.span, "this unguarded transition always fires first")
                        .help("keep one target, or guard the first transition with `if condition`"),
                    );
                    break;
                }
            }
        }
    }
}
