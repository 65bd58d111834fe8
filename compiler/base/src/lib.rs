//! fsmc's source files, spans and names, its diagnostics (codes, lint levels, rendering), and the helpers that
//! share work among cores.
//!
//! One of the packages the compiler is built in (see ARCHITECTURE.md): what the parser (`fsmc-syntax`) and the
//! model, checks and code generator (`fsmc-model`) both need, so that those two compile side by side.

pub mod diag;
// Work shared among cores on large specs, by the parser and the checks alike; not part of fsmc's interface.
#[doc(hidden)]
pub mod par;
pub mod source;
