//! fsmc's model of a spec (stage 2, [`spec`]), its checks ([`check`]), the composition of apps ([`compose`]) and
//! the Rust code generator ([`codegen`]).
//!
//! It compiles beside `fsmc-syntax`, which it does not need, so that a cold build of a crate using
//! `include_fsm!` compiles the parser and the checks side by side (see ARCHITECTURE.md).

pub mod check;
pub mod codegen;
pub mod compose;
pub mod hash;
pub mod hooks;
pub mod ident;
pub mod spec;
