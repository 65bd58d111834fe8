//! Rust types written in a spec (key types, event fields, payloads) are pasted into generated code, so they must
//! be types and nothing else: a block in an array length, a macro or an `impl Trait` would run or mean code the
//! spec's reader cannot see. Allowed: paths with generic arguments, tuples, arrays and slices of literal length,
//! references. A bare name that a generated item shadows (`State`, `Data`, …) is refused too: inside the
//! generated module it would name the generated item, not the user's type. Any other bare name must be a
//! primitive or a type of the prelude: the generated module imports nothing, so rustc could not find it, and
//! its error would point at the whole macro rather than at the spec (a misspelt `u46` is caught here).

use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Span;

/// The type names every generated module may define, whatever the profile.
pub(crate) const GENERATED_TYPES: &[&str] = &[
    "Agent",
    "App",
    "Behaviour",
    "Context",
    "Data",
    "Env",
    "Environment",
    "Event",
    "Hooks",
    "Message",
    "Node",
    "Role",
    "Round",
    "Spec",
    "State",
    "StateMachine",
    "Transition",
    "View",
];

/// The bare names a type in the generated module can use: the primitives and the prelude's types.
const IN_SCOPE: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64", "Option", "Result", "Vec", "String", "Box",
];

const HELP: &str = "a spec's types are paths with generic arguments, tuples, arrays and slices of literal \
                    length, and references; name anything else with a type alias in your crate (`crate::MyType`)";

/// Checks the type `text` written at `span`; `shadowed` lists more names the machine's module generates.
pub(crate) fn check(text: &str, span: Span, shadowed: &[String]) -> Option<Diagnostic> {
    let ty = match syn::parse_str::<syn::Type>(text) {
        Ok(ty) => ty,
        Err(_) => {
            return Some(
                Diagnostic::new(Code::InvalidType, format!("`{text}` is not a Rust type"))
                    .at(span, "expected a type, e.g. `u64` or `Vec<String>`")
                    .help(HELP),
            );
        }
    };
    if let Err(what) = plain(&ty) {
        return Some(
            Diagnostic::new(
                Code::InvalidType,
                format!("`{text}` is not a plain type: it contains {what}"),
            )
            .at(span, format!("{what} is not allowed in a spec's type"))
            .help(HELP),
        );
    }
    let mut bare = Vec::new();
    bare_names(&ty, &mut bare);
    if let Some(name) = bare
        .iter()
        .find(|n| GENERATED_TYPES.contains(&n.as_str()) || shadowed.contains(n))
    {
        return Some(
            Diagnostic::new(
                Code::InvalidType,
                format!("`{name}` would name the generated `{name}`, not your type"),
            )
            .at(span, "the generated module defines this name")
            .help(format!(
                "write the path to your type: `crate::{name}` or `super::{name}`"
            )),
        );
    }
    let name = bare.iter().find(|n| !IN_SCOPE.contains(&n.as_str()))?;
    let help = match number_typo(name)
        .map(|p| format!("did you mean `{p}`?"))
        .or_else(|| fsmc_base::diag::did_you_mean(name, IN_SCOPE.iter().copied()))
    {
        Some(typo) => typo,
        None => format!("write the path to your type: `crate::{name}` or `super::{name}`"),
    };
    Some(
        Diagnostic::new(
            Code::UnknownType,
            format!("cannot find type `{name}`: it is no primitive or prelude type"),
        )
        .at(
            span,
            "the generated code imports nothing: a bare name must be a primitive or prelude type",
        )
        .help(help),
    )
}

/// The numeric primitive a name like `u46` or `i3` most likely meant: the one of the same letter with the same
/// digits in another order, else the one whose width is nearest. Names of letters and digits are too short for a
/// similarity measure to see that `u46` is `u64`.
fn number_typo(name: &str) -> Option<&'static str> {
    let (letter, digits) = name.split_at(1);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let widths: &[(&str, u32)] = match letter {
        "u" => &[
            ("u8", 8),
            ("u16", 16),
            ("u32", 32),
            ("u64", 64),
            ("u128", 128),
        ],
        "i" => &[
            ("i8", 8),
            ("i16", 16),
            ("i32", 32),
            ("i64", 64),
            ("i128", 128),
        ],
        "f" => &[("f32", 32), ("f64", 64)],
        _ => return None,
    };
    let sorted = |s: &str| {
        let mut b = s.as_bytes().to_vec();
        b.sort_unstable();
        b
    };
    if let Some((p, _)) = widths
        .iter()
        .find(|(p, _)| sorted(&p[1..]) == sorted(digits))
    {
        return Some(p);
    }
    let n: u32 = digits.parse().unwrap_or(u32::MAX);
    widths
        .iter()
        .min_by_key(|(_, w)| w.abs_diff(n))
        .map(|(p, _)| *p)
}

/// Every one-segment path in `ty` (`State` in `Vec<State>`): what a generated item of that name would shadow.
fn bare_names(ty: &syn::Type, out: &mut Vec<String>) {
    match ty {
        syn::Type::Path(p) => {
            if p.qself.is_none()
                && p.path.leading_colon.is_none()
                && let [only] = p.path.segments.iter().collect::<Vec<_>>().as_slice()
            {
                out.push(only.ident.to_string());
            }
            for seg in &p.path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(t) = arg {
                            bare_names(t, out);
                        }
                    }
                }
            }
        }
        syn::Type::Tuple(t) => t.elems.iter().for_each(|t| bare_names(t, out)),
        syn::Type::Array(a) => bare_names(&a.elem, out),
        syn::Type::Slice(s) => bare_names(&s.elem, out),
        syn::Type::Reference(r) => bare_names(&r.elem, out),
        syn::Type::Paren(p) => bare_names(&p.elem, out),
        syn::Type::Group(g) => bare_names(&g.elem, out),
        _ => {}
    }
}

/// `Ok` for the forms a spec's type may take; otherwise what it contains that is not allowed.
fn plain(ty: &syn::Type) -> Result<(), &'static str> {
    match ty {
        syn::Type::Path(p) => {
            if p.qself.is_some() {
                return Err("a qualified path (`<T as Trait>::Item`)");
            }
            for seg in &p.path.segments {
                match &seg.arguments {
                    syn::PathArguments::None => {}
                    syn::PathArguments::AngleBracketed(args) => {
                        for arg in &args.args {
                            match arg {
                                syn::GenericArgument::Type(t) => plain(t)?,
                                syn::GenericArgument::Lifetime(_) => {}
                                syn::GenericArgument::Const(e) => literal(e)?,
                                _ => return Err("an associated type or bound"),
                            }
                        }
                    }
                    syn::PathArguments::Parenthesized(_) => {
                        return Err("a function trait (`Fn(…) -> …`)");
                    }
                }
            }
            Ok(())
        }
        syn::Type::Tuple(t) => t.elems.iter().try_for_each(plain),
        syn::Type::Array(a) => {
            plain(&a.elem)?;
            literal(&a.len)
        }
        syn::Type::Slice(s) => plain(&s.elem),
        syn::Type::Reference(r) => plain(&r.elem),
        syn::Type::Paren(p) => plain(&p.elem),
        syn::Type::Group(g) => plain(&g.elem),
        syn::Type::Macro(_) => Err("a macro"),
        syn::Type::ImplTrait(_) => Err("`impl Trait`"),
        syn::Type::TraitObject(_) => Err("a trait object"),
        syn::Type::BareFn(_) => Err("a function pointer"),
        syn::Type::Ptr(_) => Err("a raw pointer"),
        syn::Type::Never(_) => Err("`!`"),
        syn::Type::Infer(_) => Err("`_`"),
        _ => Err("a form of type that is not supported"),
    }
}

/// Array lengths and const arguments: an integer literal only (a block or call would run at build time).
fn literal(e: &syn::Expr) -> Result<(), &'static str> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => Ok(()),
        _ => Err("a length that is not an integer literal"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(text: &str) -> Option<String> {
        check(text, Span::default(), &["Propose".to_string()]).map(|d| d.message)
    }

    #[test]
    fn plain_types_pass() {
        for ty in [
            "u64",
            "String",
            "std::collections::BTreeMap<String, Vec<(u8, i64)>>",
            "[u8; 32]",
            "&'static str",
            "&[u8]",
            "(String, u64)",
            "()",
            "Option<Option<bool>>",
            "crate::State",
            "super::Data",
            "::std::string::String",
        ] {
            assert_eq!(verdict(ty), None, "{ty}");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        for (ty, what) in [
            ("[u8; { 1 + 1 }]", "a length that is not an integer literal"),
            ("[u8; N]", "a length that is not an integer literal"),
            ("Vec<[u8; f()]>", "a length that is not an integer literal"),
            ("impl Iterator<Item = u8>", "`impl Trait`"),
            ("Box<dyn Fn(u8) -> u8>", "a trait object"),
            ("fn(u8) -> u8", "a function pointer"),
            ("*const u8", "a raw pointer"),
            ("vec![u8]", "a macro"),
            ("<Vec<u8> as IntoIterator>::Item", "a qualified path"),
            ("Vec<_>", "`_`"),
        ] {
            let message = verdict(ty).unwrap_or_else(|| panic!("{ty} passed"));
            assert!(message.contains(what), "{ty}: {message}");
        }
        assert!(verdict("Vec<").unwrap().contains("is not a Rust type"));
    }

    #[test]
    fn bare_names_must_be_in_scope() {
        for (ty, help) in [
            ("u46", "did you mean `u64`?"),
            ("i33", "did you mean `i32`?"),
            ("f46", "did you mean `f64`?"),
            ("Vec<strng>", "did you mean `String`?"),
            ("Money", "crate::Money"),
        ] {
            let d = check(ty, Span::default(), &[]).unwrap_or_else(|| panic!("{ty} passed"));
            assert_eq!(d.code, Code::UnknownType, "{ty}");
            assert!(
                d.help.as_deref().is_some_and(|h| h.contains(help)),
                "{ty}: {:?}",
                d.help
            );
        }
        assert_eq!(verdict("Result<Box<[u8]>, crate::Money>"), None);
    }

    #[test]
    fn bare_generated_names_are_refused() {
        for ty in ["State", "Data", "Round", "Propose"] {
            let message = verdict(ty).unwrap_or_else(|| panic!("{ty} passed"));
            assert!(message.contains("would name the generated"), "{ty}");
        }
        assert!(
            verdict("Vec<State>").is_some(),
            "nested names are shadowed too"
        );
        assert_eq!(verdict("Vec<crate::State>"), None);
    }
}
