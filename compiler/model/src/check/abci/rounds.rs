//! Round rules of Open Autonomy apps: final rounds (only those) are degenerate, outcome mappings name outcomes of
//! the round's kind and ordinary events, each outcome a round must decide has a transition, and a non-final
//! round has at most one timeout and some transition that is not one.

use super::{parts, writes};
use crate::check::graph::Outgoing;
use crate::spec::{EventId, Machine, Origin, State, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::abci::{Need, RoundKind};

pub(super) fn check(m: &Machine, outgoing: &Outgoing, out: &mut Vec<Diagnostic>) {
    let conventional = m.conventional_outcome_events();
    // A transition dropped by resolution (reported there) may be the very one these rules look for.
    let partial = m.incomplete || m.transitions.is_empty();
    for s in m.state_ids() {
        let st = m.state(s);
        // A final state without a kind is degenerate; a non-final one runs custom decision logic.
        let kind = st.round_kind();
        finality(st, kind, out);
        outcome_mappings(m, st, kind, out);
        if st.is_final {
            continue;
        }
        // A composed app's states were checked in their own machines.
        if m.origin != Origin::Composed
            && let Some(round) = st.round()
        {
            parts::check(st, round, kind, out);
            writes::check(m, st, round, kind, out);
        }
        let out_edges = outgoing.of(s);
        if !partial {
            required_outcomes(m, s, kind, out_edges, &conventional, out);
        }
        // Timeouts are only known for `.fsm` machines: Open Autonomy YAML does not record them.
        if m.origin != Origin::OaYaml && !out_edges.is_empty() {
            timeouts(m, st, out_edges, partial, out);
        }
    }
    if m.origin != Origin::Composed {
        short_timeouts(m, out);
    }
}

/// The shortest block interval a timeout may sensibly count on: the engine's default least time per height is
/// half a second and Open Autonomy's chains make about one block a second.
const SHORTEST_BLOCK_MS: u128 = 1000;

/// A timeout shorter than a block interval fires at the start of the block after the round opens, before that
/// block's payloads are counted: the round can never decide. Reported once per event.
fn short_timeouts(m: &Machine, out: &mut Vec<Diagnostic>) {
    for e in &m.events {
        let Some(t) = e.timeout else { continue };
        if t.duration.as_millis() < SHORTEST_BLOCK_MS {
            out.push(
                Diagnostic::new(
                    Code::ShortTimeout,
                    format!(
                        "timeout `{}` of {:?} is shorter than a block interval",
                        e.name, t.duration
                    ),
                )
                .at(t.span, "fires before the round's payloads can arrive")
                .help("a round's timeout counts from the block that opened it and is checked when the next block begins: give it at least a few seconds"),
            );
        }
    }
}

/// Final rounds are degenerate, and degenerate rounds final.
fn finality(st: &State, kind: RoundKind, out: &mut Vec<Diagnostic>) {
    let at = st.kind_span.unwrap_or(st.name.span);
    if st.is_final && kind != RoundKind::Degenerate {
        out.push(
            Diagnostic::new(
                Code::FinalNotDegenerate,
                format!(
                    "final round `{}` is `{}`, not degenerate",
                    st.name,
                    kind.name()
                ),
            )
            .at(at, "a final round must be `degenerate`")
            .help(format!("write `final state {}: degenerate;`", st.name)),
        );
    }
    if !st.is_final && kind == RoundKind::Degenerate {
        out.push(
            Diagnostic::new(
                Code::DegenerateNotFinal,
                format!("degenerate round `{}` is not final", st.name),
            )
            .at(at, "degenerate rounds end the app")
            .help("mark it `final`, or give it a round kind that decides an outcome"),
        );
    }
}

/// Outcome mappings must be outcomes of this kind, onto non-timeout events.
fn outcome_mappings(m: &Machine, st: &State, kind: RoundKind, out: &mut Vec<Diagnostic>) {
    let Some(round) = st.round() else { return };
    for (outcome, e, span) in &round.outcomes {
        if kind != RoundKind::Custom && !kind.outcomes().iter().any(|(o, _)| o == outcome) {
            let can: Vec<String> = kind
                .outcomes()
                .iter()
                .map(|(o, _)| format!("`{}`", o.name()))
                .collect();
            out.push(
                Diagnostic::new(
                    Code::BadOutcome,
                    format!(
                        "a `{}` round has no `{}` outcome",
                        kind.name(),
                        outcome.name()
                    ),
                )
                .at(*span, "not an outcome of this kind")
                .help(if can.is_empty() {
                    "this kind emits no outcomes".to_string()
                } else {
                    format!("its outcomes: {}", can.join(", "))
                }),
            );
        } else if m.event(*e).timeout.is_some() {
            out.push(
                Diagnostic::new(
                    Code::BadOutcome,
                    format!(
                        "outcome `{}` is mapped to timeout event `{}`",
                        outcome.name(),
                        m.event(*e).name
                    ),
                )
                .at(*span, "a timeout event")
                .help("timeouts fire on their own; map the outcome to an ordinary event"),
            );
        }
    }
}

/// Every outcome the round's kind must decide has an event and a transition on it.
fn required_outcomes(
    m: &Machine,
    s: StateId,
    kind: RoundKind,
    out_edges: &[u32],
    conventional: &[Option<EventId>],
    out: &mut Vec<Diagnostic>,
) {
    let st = m.state(s);
    for (outcome, need) in kind.outcomes() {
        if *need == Need::Optional {
            continue;
        }
        match m.outcome_event_in(s, *outcome, conventional) {
            Some(e)
                if out_edges
                    .iter()
                    .any(|&t| m.transitions[t as usize].event == Some(e)) => {}
            Some(e) => out.push(
                Diagnostic::new(
                    Code::MissingRoundEvent,
                    format!(
                        "round `{}` can emit `{}`{} but has no transition for it",
                        st.name,
                        m.event(e).name,
                        // Name the outcome only when the event is not its conventional name.
                        if m.event(e).name.text == outcome.default_event() {
                            String::new()
                        } else {
                            format!(" (its `{}` outcome)", outcome.name())
                        }
                    ),
                )
                .at(st.name.span, format!("a `{}` round", kind.name()))
                .help(format!(
                    "add `({}, {}) -> NextRound;`",
                    st.name,
                    m.event(e).name
                )),
            ),
            None => out.push(
                Diagnostic::new(
                    Code::MissingRoundEvent,
                    format!(
                        "round `{}` can emit `{}` but no event is mapped to it",
                        st.name,
                        outcome.name()
                    ),
                )
                .at(st.name.span, format!("a `{}` round", kind.name()))
                .help(format!(
                    "declare `event {};`, or map the outcome: `{} = EVENT;`",
                    outcome.default_event(),
                    outcome.name()
                )),
            ),
        }
    }
}

/// At most one timeout transition, and one that is not a timeout.
fn timeouts(m: &Machine, st: &State, out_edges: &[u32], partial: bool, out: &mut Vec<Diagnostic>) {
    let timeouts: Vec<usize> = out_edges
        .iter()
        .map(|&t| t as usize)
        .filter(|&t| {
            m.transitions[t]
                .event
                .is_some_and(|e| m.event(e).timeout.is_some())
        })
        .collect();
    if let [first, rest @ ..] = timeouts.as_slice() {
        for &t in rest {
            out.push(
                Diagnostic::new(
                    Code::MultipleTimeouts,
                    format!("round `{}` has more than one timeout transition", st.name),
                )
                .at(m.transitions[t].event_span, "another timeout")
                .with(m.transitions[*first].event_span, "first timeout")
                .help("a round has at most one timeout: keep the shortest and remove the rest"),
            );
        }
    }
    if timeouts.len() == out_edges.len() && !partial {
        out.push(
            Diagnostic::new(
                Code::OnlyTimeouts,
                format!("round `{}` can only be left by a timeout", st.name),
            )
            .at(
                st.name.span,
                "every transition out of this round is a timeout",
            )
            .help("add a transition on an event the round decides, e.g. `DONE`"),
        );
    }
}

/// Events that some non-final round must emit (a required outcome) and that no transition uses: each is
/// reported as a missing round event (E0401), which says more than "unused event" (E0304) would.
pub(super) fn required_but_unused(m: &Machine) -> Vec<bool> {
    let mut out = vec![false; m.events.len()];
    let conventional = m.conventional_outcome_events();
    for s in m.state_ids() {
        let st = m.state(s);
        if st.is_final {
            continue;
        }
        for (outcome, need) in st.round_kind().outcomes() {
            if let (Need::Required, Some(e)) =
                (*need, m.outcome_event_in(s, *outcome, &conventional))
            {
                out[e.index()] = true;
            }
        }
    }
    for t in &m.transitions {
        if let Some(e) = t.event {
            out[e.index()] = false;
        }
    }
    out
}
