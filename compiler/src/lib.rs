//! fsmc: a declarative finite-state-machine spec compiler for Rust.
//!
//! The pipeline is a row of pure stages (see ARCHITECTURE.md): [`syntax`] parses text into a tree with spans,
//! [`resolve`] lowers it into a [`model`], [`check`] validates the model, and the generators turn a checked model
//! into Rust or other formats. Only [`loader`] reads files.

pub mod corpus;
pub mod driver;
#[cfg(feature = "export")]
pub mod export;
// The formatter serves `fsmc fmt`, `fsmc import`'s output and the language server, never the macro.
#[cfg(any(feature = "export", feature = "lsp"))]
pub mod fmt;
pub mod loader;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod oa;
pub mod resolve;

pub use driver::{Compilation, Options, compile, compile_str};
#[cfg(feature = "cli")]
pub mod cli;

// The compiler's other packages (see ARCHITECTURE.md), under the paths they always had.
use fsmc_diag::par;
pub use fsmc_diag::{diag, source};
pub use fsmc_model::{check, codegen, compose, ident, model};
pub use fsmc_syntax::syntax;

// The checks' unit tests compile specs from text, which takes the whole pipeline: they live with it.
#[cfg(test)]
mod check_tests;
