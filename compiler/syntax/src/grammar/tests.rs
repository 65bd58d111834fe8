//! The checked-in parser is the grammar's.

/// The checked-in parser (`generated.rs`) is what pest generates from `fsm.pest` today. After a grammar
/// change this test writes the new parser and fails once, so that the change is reviewed and committed with it.
#[test]
fn generated_parser_is_fresh() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/grammar");
    let grammar = std::fs::read_to_string(dir.join("fsm.pest")).unwrap();
    let input: proc_macro2::TokenStream =
        format!("#[grammar_inline = {grammar:?}] struct FsmParser;")
            .parse()
            .unwrap();
    let tokens = pest_generator::derive_parser(input, false);
    let code = prettyplease::unparse(&syn::parse2(tokens).unwrap());
    let fresh = format!(
        "// @generated from `fsm.pest` by the test `generated_parser_is_fresh` (compiler/syntax/src/grammar/tests.rs).\n\
         // Do not edit: change the grammar and run `cargo test -p fsmc-syntax generated_parser`.\n\n{code}"
    );
    let path = dir.join("generated.rs");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(fresh.as_str()) {
        std::fs::write(&path, &fresh).unwrap();
        panic!(
            "{} was out of date with fsm.pest: rewritten, run the tests again",
            path.display()
        );
    }
}
