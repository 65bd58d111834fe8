//! Stage 1 of fsmc's pipeline: `.fsm` text → syntax tree with spans, and every syntax error in it.
//!
//! It compiles beside `fsmc-model` (which does not need it), so that a cold build of a crate using
//! `include_fsm!` compiles the parser and the checks side by side (see ARCHITECTURE.md).

pub mod ast;
mod fast;
mod grammar;
pub mod lex;
mod parse;
pub mod trivia;

pub use lex::unquote;
pub use parse::{MAX_NESTING, parse};
