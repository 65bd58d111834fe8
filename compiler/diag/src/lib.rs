//! fsmc's source files, spans and names, and its diagnostics (codes, lint levels, rendering).
//!
//! One of the packages the compiler is built in (see ARCHITECTURE.md): what the parser (`fsmc-syntax`) and the
//! model, checks and code generator (`fsmc-model`) both need, so that those two compile side by side. Use it
//! through `fsmc`, which re-exports it as `fsmc::source` and `fsmc::diag`.

pub mod diag;
pub mod source;
