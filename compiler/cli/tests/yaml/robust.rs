//! Robustness: the reader never panics, on truncated, garbled, random or absurdly nested input.

use super::{FILE, HELLO, ok};
use fsmc::export::yaml::write;
use fsmc_driver::yaml::parse;
use fsmc_testkit::Lcg;

/// Parsing never panics, every span lies on character boundaries, and unusable documents say why.
fn robust(text: &str) {
    super::fast::agrees(FILE, text);
    let (spec, diags) = parse(FILE, text);
    for d in &diags {
        for l in d.primary.iter().chain(&d.secondary) {
            assert!(
                text.get(l.span.range()).is_some(),
                "span {:?} in {text:?}",
                l.span
            );
        }
    }
    assert!(
        spec.is_some() || diags.iter().any(|d| d.is_error()),
        "{text:?}"
    );
    if let Some(spec) = spec {
        // Whatever was read can be written, and what is written reads back to the same text.
        let out = write(&spec);
        if diags.is_empty() {
            assert_eq!(write(&ok(&out)), out);
        }
    }
}

#[test]
fn garbage_never_panics() {
    let text = HELLO.replace("HelloWorldAbciApp", "\"Héllo ✓\"");
    for (i, _) in text.char_indices() {
        robust(&text[..i]);
    }
    let mut rng = Lcg(42);
    let alphabet: Vec<char> = ":-[]{}#&*!|>'\"%@?,\n \tAé✓\u{feff}\r0".chars().collect();
    for _ in 0..3000 {
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..=rng.below(4) {
            let at = rng.below(chars.len());
            match rng.below(3) {
                0 => chars[at] = alphabet[rng.below(alphabet.len())],
                1 => chars.insert(at, alphabet[rng.below(alphabet.len())]),
                _ => drop(chars.remove(at)),
            }
        }
        robust(&chars.into_iter().collect::<String>());
    }
    for _ in 0..500 {
        let bytes: Vec<u8> = (0..rng.below(200)).map(|_| rng.below(256) as u8).collect();
        robust(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    for text in [
        "[".repeat(n),
        "{".repeat(n),
        "{a: [".repeat(n),
        "- ".repeat(n) + "x",
        "? ".repeat(n) + "x",
    ] {
        robust(&text);
    }
    let nested: String = (0..1000)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    robust(&nested);
    robust(&format!("label: {}x{}", "[".repeat(200), "]".repeat(200)));
}
