//! The fsmc tool: the command line ([`cli`]), the formatter ([`fmt`]), the language server ([`lsp`]) and the
//! exporters ([`export`]: drawings, `.fsm`, Open Autonomy YAML), over the compiler library (`fsmc-driver`).
//!
//! A library as well as a binary so that tests run the command line in process (`cli::run`).

pub mod cli;
pub mod export;
pub mod fmt;
pub mod lsp;
