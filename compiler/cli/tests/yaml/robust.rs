//! Robustness: the reader never panics, on truncated, garbled, random or absurdly nested input.

use super::{FILE, HELLO, ok};
use fsmc::export::yaml::write;
use fsmc_driver::yaml::parse;

/// A tiny deterministic generator, so the garbage tests are reproducible.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

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
        for _ in 0..=rng.next(4) {
            let at = rng.next(chars.len());
            match rng.next(3) {
                0 => chars[at] = alphabet[rng.next(alphabet.len())],
                1 => chars.insert(at, alphabet[rng.next(alphabet.len())]),
                _ => drop(chars.remove(at)),
            }
        }
        robust(&chars.into_iter().collect::<String>());
    }
    for _ in 0..500 {
        let bytes: Vec<u8> = (0..rng.next(200)).map(|_| rng.next(256) as u8).collect();
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
