// The spec's warnings reach rustc as warnings; denying them here makes the build fail, so the test can see them.
#![deny(deprecated)]

fsmc_runtime::fsm!(r#"
machine Door {
    event OPEN, CLOSE;
    key unused: u32;
    start default state Closed;
    state Opened;
    (Closed, OPEN) -> Opened;
    (Opened, CLOSE) -> Closed;
}
"#);

fn main() {}
