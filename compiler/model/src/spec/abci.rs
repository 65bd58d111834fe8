//! Open Autonomy's part of a state (`machine M: abci`): the round it is, the events its outcomes emit, and the
//! parts it plays in a period (reset, registration, keeper election).

use super::ids::EventId;
use fsmc_base::source::Span;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use thin_vec::ThinVec;

/// A round: the state of an `abci` machine.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// The round kind as written after `:`; `None` when none was (or an unknown one was, reported).
    pub kind: Option<RoundKind>,
    /// Explicit outcome → event mappings (`done = SUCCESS;`); missing ones default by name.
    pub outcomes: ThinVec<(OutcomeKind, EventId, Span)>,
    /// A reset round starts a new period of the synchronized data.
    pub reset: bool,
    /// `registration;`: the round takes payloads from every agent, and its `done` makes the agents it
    /// collected the participants.
    pub registration: Option<Span>,
    /// `elects_keeper;`: the round agrees on the keeper of later `only_keeper_sends` rounds.
    pub elects_keeper: Option<Span>,
    /// `confirmations N;`: a threshold round keeps collecting for `N` blocks after its threshold is reached
    /// (upstream's `required_block_confirmations`), with where it was written.
    pub confirmations: Option<(u32, Span)>,
}

impl Round {
    /// The kind of a state's round (`None` for a state that is no round): as written, else degenerate for a final
    /// state and custom for any other.
    pub fn kind_of(round: Option<&Round>, is_final: bool) -> RoundKind {
        round.and_then(|r| r.kind).unwrap_or(if is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        })
    }

    /// The event mapped explicitly to `outcome`, if any.
    pub fn mapped_event(&self, outcome: OutcomeKind) -> Option<EventId> {
        self.outcomes
            .iter()
            .find(|(o, _, _)| *o == outcome)
            .map(|(_, e, _)| *e)
    }

    /// The outcome mappings of a state of a composed app, whose events were renumbered: `event` gives each one's
    /// number in the composed machine, and a mapping to an event the composition dropped goes too.
    pub(crate) fn renumber(&mut self, event: impl Fn(EventId) -> Option<EventId>) {
        self.outcomes.retain_mut(|(_, e, _)| match event(*e) {
            Some(ne) => {
                *e = ne;
                true
            }
            None => false,
        });
    }
}
