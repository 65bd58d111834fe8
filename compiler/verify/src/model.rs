//! What the verifier needs of each state of an app, read once from the checked machine: the round kind, the
//! part the round plays (registration, election, keeper), where each outcome and the timeout lead, and the keys
//! it writes and reads. The runtime reads the same facts from the generated code (`AppSpec::rules`).

use crate::memory::Memory;
use fsmc_base::source::Span;
use fsmc_model::spec::{KeyId, Machine, StateId};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use std::time::Duration;

/// A round's part in the app's bookkeeping, as the runtime's `Role`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Collect,
    Registration,
    Election,
    Keeper,
}

/// One transition of the machine, as the verifier follows it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub to: StateId,
    /// The index of the transition in the machine: the counterexample labels its span.
    pub transition: usize,
}

/// One state of the app.
#[derive(Clone, Debug)]
pub(crate) struct StateModel {
    pub kind: RoundKind,
    pub role: Role,
    pub reset: bool,
    pub is_final: bool,
    /// The timeout transition and its duration.
    pub timeout: Option<(Edge, Duration)>,
    /// The transition each outcome of the kind takes; `None`: the state has none, and the runtime then
    /// decides nothing on that outcome.
    pub outcomes: Vec<(OutcomeKind, Option<Edge>)>,
    /// A custom round's decisions: every transition but the timeout, each with whether it is the round's
    /// `done` (which resets a reset round and makes a registration's senders the participants).
    pub choices: Vec<(Edge, bool)>,
    /// The keys a decision writes.
    pub writes: Vec<KeyId>,
    /// The keys that must be present on entry: `reads` and `requires`.
    pub needs: Vec<(KeyId, Span)>,
    pub confirmations: u32,
}

impl StateModel {
    /// Where `outcome` leads, if the kind decides it and the state has a transition for it.
    pub fn outcome(&self, outcome: OutcomeKind) -> Option<Edge> {
        self.outcomes
            .iter()
            .find(|(o, _)| *o == outcome)
            .and_then(|(_, e)| *e)
    }

    /// Whether the round's agents can send an empty payload (a `None` vote): only when the state handles the
    /// `none` outcome, as the checker requires of an `Option` payload.
    pub fn allows_none(&self) -> bool {
        self.outcome(OutcomeKind::None).is_some()
    }
}

/// The app as the verifier explores it.
pub(crate) struct Model<'m> {
    pub machine: &'m Machine,
    pub states: Vec<StateModel>,
    pub start: StateId,
    /// Which keys survive a reset.
    pub cross: Vec<bool>,
    /// The keys present at the start: the start state's pre-conditions.
    pub initial_keys: Vec<KeyId>,
    /// The keeper comes from the app: a machine chained in an app that has keeper rounds but elects no keeper
    /// itself starts with the keeper an earlier machine elected, as `fsmc check` assumes of it (E0607 checks
    /// such a machine once composed, and E0510 checks that the app elects before entering it).
    pub keeper_from_app: bool,
    /// What the declared properties need remembered of a run.
    pub memory: Memory,
}

impl<'m> Model<'m> {
    /// The model of `m`, which an app of the spec chains when `chained`; `None` for a machine without a
    /// default start (never a checked one).
    pub fn new(m: &'m Machine, chained: bool) -> Option<Model<'m>> {
        let start = m.default_start()?;
        let states: Vec<StateModel> = m.state_ids().map(|s| state(m, s)).collect();
        let keeper_from_app = chained
            && states.iter().any(|s| s.role == Role::Keeper)
            && !states.iter().any(|s| s.role == Role::Election);
        Some(Model {
            machine: m,
            states,
            start,
            cross: m.keys.iter().map(|k| k.cross_period).collect(),
            initial_keys: m.state(start).requires.iter().map(|(k, _)| *k).collect(),
            keeper_from_app,
            memory: Memory::new(m),
        })
    }

    pub fn state(&self, s: StateId) -> &StateModel {
        &self.states[s.index()]
    }

    /// Whether any period of the app can end: a reset round or a final state. An app with neither has no
    /// period to finish, and the liveness property does not apply to it.
    pub fn has_goal(&self) -> bool {
        self.states.iter().any(|s| s.reset || s.is_final)
    }
}

fn state(m: &Machine, s: StateId) -> StateModel {
    let st = m.state(s);
    let kind = st.round_kind();
    let round = st.round();
    let role = match round {
        Some(r) if r.registration.is_some() => Role::Registration,
        Some(r) if r.elects_keeper.is_some() => Role::Election,
        _ if kind == RoundKind::OnlyKeeperSends => Role::Keeper,
        _ => Role::Collect,
    };
    let edges: Vec<(Option<fsmc_model::spec::EventId>, Edge)> = m
        .transitions
        .iter()
        .enumerate()
        .filter(|(_, t)| t.from == s)
        .map(|(i, t)| {
            (
                t.event,
                Edge {
                    to: t.to,
                    transition: i,
                },
            )
        })
        .collect();
    let on = |e: Option<fsmc_model::spec::EventId>| {
        edges
            .iter()
            .find(|(ev, _)| e.is_some() && *ev == e)
            .map(|(_, edge)| *edge)
    };
    let timeout = edges.iter().find_map(|(e, edge)| {
        let t = m.event((*e)?).timeout?;
        Some((*edge, t.duration))
    });
    let outcomes = kind
        .outcomes()
        .iter()
        .map(|(o, _)| (*o, on(m.outcome_event(s, *o))))
        .collect();
    let done = m.outcome_event(s, OutcomeKind::Done);
    let choices = edges
        .iter()
        .filter(|(_, edge)| timeout.is_none_or(|(t, _)| t.transition != edge.transition))
        .map(|(e, edge)| (*edge, e.is_some() && *e == done))
        .collect();
    StateModel {
        kind,
        role,
        reset: round.is_some_and(|r| r.reset),
        is_final: st.is_final,
        timeout,
        outcomes,
        choices,
        writes: st.writes.iter().map(|(k, _)| *k).collect(),
        needs: st.reads.iter().chain(&st.requires).copied().collect(),
        confirmations: round.and_then(|r| r.confirmations).map_or(0, |(n, _)| n),
    }
}
