//! Keepers: every `only_keeper_sends` round is entered with a keeper elected in the current period (E0607).

use crate::check::graph::Graph;
use crate::spec::{EventId, Machine, State, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use std::collections::VecDeque;

/// Every `only_keeper_sends` round is entered with a keeper elected in the current period: the same
/// definite-assignment analysis, for the keeper. Only the transition on an election's `done` event elects;
/// a reset round's `done` starts a period without one. Checked only in machines that elect keepers at all:
/// a machine whose keeper is elected in another machine of its app is checked once composed.
pub(super) fn check(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    if !m.states.iter().any(elects) {
        return;
    }
    let outgoing = &g.outgoing;
    let done: Vec<Option<EventId>> = m
        .state_ids()
        .map(|s| m.outcome_event(s, OutcomeKind::Done))
        .collect();
    let failed = failures(m);
    let aliased: Vec<bool> = m.state_ids().map(|s| done_shared(m, s)).collect();
    // elected[s]: a keeper is elected on every path into s; `None` until a path reaches s.
    let mut elected: Vec<Option<bool>> = vec![None; m.states.len()];
    let mut queue: VecDeque<StateId> = m.start_states().collect();
    for s in &queue {
        elected[s.index()] = Some(false);
    }
    while let Some(s) = queue.pop_front() {
        let Some(entry) = elected[s.index()] else {
            continue;
        };
        let st = m.state(s);
        for &t in outgoing.of(s) {
            let tr = &m.transitions[t as usize];
            let on_done = tr.event.is_some() && tr.event == done[s.index()];
            // A keeper round that fails or times out marks its keeper failed for the rest of the period, as
            // the runtime does: the next keeper round needs a new election. That is checked first, so an event
            // that is both (`fail = DONE;`) counts as the failure it may be.
            let exit = if tr.event.is_some_and(|e| failed[s.index()].contains(&e))
                || on_done && st.round().is_some_and(|r| r.reset)
            {
                false
            } else if on_done && elects(st) && !aliased[s.index()] {
                true
            } else {
                entry
            };
            let slot = &mut elected[tr.to.index()];
            let next = match *slot {
                None => exit,
                Some(cur) => cur && exit,
            };
            if *slot != Some(next) {
                *slot = Some(next);
                queue.push_back(tr.to);
            }
        }
    }
    for s in m.state_ids() {
        let st = m.state(s);
        if st.round().and_then(|r| r.kind) == Some(RoundKind::OnlyKeeperSends)
            && g.reachable[s.index()]
            && elected[s.index()] == Some(false)
        {
            out.push(
                Diagnostic::new(
                    Code::KeeperNotElected,
                    format!(
                        "keeper round `{}` can be reached without a keeper elected in this period",
                        st.name
                    ),
                )
                .at(
                    st.kind_span.unwrap_or(st.name.span),
                    "only the keeper sends here",
                )
                .help("put a round with `elects_keeper;` on every path to it, after every reset"),
            );
        }
    }
}

/// For each state, the events on which leaving it leaves the period without a live keeper: a keeper round's
/// `fail` outcome and its timeout.
fn failures(m: &Machine) -> Vec<Vec<EventId>> {
    let mut out: Vec<Vec<EventId>> = vec![Vec::new(); m.states.len()];
    for t in &m.transitions {
        if let Some(e) = t.event
            && m.event(e).timeout.is_some()
            && is_keeper_round(m.state(t.from))
        {
            out[t.from.index()].push(e);
        }
    }
    for s in m.state_ids() {
        if is_keeper_round(m.state(s))
            && let Some(e) = m.outcome_event(s, OutcomeKind::Fail)
        {
            out[s.index()].push(e);
        }
    }
    out
}

/// Whether another outcome of the round, or its timeout, emits the event its `done` emits: a transition on it
/// then may not be a real `DONE`, and the runtime elects (and resets) on a real `DONE` only.
fn done_shared(m: &Machine, s: StateId) -> bool {
    let Some(d) = m.outcome_event(s, OutcomeKind::Done) else {
        return false;
    };
    m.state(s)
        .round_kind()
        .outcomes()
        .iter()
        .any(|(o, _)| *o != OutcomeKind::Done && m.outcome_event(s, *o) == Some(d))
        || m.event(d).timeout.is_some()
}

fn is_keeper_round(s: &State) -> bool {
    s.round().and_then(|r| r.kind) == Some(RoundKind::OnlyKeeperSends)
}

/// Whether the state is a round with `elects_keeper;`.
fn elects(s: &State) -> bool {
    s.round().is_some_and(|r| r.elects_keeper.is_some())
}
