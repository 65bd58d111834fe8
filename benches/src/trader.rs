//! The dispatch benchmark's machine (the largest Open Autonomy spec of the shared corpus) as fsmc generates it;
//! `build.rs` runs the compiler on the spec at build time. The walks of [`crate::walk`] are drawn from its
//! tables. (The benchmark compiles its own copy of this code, and of the other encodings, next to the loops
//! that drive them.)

/// What `include_fsm!` expands to for the spec.
// Included as text, the generated code is linted like the user's own (through the macro it is not). Two lints
// fire on it: every Open Autonomy state ends in `Round` (`enum_variant_names`), and a machine of custom rounds
// gets an `outcome_event` whose `match` has only the `_` arm (`match_single_binding`); see README.md.
#[allow(clippy::enum_variant_names, clippy::match_single_binding)]
pub mod fsmc_generated {
    include!(concat!(env!("OUT_DIR"), "/trader.rs"));
}

pub use fsmc_generated::generated::{Event, State};
