//! Rust types compared as a spec writes them: a path reduced to its last segment, so that the same type written
//! with or without its module path is one type.

/// A type as text, with each path reduced to its last segment (and its generic arguments), so the same type
/// written with or without its module path compares equal. The runtime's `AgentId` is a `String`.
/// Text that is not a type (reported elsewhere) compares as written, without spaces.
pub(super) fn canonical_text(text: &str) -> String {
    match syn::parse_str::<syn::Type>(text) {
        Ok(ty) => canonical(&ty),
        Err(_) => text.split_whitespace().collect(),
    }
}

pub(super) fn canonical(ty: &syn::Type) -> String {
    use quote::ToTokens;
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return String::new();
            };
            let name = match last.ident.to_string().as_str() {
                "AgentId" => "String".to_string(),
                other => other.to_string(),
            };
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => {
                    let inner: Vec<String> = args
                        .args
                        .iter()
                        .map(|a| match a {
                            syn::GenericArgument::Type(t) => canonical(t),
                            other => other.to_token_stream().to_string(),
                        })
                        .collect();
                    format!("{name}<{}>", inner.join(", "))
                }
                _ => name,
            }
        }
        syn::Type::Tuple(t) => {
            let inner: Vec<String> = t.elems.iter().map(canonical).collect();
            if inner.len() == 1 {
                format!("({},)", inner.join(", "))
            } else {
                format!("({})", inner.join(", "))
            }
        }
        syn::Type::Array(a) => format!(
            "[{}; {}]",
            canonical(&a.elem),
            a.len.to_token_stream().to_string().replace(' ', "")
        ),
        syn::Type::Slice(s) => format!("[{}]", canonical(&s.elem)),
        syn::Type::Paren(p) => canonical(&p.elem),
        syn::Type::Group(g) => canonical(&g.elem),
        syn::Type::Reference(r) => format!(
            "&{}{}",
            if r.mutability.is_some() { "mut " } else { "" },
            canonical(&r.elem)
        ),
        other => other.to_token_stream().to_string(),
    }
}
