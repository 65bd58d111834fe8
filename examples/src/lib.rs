//! Runnable examples of fsmc-generated machines: one per system the language must express.
//!
//! Each module expands a shipped spec with `include_fsm!` and drives the generated code end to end; the
//! programs in `examples/` print a run, and `tests/` check the runs.

pub mod negotiation;
pub mod oracle;
pub mod supply_chain;
pub mod support;

// The generated-API reference: its examples are this crate's doctests, so the page cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../docs/generated-api.md")]
pub struct GeneratedApiReference;
