//! The resolved model: machines and apps with every name bound to an index.
//!
//! `resolve` builds it from either front end (`.fsm` or Open Autonomy YAML); `check` validates it; generators
//! accept only a [`Checked`] model, which only `check` can construct.
//!
//! - [`ids`]: the indices names are bound to.
//! - [`machine`]: a machine, its events, keys, states and transitions, with what every state has.
//! - [`abci`], [`genie`], [`staged`]: what each system adds to a state ([`StateData`]), and a staged
//!   machine's agents ([`staged::Roster`]). Dialogues add nothing to their states; [`dialogue`] holds what they
//!   add to performatives and actions.
//! - here: the spec (machines and apps), an app's composition and the checked model.

pub mod abci;
pub mod claim;
pub mod dialogue;
pub mod genie;
pub mod ids;
pub mod machine;
pub mod staged;

pub use claim::{Claim, ClaimKind, Formula, Named, PeriodCmp, Situation};
pub use ids::{EventId, KeyId, MachineId, StateId};
pub use machine::{
    Action, Event, Field, Guard, Key, Machine, Origin, State, StateData, Timeout, Transition,
};
pub use thin_vec::ThinVec;

use fsmc_base::diag::LintLevels;
use fsmc_base::source::{Name, Span};

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
    /// The properties the app declares, over its chained machines' states and keys.
    pub claims: Vec<Claim>,
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

/// An app's machines flattened into one machine (Open Autonomy's `chain`), remembering where each state came
/// from.
#[derive(Clone, Debug)]
pub struct Composed {
    pub machine: Machine,
    /// For each state of `machine`, the machine it came from.
    pub origin: Vec<MachineId>,
}

/// A spec that passed every check with no errors. Only [`crate::check`] constructs one, so code generation
/// never sees an unchecked model.
#[derive(Clone, Debug)]
pub struct Checked {
    pub(crate) spec: Spec,
    /// The composed machine of each app, in `spec.apps` order.
    pub(crate) composed: Vec<Composed>,
}

impl Checked {
    pub fn spec(&self) -> &Spec {
        &self.spec
    }
    /// The spec, for a caller that withholds the checked model (errors found before checking).
    pub fn into_spec(self) -> Spec {
        self.spec
    }
    pub fn composed(&self) -> &[Composed] {
        &self.composed
    }
}
