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

/// `StateMachine`, for a plain machine: the state and the context (the hooks) owned together, as smlang and
/// statig offer it, so a caller hands it messages (`handle`) and never threads the state through.
pub(crate) fn owning(m: &Machine) -> TokenStream {
    let new = m.default_start().map(|_| {
        quote! {
            /// A machine in the default start state, with `context` as its hooks.
            pub fn new(context: H) -> Self {
                Self::with_state(State::DEFAULT_START, context)
            }
        }
    });
    quote! {
        /// The machine with its state and its context: [`StateMachine::handle`] fires a message with the
        /// context's hooks and keeps the new state; a refused message changes neither.
        #[derive(Clone, Debug)]
        pub struct StateMachine<H: Hooks> {
            state: State,
            context: H,
        }

        impl<H: Hooks> StateMachine<H> {
            #new

            /// A machine in `state`, with `context` as its hooks.
            pub fn with_state(state: State, context: H) -> Self {
                StateMachine { state, context }
            }

            /// The state the machine is in.
            pub fn state(&self) -> State {
                self.state
            }

            /// The context its hooks see.
            pub fn context(&self) -> &H {
                &self.context
            }

            /// The context, to change between messages.
            pub fn context_mut(&mut self) -> &mut H {
                &mut self.context
            }

            /// The context, once the machine is done with.
            pub fn into_context(self) -> H {
                self.context
            }

            /// Fires `message` (a `Message`, or the data of an event that carries some) from the current state
            /// and moves to the state it leads to, which it returns; a refused message changes nothing and the
            /// error says why (and which guard, if guards said no).
            pub fn handle(&mut self, message: impl ::core::convert::Into<Message>) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                let next = self.state.fire(&message.into(), &mut self.context)?;
                self.state = next;
                ::core::result::Result::Ok(next)
            }
        }
    }
}
