//! `fsmc lsp`: every feature of the language server, driven in process from fixtures (the spec text with the
//! cursor marked `$0`, and the expected answer inline, rust-analyzer style: `UPDATE_EXPECT=1 cargo test -p fsmc
//! --test lsp` rewrites the expectations to what the server answers now, for review), and a handful of tests of
//! the `fsmc lsp` process itself over its standard input and output.
//!
//! [`fixture`] parses fixtures, runs the server over a scratch workspace and renders answers as text; each
//! feature has a module of its own: [`diagnostics`], [`hover`], [`navigation`] (definition and references),
//! [`rename`] (and prepareRename), [`completion`], [`outline`] (document symbols and semantic tokens),
//! [`formatting`], [`actions`] (quick fixes) and [`lens`] (the spec fingerprint's code lens and hover line).
//! [`protocol`] holds what the server must survive in process (requests out of order, malformed parameters,
//! positions outside the text, broken files), [`process`] the
//! process: its lifecycle and exit codes, malformed frames, and an edit's round trip.

#[path = "lsp/actions.rs"]
mod actions;
#[path = "lsp/completion.rs"]
mod completion;
#[path = "lsp/diagnostics.rs"]
mod diagnostics;
#[path = "lsp/fixture.rs"]
mod fixture;
#[path = "lsp/formatting.rs"]
mod formatting;
#[path = "lsp/hover.rs"]
mod hover;
#[path = "lsp/lens.rs"]
mod lens;
#[path = "lsp/navigation.rs"]
mod navigation;
#[path = "lsp/outline.rs"]
mod outline;
#[path = "lsp/process.rs"]
mod process;
#[path = "lsp/protocol.rs"]
mod protocol;
#[path = "lsp/rename.rs"]
mod rename;
