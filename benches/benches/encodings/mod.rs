//! The four encodings of the trader machine the dispatch benchmark compares, each with a runner that replays a
//! stream of walks the way that encoding is meant to be used. Shared by `benches/dispatch.rs` and
//! `tests/dispatch.rs` (which checks that all four agree). `build.rs` writes the machine-specific parts.
//!
//! Every encoding is compiled into this crate, next to the loop that drives it, as it would be in a user's
//! crate (`include_fsm!` expands in place): a call into another crate could not be inlined without LTO.

/// What `include_fsm!` expands to for the spec.
// Included as text, the generated code is linted like the user's own (through the macro it is not). Two lints
// fire on it: every Open Autonomy state ends in `Round` (`enum_variant_names`), and a machine of custom rounds
// gets an `outcome_event` whose `match` has only the `_` arm (`match_single_binding`); see README.md.
#[allow(clippy::enum_variant_names, clippy::match_single_binding)]
pub mod fsmc_generated {
    include!(concat!(env!("OUT_DIR"), "/trader.rs"));
}

/// The same machine as a hand-written `match (state, event)`.
#[allow(dead_code)]
pub mod hand_written {
    include!(concat!(env!("OUT_DIR"), "/trader_match.rs"));
}

pub use fsmc_generated::generated::{Event, State};

/// smlang 0.8's `statemachine!`.
#[allow(dead_code, clippy::enum_variant_names)]
pub mod smlang_encoding {
    include!(concat!(env!("OUT_DIR"), "/trader_smlang.rs"));

    /// The machine has no guards or actions: an empty context.
    pub struct Context;
    impl TraderStateMachineContext for Context {}
}

/// rust-fsm 0.8's `state_machine!`.
#[allow(dead_code)]
pub mod rust_fsm_encoding {
    include!(concat!(env!("OUT_DIR"), "/trader_rust_fsm.rs"));
}

/// fsmc's generated `State::next` (a dense table); an invalid event leaves the state as it was.
#[inline(never)]
pub fn run_generated(walks: &[Vec<Event>], mut end: impl FnMut(State)) {
    for walk in walks {
        let mut s = State::DEFAULT_START;
        for &e in walk {
            s = s.next(e).unwrap_or(s);
        }
        end(s);
    }
}

/// The hand-written `match (state, event)`.
#[inline(never)]
pub fn run_hand_written(
    walks: &[Vec<hand_written::Event>],
    mut end: impl FnMut(hand_written::State),
) {
    for walk in walks {
        let mut s = hand_written::START;
        for &e in walk {
            s = s.next(e).unwrap_or(s);
        }
        end(s);
    }
}

/// smlang: a `StateMachine` per walk, `process_event` per event (an error leaves the state as it was).
#[inline(never)]
pub fn run_smlang(
    walks: &[Vec<smlang_encoding::TraderEvents>],
    mut end: impl FnMut(smlang_encoding::TraderStates),
) {
    use smlang_encoding::{Context, TraderStateMachine};
    for walk in walks {
        let mut sm = TraderStateMachine::new(Context);
        for &e in walk {
            let _ = sm.process_event(e);
        }
        end(*sm.state());
    }
}

/// rust-fsm: a `StateMachine` per walk, `consume` per event (an error leaves the state as it was).
#[inline(never)]
pub fn run_rust_fsm(
    walks: &[Vec<rust_fsm_encoding::Input>],
    mut end: impl FnMut(rust_fsm_encoding::State),
) {
    use rust_fsm_encoding::trader_fsm::StateMachine;
    for walk in walks {
        let mut m = StateMachine::new();
        for e in walk {
            let _ = m.consume(e);
        }
        end(*m.state());
    }
}
