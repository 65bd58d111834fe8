//! One machine of the model: its events, keys, states and transitions, every name bound to an index.
//!
//! What every machine's states have is here; what a system adds to a state is the state's [`StateData`], whose
//! types live in the system's module ([`super::abci`], [`super::genie`], [`super::staged`]).

use super::abci::Round;
use super::dialogue::{SideAt, Turn};
use super::genie::{GenieFlow, GenieState};
use super::ids::{EventId, KeyId, StateId};
use super::staged::{Roster, Stage};
use fsmc_base::diag::LintLevels;
use fsmc_base::source::{Name, Span};
use fsmc_vocab::Profile;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use fsmc_vocab::genie::Persistence;
use std::time::Duration;
use thin_vec::ThinVec;

/// Where a machine was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Fsm,
    OaYaml,
    /// The result of composing an app's machines.
    Composed,
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub name: Name,
    pub docs: Vec<String>,
    pub profile: Profile,
    pub origin: Origin,
    /// The Open Autonomy label as written, when it differs from the name (dotted paths).
    pub label: Option<Name>,
    pub events: Vec<Event>,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub keys: Vec<Key>,
    /// Dialogue roles (`roles buyer, seller;`). The language accepts them on every machine, so they are the
    /// machine's whatever its system.
    pub roles: Vec<Name>,
    /// Staged-environment agents (`agents a, b;`), accepted on every machine like the roles.
    pub agents: Vec<Name>,
    /// What a Genie machine says for all its invoker states (`on_failure …;`).
    pub genie: GenieFlow,
    /// Which agents are groups and which are scripted.
    pub roster: Roster,
    pub lints: LintLevels,
    /// The properties `fsmc verify` proves (`invariant`, `eventually`).
    pub claims: Vec<super::Claim>,
    pub span: Span,
    /// Set when resolution dropped a transition (an unknown name): graph checks would then report the
    /// consequences of that one mistake as separate problems, so they are skipped.
    pub incomplete: bool,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub name: Name,
    pub docs: Vec<String>,
    pub timeout: Option<Timeout>,
    pub fields: Vec<Field>,
    /// Index into [`Machine::roles`]: who sends this performative.
    pub role: Option<usize>,
    /// `by initiator` or `by responder`: the party that sends it, whichever role it plays.
    pub turn: Option<Turn>,
    /// Span of the role name, for diagnostics.
    pub role_span: Option<Span>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeout {
    pub duration: Duration,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Name,
    pub ty: Name,
}

#[derive(Clone, Debug)]
pub struct Key {
    pub name: Name,
    pub docs: Vec<String>,
    pub ty: Name,
    pub cross_period: bool,
}

/// A state. A large spec has hundreds of thousands: lists are thin (a pointer each, and they are mostly
/// empty), and a system's own data is one field of the size of the largest system's.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub name: Name,
    pub docs: ThinVec<String>,
    pub start: bool,
    pub default_start: bool,
    pub is_final: bool,
    /// The kind as written after `:`, if any.
    pub kind_span: Option<Span>,
    /// The synchronized data: every system's states may read and write the machine's keys.
    pub reads: ThinVec<(KeyId, Span)>,
    pub writes: ThinVec<(KeyId, Span)>,
    /// Pre-conditions: keys that must hold on entry (start states only).
    pub requires: ThinVec<(KeyId, Span)>,
    /// Post-conditions: keys guaranteed on exit (final states only).
    pub ensures: ThinVec<(KeyId, Span)>,
    /// Free attributes (`name "value";` or `name;`) kept for generated docs and constants; a round's
    /// `payload "T";` is kept here too.
    pub attributes: ThinVec<(Name, Option<String>)>,
    /// What the machine's system adds to the state.
    pub system: StateData,
}

/// What a system adds to a state: the variant of the machine's profile (a composed app's states keep the one of
/// the machine they came from).
#[derive(Clone, Debug, Default)]
pub enum StateData {
    #[default]
    Plain,
    Abci(Round),
    Genie(GenieState),
    /// A dialogue's states add nothing: its roles are the machine's, and each performative says who sends it.
    Dialogue,
    Staged(Stage),
}

impl StateData {
    /// The data of a new state of a machine of this profile, with nothing written yet.
    pub fn new(profile: Profile) -> StateData {
        match profile {
            Profile::Plain => StateData::Plain,
            Profile::Abci => StateData::Abci(Round::default()),
            Profile::Genie => StateData::Genie(GenieState::default()),
            Profile::Dialogue => StateData::Dialogue,
            Profile::Staged => StateData::Staged(Stage::default()),
        }
    }

    /// The data as an app's composed machine keeps it: `event` renumbers the events the state names (`None`: the
    /// composition has no such event), and what belongs to the machine the state came from goes.
    pub(crate) fn compose(&mut self, event: impl Fn(EventId) -> Option<EventId>) {
        match self {
            StateData::Abci(round) => round.renumber(event),
            StateData::Staged(stage) => stage.drop_agents(),
            StateData::Plain | StateData::Genie(_) | StateData::Dialogue => {}
        }
    }
}

impl State {
    /// The state's round, in an `abci` machine.
    pub fn round(&self) -> Option<&Round> {
        match &self.system {
            StateData::Abci(round) => Some(round),
            _ => None,
        }
    }

    /// The state's Genie type and template, in a `genie` machine.
    pub fn genie(&self) -> Option<&GenieState> {
        match &self.system {
            StateData::Genie(genie) => Some(genie),
            _ => None,
        }
    }

    /// The stage, in a `staged` machine.
    pub fn stage(&self) -> Option<&Stage> {
        match &self.system {
            StateData::Staged(stage) => Some(stage),
            _ => None,
        }
    }

    /// The round kind; a final state without one is degenerate, a non-final one custom.
    pub fn round_kind(&self) -> RoundKind {
        Round::kind_of(self.round(), self.is_final)
    }

    /// The Rust type written in `payload "T";`, if any.
    pub fn payload(&self) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n.as_str() == "payload")
            .and_then(|(_, v)| v.as_deref())
    }

    /// Where `payload "T";` was written.
    pub fn payload_span(&self) -> Option<Span> {
        self.attributes
            .iter()
            .find(|(n, _)| n.as_str() == "payload")
            .map(|(n, _)| n.span)
    }
}

#[derive(Clone, Debug)]
pub struct Transition {
    pub from: StateId,
    /// `None` for a direct transition chosen by the state's handler.
    pub event: Option<EventId>,
    pub to: StateId,
    /// Thin lists (a pointer each when empty, as they nearly always are): a large spec is mostly transitions.
    pub guards: ThinVec<Guard>,
    pub actions: ThinVec<Action>,
    /// Genie's `persist …` override.
    pub persist: Option<(Persistence, Span)>,
    pub docs: ThinVec<String>,
    pub span: Span,
    /// Span of the event name (or of the whole transition when there is none).
    pub event_span: Span,
    pub to_span: Span,
}

#[derive(Clone, Debug)]
pub struct Guard {
    pub negated: bool,
    pub name: Name,
}

/// An action a transition runs: its hook's name, and in a dialogue the party whose copy runs it (both when
/// `None`).
#[derive(Clone, Debug)]
pub struct Action {
    pub name: Name,
    pub side: Option<SideAt>,
}

impl Action {
    /// `actions` as a spec writes them: `do a, b`, `sender do c receiver do d`, a `do` for each run of one
    /// side.
    pub fn written(actions: &[Action]) -> String {
        let mut out = String::new();
        let mut side = None;
        for (i, a) in actions.iter().enumerate() {
            let this = a.side.map(|(s, _)| s);
            if i == 0 || this != side {
                if i > 0 {
                    out.push(' ');
                }
                if let Some(s) = this {
                    out.push_str(s.name());
                    out.push(' ');
                }
                out.push_str("do ");
            } else {
                out.push_str(", ");
            }
            out.push_str(a.name.as_str());
            side = this;
        }
        out
    }
}

impl Machine {
    pub fn new(name: Name, profile: Profile, origin: Origin, span: Span) -> Machine {
        Machine {
            name,
            docs: Vec::new(),
            profile,
            origin,
            label: None,
            events: Vec::new(),
            states: Vec::new(),
            transitions: Vec::new(),
            keys: Vec::new(),
            roles: Vec::new(),
            agents: Vec::new(),
            genie: GenieFlow::default(),
            roster: Roster::default(),
            lints: LintLevels::default(),
            claims: Vec::new(),
            span,
            incomplete: false,
        }
    }

    pub fn state(&self, id: StateId) -> &State {
        &self.states[id.index()]
    }

    pub fn event(&self, id: EventId) -> &Event {
        &self.events[id.index()]
    }

    pub fn key(&self, id: KeyId) -> &Key {
        &self.keys[id.index()]
    }

    pub fn state_ids(&self) -> impl Iterator<Item = StateId> + use<> {
        (0..self.states.len() as u32).map(StateId)
    }

    pub fn find_state(&self, name: &str) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| s.name.text == name)
            .map(|i| StateId(i as u32))
    }

    pub fn find_event(&self, name: &str) -> Option<EventId> {
        self.events
            .iter()
            .position(|e| e.name.text == name)
            .map(|i| EventId(i as u32))
    }

    pub fn start_states(&self) -> impl Iterator<Item = StateId> + '_ {
        self.state_ids().filter(|s| self.state(*s).start)
    }

    pub fn final_states(&self) -> impl Iterator<Item = StateId> + '_ {
        self.state_ids().filter(|s| self.state(*s).is_final)
    }

    pub fn default_start(&self) -> Option<StateId> {
        self.state_ids().find(|s| self.state(*s).default_start)
    }

    /// The label to write when exporting: as written, or the name.
    pub fn label(&self) -> &str {
        self.label.as_ref().map_or(&self.name.text, |l| &l.text)
    }

    /// Outgoing transitions per state, in spec order. Built in one pass: O(states + transitions).
    pub fn outgoing(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.states.len()];
        for (i, t) in self.transitions.iter().enumerate() {
            out[t.from.index()].push(i);
        }
        out
    }

    /// Per state, the events it accepts, in event declaration order (so that reordering transitions does not
    /// change generated code), each once.
    pub fn accepted_events(&self) -> Vec<Vec<EventId>> {
        let mut out = vec![Vec::new(); self.states.len()];
        for t in &self.transitions {
            if let Some(e) = t.event {
                out[t.from.index()].push(e);
            }
        }
        for events in &mut out {
            events.sort();
            events.dedup();
        }
        out
    }

    /// The event a round emits for an outcome: the explicit mapping, else the event named by convention.
    pub fn outcome_event(&self, state: StateId, outcome: OutcomeKind) -> Option<EventId> {
        self.outcome_event_in(state, outcome, &self.conventional_outcome_events())
    }

    /// The events named by convention for each outcome (in [`OutcomeKind::ALL`] order), looked up once so that
    /// checking every round stays linear.
    pub fn conventional_outcome_events(&self) -> Vec<Option<EventId>> {
        OutcomeKind::ALL
            .iter()
            .map(|o| self.find_event(o.default_event()))
            .collect()
    }

    /// [`Machine::outcome_event`] with the conventional events already looked up.
    pub fn outcome_event_in(
        &self,
        state: StateId,
        outcome: OutcomeKind,
        conventional: &[Option<EventId>],
    ) -> Option<EventId> {
        self.state(state)
            .round()
            .and_then(|r| r.mapped_event(outcome))
            .or_else(|| {
                OutcomeKind::ALL
                    .iter()
                    .position(|o| *o == outcome)
                    .and_then(|i| conventional.get(i).copied().flatten())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large spec has hundreds of thousands of states, so their size is watched: a system's data costs a
    /// state the size of the largest system's (and the enum's tag), not the sum of all of theirs.
    #[test]
    fn states_stay_small() {
        let largest = size_of::<Round>()
            .max(size_of::<GenieState>())
            .max(size_of::<Stage>());
        assert!(size_of::<StateData>() <= largest + 8);
        assert!(size_of::<State>() <= 176, "{} bytes", size_of::<State>());
    }
}
