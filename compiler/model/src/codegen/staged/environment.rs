//! The `Environment` trait a staged machine's user implements (an observation and an action type and methods
//! for each kind of agent, a method per handler, and the fixed methods), and the `Observation` and `Action`
//! enums that carry each kind's types through the runtime's `Env`.

use super::super::docs;
use super::super::tokens::snake;
use super::agents::Kind;
use crate::spec::{Machine, State};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The associated types and the methods of each kind of agent.
fn agent_items(kinds: &[Kind<'_>]) -> TokenStream {
    let items = kinds.iter().map(|k| {
        let (obs, act, observe, act_fn) = (k.observation(), k.action(), k.observe_fn(), k.act_fn());
        let index = k.group.then(|| quote! { index: u32, });
        let whom = if k.group {
            format!("member `index` of `{}`", k.name)
        } else {
            format!("`{}`", k.name)
        };
        if k.scripted {
            let doc = format!(
                " {} acts, on its own (it is scripted), in the stage `view.stage`.",
                capitalized(&whom)
            );
            return quote! {
                #[doc = #doc]
                fn #act_fn(&mut self, #index view: View);
            };
        }
        let obs_doc = format!(" What `{}` observes before it acts.", k.name);
        let act_doc = format!(" What `{}` does in a step.", k.name);
        let observe_doc = format!(
            " What {whom} observes at the end of a step (or at reset), to act on in the stage `view.stage`."
        );
        let apply_doc = format!(" Applies the action of {whom} in the stage `view.stage`.");
        quote! {
            #[doc = #obs_doc]
            type #obs;
            #[doc = #act_doc]
            type #act;
            #[doc = #observe_doc]
            fn #observe(&mut self, #index view: View) -> Self::#obs;
            #[doc = #apply_doc]
            fn #act_fn(&mut self, #index action: Self::#act, view: View);
        }
    });
    quote! { #(#items)* }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The `Environment` trait the user implements.
pub(super) fn environment(
    m: &Machine,
    kinds: &[Kind<'_>],
    handlers: &[(usize, &State)],
) -> TokenStream {
    let methods = handlers.iter().map(|&(i, s)| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(&s.docs, &format!("The handler of stage `{}`.", s.name));
        let next: Vec<String> = super::next_stages(m, i)
            .iter()
            .map(|n| format!("`{n}`"))
            .collect();
        let choice = format!(
            " Runs after the stage's agents acted and picks the next stage: {}.",
            next.join(", ")
        );
        quote! {
            #doc
            #[doc = ""]
            #[doc = #choice]
            /// Any other choice is refused, and the step undone.
            fn #id(&mut self, view: View) -> State;
        }
    });
    let trait_doc = format!(
        " The domain of `{}`, implemented by the user.",
        m.name.as_str()
    );
    let agents = agent_items(kinds);
    quote! {
        #[doc = #trait_doc]
        ///
        /// What each kind of agent observes and does (its own types), what a scripted agent does on its own, the
        /// handlers that pick the next stage, and rewards: [`Env`] calls these methods, each with a [`View`] of
        /// the step and the stage concerned.
        pub trait Environment {
            /// Auxiliary information that comes with an observation.
            type Info: ::core::default::Default;

            #agents

            /// Starts a new episode from `seed`: the same seed must give the same episode.
            fn reset(&mut self, seed: u64);
            /// The auxiliary information of `agent`, taken with its observation (by default, the default).
            fn info(&mut self, agent: Agent, view: View) -> Self::Info {
                let _ = (agent, view);
                ::core::default::Default::default()
            }
            /// Runs the stage `view.stage`, which has no handler, after its agents acted (by default, nothing).
            fn resolve(&mut self, view: View) {
                let _ = view;
            }
            /// The reward of `agent` at the end of a step in the stage `view.stage`.
            fn reward(&mut self, agent: Agent, view: View) -> f64;
            /// Whether `agent` is done for the rest of the episode, asked at the end of each step (by default,
            /// never).
            fn agent_terminated(&mut self, agent: Agent, view: View) -> bool {
                let _ = (agent, view);
                false
            }
            /// Whether the episode is terminated, asked at the end of each step. It also is once every agent
            /// that takes actions is done (by default, only then).
            fn is_terminated(&mut self, view: View) -> bool {
                let _ = view;
                false
            }
            /// Whether the episode is truncated before `num_steps`, asked at the end of each step (by default,
            /// never).
            fn is_truncated(&mut self, view: View) -> bool {
                let _ = view;
                false
            }
            #(#methods)*
        }
    }
}

/// `Observation<E>` or `Action<E>` (`what`): one variant per kind that is not scripted, carrying the
/// `Environment`'s type for it (`ty` names it), with `kind()` and `Clone`, `Debug` and `PartialEq` wherever
/// the carried types have them.
pub(super) fn carrier(
    kinds: &[Kind<'_>],
    what: &str,
    doc: &str,
    ty: impl Fn(&Kind) -> Ident,
) -> TokenStream {
    let name = Ident::new(what, proc_macro2::Span::call_site());
    let strategic: Vec<&Kind<'_>> = kinds.iter().filter(|k| !k.scripted).collect();
    let vs: Vec<&Ident> = strategic.iter().map(|k| &k.variant).collect();
    let tys: Vec<Ident> = strategic.iter().map(|k| ty(k)).collect();
    let docs = strategic
        .iter()
        .map(|k| format!(" The {} of `{}`.", what.to_lowercase(), k.name));
    // Without a kind that takes actions the enum has no variant, and must still use `E`.
    let (never, never_kind, never_clone, never_debug, never_eq) = if strategic.is_empty() {
        (
            Some(quote! {
                #[doc(hidden)]
                Never(::core::convert::Infallible, ::core::marker::PhantomData<E>),
            }),
            Some(quote! { Self::Never(never, _) => match *never {}, }),
            Some(quote! { Self::Never(never, _) => match *never {}, }),
            Some(quote! { Self::Never(never, _) => match *never {}, }),
            Some(quote! { (Self::Never(never, _), _) => match *never {}, }),
        )
    } else {
        (None, None, None, None, None)
    };
    let names: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
    quote! {
        #[doc = #doc]
        pub enum #name<E: Environment> {
            #(#[doc = #docs] #vs(E::#tys),)*
            #never
        }

        impl<E: Environment> #name<E> {
            /// The kind of agent it belongs to.
            pub fn kind(&self) -> AgentKind {
                match self {
                    #(Self::#vs(_) => AgentKind::#vs,)*
                    #never_kind
                }
            }
        }

        #[automatically_derived]
        impl<E: Environment> ::core::clone::Clone for #name<E>
        where
            #(E::#tys: ::core::clone::Clone,)*
        {
            fn clone(&self) -> Self {
                match self {
                    #(Self::#vs(x) => Self::#vs(::core::clone::Clone::clone(x)),)*
                    #never_clone
                }
            }
        }

        #[automatically_derived]
        impl<E: Environment> ::core::fmt::Debug for #name<E>
        where
            #(E::#tys: ::core::fmt::Debug,)*
        {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(Self::#vs(x) => f.debug_tuple(#names).field(x).finish(),)*
                    #never_debug
                }
            }
        }

        #[automatically_derived]
        impl<E: Environment> ::core::cmp::PartialEq for #name<E>
        where
            #(E::#tys: ::core::cmp::PartialEq,)*
        {
            fn eq(&self, other: &Self) -> bool {
                #[allow(unreachable_patterns)]
                match (self, other) {
                    #((Self::#vs(a), Self::#vs(b)) => a == b,)*
                    #never_eq
                    _ => false,
                }
            }
        }
    }
}
