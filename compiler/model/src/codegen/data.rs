//! The synchronized data of a machine with keys: the `Data` struct (one optional value per key, with its
//! accessors and the keys a new period carries), and what each state reads, writes, requires and ensures. Every
//! system's machines may declare keys.

use super::docs;
use super::tokens::{clone_and_debug, rust_type, snake};
use crate::spec::{Key, KeyId, Machine, State};
use fsmc_base::source::Span;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

fn key_lists<'a>(
    m: &'a Machine,
    pick: impl Fn(&'a State) -> &'a [(KeyId, Span)],
) -> Vec<TokenStream> {
    m.states
        .iter()
        .map(|s| {
            let names = pick(s).iter().map(|(k, _)| m.key(*k).name.as_str());
            quote! { &[#(#names),*] }
        })
        .collect()
}

/// `assumed` is the `where` clause the impls that copy or show a key's value hold under: an `abci` machine's
/// (every key type implements the runtime's `Key`, asserted once by the `fsm!` macro), empty for the others.
pub(crate) fn generate(m: &Machine, assumed: &TokenStream) -> TokenStream {
    let fields = m.keys.iter().map(field);
    // With key types of the user's crate, written out rather than derived (see `clone_and_debug`).
    let (derived, written) = if assumed.is_empty() {
        (
            quote! { #[derive(Clone, Debug, Default)] },
            TokenStream::new(),
        )
    } else {
        let ids: Vec<Ident> = m.keys.iter().map(|k| snake(&k.name.text)).collect();
        let data = Ident::new("Data", proc_macro2::Span::call_site());
        (
            quote! { #[derive(Default)] },
            clone_and_debug(&data, &ids, assumed),
        )
    };
    let names: Vec<&str> = m.keys.iter().map(|k| k.name.as_str()).collect();
    let cross: Vec<&str> = m
        .keys
        .iter()
        .filter(|k| k.cross_period)
        .map(|k| k.name.as_str())
        .collect();
    let has = m.keys.iter().map(|k| {
        let (name, id) = (k.name.as_str(), snake(&k.name.text));
        quote! { #name => self.#id.is_some() }
    });
    let carry = m.keys.iter().map(|k| {
        let id = snake(&k.name.text);
        if k.cross_period {
            quote! { #id: ::core::clone::Clone::clone(&self.#id) }
        } else {
            quote! { #id: ::core::option::Option::None }
        }
    });
    let accessors = m.keys.iter().map(accessors);
    let state_keys = state_keys(m);
    quote! {
        /// The synchronized data: one optional value per key, shared by every instance.
        #derived
        pub struct Data {
            #(#fields,)*
        }

        #written

        impl Data #assumed {
            /// Every key, in spec order.
            pub const KEYS: &'static [&'static str] = &[#(#names),*];
            /// The keys carried into a new period.
            pub const CROSS_PERIOD: &'static [&'static str] = &[#(#cross),*];

            /// Whether `key` has a value.
            pub fn has(&self, key: &str) -> bool {
                match key {
                    #(#has,)*
                    _ => false,
                }
            }

            /// The data a new period starts with: the cross-period keys, nothing else.
            pub fn carry(&self) -> Data {
                Data { #(#carry,)* }
            }

            #(#accessors)*

            /// Checks that every key in `keys` has a value (pre-conditions on entry, post-conditions on exit).
            pub fn check(&self, keys: &[&str]) -> ::core::result::Result<(), ::fsmc_runtime::data::MissingKeys> {
                ::fsmc_runtime::data::check_keys(keys, |k| self.has(k))
            }
        }

        #state_keys
    }
}

/// The field of `Data` that holds a key's value.
fn field(k: &Key) -> TokenStream {
    let id = snake(&k.name.text);
    let ty = rust_type(&k.ty.text);
    let mut lines = k.docs.clone();
    if lines.is_empty() {
        lines.push(format!("Key `{}`.", k.name));
    }
    if k.cross_period {
        lines.push(String::new());
        lines.push("Cross-period: carried into every new period.".into());
    }
    let doc = docs::attrs(&lines);
    quote! { #doc pub #id: ::core::option::Option<#ty> }
}

/// The accessor and the setter of a key's value.
fn accessors(k: &Key) -> TokenStream {
    let id = snake(&k.name.text);
    let setter = Ident::new(
        &format!(
            "set_{}",
            crate::ident::snake(&k.name.text).trim_end_matches('_')
        ),
        proc_macro2::Span::call_site(),
    );
    let ty = rust_type(&k.ty.text);
    let (get_doc, set_doc) = (
        format!(" The value of `{}`, if it has one.", k.name),
        format!(" Sets `{}`.", k.name),
    );
    quote! {
        #[doc = #get_doc]
        pub fn #id(&self) -> ::core::option::Option<&#ty> {
            self.#id.as_ref()
        }
        #[doc = #set_doc]
        pub fn #setter(&mut self, value: #ty) {
            self.#id = ::core::option::Option::Some(value);
        }
    }
}

/// What each state reads, writes, requires and ensures, by key name.
fn state_keys(m: &Machine) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let reads = key_lists(m, |s| &s.reads);
    let writes = key_lists(m, |s| &s.writes);
    let requires = key_lists(m, |s| &s.requires);
    let ensures = key_lists(m, |s| &s.ensures);
    quote! {
        static READS: [&[&str]; #n] = [#(#reads),*];
        static WRITES: [&[&str]; #n] = [#(#writes),*];
        static REQUIRES: [&[&str]; #n] = [#(#requires),*];
        static ENSURES: [&[&str]; #n] = [#(#ensures),*];

        impl State {
            /// The keys this state reads.
            pub fn reads(self) -> &'static [&'static str] {
                READS[self as usize]
            }
            /// The keys this state writes.
            pub fn writes(self) -> &'static [&'static str] {
                WRITES[self as usize]
            }
            /// Pre-conditions: keys that must have values when the machine is entered here.
            pub fn requires(self) -> &'static [&'static str] {
                REQUIRES[self as usize]
            }
            /// Post-conditions: keys guaranteed to have values when the machine ends here.
            pub fn ensures(self) -> &'static [&'static str] {
                ENSURES[self as usize]
            }
        }
    }
}
