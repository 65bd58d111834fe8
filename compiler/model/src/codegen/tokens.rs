//! Spec names and types as tokens of generated code: enum variants, snake-case identifiers, Rust types, and the
//! `matches!` that lists a machine's states.

use crate::ident;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// `matches!(self, State::A | State::B)`, or `false` for no states.
pub(crate) fn machine_matches(vs: Vec<Ident>) -> TokenStream {
    if vs.is_empty() {
        quote! { false }
    } else {
        quote! { matches!(self, #(State::#vs)|*) }
    }
}

/// The enum variant for a state or event name.
pub(crate) fn variant(name: &str) -> Ident {
    Ident::new(&ident::camel(name), Span::call_site())
}

/// A snake_case identifier (field, method, module), raw when it is a keyword.
pub(crate) fn snake(name: &str) -> Ident {
    Ident::new(&ident::snake(name), Span::call_site())
}

/// `Clone` and `Debug` of struct `name` with these named fields, as `derive` writes them (a raw identifier's field
/// shown without `r#`) but holding under `assumed`, an app's `where` clause: a user's payload or key type without
/// them then gets only the `fsm!` macro's error, not one more from each derive.
pub(crate) fn clone_and_debug(
    name: &Ident,
    fields: &[Ident],
    assumed: &TokenStream,
) -> TokenStream {
    let shown = name.to_string();
    let names = fields.iter().map(|id| {
        let name = id.to_string();
        name.trim_start_matches("r#").to_owned()
    });
    quote! {
        impl ::core::clone::Clone for #name #assumed {
            fn clone(&self) -> Self {
                #name { #(#fields: ::core::clone::Clone::clone(&self.#fields),)* }
            }
        }

        impl ::core::fmt::Debug for #name #assumed {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#shown)#(.field(#names, &self.#fields))*.finish()
            }
        }
    }
}

/// Whether a struct of fields of these types may derive `Eq` and `Hash`: when every type is one the generator
/// knows implements both, the standard library's numbers but the floats, `bool`, `char`, `String`, and `Vec`,
/// `Option`, `Box`, `BTreeMap`, `BTreeSet`, tuples (up to 12, as the standard library implements them) and
/// arrays of them. A type of the user's crate may implement them or not: a struct with one derives only what
/// every data struct does.
pub(crate) fn eq_hash<'t>(types: impl IntoIterator<Item = &'t str>) -> bool {
    all_known(
        types,
        Known {
            floats: false,
            tuple: 12,
            array: usize::MAX,
        },
    )
}

/// Whether the standard library defines a type and everything a payload or key needs for it: the types
/// [`eq_hash`] knows are `Clone`, `Debug`, `Ord`, borsh-encoded, `Send`, `Sync` and `'static`. A type of the
/// user's crate is the one whose bounds the generated code asks rustc to assume rather than check.
pub(crate) fn standard(text: &str) -> bool {
    eq_hash([text])
}

/// Whether a struct of fields of these types may derive serde's `Serialize` and `Deserialize`: the types
/// [`eq_hash`] knows, the floats too, tuples up to 16 and arrays up to 32 elements (what serde implements).
/// A type of the user's crate is not assumed to: deriving would break the build of a crate whose dependencies
/// turn the runtime's `serde` feature on.
pub(crate) fn serde<'t>(types: impl IntoIterator<Item = &'t str>) -> bool {
    all_known(
        types,
        Known {
            floats: true,
            tuple: 16,
            array: 32,
        },
    )
}

/// Which standard types a trait is known to be implemented for: the floats or not, and tuples and arrays up to
/// a length.
#[derive(Clone, Copy)]
struct Known {
    floats: bool,
    tuple: usize,
    array: usize,
}

fn all_known<'t>(types: impl IntoIterator<Item = &'t str>, rules: Known) -> bool {
    types.into_iter().all(|text| {
        syn::parse_str::<syn::Type>(text)
            .ok()
            .is_some_and(|t| known(&t, rules))
    })
}

fn known(ty: &syn::Type, rules: Known) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let args = match &last.arguments {
                syn::PathArguments::None => Vec::new(),
                syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                syn::PathArguments::Parenthesized(_) => return false,
            };
            let leaf = match last.ident.to_string().as_str() {
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "bool" | "char" | "String" => args.is_empty(),
                "f32" | "f64" => rules.floats && args.is_empty(),
                "Vec" | "Option" | "Box" | "BTreeMap" | "BTreeSet" => !args.is_empty(),
                _ => false,
            };
            leaf && args
                .iter()
                .all(|g| matches!(g, syn::GenericArgument::Type(t) if known(t, rules)))
        }
        syn::Type::Tuple(t) => {
            t.elems.len() <= rules.tuple && t.elems.iter().all(|e| known(e, rules))
        }
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<usize>().ok(),
                _ => None,
            };
            // A length that is not a literal is known only where every length is.
            len.map_or(rules.array == usize::MAX, |n| n <= rules.array) && known(&a.elem, rules)
        }
        syn::Type::Paren(p) => known(&p.elem, rules),
        _ => false,
    }
}

/// The Rust type a spec writes as text (a key's, a field's, a payload's).
pub(crate) fn rust_type(text: &str) -> TokenStream {
    match syn::parse_str::<syn::Type>(text) {
        Ok(t) => quote! { #t },
        // The grammar only admits type syntax; anything syn still rejects becomes a clear compile error.
        Err(_) => {
            let msg = format!("fsmc: `{text}` is not a Rust type");
            quote! { ::core::compile_error!(#msg) }
        }
    }
}
