//! fsmc: a declarative finite-state-machine spec compiler for Rust.
//!
//! The pipeline is a row of pure stages (see ARCHITECTURE.md): [`syntax`] parses text into a tree with spans,
//! [`resolve`] lowers it into a [`model`], [`check`] validates the model, and the generators turn a checked model
//! into Rust or other formats. Only [`loader`] reads files.

pub mod diag;
pub mod source;
pub mod syntax;
pub mod oa;
pub mod check;
pub mod compose;
pub mod export;
pub mod ident;
pub mod model;
pub mod resolve;
pub mod driver;
pub mod loader;

pub use driver::{Compilation, Options, compile, compile_str};
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
