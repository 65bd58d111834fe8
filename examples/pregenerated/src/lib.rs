//! A crate whose state machine was generated ahead of time by `fsmc gen` and checked in, for projects that keep
//! generated code under review or cannot run a procedural macro. It depends on `fsmc-runtime` without its
//! `macros` feature, so building it compiles none of the compiler; `tests/fresh.rs` fails when `src/generated.rs`
//! no longer matches `turnstile.fsm`.
//!
//! ```sh
//! cargo run -p fsmc -- gen examples/pregenerated/turnstile.fsm -o examples/pregenerated/src/generated.rs
//! ```

// The generated file holds `pub mod turnstile { … }`, laid out by `fsmc gen`, not by rustfmt.
#[rustfmt::skip]
mod generated;
pub use generated::turnstile;
