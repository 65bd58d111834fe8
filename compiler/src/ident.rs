//! How spec names become Rust identifiers. Shared by the collision check and the code generator, so the
//! check predicts exactly what codegen will emit.

/// Characters that cannot appear in an identifier become `_` (Open Autonomy YAML names are free text), so the
/// result is always a valid identifier; two names that then collide are reported by the checks.
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
    let name = &sanitize(name);
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
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
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'x');
    }
    if is_keyword(&out) {
        out.push('_');
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
    }
}
