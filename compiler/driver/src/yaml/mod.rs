//! Open Autonomy `fsm_specification.yaml` (the interchange format of `abci` apps): reading it with spans.
//!
//! The reader is a front end like the `.fsm` parser: it produces an [`OaSpec`] (names with spans) and
//! diagnostics; lowering to the model happens in `resolve`, so both formats meet the same checks. Writing it in
//! upstream's canonical form is the tool's (`fsmc export`).

// Reading needs the `yaml` feature (saphyr's parser). The macro builds it only when a user asks for YAML
// imports; the tree below is always there, for `resolve`.
#[cfg(feature = "yaml")]
pub mod canonical;
#[cfg(feature = "yaml")]
mod events;
#[cfg(feature = "yaml")]
mod keys;
#[cfg(feature = "yaml")]
pub mod read;
// YAML 1.1's implicit scalar types, which decide both how a name reads and whether the writer must quote it.
#[cfg(feature = "yaml")]
pub mod yaml11;

#[cfg(feature = "yaml")]
pub use read::parse;

use fsmc_base::source::{Name, Span};

/// One `fsm_specification.yaml`, as written. Lists keep the file's order and repeats; the checks find repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OaSpec {
    /// `label`, as written (older files use a dotted path; the last segment is the app's name).
    pub label: Name,
    pub alphabet_in: Vec<Name>,
    pub default_start_state: Name,
    pub final_states: Vec<Name>,
    pub start_states: Vec<Name>,
    pub states: Vec<Name>,
    pub transitions: Vec<OaTransition>,
    /// Span of the `transition_func` key, for reporting an empty table.
    pub transition_func_span: Span,
    /// Span of the whole document.
    pub span: Span,
}

/// One `(State, EVENT): Destination` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OaTransition {
    pub from: Name,
    pub event: Name,
    pub to: Name,
    /// The whole `(State, EVENT)` key.
    pub key_span: Span,
}

impl OaSpec {
    /// The app's name: the label's last dotted segment.
    pub fn name(&self) -> &str {
        self.label
            .text
            .rsplit('.')
            .next()
            .unwrap_or(&self.label.text)
    }
}
