//! Runnable examples of fsmc-generated machines: one per system the language must express.
//!
//! Each module expands a shipped spec with `include_fsm!` and drives the generated code end to end; the
//! programs in `examples/` print a run, and `tests/` check the runs.

pub mod negotiation;
pub mod oracle;
pub mod supply_chain;
pub mod support;
