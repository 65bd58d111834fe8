// A misspelt primitive in an event's field: the error names the spec's line and the primitive meant, not the
// whole macro.
fsmc_runtime::fsm!(r#"
machine Price {
    event Quote(amount: u46);
    start default state Waiting;
    final state Quoted;
    (Waiting, Quote) -> Quoted;
}
"#);

fn main() {}
