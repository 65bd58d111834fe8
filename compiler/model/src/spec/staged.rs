//! A staged environment's part of a state (`machine M: staged`, after Phantom): the stage's acting and rewarded
//! agents, and whether a handler chooses the next stage; and what the machine says of its agents besides their
//! names: which are groups, sized when the environment is built, and which are scripted.

use fsmc_base::source::Span;
use thin_vec::ThinVec;

/// A stage: the state of a `staged` machine. Agents are indices into the machine's `agents`.
#[derive(Clone, Debug, Default)]
pub struct Stage {
    /// The agents acting in the stage (`acting a, b;`); none when not written (or `acting none;`).
    pub acting: ThinVec<(usize, Span)>,
    /// The agents rewarded in the stage, `None` when not written (then the acting agents are, as Phantom's
    /// default says), `Some` of an empty list for `rewarded none;`.
    pub rewarded: Option<ThinVec<(usize, Span)>>,
    /// `handler;`: user code chooses the next stage.
    pub handler: Option<Span>,
}

impl Stage {
    /// The stage as an app's composed machine keeps it: agents belong to their machine, and composition (an Open
    /// Autonomy notion) drops them.
    pub(crate) fn drop_agents(&mut self) {
        self.acting.clear();
        self.rewarded = None;
    }
}

/// What a staged machine says of its agents (`Machine::agents`, by index) besides their names.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    /// The agents written as groups (`traders[]`), with where the `[]` is: one agent of the spec stands for as
    /// many members as the environment is given when it is built. In agent order.
    pub groups: Vec<(usize, Span)>,
    /// The agents named by `scripted a, b;`: they act on their own, with no action from outside, observe
    /// nothing and are never rewarded (Phantom's non-strategic agents). With the span of each name.
    pub scripted: Vec<(usize, Span)>,
}

impl Roster {
    /// Whether agent `i` is a group.
    pub fn is_group(&self, i: usize) -> bool {
        self.groups.iter().any(|(g, _)| *g == i)
    }

    /// Whether agent `i` is scripted.
    pub fn is_scripted(&self, i: usize) -> bool {
        self.scripted.iter().any(|(s, _)| *s == i)
    }
}
