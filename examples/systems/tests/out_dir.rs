//! A spec that the build script wrote into `OUT_DIR`, expanded by `include_fsm!("$OUT_DIR/…")`.

fsmc_runtime::include_fsm!("$OUT_DIR/ladder.fsm");

#[test]
fn a_spec_written_at_build_time_expands() {
    use ladder::{Event, State};
    let top = fsmc_runtime::run(State::DEFAULT_START, [Event::Up; 4]).expect("four rungs up");
    assert_eq!(top, State::Rung4);
    assert!(top.is_final());
    assert_eq!(State::ALL.len(), 5);
}
