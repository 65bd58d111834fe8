//! A staged environment's part of a state (`machine M: staged`, after Phantom): the stage's acting and rewarded
//! agents, and whether a handler chooses the next stage.

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
