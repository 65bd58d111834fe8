//! Macro errors, as the compiler shows them: each case in tests/ui/ must fail to build with exactly the
//! expected message (bless with `TRYBUILD=overwrite cargo test -p fsmc-examples --test ui`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
