fsmc_runtime::fsm!(r#"
machine Door {
    event OPEN, CLOSE;
    start default state Closed;
    state Opened;
    (Closed, OPEN) -> Opened;
    (Opened, CLOSE) -> Closed;
}
"#);

fn main() {
    // There is no LOCK event in the spec: the generated enum has no such variant.
    let _ = door::State::Closed.next(door::Event::Lock);
}
