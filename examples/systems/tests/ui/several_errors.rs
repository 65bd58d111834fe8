fsmc_runtime::fsm!(r#"
machine Door {
    event OPEN, CLOSE;
    start default state Closed;
    state Opened;
    (Closed, OPEN) -> Opend;
    (Opened, SHUT) -> Closed;
}
"#);

fn main() {
    // The skeleton keeps this line free of follow-on errors.
    let _ = door::State::Closed;
}
