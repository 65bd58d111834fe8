//! How spec names become Rust identifiers. Shared by the collision check and the code generator, so the
//! check predicts exactly what codegen will emit.

use std::borrow::Cow;

/// Characters that cannot appear in an identifier become `_` (Open Autonomy YAML names are free text), so the
/// result is always a valid identifier, and ASCII; two names that then collide are reported by the checks. Most
/// names are identifiers already and are borrowed: the checks convert every name of a spec.
fn sanitize(name: &str) -> Cow<'_, str> {
    if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Cow::Borrowed(name);
    }
    let clean = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Cow::Owned(clean)
}

/// `NO_MAJORITY` → `NoMajority`, `registration_round` → `RegistrationRound`, `RegistrationRound` unchanged.
pub fn camel(name: &str) -> String {
    let name = &sanitize(name);
    let mut out = String::with_capacity(name.len());
    let all_caps = !name.chars().any(|c| c.is_ascii_lowercase());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            if all_caps {
                out.extend(chars.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(chars);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'X');
    }
    out
}

/// `RegistrationRound` → `registration_round`, `NO_MAJORITY` → `no_majority`.
pub fn snake(name: &str) -> String {
    let name = sanitize(name);
    // `sanitize` leaves only ASCII, so bytes are characters.
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(bytes.len() + 4);
    let mut prev: Option<u8> = None;
    for (i, &c) in bytes.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower = prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            let next_lower = bytes.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = prev.is_some_and(|p| p.is_ascii_uppercase());
            if prev.is_some() && !out.ends_with('_') && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(char::from(c.to_ascii_lowercase()));
        } else {
            out.push(char::from(c));
        }
        prev = Some(c);
    }
    if out.contains("__") {
        out = inner_underscores_once(&out);
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'x');
    }
    if is_keyword(&out) {
        out.push('_');
    }
    out
}

/// `s` with each run of `_` between two words made one: rustc's `non_snake_case` lint refuses `price__abci_app`
/// (from the label `Price--AbciApp`) but not a leading or trailing run, which is kept.
fn inner_underscores_once(s: &str) -> String {
    let inner = s.trim_matches('_');
    let lead = &s[..s.len() - s.trim_start_matches('_').len()];
    let trail = &s[s.trim_end_matches('_').len()..];
    let mut out = String::with_capacity(s.len());
    out.push_str(lead);
    for (i, word) in inner.split('_').filter(|w| !w.is_empty()).enumerate() {
        if i > 0 {
            out.push('_');
        }
        out.push_str(word);
    }
    if !inner.is_empty() {
        out.push_str(trail);
    }
    out
}

/// Rust keywords (strict and reserved, 2024 edition) that cannot name a field or module.
pub fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case() {
        assert_eq!(camel("NO_MAJORITY"), "NoMajority");
        assert_eq!(camel("RegistrationRound"), "RegistrationRound");
        assert_eq!(camel("registration_round"), "RegistrationRound");
        assert_eq!(camel("cfp"), "Cfp");
        assert_eq!(camel("_"), "X");
        // Free-text names from YAML still give identifiers.
        assert_eq!(camel("Foo-Bar round"), "FooBarRound");
        assert_eq!(snake("Foo-Bar"), "foo_bar");
    }

    #[test]
    fn snake_case() {
        assert_eq!(snake("RegistrationRound"), "registration_round");
        assert_eq!(snake("NO_MAJORITY"), "no_majority");
        assert_eq!(snake("LLMAbciApp"), "llm_abci_app");
        assert_eq!(snake("Keep3rAbciApp"), "keep3r_abci_app");
        assert_eq!(snake("type"), "type_");
        // rustc's `non_snake_case` refuses a run of `_` inside a name, not at its ends.
        assert_eq!(snake("Price--AbciApp"), "price_abci_app");
        assert_eq!(snake("a__b___c"), "a_b_c");
        assert_eq!(snake("_a__b_"), "_a_b_");
        assert_eq!(snake("__"), "__");
    }

    /// The conversions as first written, one allocation per step: the faster ones must agree with them.
    mod reference {
        fn sanitize(name: &str) -> String {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        }

        pub fn snake(name: &str) -> String {
            let name = &sanitize(name);
            let mut out = String::with_capacity(name.len() + 4);
            let chars: Vec<char> = name.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                if c.is_ascii_uppercase() {
                    let prev_lower = i > 0
                        && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
                    let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                    let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
                    if i > 0 && !out.ends_with('_') && (prev_lower || (prev_upper && next_lower)) {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.push(c);
                }
            }
            // Runs of `_` inside the name are one, as rustc's `non_snake_case` lint wants.
            let words: Vec<&str> = out.split('_').collect();
            let lead = words.iter().take_while(|w| w.is_empty()).count();
            let inner: Vec<&str> = words.iter().copied().filter(|w| !w.is_empty()).collect();
            let mut out = if inner.is_empty() {
                out.clone()
            } else {
                let trail = words.iter().rev().take_while(|w| w.is_empty()).count();
                format!(
                    "{}{}{}",
                    "_".repeat(lead),
                    inner.join("_"),
                    "_".repeat(trail)
                )
            };
            if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
                out.insert(0, 'x');
            }
            if super::is_keyword(&out) {
                out.push('_');
            }
            out
        }
    }

    proptest::proptest! {
        #[test]
        fn snake_matches_reference(name in "[a-zA-Z0-9_ é-]{0,12}|\\PC{0,12}") {
            proptest::prop_assert_eq!(snake(&name), reference::snake(&name));
        }
    }
}
