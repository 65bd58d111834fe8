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
