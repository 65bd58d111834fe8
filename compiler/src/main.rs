//! The `fsmc` command-line tool.
fn main() {}
