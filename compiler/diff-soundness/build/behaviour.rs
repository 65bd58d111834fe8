//! The agents' behaviour for one generated app: for each method of its `Behaviour` trait, a payload of the
//! method's return type computed from what every replica agrees on (the round, the period) and the agent's
//! index, the same for two apps whose rounds have the same names, kinds and payload types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// `impl MODULE::Behaviour for crate::Agent`, from the generated code of one side. `deviates` says whether the
/// round of a method tolerates agents that disagree (a threshold decides it): only there do agents send
/// values of their own now and then.
pub fn implement(code: &str, side: &str, deviates: &dyn Fn(&str) -> bool) -> String {
    let file = syn::parse_file(code).expect("generated code parses");
    let (module, items) = file
        .items
        .iter()
        .find_map(|i| match i {
            syn::Item::Mod(m) => Some((&m.ident, m.content.as_ref()?.1.as_slice())),
            _ => None,
        })
        .expect("the generated code is one module");
    let behaviour = items
        .iter()
        .find_map(|i| match i {
            syn::Item::Trait(t) if t.ident == "Behaviour" => Some(t),
            _ => None,
        })
        .expect("an app that runs has a Behaviour trait");
    let side = format_ident!("{side}");
    let methods = behaviour.items.iter().filter_map(|item| {
        let syn::TraitItem::Fn(f) = item else {
            return None;
        };
        let name = &f.sig.ident;
        let syn::ReturnType::Type(_, ty) = &f.sig.output else {
            return None;
        };
        let ty = payload(ty);
        let salt = fnv(&name.to_string());
        let value = value(&ty, salt, deviates(&name.to_string()));
        Some(quote! {
            async fn #name(
                &self,
                ctx: crate::#side::#module::Context,
            ) -> ::core::result::Result<#ty, ::fsmc_runtime::app::Abstain> {
                let (round, period) = (ctx.round_count(), ctx.period());
                ::core::result::Result::Ok(#value)
            }
        })
    });
    quote! {
        impl crate::#side::#module::Behaviour for crate::Agent {
            #(#methods)*
        }
    }
    .to_string()
}

/// The payload `T` of a behaviour method's return type, `impl Future<Output = Result<T, Abstain>> + Send`.
fn payload(ty: &syn::Type) -> syn::Type {
    let syn::Type::ImplTrait(it) = ty else {
        panic!("a behaviour method returns a future");
    };
    let output = it
        .bounds
        .iter()
        .find_map(|b| {
            let syn::TypeParamBound::Trait(t) = b else {
                return None;
            };
            let last = t.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            args.args.iter().find_map(|a| match a {
                syn::GenericArgument::AssocType(at) if at.ident == "Output" => Some(&at.ty),
                _ => None,
            })
        })
        .expect("the future names its output");
    let syn::Type::Path(result) = output else {
        panic!("the output is a Result");
    };
    let last = result.path.segments.last().expect("a type has a name");
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        panic!("Result without its arguments");
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(t)) => t.clone(),
        _ => panic!("Result without its arguments"),
    }
}

/// The name of the module the generated code holds.
pub fn module(code: &str) -> String {
    let file = syn::parse_file(code).expect("generated code parses");
    file.items
        .iter()
        .find_map(|i| match i {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .expect("the generated code is one module")
}

/// A value of type `ty`, from `self.pick(round, period, salt, deviates)`.
fn value(ty: &syn::Type, salt: u64, deviates: bool) -> TokenStream {
    let pick = quote! { self.pick(round, period, #salt, #deviates) };
    match ty {
        syn::Type::Tuple(t) if t.elems.is_empty() => quote! { () },
        syn::Type::Tuple(t) => {
            let parts = t
                .elems
                .iter()
                .enumerate()
                .map(|(i, e)| value(e, salt.wrapping_add(i as u64 + 1), deviates));
            quote! { (#(#parts,)*) }
        }
        syn::Type::Array(a) => {
            let (elem, len) = (&a.elem, &a.len);
            quote! { [(#pick % 251) as #elem; #len] }
        }
        syn::Type::Path(p) => {
            let last = p.path.segments.last().expect("a type has a name");
            match last.ident.to_string().as_str() {
                "Option" => {
                    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                        panic!("Option without its argument");
                    };
                    let Some(syn::GenericArgument::Type(inner)) = args.args.first() else {
                        panic!("Option without its argument");
                    };
                    let inner = value(inner, salt.wrapping_mul(31), deviates);
                    let absent = salt ^ 0x5eed;
                    quote! {
                        if self.pick(round, period, #absent, true).is_multiple_of(6) {
                            ::core::option::Option::None
                        } else {
                            ::core::option::Option::Some(#inner)
                        }
                    }
                }
                "AgentId" => quote! { ctx.next_keeper(&#pick.to_le_bytes()).unwrap_or_default() },
                "String" => quote! { ::std::format!("v{}", #pick % 3) },
                "bool" => quote! { !#pick.is_multiple_of(4) },
                "u64" => quote! { #pick % 200 },
                "u8" | "u16" | "u32" | "usize" | "i32" | "i64" => {
                    quote! { (#pick % 200) as #ty }
                }
                other => panic!("the test's payloads have no value of type `{other}`"),
            }
        }
        other => panic!(
            "the test's payloads have no value of type `{}`",
            quote! { #other }
        ),
    }
}

/// FNV-1a: a fixed salt per method name.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
