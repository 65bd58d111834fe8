//! Genie Flow's part of a state (`machine M: genie`): who acts in it, and the template it renders.

use fsmc_base::source::Name;
use fsmc_vocab::genie::StateType;

/// A state of a Genie Flow conversation.
#[derive(Clone, Debug, Default)]
pub struct GenieState {
    /// `user` or `invoker` as written after `:`; `None` when none was (or an unknown one was, reported).
    pub ty: Option<StateType>,
    /// The template it renders (`template "path";`), its path relative to the spec; an empty path when the
    /// property was given in the wrong shape (reported).
    pub template: Option<Name>,
}
