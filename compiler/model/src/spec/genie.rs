//! Genie Flow's part of a state (`machine M: genie`): who acts in it, the template it renders, and for an
//! invoker state the work it runs and what it does when that work fails; and Genie's part of a machine, the
//! failure policy of the invoker states that give none.

use super::EventId;
use fsmc_base::source::{Name, Span};
use fsmc_vocab::genie::{OnFailure, StateType};

/// A state of a Genie Flow conversation.
#[derive(Clone, Debug, Default)]
pub struct GenieState {
    /// `user` or `invoker` as written after `:`; `None` when none was (or an unknown one was, reported).
    pub ty: Option<StateType>,
    /// The template it renders (`template "path";`), its path relative to the spec; an empty path when the
    /// property was given in the wrong shape (reported).
    pub template: Option<Name>,
    /// What an invoker state says of its work, when it says anything: boxed, since a state's data is as large
    /// as the largest system's and most states of most specs are no invoker states.
    pub work: Option<Box<GenieWork>>,
}

/// What an invoker state says of the work it runs.
#[derive(Clone, Debug, Default)]
pub struct GenieWork {
    /// The work it runs (`runs retrieval;`): the name the invoker dispatches on.
    pub runs: Option<Name>,
    /// What the state does when its work fails (`on_failure …;`), and where that is written.
    pub on_failure: Option<(FailurePolicy, Span)>,
}

impl GenieState {
    /// The work the state runs (`runs …;`).
    pub fn runs(&self) -> Option<&Name> {
        self.work.as_ref()?.runs.as_ref()
    }

    /// The state's own failure policy (`on_failure …;`).
    pub fn on_failure(&self) -> Option<(FailurePolicy, Span)> {
        self.work.as_ref()?.on_failure
    }

    /// What the state says of its work, to write into.
    pub fn work_mut(&mut self) -> &mut GenieWork {
        self.work.get_or_insert_with(Box::default)
    }
}

/// `on_failure retry;`, `on_failure continue;` or `on_failure = EVENT;`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailurePolicy {
    /// A word of the vocabulary: wait for `retry` or `abandon`, or go on with an empty input.
    Word(OnFailure),
    /// Send this event of the machine, with the failure as its input.
    Event(EventId),
}

/// What a Genie machine says for all its invoker states.
#[derive(Clone, Debug, Default)]
pub struct GenieFlow {
    /// The failure policy of every invoker state that gives none (`on_failure …;` in the machine's body).
    pub on_failure: Option<(FailurePolicy, Span)>,
}

impl GenieFlow {
    /// The failure policy `state` follows, and where it is written: its own, else the machine's.
    pub fn on_failure(&self, state: &GenieState) -> Option<(FailurePolicy, Span)> {
        state.on_failure().or(self.on_failure)
    }
}
