//! The fast path for canonical texts (`canonical`) against the full reader: whenever it accepts a text, the
//! result is the full reader's; and it does accept the canonical texts it exists for.

use super::{FILE, HELLO};
use fsmc::export::yaml::write;
use fsmc_base::source::{FileId, Name, Span};
use fsmc_driver::yaml::read::parse_full;
use fsmc_driver::yaml::{OaSpec, OaTransition, canonical, parse};
use fsmc_testkit::Lcg;

/// Whether the fast path accepts `text`; when it does, asserts that the full reader reads the same spec without a
/// diagnostic. Every text the other tests parse goes through here too.
pub(super) fn agrees(file: FileId, text: &str) -> bool {
    let Some(fast) = canonical::read(file, text) else {
        return false;
    };
    let (full, diags) = parse_full(file, text);
    assert!(
        diags.is_empty(),
        "the fast path accepted a text the full reader reports:\n{text}\n{diags:#?}"
    );
    assert_eq!(
        Some(&fast),
        full.as_ref(),
        "the two readers differ on:\n{text}"
    );
    // `parse` takes the fast path, and so returns the same.
    assert_eq!(parse(file, text), (Some(fast), Vec::new()));
    true
}

fn accepted(text: &str) {
    assert!(agrees(FILE, text), "the fast path declined:\n{text}");
}

fn declined(text: &str) {
    assert!(
        canonical::read(FILE, text).is_none(),
        "the fast path accepted:\n{text}"
    );
}

#[test]
fn reads_the_canonical_fixture() {
    accepted(HELLO);
    let spec = canonical::read(FILE, HELLO).expect("accepted");
    assert_eq!(&HELLO[spec.span.range()], HELLO.trim_end());
    assert_eq!(&HELLO[spec.transition_func_span.range()], "transition_func");
}

#[test]
fn empty_collections_and_dotted_labels() {
    let text = "\
alphabet_in: []
default_start_state: A
final_states: []
label: packages.valory.skills.hello_world_abci.rounds.HelloWorldAbciApp
start_states: []
states: []
transition_func: {}
";
    accepted(text);
    // Names that are strings to YAML 1.1 although they start like numbers or booleans; key names are never
    // typed at all.
    accepted(
        &HELLO
            .replace("- DONE", "- yes_not")
            .replace("(PrintMessageRound, DONE)", "(1, yes)")
            .replace(": PrintMessageRound", ": state-1.x"),
    );
    accepted(&HELLO.replace("- DONE", "- '09'").replace("'", ""));
}

#[test]
fn declines_what_the_full_reader_reports_or_reads_otherwise() {
    for (from, to) in [
        // Typed scalars: the full reader reports them.
        ("- DONE", "- yes"),
        ("- DONE", "- 1"),
        ("- DONE", "- ~"),
        ("- DONE", "- 1:20"),
        ("- DONE", "- 0x1"),
        ("- DONE", "- null"),
        ("- DONE", "- 1.5"),
        (": PrintMessageRound\n", ": no\n"),
        ("label: HelloWorldAbciApp", "label: 2024-01-02"),
        // Quotes, comments and other YAML the scanner leaves to the parser.
        ("- DONE", "- 'DONE'"),
        ("- DONE", "- \"DONE\""),
        ("- DONE", "- DONE # done"),
        ("- DONE", "- DONE "),
        ("- DONE", "-  DONE"),
        ("- DONE", "  - DONE"),
        ("- DONE", "- &a DONE"),
        ("- DONE", "- !!str DONE"),
        ("final_states: []", "final_states: [A]"),
        ("final_states: []", "final_states: {}"),
        ("final_states: []", "final_states:"),
        ("alphabet_in:", "---\nalphabet_in:"),
        ("transition_func:", "transition_func: # the table"),
        (
            "    (PrintMessageRound, DONE)",
            "    (PrintMessageRound,DONE)",
        ),
        (
            "    (PrintMessageRound, DONE)",
            "\t(PrintMessageRound, DONE)",
        ),
        (
            "    (PrintMessageRound, DONE)",
            "  (PrintMessageRound, DONE)",
        ),
        ("    (PrintMessageRound, DONE)", "    (Print.Round, DONE)"),
        ("\n", "\r\n"),
        ("label:", "extra: x\nlabel:"),
        ("states:\n", "states:\n\n"),
        ("HelloWorldAbciApp", "HélloWorldAbciApp"),
        // A repeated transition, which the full reader reports.
        (
            "    (RegistrationRound, DONE): PrintMessageRound\n",
            "    (RegistrationRound, DONE): PrintMessageRound\n    (PrintMessageRound, DONE): A\n",
        ),
    ] {
        assert!(HELLO.contains(from), "{from}");
        let text = HELLO.replacen(from, to, 1);
        declined(&text);
        // Whatever the full reader makes of it, `parse` gives the same.
        assert_eq!(parse(FILE, &text), parse_full(FILE, &text));
    }
    declined(HELLO.trim_end());
    declined(&format!("\u{feff}{HELLO}"));
    declined(&format!("{HELLO}...\n"));
    declined(&format!("{HELLO}\n"));
    declined("");
}

#[test]
fn a_table_out_of_order_is_read_if_nothing_repeats() {
    let text = HELLO.replace("    (PrintMessageRound, DONE): RegistrationRound\n", "")
        + "    (PrintMessageRound, DONE): RegistrationRound\n";
    accepted(&text);
    let repeated = format!("{text}    (PrintMessageRound, ROUND_TIMEOUT): A\n");
    declined(&repeated);
    assert_eq!(parse_full(FILE, &repeated).1.len(), 1);
}

/// A spec of `n` states in upstream's style, built in memory; `write` gives its canonical text.
fn synthetic(n: usize, seed: u64) -> OaSpec {
    let mut rng = Lcg(seed);
    let name = |s: String| Name::new(s, Span::default());
    let states: Vec<Name> = (0..n).map(|i| name(format!("State{i:05}Round"))).collect();
    let events: Vec<Name> = [
        "DONE",
        "NO_MAJORITY",
        "ROUND_TIMEOUT",
        "ERROR_7",
        "y",
        "on_",
    ]
    .iter()
    .map(|e| name(e.to_string()))
    .collect();
    let mut transitions = Vec::new();
    for (i, s) in states.iter().enumerate() {
        for e in events.iter().take(rng.below(events.len() + 1)) {
            transitions.push(OaTransition {
                from: s.clone(),
                event: e.clone(),
                to: states[(i + 1 + rng.below(3)) % n].clone(),
                key_span: Span::default(),
            });
        }
    }
    OaSpec {
        label: name(format!(
            "packages.valory.skills.synth_{n}.rounds.SynthAbciApp"
        )),
        alphabet_in: events,
        default_start_state: states[0].clone(),
        final_states: states.iter().step_by(7).cloned().collect(),
        start_states: vec![states[0].clone()],
        states,
        transitions,
        ..OaSpec::default()
    }
}

#[test]
fn synthetic_specs_of_several_sizes_are_accepted() {
    for (n, seed) in [(1, 1), (2, 2), (10, 3), (333, 4), (5000, 5)] {
        let text = write(&synthetic(n, seed));
        accepted(&text);
    }
}

#[test]
fn mutated_texts_are_read_alike_or_declined() {
    let empty = "alphabet_in: []\ndefault_start_state: A\nfinal_states: []\nlabel: a.b\nstart_states: []\n\
                 states: []\ntransition_func: {}\n";
    // A table out of order (its first row moved to the end), where repeats are found by hashing.
    let sorted = write(&synthetic(6, 9));
    let first_row = sorted.find("    (").expect("a table");
    let row_end = first_row + sorted[first_row..].find('\n').expect("a line") + 1;
    let unsorted = format!(
        "{}{}{}",
        &sorted[..first_row],
        &sorted[row_end..],
        &sorted[first_row..row_end]
    );
    let bases = [HELLO.to_string(), sorted, unsorted, empty.to_string()];
    for base in &bases {
        accepted(base);
    }
    let alphabet = b" \n#'\":-(),[]{}y1~\t.A_0e";
    let mut rng = Lcg(7);
    let (mut cases, mut still_accepted) = (0, 0);
    for base in &bases {
        for _ in 0..3000 {
            let mut bytes = base.as_bytes().to_vec();
            for _ in 0..=rng.below(3) {
                let at = rng.below(bytes.len() + 1);
                let c = alphabet[rng.below(alphabet.len())];
                match rng.below(3) {
                    0 if at < bytes.len() => bytes[at] = c,
                    1 => bytes.insert(at, c),
                    _ if at < bytes.len() => drop(bytes.remove(at)),
                    _ => bytes.push(c),
                }
            }
            let text = String::from_utf8(bytes).expect("the alphabet is ASCII");
            cases += 1;
            still_accepted += usize::from(agrees(FILE, &text));
        }
    }
    // Many edits keep the layout (a renamed state, a dropped line): the comparison above is not vacuous.
    assert!(still_accepted * 20 > cases, "{still_accepted} of {cases}");
}

#[test]
fn every_canonical_corpus_spec_takes_the_fast_path() {
    let Some(root) = fsmc_testkit::corpus::for_test("oa fast-path corpus test") else {
        return;
    };
    let mut canonical = 0;
    for dir in [root.clone(), root.join("historical"), root.join("variants")] {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("corpus files are UTF-8");
            let accepted = agrees(FileId(0), &text);
            let written = parse_full(FileId(0), &text).0.map(|s| write(&s));
            if written.as_deref() == Some(text.as_str()) {
                assert!(accepted, "{}: canonical but declined", path.display());
                canonical += 1;
            }
        }
    }
    assert!(canonical > 0, "no canonical file in the corpus");
}
