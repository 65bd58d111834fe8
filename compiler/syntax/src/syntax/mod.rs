//! Stage 1: `.fsm` text → syntax tree with spans.

pub mod ast;
pub mod parser;
pub mod trivia;

pub use parser::parse;
