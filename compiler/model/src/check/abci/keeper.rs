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
            let exit = if on_done && st.round().is_some_and(|r| r.reset) {
                false
            } else if on_done && elects(st) {
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

/// Whether the state is a round with `elects_keeper;`.
fn elects(s: &State) -> bool {
    s.round().is_some_and(|r| r.elects_keeper.is_some())
}
