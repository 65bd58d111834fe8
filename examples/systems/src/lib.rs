//! Runnable examples of fsmc-generated machines: one per system the language must express.
//!
//! Each module expands a shipped spec with `include_fsm!` and drives the generated code end to end; the
//! programs in `examples/` print a run, and `tests/` check the runs.

pub mod hello_world;
pub mod oracle;
pub mod supply_chain;
pub mod support;
pub mod tac;

// The generated-API reference: its examples are this crate's doctests, so the page cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/generated-api.md")]
pub struct GeneratedApiReference;

// The Genie page's worked example is a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/genie.md")]
pub struct GenieReference;

// The replicated apps' guide: its port of an upstream skill is a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/abci.md")]
pub struct AbciGuide;

// The staged-environment guide, whose worked examples are doctests in the same way.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/staged.md")]
pub struct StagedGuide;

// The dialogue guide, whose worked examples are doctests in the same way.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/dialogue.md")]
pub struct DialogueGuide;

// `fsmc diff`'s page: its example of the spec fingerprint is a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/diff.md")]
pub struct DiffGuide;
