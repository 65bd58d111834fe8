fsmc_runtime::fsm!(r#"
machine Door {
    event OPEN, CLOSE;
    key unused: u32;
    start default state Closed;
    state Opened;
    (Closed, OPEN) -> Opened;
    (Opened, CLOSE) -> Closed;
}
"#, deny_warnings);

fn main() {}
