//! fsmc: a declarative finite-state-machine spec compiler for Rust.
//!
//! The pipeline is a row of pure stages (see ARCHITECTURE.md): [`syntax`] parses text into a tree with spans,
//! [`resolve`] lowers it into a [`model`], [`check`] validates the model, and the generators turn a checked model
//! into Rust or other formats. Only [`loader`] reads files.

pub mod check;
pub mod compose;
pub mod corpus;
pub mod diag;
pub mod driver;
#[cfg(feature = "export")]
pub mod export;
// The formatter serves `fsmc fmt`, `fsmc import`'s output and the language server, never the macro.
#[cfg(any(feature = "export", feature = "lsp"))]
pub mod fmt;
pub mod ident;
pub mod loader;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod model;
pub mod oa;
mod par;
pub mod resolve;
pub mod source;
pub mod syntax;

pub use driver::{Compilation, Options, compile, compile_str};
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
