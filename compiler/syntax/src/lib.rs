//! fsmc's `.fsm` grammar and parser: text to a syntax tree with spans, and every syntax error in it.
//!
//! One of the packages the compiler is built in (see ARCHITECTURE.md); it compiles beside `fsmc-model`. Use it
//! through `fsmc`, which re-exports it as `fsmc::syntax`. `diag` and `source` are re-exported here so that the
//! parser's paths (`crate::diag`, `crate::source`) are the ones it has inside `fsmc`.

use fsmc_diag::par;
pub use fsmc_diag::{diag, source};
pub mod syntax;
