//! Deep nesting: 100k levels of brackets, types and YAML flow collections are errors, not stack overflows (on a
//! 256 KiB stack), and the deepest nesting the parser accepts parses, even on a small stack.

use crate::*;

const DEEP: usize = 100_000;

fn assert_fsm_rejected_on_small_stack(label: &'static str, text: String) {
    on_small_stack(move || {
        let dir = scratch("robustness-deep");
        let (ast, diags) = fsmc_syntax::parse(FileId(0), &text);
        assert!(
            ast.is_none() && !diags.is_empty(),
            "{label}: parsed without error"
        );
        let c = compile_str("deep.fsm", &text, dir.path(), &Options::default());
        assert!(c.has_errors(), "{label}: compiled without error");
        assert!(
            has_code(&c, Code::Syntax),
            "{label}: not a syntax error: {:?}",
            c.diagnostics
        );
        let _ = render::human(&c.sources, &c.diagnostics, false);
    });
}

#[test]
fn deep_fsm_nesting_is_an_error_not_a_stack_overflow() {
    let cases: Vec<(&'static str, String)> = vec![
        ("bare (", "(".repeat(DEEP)),
        ("bare {", "{".repeat(DEEP)),
        ("bare [", "[".repeat(DEEP)),
        ("bare <", "<".repeat(DEEP)),
        ("machine braces", format!("machine M {}", "{".repeat(DEEP))),
        (
            "tuple type",
            format!("machine M {{ key k: {}", "(".repeat(DEEP)),
        ),
        (
            "closed tuple type",
            format!(
                "machine M {{ key k: {}{}; }}",
                "(".repeat(DEEP),
                ")".repeat(DEEP)
            ),
        ),
        (
            "array type",
            format!("machine M {{ key k: {}", "[".repeat(DEEP)),
        ),
        (
            "generic type",
            format!("machine M {{ key k: Vec{}", "<Vec".repeat(DEEP)),
        ),
        (
            "event fields",
            format!("machine M {{ event E{}", "(a: ".repeat(DEEP)),
        ),
        (
            "nested comments",
            format!("{}{}", "/*".repeat(DEEP), "*/".repeat(DEEP)),
        ),
        ("unclosed comments", "/*".repeat(DEEP)),
        (
            "comments in a machine",
            format!("machine M {{ {} }}", "/*".repeat(DEEP)),
        ),
        // Characters that hide the brackets from a naive pre-scan: a quote or `//` inside a block comment.
        (
            "quote in comment",
            format!("machine M {{ key k: /* \" */ {}", "(".repeat(DEEP)),
        ),
        (
            "line comment in comment",
            format!("machine M {{ key k: /* // */ {}", "(".repeat(DEEP)),
        ),
        (
            "strings in comment",
            format!("machine M {{ {}", "/*\"".repeat(DEEP)),
        ),
        (
            "escaped newline",
            format!("machine M {{ key k: \"\\\n\" {}", "(".repeat(DEEP)),
        ),
    ];
    for (label, text) in cases {
        assert_fsm_rejected_on_small_stack(label, text);
    }
}

/// The deepest nesting the parser accepts still parses on the default test-thread stack.
#[test]
fn nesting_at_the_limit_parses() {
    let depth = fsmc_syntax::MAX_NESTING - 2; // the machine's `{` and the key's type take the rest
    let text = format!(
        "machine M {{ key k: {}u8{}; start default state A; final state B; event E; (A, E) -> B; }}",
        "(".repeat(depth),
        ",)".repeat(depth)
    );
    let dir = scratch("robustness-limit");
    let c = compile_text("limit.fsm", &text, dir.path());
    assert!(!has_code(&c, Code::Syntax), "{:?}", c.diagnostics);
}

#[test]
fn deep_yaml_nesting_is_an_error_not_a_stack_overflow() {
    let cases: Vec<(&'static str, String)> = vec![
        ("flow sequences", "[".repeat(DEEP)),
        ("flow mappings", "{".repeat(DEEP)),
        (
            "closed flow sequences",
            format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)),
        ),
        ("flow mappings with keys", "{a: ".repeat(DEEP)),
        (
            "flow in a value",
            format!("transition_func: {}", "[".repeat(DEEP)),
        ),
        ("block sequences", format!("{}x\n", "- ".repeat(DEEP))),
        ("complex keys", format!("{}x\n", "? ".repeat(DEEP))),
        (
            "block mappings",
            (0..2_000)
                .map(|i| format!("{}a{i}:\n", " ".repeat(i)))
                .collect(),
        ),
    ];
    for (label, text) in cases {
        on_small_stack(move || {
            let dir = scratch("robustness-deep-yaml");
            let (spec, diags) = fsmc_driver::yaml::parse(FileId(0), &text);
            assert!(
                spec.is_none() && !diags.is_empty(),
                "{label}: read without error"
            );
            let c = compile_str(
                "deep_fsm_specification.yaml",
                &text,
                dir.path(),
                &Options::default(),
            );
            assert!(c.has_errors(), "{label}: compiled without error");
            let _ = render::human(&c.sources, &c.diagnostics, false);
        });
    }
}

/// A `"` or `//` inside a block comment is comment text; the nesting pre-scan used to take them for a string or
/// a line comment and skip the brackets after the comment, letting 1000-deep types reach the recursive parser.
#[test]
fn comments_cannot_hide_nesting_from_the_depth_limit() {
    for prefix in ["/* \" */", "/* // */", "/* /* \" */ */", "/*\n\"*/"] {
        let text = format!(
            "machine M {{ key k: {prefix} {}u8{}; start default state A; final state B; event E; (A, E) -> B; }}",
            "(".repeat(1000),
            ",)".repeat(1000)
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
        "machine M {{ key k: {}u8{}; event E(a: Vec<; }}",
        "(".repeat(depth),
        ",)".repeat(depth)
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
