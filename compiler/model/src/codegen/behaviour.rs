//! The behaviour of a machine that no system drives (a plain machine, a Genie conversation, a dialogue): a
//! method per non-final state that decides the message to fire, and `step`, which fires it with the
//! transition's hooks. An `abci` machine's rounds and a staged machine's stages are driven by their runtime.

use super::docs;
use super::tokens::{snake, variant};
use crate::spec::{Machine, State};
use proc_macro2::TokenStream;
use quote::quote;

/// A behaviour trait for machines without rounds: one method per non-final state that decides the message to
/// fire; `step` fires it with the transition's hooks.
pub(crate) fn generate(m: &Machine) -> TokenStream {
    let states: Vec<&State> = m.states.iter().filter(|s| !s.is_final).collect();
    let methods = states.iter().map(|s| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(
            &s.docs,
            &format!("The action of `{}`: decides the message to fire.", s.name),
        );
        quote! { #doc fn #id(&mut self) -> Message; }
    });
    let arms = states.iter().map(|s| {
        let (v, id) = (variant(&s.name.text), snake(&s.name.text));
        quote! { State::#v => Behaviour::#id(behaviour) }
    });
    let final_arm = if states.len() < m.states.len() {
        quote! { _ => return ::core::option::Option::None, }
    } else {
        quote! {}
    };
    quote! {
        /// The behaviour of each non-final state, implemented by the user.
        pub trait Behaviour {
            #(#methods)*
        }

        /// Runs the behaviour of `state` and fires the message it chose with `behaviour`'s hooks
        /// (`State::fire`); `None` in a final state.
        pub fn step<B: Behaviour + Hooks + ?Sized>(state: State, behaviour: &mut B) -> ::core::option::Option<::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>>> {
            #[allow(unreachable_patterns)]
            let message = match state {
                #(#arms,)*
                #final_arm
            };
            ::core::option::Option::Some(state.fire(&message, behaviour))
        }
    }
}
