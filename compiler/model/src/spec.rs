//! The resolved model: machines and apps with every name bound to an index.
//!
//! `resolve` builds it from either front end (`.fsm` or Open Autonomy YAML); `check` validates it; generators
//! accept only a [`Checked`] model, which only `check` can construct.

use fsmc_vocab::Profile;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use fsmc_vocab::genie::{Persistence, StateType};

use fsmc_base::diag::LintLevels;
use fsmc_base::source::{Name, Span};
use std::time::Duration;
pub use thin_vec::ThinVec;

macro_rules! id_type {
    ($($name:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
id_type!(StateId, EventId, KeyId, MachineId);

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
    /// Dialogue roles (`roles buyer, seller;`).
    pub roles: Vec<Name>,
    /// Staged-environment agents (`agents a, b;`).
    pub agents: Vec<Name>,
    pub lints: LintLevels,
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

#[derive(Clone, Debug, Default)]
pub struct State {
    pub name: Name,
    pub docs: ThinVec<String>,
    pub start: bool,
    pub default_start: bool,
    pub is_final: bool,
    /// The kind as written after `:`, if any.
    pub kind_span: Option<Span>,
    pub round: Option<RoundKind>,
    pub genie: Option<StateType>,
    /// Explicit outcome → event mappings (`done = SUCCESS;`); missing ones default by name.
    pub outcomes: ThinVec<(OutcomeKind, EventId, Span)>,
    /// A reset round starts a new period of the synchronized data.
    pub reset: bool,
    /// `registration;`: the round takes payloads from every agent, and its `done` makes the agents it
    /// collected the participants.
    pub registration: Option<Span>,
    /// `elects_keeper;`: the round agrees on the keeper of later `only_keeper_sends` rounds.
    pub elects_keeper: Option<Span>,
    pub reads: ThinVec<(KeyId, Span)>,
    pub writes: ThinVec<(KeyId, Span)>,
    /// Pre-conditions: keys that must hold on entry (start states only).
    pub requires: ThinVec<(KeyId, Span)>,
    /// Post-conditions: keys guaranteed on exit (final states only).
    pub ensures: ThinVec<(KeyId, Span)>,
    pub template: Option<Name>,
    /// Staged: the agents acting in the stage (`acting a, b;`); none when not written (or `acting none;`).
    pub acting: ThinVec<(usize, Span)>,
    /// Staged: the agents rewarded in the stage, `None` when not written (then the acting agents are, as
    /// Phantom's default says), `Some` of an empty list for `rewarded none;`.
    pub rewarded: Option<ThinVec<(usize, Span)>>,
    pub handler: Option<Span>,
    /// Free attributes (`name "value";` or `name;`) kept for generated docs and constants.
    pub attributes: ThinVec<(Name, Option<String>)>,
}

impl State {
    /// The round kind; a final state without one is degenerate, a non-final one custom.
    pub fn kind(&self) -> RoundKind {
        self.round.unwrap_or(if self.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        })
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
    pub actions: ThinVec<Name>,
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
            lints: LintLevels::default(),
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
        let s = self.state(state);
        s.outcomes
            .iter()
            .find(|(o, _, _)| *o == outcome)
            .map(|(_, e, _)| *e)
            .or_else(|| {
                OutcomeKind::ALL
                    .iter()
                    .position(|o| *o == outcome)
                    .and_then(|i| conventional.get(i).copied().flatten())
            })
    }
}

/// An app composed from machines (`app X { chain A, B; F -> S; }`).
#[derive(Clone, Debug)]
pub struct App {
    pub name: Name,
    pub docs: Vec<String>,
    pub label: Option<Name>,
    pub chain: Vec<(MachineId, Span)>,
    /// Each chained machine's name as the app writes it (an import alias, or the machine's name), in chain
    /// order: what messages about the app call it.
    pub chain_names: Vec<Name>,
    pub mappings: Vec<MappingEdge>,
    pub lints: LintLevels,
    pub span: Span,
    /// Set when a mapping line did not resolve (reported): the composition is then missing an edge, and
    /// re-checking it would report the consequences of that one mistake.
    pub incomplete: bool,
}

impl App {
    /// What the app calls machine `id`: its alias when imported `as` one, else its name.
    pub fn name_of<'a>(&'a self, spec: &'a Spec, id: MachineId) -> &'a str {
        self.chain
            .iter()
            .zip(&self.chain_names)
            .find(|((m, _), _)| *m == id)
            .map_or_else(|| spec.machine(id).name.as_str(), |(_, n)| n.as_str())
    }
}

/// One `Final -> Start` entry, resolved to (machine, state) on both sides.
#[derive(Clone, Debug)]
pub struct MappingEdge {
    pub from: (MachineId, StateId),
    pub to: (MachineId, StateId),
    pub from_span: Span,
    pub to_span: Span,
    pub span: Span,
}

/// Everything one compilation resolved: every machine (own and imported) and every app.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub machines: Vec<Machine>,
    pub apps: Vec<App>,
    /// Machines and apps defined in the entry file (the rest were imported), in order.
    pub entry_items: Vec<Item>,
    /// The template files Genie states name, keyed by the span of the path as written: the text, or why it
    /// could not be read. The loader reads them; the check reports those it could not (E0704); code generation
    /// embeds the text.
    pub templates: std::collections::BTreeMap<Span, Result<String, String>>,
}

/// A top-level item, as listed in [`Spec::entry_items`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Machine(MachineId),
    App(usize),
}

impl Spec {
    pub fn machine(&self, id: MachineId) -> &Machine {
        &self.machines[id.index()]
    }
}

/// A spec that passed every check with no errors. Only [`crate::check`] constructs one, so code generation
/// never sees an unchecked model.
#[derive(Clone, Debug)]
pub struct Checked {
    pub(crate) spec: Spec,
    /// The composed machine of each app, in `spec.apps` order.
    pub(crate) composed: Vec<crate::compose::Composed>,
}

impl Checked {
    pub fn spec(&self) -> &Spec {
        &self.spec
    }
    /// The spec, for a caller that withholds the checked model (errors found before checking).
    pub fn into_spec(self) -> Spec {
        self.spec
    }
    pub fn composed(&self) -> &[crate::compose::Composed] {
        &self.composed
    }
}
