//! fsmc's model of a spec (stage 2, [`spec`]), its checks ([`check`], which also compose apps) and the Rust
//! code generator ([`codegen`]).
//!
//! Four systems are modelled beside plain machines: Open Autonomy apps (`abci`), Genie Flow conversations
//! (`genie`), FIPA dialogues (`dialogue`) and Phantom-style staged environments (`staged`). Each has one home in
//! each stage — `spec::{abci, genie, staged}` for what it adds to a state, `check::{abci, genie, dialogue,
//! staged}` for its rules, `codegen::{abci, genie, dialogue, staged}` for what it adds to generated code — and
//! the generic modules around them name none.
//!
//! - [`fingerprint`]: what a replica of an `abci` machine or app computes, and its digest, the spec fingerprint.
//! - [`diagram`]: a machine as the input of a drawing (the tool's SVG and HTML, the generated docs).
//! - [`spec`]: the model; [`ident`]: spec names as Rust identifiers; [`hooks`]: the names of a machine's
//!   generated hooks, shared by the name check and the generator; [`hash`]: the hash maps of the crate.
//!
//! It compiles beside `fsmc-syntax`, which it does not need, so that a cold build of a crate using
//! `include_fsm!` compiles the parser and the checks side by side (see ARCHITECTURE.md).

pub mod check;
pub mod codegen;
pub mod diagram;
pub mod fingerprint;
pub mod hash;
pub mod hooks;
pub mod ident;
pub mod spec;
