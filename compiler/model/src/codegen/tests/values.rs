//! Sample values of a spec's Rust types: the `i`-th of a family of values that differ for different `i`, so
//! that a generated test can make agents agree (all send value 0) or disagree (agent `i` sends value `i`).
//!
//! Only types whose values the generator can write without knowing the user's code get one: integers, floats,
//! `bool`, `char`, `String`, and arrays, tuples, `Option`, `Vec`, `BTreeMap` and `BTreeSet` of those. Any other
//! type is the user's to sample, in the generated `Fixture` trait.

use proc_macro2::TokenStream;
use quote::quote;

/// An expression of type `text` built from `i: usize`, different for different `i` (up to the type's own
/// limits: `bool` has two values); `None` when the type is not one the generator can sample.
pub(super) fn sample(text: &str) -> Option<TokenStream> {
    sample_from(text, &quote! { i })
}

/// [`sample`] built from the `usize` expression `n` instead of `i` (`fsmc verify --emit-test` numbers the
/// values of a counterexample's payloads with it).
pub fn sample_from(text: &str, n: &TokenStream) -> Option<TokenStream> {
    let ty = syn::parse_str::<syn::Type>(text).ok()?;
    // One token (`i`, `0`) stands as it is; a longer expression is bracketed once, to stay one operand.
    let n = if n.clone().into_iter().nth(1).is_some() {
        quote! { (#n) }
    } else {
        n.clone()
    };
    of(&ty, &n)
}

fn of(ty: &syn::Type, i: &TokenStream) -> Option<TokenStream> {
    match ty {
        syn::Type::Paren(p) => of(&p.elem, i),
        syn::Type::Group(g) => of(&g.elem, i),
        syn::Type::Tuple(t) if t.elems.is_empty() => Some(quote! { () }),
        syn::Type::Tuple(t) => {
            let parts = t
                .elems
                .iter()
                .map(|e| of(e, i))
                .collect::<Option<Vec<_>>>()?;
            Some(quote! { (#(#parts,)*) })
        }
        syn::Type::Array(a) => {
            let elem = of(&a.elem, i)?;
            Some(quote! { ::core::array::from_fn(|_| #elem) })
        }
        syn::Type::Path(p) if p.qself.is_none() => path(&p.path, i),
        _ => None,
    }
}

fn path(p: &syn::Path, i: &TokenStream) -> Option<TokenStream> {
    let last = p.segments.last()?;
    let name = last.ident.to_string();
    let args: Vec<&syn::Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::Parenthesized(_) => return None,
    };
    let ty = syn::Type::Path(syn::TypePath {
        qself: None,
        path: p.clone(),
    });
    match (name.as_str(), args.as_slice()) {
        (
            "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
            | "isize" | "f32" | "f64",
            [],
        ) => Some(quote! { #i as #ty }),
        ("bool", []) => Some(quote! { #i % 2 == 0 }),
        ("char", []) => Some(quote! {
            ::core::char::from_u32(0x61 + (#i % 26) as u32).unwrap_or('a')
        }),
        ("String" | "AgentId", []) => Some(match syn::parse2::<syn::Ident>(i.clone()) {
            // A name is inlined into the format string, as clippy asks; an expression cannot be.
            Ok(name) => {
                let text = format!("v{{{name}}}");
                quote! { ::std::format!(#text) }
            }
            Err(_) => quote! { ::std::format!("v{}", #i) },
        }),
        ("Option", [t]) => {
            let v = of(t, i)?;
            Some(quote! { ::core::option::Option::Some(#v) })
        }
        ("Vec", [t]) => {
            let v = of(t, i)?;
            Some(quote! { ::std::vec![#v] })
        }
        ("BTreeSet", [t]) => {
            let v = of(t, i)?;
            Some(quote! { ::std::collections::BTreeSet::from([#v]) })
        }
        ("BTreeMap", [k, v]) => {
            let (k, v) = (of(k, i)?, of(v, i)?);
            Some(quote! { ::std::collections::BTreeMap::from([(#k, #v)]) })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::sample;

    #[test]
    fn samples_what_it_can_write() {
        for ty in [
            "u64",
            "String",
            "(String, u64)",
            "[u8; 32]",
            "Option<bool>",
            "std::collections::BTreeMap<String, Option<bool>>",
            "Vec<char>",
        ] {
            assert!(sample(ty).is_some(), "{ty}");
        }
        for ty in ["MyType", "Box<u8>", "&'static str", "fn(u8)"] {
            assert!(sample(ty).is_none(), "{ty}");
        }
    }
}
