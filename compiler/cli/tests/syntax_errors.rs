//! Syntax errors as a person reads them: one snapshot of the rendered diagnostics per kind of mistake, and
//! recovery (every error in a file is reported, and what is right still parses).
//!
//! Each case also states where its primary label must start and what its message must say, so a change that moves
//! a caret fails even before the snapshot is read. Snapshots hold the input and the output; bless them with
//! `INSTA_UPDATE=always cargo test -p fsmc --test syntax_errors` and read each one before accepting it.

use fsmc_base::diag::{Code, Diagnostic, render};
use fsmc_base::source::SourceMap;
use fsmc_syntax::ast::File;

/// Parses `text` as `case.fsm`: the partial tree, the diagnostics, and their rendering.
fn parse(text: &str) -> (Option<File>, Vec<Diagnostic>, String) {
    let mut map = SourceMap::new();
    let file = map.add("case.fsm", text);
    let (tree, diags) = fsmc_syntax::parse(file, text);
    let rendered = render::human(&map, &diags, false);
    (tree, diags, rendered)
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col}")
}

/// Checks the first diagnostic's position and message, and snapshots the input with the rendering.
fn check(name: &str, text: &str, at: &str, says: &str) {
    let (_, diags, rendered) = parse(text);
    assert!(!diags.is_empty(), "{name}: no diagnostic for\n{text}");
    assert!(
        diags.iter().all(|d| d.code == Code::Syntax),
        "{name}: {rendered}"
    );
    let d = &diags[0];
    let primary = d.primary.as_ref().expect("a syntax error has a place");
    assert_eq!(
        line_col(text, primary.span.start as usize),
        at,
        "{name}: the caret is in the wrong place:\n{rendered}"
    );
    assert!(
        d.message.contains(says),
        "{name}: the message does not say `{says}`:\n{rendered}"
    );
    insta::with_settings!({
        snapshot_path => "snapshots/syntax",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, format!("--- input\n{text}--- diagnostics\n{rendered}"));
    });
}

macro_rules! cases {
    ($($name:ident: $text:expr, at $at:literal, says $says:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name), $text, $at, $says);
            }
        )*
    };
}

cases! {
    misspelt_state_modifier: "\
machine Shop {
    event PAY;
    start default state Cart;
    finall state Shipped;
    (Cart, PAY) -> Shipped;
}
", at "4:5", says "unknown keyword `finall`";

    missing_semicolon_between_transitions: "\
machine Door {
    event OPEN, CLOSE;
    start default state Closed;
    state Opened;
    (Closed, OPEN) -> Opened
    (Opened, CLOSE) -> Closed;
}
", at "5:29", says "expected `;`, found `(`";

    missing_semicolon_before_closing_brace: "\
machine Door {
    event OPEN;
    start default state Closed;
    final state Opened;
    (Closed, OPEN) -> Opened
}
", at "5:29", says "expected `;`, found `}`";

    missing_comma_between_state_and_event: "\
machine Door {
    event OPEN;
    start default state Closed;
    final state Opened;
    (Closed OPEN) -> Opened;
}
", at "5:12", says "expected `,`, found `OPEN`";

    unclosed_angle_bracket_in_type: "\
machine Prices {
    key history: Vec<u64;
    start default state A;
}
", at "2:21", says "unclosed `<`";

    duration_with_unknown_unit: "\
machine M {
    event TIMEOUT timeout 30x;
}
", at "2:27", says "invalid duration `30x`";

    duration_without_unit: "\
machine M {
    event TIMEOUT timeout 30;
}
", at "2:27", says "invalid duration `30`";

    duration_with_space_before_unit: "\
machine M {
    event TIMEOUT timeout 30 s;
}
", at "2:27", says "invalid duration `30 s`";

    duration_with_spelt_out_unit: "\
machine M {
    event TIMEOUT timeout 30sec;
}
", at "2:27", says "invalid duration `30sec`";

    missing_closing_brace_before_next_machine: "\
machine First {
    start default state A;
    final state B;

machine Second {
    start default state C;
}
", at "1:15", says "machine `First` has no closing `}`";

    missing_closing_brace_at_end_of_file: "\
machine Door {
    start default state Closed;
    final state Opened;
", at "1:14", says "machine `Door` has no closing `}`";

    missing_closing_brace_of_state_body: "\
machine Door {
    event OPEN;
    start default state Closed {
        writes position;
    final state Opened;
    (Closed, OPEN) -> Opened;
}
", at "3:32", says "state `Closed` has no closing `}`";

    extra_closing_brace: "\
machine Door {
    start default state Closed { reads x; }}
    final state Opened;
}
", at "3:5", says "expected `machine`, `app` or `import`, found `final`";

    fat_arrow: "\
machine Door {
    (Closed, OPEN) => Opened;
}
", at "2:20", says "expected `->`, found `=>`";

    transition_without_parentheses: "\
machine Door {
    Closed, OPEN -> Opened;
}
", at "2:5", says "expected `(`";

    unclosed_parenthesis_in_transition: "\
machine Door {
    (Closed, OPEN -> Opened;
}
", at "2:5", says "unclosed `(`";

    mismatched_bracket_in_transition: "\
machine Door {
    (Closed, OPEN] -> Opened;
}
", at "2:18", says "mismatched closing delimiter `]`";

    misspelt_machine_keyword: "\
machne Door {
    start default state Closed;
}
", at "1:1", says "unknown keyword `machne`";

    missing_opening_brace: "\
machine Door
    event OPEN;
    start default state Closed;
}
", at "1:13", says "expected `{`, found `event`";

    missing_machine_name: "\
machine {
    start default state Closed;
}
", at "1:9", says "expected a machine name, found `{`";

    missing_profile_after_colon: "\
machine Door: {
    start default state Closed;
}
", at "1:15", says "expected a profile";

    missing_colon_in_key: "\
machine M {
    key price u64;
}
", at "2:14", says "expected `:`, found `u64`";

    name_starting_with_a_digit: "\
machine M {
    state 1st;
}
", at "2:11", says "expected a state name, found `1st`";

    name_with_non_ascii_letters: "\
machine M {
    state Größe;
}
", at "2:11", says "invalid name `Größe`";

    unterminated_string: "\
machine Chat: genie {
    start default state Ask: user {
        template \"ask.jinja2;
    }
}
", at "3:18", says "unterminated string";

    unterminated_block_comment: "\
machine Door {
    /* the states
    start default state Closed;
}
", at "2:5", says "unterminated block comment";

    doc_comment_documenting_nothing: "\
machine Door {
    start default state Closed;
    /// The end.
}
", at "3:5", says "doc comment not followed by anything";

    doc_comment_on_an_import: "\
/// Shared machines.
import \"common.fsm\";
", at "1:1", says "doc comment before an import";

    attribute_at_end_of_file: "\
machine Door { start default state Closed; }
#[allow(unused_key)]
", at "2:1", says "attribute before the end of the file";

    inner_attribute_after_an_item: "\
machine Door { start default state Closed; }
#![allow(unused_key)]
", at "2:1", says "inner attribute after an item";

    unquoted_import_path: "\
import common.fsm;
", at "1:8", says "expected a path in double quotes";

    import_missing_semicolon: "\
import \"common.fsm\"
machine Door { start default state Closed; }
", at "1:20", says "expected `;`, found `machine`";

    misspelt_timeout_keyword: "\
machine M {
    event ROUND_TIMEOUT timout 30s;
}
", at "2:25", says "unknown keyword `timout`";

    misspelt_if_keyword: "\
machine M {
    (A, GO) -> B iff ready;
}
", at "2:18", says "unknown keyword `iff`";

    state_outside_a_machine: "\
state Closed;
machine Door { start default state Opened; }
", at "1:1", says "expected `machine`, `app` or `import`, found `state`";

    semicolon_after_state_body: "\
machine Door {
    start default state Closed { reads x; };
}
", at "2:44", says "unexpected `;`";

    missing_comma_in_chain: "\
app Oracle {
    chain Registration Price;
}
", at "2:23", says "expected `,`, found `Price`";

    missing_target_state: "\
machine Door {
    (Closed, OPEN) -> ;
}
", at "2:23", says "expected the target state's name, found `;`";

    missing_persistence_mode: "\
machine Chat: genie {
    (Ask, answer) -> Greet persist;
}
", at "2:35", says "expected a persistence mode";

    mismatched_parenthesis_in_attribute: "\
#[allow(unused_key]
machine Door { start default state Closed; }
", at "1:19", says "mismatched closing delimiter `]`";

    missing_colon_in_event_field: "\
machine Talk: dialogue {
    event Propose(price u64) by seller;
}
", at "2:24", says "expected `:`, found `u64`";

    missing_sender_of_performative: "\
machine Talk: dialogue {
    event Propose(price: u64) by;
}
", at "2:33", says "expected a role name, or `initiator` or `responder`, found `;`";

    missing_do_after_side: "\
machine Talk: dialogue {
    (Called, Propose) -> Proposed sender store;
}
", at "2:42", says "expected `do`, found `store`";

    missing_guard_name: "\
machine Door {
    (Closed, OPEN) -> Opened if;
}
", at "2:32", says "expected a guard name, found `;`";

    missing_comma_in_property_list: "\
machine Door {
    start default state Closed { reads position speed; }
}
", at "2:48", says "expected `,`, found `speed`";

    missing_colon_before_state_kind: "\
machine Price: abci {
    start default state Collect collect_same_until_all { payload \"u64\"; }
}
", at "2:32", says "expected `:`, found `collect_same_until_all`";

    missing_round_kind: "\
machine Price: abci {
    start default state Collect: { payload \"u64\"; }
}
", at "2:34", says "expected a round kind";

    missing_event_in_transition: "\
machine Door {
    (Closed, ) -> Opened;
}
", at "2:14", says "expected an event name, found `)`";

    missing_start_state_in_mapping: "\
app Oracle {
    chain Registration, Price;
    FinishedRegistration -> ;
}
", at "3:29", says "expected a start state";

    attribute_inside_a_machine: "\
machine Door {
    start default state Closed;
    #[allow(unused_key)]
    key position: u8;
}
", at "3:5", says "attribute inside a machine";

    missing_closing_brace_before_an_attributed_machine: "\
machine First {
    start default state A;

/// The second machine.
#[deny(no_path_to_final)]
machine Second {
    start default state C;
}
", at "1:15", says "machine `First` has no closing `}`";

    unexpected_closing_brace_at_top_level: "\
machine Door { start default state Closed; }
}
", at "2:1", says "unexpected closing `}`";
}

/// `30x` used to get a one-character caret and no units; the label must now cover the literal and the help list
/// every unit.
#[test]
fn a_bad_duration_is_underlined_whole_and_the_units_are_listed() {
    let text = "machine M { event T timeout 30x; }";
    let (_, diags, _) = parse(text);
    let p = diags[0].primary.as_ref().expect("placed");
    assert_eq!(&text[p.span.range()], "30x");
    let help = diags[0].help.as_deref().unwrap_or_default();
    for unit in ["`ms`", "`s`", "`m`", "`h`"] {
        assert!(help.contains(unit), "{help}");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Recovery
// ---------------------------------------------------------------------------------------------------------------

/// Five mistakes in five places: five errors, in order, and everything else in the tree.
#[test]
fn every_mistake_in_a_file_is_reported_and_the_rest_parses() {
    let text = "\
import \"a.fsm\"
machine Shop {
    event PAY, SHIP;
    start default state Cart;
    finall state Shipped;
    state Paid { reads price }
    (Cart, PAY) -> Paid
    (Paid SHIP) -> Shipped;
    key price: Vec<u64;
    event LATE timeout 30x;
}
app Store {
    chain Shop Other;
}
";
    let (tree, diags, rendered) = parse(text);
    let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "expected `;`, found `machine`",
            "unknown keyword `finall`",
            "expected `;`, found `}`",
            "expected `;`, found `(`",
            "expected `,`, found `SHIP`",
            "unclosed `<`",
            "invalid duration `30x`",
            "expected `,`, found `Other`",
        ],
        "{rendered}"
    );
    let tree = tree.expect("a partial tree");
    assert_eq!(tree.imports.len(), 1);
    let shop = &tree.machines[0];
    let states: Vec<&str> = shop.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(states, ["Cart", "Shipped", "Paid"]);
    assert_eq!(shop.states[1].modifiers[0].text, "final");
    assert_eq!(shop.states[2].properties.len(), 1);
    assert_eq!(shop.transitions.len(), 2, "both transitions repaired");
    assert_eq!(shop.keys.len(), 1);
    assert_eq!(shop.keys[0].ty.text, "Vec<u64>");
    assert_eq!(
        shop.events.len(),
        2,
        "only the event with the bad duration is lost"
    );
    assert_eq!(tree.apps[0].chain.len(), 2);
}

/// Spans of repaired statements are the file's: a name after a respelt keyword points at the name as written.
#[test]
fn repaired_statements_keep_file_spans() {
    let text = "machine M {\n    finall state Shipped;\n    (A GO) -> B;\n}\n";
    let (tree, _, _) = parse(text);
    let m = &tree.expect("tree").machines[0];
    let s = &m.states[0];
    assert_eq!(&text[s.name.span.range()], "Shipped");
    assert_eq!(&text[s.modifiers[0].span.range()], "finall");
    let t = &m.transitions[0];
    assert_eq!(&text[t.to.span.range()], "B");
    assert_eq!(t.event.as_ref().map(|e| &text[e.span.range()]), Some("GO"));
}

/// A wrong statement in the middle of a long machine costs that statement, not the statements around it.
#[test]
fn one_bad_statement_among_many() {
    let mut text = String::from("machine Big {\n    event E;\n    start default state S0;\n");
    for i in 0..500 {
        text.push_str(&format!(
            "    state S{};\n    (S{i}, E) -> S{};\n",
            i + 1,
            i + 1
        ));
        if i == 250 {
            text.push_str("    (S1 E) -> S2;\n");
        }
    }
    text.push_str("}\n");
    let (tree, diags, rendered) = parse(&text);
    assert_eq!(diags.len(), 1, "{rendered}");
    let m = &tree.expect("tree").machines[0];
    assert_eq!(m.states.len(), 501);
    assert_eq!(m.transitions.len(), 501, "the bad one repaired");
}

/// Statements that are each wrong, one after another: one error each.
#[test]
fn consecutive_bad_statements_are_each_reported() {
    let text = "machine M {\n    (A GO) -> B;\n    (B, GO) => C;\n    key k u8;\n    state 9;\n    event E timeout 5q;\n}\n";
    let (_, diags, rendered) = parse(text);
    assert_eq!(diags.len(), 5, "{rendered}");
    let lines: Vec<String> = diags
        .iter()
        .map(|d| {
            line_col(
                text,
                d.primary.as_ref().expect("placed").span.start as usize,
            )
        })
        .map(|lc| lc.split(':').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(lines, ["2", "3", "4", "5", "6"]);
}

/// A file that is not a spec at all stops being diagnosed after a while, and still returns.
#[test]
fn a_flood_of_errors_is_capped() {
    let text = format!("machine M {{\n{}}}\n", "    (A B) -> C;\n".repeat(1000));
    let (_, diags, _) = parse(&text);
    assert!(diags.len() <= 101, "{}", diags.len());
    assert!(
        diags
            .last()
            .is_some_and(|d| d.message.starts_with("too many syntax errors")),
        "{:?}",
        diags.last()
    );
}

/// The driver does not resolve or check a file with syntax errors (no cascade of unknown names), yet the partial
/// trees of the files read are there for tools.
#[test]
fn the_driver_stops_after_syntax_errors_but_keeps_the_partial_tree() {
    let dir = fsmc_testkit::scratch("syntax");
    let text =
        "machine Door {\n    start default state Closed;\n    (Closed, OPEN) -> Nowhere\n}\n";
    let c = fsmc_driver::compile_str(
        "door.fsm",
        text,
        dir.path(),
        &fsmc_driver::Options::default(),
    );
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::Syntax], "no unknown event or state reported");
    assert!(c.checked.is_none());
    let fsmc_driver::resolve::Syntax::Fsm(tree) = &c.units[0].syntax else {
        panic!("an .fsm unit")
    };
    assert_eq!(tree.machines[0].transitions.len(), 1);
}

/// Every one-character deletion, and insertions of the characters that matter to structure, at every place of a
/// spec using every construct: no panic, every label inside the file on character boundaries, every span of the
/// partial tree too, and an error whenever the tree is partial.
#[test]
fn mutations_of_a_spec_are_diagnosed_with_spans_in_the_file() {
    let spec = r#"#![allow(unused_key)]
import "common.fsm" as Common;
/// Größe: a doc comment with letters outside ASCII.
#[deny(no_path_to_final)]
machine Shop: abci {
    label "packages.shop";
    event PAY, SHIP;
    event LATE timeout 1.5m;
    event Offer(price: u64, goods: Vec<(String, [u8; 4])>) by seller;
    cross_period key price: std::collections::BTreeMap<String, u64>;
    start default state Cart: collect_same_until_all { payload "u64"; writes price; done = PAY; }
    final state Shipped;
    (Cart, PAY) -> Shipped if paid unless blocked do log, notify persist raw;
    Cart -> Shipped, Cart;
}
app Store {
    chain Shop, Common;
    Shop::Shipped -> Cart;
}
"#;
    let check_spans = |text: &str, what: &str| {
        let (tree, diags, _) = parse(text);
        let inside = |s: fsmc_base::source::Span| {
            (s.end as usize) <= text.len()
                && text.is_char_boundary(s.start as usize)
                && text.is_char_boundary(s.end as usize)
        };
        for d in &diags {
            for l in d.primary.iter().chain(&d.secondary) {
                assert!(
                    inside(l.span),
                    "{what}: label {l:?} outside the text\n{text}"
                );
            }
        }
        if let Some(tree) = tree {
            for m in &tree.machines {
                assert!(
                    inside(m.span) && inside(m.name.span),
                    "{what}: machine span\n{text}"
                );
                for t in &m.transitions {
                    assert!(
                        inside(t.span) && inside(t.to.span),
                        "{what}: transition span\n{text}"
                    );
                }
                for s in &m.states {
                    assert!(inside(s.name.span), "{what}: state span\n{text}");
                    for p in &s.properties {
                        assert!(inside(p.span), "{what}: property span\n{text}");
                    }
                }
            }
        }
    };
    check_spans(spec, "original");
    assert!(parse(spec).1.is_empty());
    let boundaries: Vec<usize> = spec.char_indices().map(|(i, _)| i).collect();
    for &i in &boundaries {
        let next = spec[i..].chars().next().map_or(0, char::len_utf8);
        let deleted = format!("{}{}", &spec[..i], &spec[i + next..]);
        check_spans(&deleted, &format!("delete at {i}"));
    }
    for &i in boundaries.iter().step_by(3) {
        for c in [
            ";", ",", "{", "}", "(", ")", "<", "[", "\"", "/*", "///", "#", "x", "1", "->",
        ] {
            let inserted = format!("{}{c}{}", &spec[..i], &spec[i..]);
            check_spans(&inserted, &format!("insert {c} at {i}"));
        }
    }
}

/// `=>` is underlined whole, and the help shows how a transition is written.
#[test]
fn a_fat_arrow_is_underlined_whole() {
    let text = "machine M {\n    (A, GO) => B;\n}\n";
    let (tree, diags, _) = parse(text);
    let p = diags[0].primary.as_ref().expect("placed");
    assert_eq!(&text[p.span.range()], "=>");
    assert!(
        diags[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("(State, EVENT) -> Target;"))
    );
    assert_eq!(
        tree.expect("tree").machines[0].transitions.len(),
        1,
        "repaired"
    );
}
