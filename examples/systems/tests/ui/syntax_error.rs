fsmc_runtime::fsm!(r#"
machine Door {
    event OPEN;
    start default state Closed;
    (Closed, OPEN) => Closed;
}
"#);

fn main() {}
