//! Deep nesting: 100k levels of brackets, types and YAML flow collections are errors, not stack overflows (on a
//! 256 KiB stack), and the deepest nesting the parser accepts parses, even on a small stack.

use crate::*;

const DEEP: usize = 100_000;

/// `before`, then `unit` [`DEEP`] times, then `after`.
fn deep(before: &str, unit: &str, after: &str) -> String {
    format!("{before}{}{after}", unit.repeat(DEEP))
}

/// A tuple type nested `depth` deep: `((u8,),)`.
fn nested_tuple(depth: usize) -> String {
    format!("{}u8{}", "(".repeat(depth), ",)".repeat(depth))
}

/// A front end as these tests drive it: the name the pipeline reads a text under, whether the front end alone
/// rejects the text (no tree, and diagnostics saying why), and the code the pipeline must report, where one is
/// certain.
struct FrontEnd {
    file: &'static str,
    rejects: fn(&str) -> bool,
    code: Option<Code>,
}

const FSM: FrontEnd = FrontEnd {
    file: "deep.fsm",
    rejects: |text| {
        let (ast, diags) = fsmc_syntax::parse(FileId(0), text);
        ast.is_none() && !diags.is_empty()
    },
    code: Some(Code::Syntax),
};

const YAML: FrontEnd = FrontEnd {
    file: "deep_fsm_specification.yaml",
    rejects: |text| {
        let (spec, diags) = fsmc_driver::yaml::parse(FileId(0), text);
        spec.is_none() && !diags.is_empty()
    },
    code: None,
};

/// Each text, on a 256 KiB stack, is rejected by the front end and reported as an error by the pipeline.
fn assert_rejected_on_small_stack(front: &'static FrontEnd, cases: Vec<(&'static str, String)>) {
    for (label, text) in cases {
        on_small_stack(move || {
            let dir = scratch("robustness-deep");
            assert!((front.rejects)(&text), "{label}: read without error");
            let c = compile_str(front.file, &text, dir.path(), &Options::default());
            assert!(c.has_errors(), "{label}: compiled without error");
            if let Some(code) = front.code {
                assert!(
                    has_code(&c, code),
                    "{label}: no {code:?}: {:?}",
                    c.diagnostics
                );
            }
            let _ = render::human(&c.sources, &c.diagnostics, false);
        });
    }
}

#[test]
fn deep_fsm_nesting_is_an_error_not_a_stack_overflow() {
    let closed_tuple = format!("{}; }}", ")".repeat(DEEP));
    let cases = vec![
        ("bare (", deep("", "(", "")),
        ("bare {", deep("", "{", "")),
        ("bare [", deep("", "[", "")),
        ("bare <", deep("", "<", "")),
        ("machine braces", deep("machine M ", "{", "")),
        ("tuple type", deep("machine M { key k: ", "(", "")),
        (
            "closed tuple type",
            deep("machine M { key k: ", "(", &closed_tuple),
        ),
        ("array type", deep("machine M { key k: ", "[", "")),
        ("generic type", deep("machine M { key k: Vec", "<Vec", "")),
        ("event fields", deep("machine M { event E", "(a: ", "")),
        ("nested comments", deep("", "/*", &"*/".repeat(DEEP))),
        ("unclosed comments", deep("", "/*", "")),
        ("comments in a machine", deep("machine M { ", "/*", " }")),
        // Characters that hide the brackets from a naive pre-scan: a quote or `//` inside a block comment.
        (
            "quote in comment",
            deep("machine M { key k: /* \" */ ", "(", ""),
        ),
        (
            "line comment in comment",
            deep("machine M { key k: /* // */ ", "(", ""),
        ),
        ("strings in comment", deep("machine M { ", "/*\"", "")),
        (
            "escaped newline",
            deep("machine M { key k: \"\\\n\" ", "(", ""),
        ),
    ];
    assert_rejected_on_small_stack(&FSM, cases);
}

/// The deepest nesting the parser accepts still parses on the default test-thread stack.
#[test]
fn nesting_at_the_limit_parses() {
    let depth = fsmc_syntax::MAX_NESTING - 2; // the machine's `{` and the key's type take the rest
    let text = format!(
        "machine M {{ key k: {}; start default state A; final state B; event E; (A, E) -> B; }}",
        nested_tuple(depth)
    );
    let dir = scratch("robustness-limit");
    let c = compile_text("limit.fsm", &text, dir.path());
    assert!(!has_code(&c, Code::Syntax), "{:?}", c.diagnostics);
}

#[test]
fn deep_yaml_nesting_is_an_error_not_a_stack_overflow() {
    let cases = vec![
        ("flow sequences", deep("", "[", "")),
        ("flow mappings", deep("", "{", "")),
        ("closed flow sequences", deep("", "[", &"]".repeat(DEEP))),
        ("flow mappings with keys", deep("", "{a: ", "")),
        ("flow in a value", deep("transition_func: ", "[", "")),
        ("block sequences", deep("", "- ", "x\n")),
        ("complex keys", deep("", "? ", "x\n")),
        (
            "block mappings",
            (0..2_000)
                .map(|i| format!("{}a{i}:\n", " ".repeat(i)))
                .collect(),
        ),
    ];
    assert_rejected_on_small_stack(&YAML, cases);
}

/// A `"` or `//` inside a block comment is comment text; the nesting pre-scan used to take them for a string or
/// a line comment and skip the brackets after the comment, letting 1000-deep types reach the recursive parser.
#[test]
fn comments_cannot_hide_nesting_from_the_depth_limit() {
    for prefix in ["/* \" */", "/* // */", "/* /* \" */ */", "/*\n\"*/"] {
        let text = format!(
            "machine M {{ key k: {prefix} {}; start default state A; final state B; event E; (A, E) -> B; }}",
            nested_tuple(1000)
        );
        let (ast, diags) = fsmc_syntax::parse(FileId(0), &text);
        assert!(ast.is_none(), "{prefix}: a 1000-deep type parsed");
        assert!(
            diags[0].message.starts_with("nesting deeper than"),
            "{prefix}: {:?}",
            diags[0]
        );
    }
    // Strings and line comments outside block comments still hide what they hold.
    let text = format!(
        "// {}\nmachine M {{ label \"{}\"; }}",
        "(".repeat(1000),
        "[".repeat(1000)
    );
    let (_, diags) = fsmc_syntax::parse(FileId(0), &text);
    assert!(
        !diags.iter().any(|d| d.message.starts_with("nesting")),
        "{diags:?}"
    );
}

/// The parser has no stack guard of its own (pest is built without `std`): the nesting limit is what keeps it off
/// the stack's end. A spec nested to the limit parses on a 256 KiB stack, an eighth of a spawned thread's and far
/// less than a proc macro's, even unoptimized. (Unoptimized and without the guard it needs more than 128 KiB;
/// in `cargo test --workspace` another package's dev-dependency turns pest's `std` on, which hides that, so the
/// margin is measured with `cargo test -p fsmc`.)
#[test]
fn nesting_at_the_limit_parses_on_a_small_stack() {
    let depth = fsmc_syntax::MAX_NESTING - 2;
    let text = format!(
        "machine M {{ key k: {}; event E(a: Vec<; }}",
        nested_tuple(depth)
    );
    let diags = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || fsmc_syntax::parse(FileId(0), &text).1)
        .expect("spawn")
        .join()
        .expect("the parser overflowed a 256 KiB stack");
    // The unclosed event fields make the recovery parse piece by piece too, the deepest path there is.
    assert!(!diags.is_empty());
    assert!(
        diags.iter().all(|d| !d.message.starts_with("nesting")),
        "{diags:?}"
    );
}
