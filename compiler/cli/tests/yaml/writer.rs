//! The writer against outputs of PyYAML 6 itself (`yaml.safe_dump(d, indent=4)` on upstream's `generate()`).

use fsmc::export::yaml::{tuple_key, write};
use fsmc_base::source::{FileId, Name, Span};
use fsmc_driver::yaml::{OaSpec, OaTransition, parse};

fn names(texts: &[&str]) -> Vec<Name> {
    texts
        .iter()
        .map(|t| Name::new(*t, Span::default()))
        .collect()
}

fn transition(from: &str, event: &str, to: &str) -> OaTransition {
    let n = |t: &str| Name::new(t, Span::default());
    OaTransition {
        from: n(from),
        event: n(event),
        to: n(to),
        key_span: Span::default(),
    }
}

/// Quoting, folding, a complex key, sorting and deduplication, all at once; `{L}` stands for 118 `L`s.
const QUIRKS: &str = r#"alphabet_in:
- '12'
- DONE
- "\xE9"
default_start_state: 'yes'
final_states: []
label: 'my app: the label that is long enough to be folded by the emitter at eighty
    columns wide'
start_states:
- ''
- it's
states:
- A
- B
transition_func:
    (A, DONE): B
    ? ({L},
        E)
    : A
"#;

fn quirks() -> String {
    QUIRKS.replace("{L}", &"L".repeat(118))
}

#[test]
fn writes_what_pyyaml_writes() {
    let long = "L".repeat(118);
    let spec = OaSpec {
        label: Name::new(
            "my app: the label that is long enough to be folded by the emitter at eighty columns wide",
            Span::default(),
        ),
        default_start_state: Name::new("yes", Span::default()),
        alphabet_in: names(&["DONE", "12", "DONE", "é"]),
        start_states: names(&["it's", ""]),
        states: names(&["B", "A", "B"]),
        // A repeated (state, event) keeps its last target, as a Python dict does.
        transitions: vec![
            transition("A", "DONE", "C"),
            transition(&long, "E", "A"),
            transition("A", "DONE", "B"),
        ],
        ..OaSpec::default()
    };
    assert_eq!(write(&spec), quirks());
    // The complex key appears from 123 characters on (PyYAML counts the omitted `!!str` tag).
    let spec = OaSpec {
        transitions: vec![transition(&long[1..], "E", "A")],
        ..spec
    };
    assert!(write(&spec).contains(&format!("    ({}, E): A\n", &long[1..])));
}

#[test]
fn pyyaml_output_reads_back_to_itself() {
    let (spec, diags) = parse(FileId(0), &quirks());
    assert!(diags.is_empty(), "{diags:#?}");
    let spec = spec.expect("usable");
    assert_eq!(spec.default_start_state.as_str(), "yes");
    assert_eq!(spec.alphabet_in[2].as_str(), "é");
    assert_eq!(write(&spec), quirks());
}

#[test]
fn empty_collections_are_flow_style() {
    let spec = OaSpec {
        label: Name::new("x", Span::default()),
        default_start_state: Name::new("A", Span::default()),
        ..OaSpec::default()
    };
    let expected = "alphabet_in: []\ndefault_start_state: A\nfinal_states: []\nlabel: x\nstart_states: []\n\
                    states: []\ntransition_func: {}\n";
    assert_eq!(write(&spec), expected);
    let (again, diags) = parse(FileId(0), expected);
    assert!(diags.is_empty());
    assert_eq!(again.map(|s| write(&s)).as_deref(), Some(expected));
}

#[test]
fn transition_keys_are_python_tuple_strings() {
    assert_eq!(tuple_key("A", "B"), "(A, B)");
    // `str(("it's", "x")).replace("'", "")`: Python quotes with `"` and the replace drops the apostrophe.
    assert_eq!(tuple_key("it's", "x"), "(\"its\", x)");
    assert_eq!(tuple_key("a\\b", "\u{7}"), "(a\\\\b, \\x07)");
}
