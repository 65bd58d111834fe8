//! What a FIPA dialogue adds to a `dialogue` machine's module: its two roles, the sender of each performative
//! (a role, or the initiator or the responder), the performatives that open and end a dialogue, and the
//! runtime's `Protocol` (one party's copy of a dialogue, and an agent's dialogues).

use super::tokens::variant;
use crate::spec::Machine;
use crate::spec::dialogue::Turn;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// What a dialogue adds to every transition its hooks see (`Transition::profile`): the message's header,
/// whether this party sent or received it (a dialogue's copy fires it), and the role this party plays.
pub(crate) fn transition_profile() -> TokenStream {
    quote! { ::fsmc_runtime::dialogue::Delivery<'a, Role> }
}

/// The roles, the sender of each performative, the performatives that open and end a dialogue, and the
/// runtime's `Protocol`.
pub(crate) fn generate(m: &Machine) -> TokenStream {
    let roles: Vec<Ident> = m.roles.iter().map(|r| variant(&r.text)).collect();
    let role_docs = m.roles.iter().map(|r| format!(" Role `{r}`."));
    let role_names: Vec<&str> = m.roles.iter().map(|r| r.as_str()).collect();
    let nr = proc_macro2::Literal::usize_unsuffixed(roles.len());
    let sender_of = m.events.iter().map(|e| {
        let sender = match (e.role.and_then(|r| roles.get(r)), e.turn) {
            (Some(r), _) => quote! { Role(Role::#r) },
            (None, Some(Turn::Initiator)) => quote! { Initiator },
            (None, Some(Turn::Responder)) => quote! { Responder },
            (None, None) => return quote! { ::core::option::Option::None },
        };
        quote! { ::core::option::Option::Some(::fsmc_runtime::dialogue::Sender::#sender) }
    });
    let ne = proc_macro2::Literal::usize_unsuffixed(m.events.len());
    let initiation = initiation(m);
    let termination = termination(m);
    // A checked dialogue has exactly two roles, and a default start state.
    let other = match roles.as_slice() {
        [a, b] => quote! {
            match self {
                Role::#a => Role::#b,
                Role::#b => Role::#a,
            }
        },
        _ => quote! { self },
    };
    let protocol = protocol(m);
    quote! {
        /// The two parties of the dialogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Role { #(#[doc = #role_docs] #roles,)* }

        const ROLE_NAMES: [&str; #nr] = [#(#role_names),*];
        static SENDER_OF: [::core::option::Option<::fsmc_runtime::dialogue::Sender<Role>>; #ne] = [#(#sender_of),*];

        impl Role {
            /// The role's name as written in the spec.
            pub const fn name(self) -> &'static str {
                ROLE_NAMES[self as usize]
            }

            /// The other party's role.
            pub const fn other(self) -> Role {
                #other
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for Role {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl Event {
            /// Who sends this performative: a role, or the party that opened the dialogue (or did not),
            /// whichever role it plays.
            pub fn sender(self) -> ::core::option::Option<::fsmc_runtime::dialogue::Sender<Role>> {
                SENDER_OF[self as usize]
            }
        }

        /// The performatives that open a dialogue.
        pub const INITIATION: &[Event] = &[#(Event::#initiation),*];
        /// The performatives that end a dialogue.
        pub const TERMINATION: &[Event] = &[#(Event::#termination),*];

        #protocol
    }
}

/// The performatives that open a dialogue (those leaving a start state), each once, in spec order.
fn initiation(m: &Machine) -> Vec<Ident> {
    let outgoing = m.outgoing();
    let mut v = Vec::new();
    for s in m.start_states() {
        for &t in &outgoing[s.index()] {
            if let Some(e) = m.transitions[t].event {
                let id = variant(&m.event(e).name.text);
                if !v.contains(&id) {
                    v.push(id);
                }
            }
        }
    }
    v
}

/// The performatives that end a dialogue (those entering a final state), each once, in spec order.
fn termination(m: &Machine) -> Vec<Ident> {
    let mut v = Vec::new();
    for t in m.transitions.iter().filter(|t| m.state(t.to).is_final) {
        if let Some(e) = t.event {
            let id = variant(&m.event(e).name.text);
            if !v.contains(&id) {
                v.push(id);
            }
        }
    }
    v
}

/// The dialogue's types and the runtime's `Protocol` for `State`, when the machine has a start state.
fn protocol(m: &Machine) -> Option<TokenStream> {
    let start = m
        .default_start()
        .or_else(|| m.start_states().next())
        .map(|s| variant(&m.state(s).name.text));
    let name = m.name.as_str();
    start.map(|start| {
        let performative = if crate::hooks::events_with_data(m).is_empty() {
            quote! { *message }
        } else {
            quote! { message.event() }
        };
        let dialogue_doc = [
            format!(" One party's copy of a `{name}` dialogue: it takes a message only if its sender plays"),
            " the role that sends the performative, its id and target follow the last message, and the protocol"
                .to_string(),
            " allows it as a reply; then the transition fires with its hooks.".to_string(),
        ];
        let dialogues_doc = format!(" One agent's `{name}` dialogues, by dialogue reference.");
        quote! {
            #(#[doc = #dialogue_doc])*
            pub type Dialogue = ::fsmc_runtime::dialogue::Dialogue<State>;
            #[doc = #dialogues_doc]
            pub type Dialogues = ::fsmc_runtime::dialogue::Dialogues<State>;
            /// A message of this protocol: its header (dialogue reference, message id, target, sender,
            /// receiver) and its performative with its contents.
            pub type Envelope = ::fsmc_runtime::dialogue::Envelope<Message>;
            /// Why a dialogue refused a message (it changed nothing).
            pub type DialogueError = ::fsmc_runtime::dialogue::DialogueError<State, Event, Role>;

            #[automatically_derived]
            impl ::fsmc_runtime::dialogue::Protocol for State {
                type Role = Role;
                const START: State = State::#start;

                fn performative(message: &Message) -> Event {
                    #performative
                }
                fn sender(performative: Event) -> ::core::option::Option<::fsmc_runtime::dialogue::Sender<Role>> {
                    performative.sender()
                }
                fn other_role(role: Role) -> Role {
                    role.other()
                }
                fn deliver(
                    self,
                    message: &Message,
                    delivery: &::fsmc_runtime::dialogue::Delivery<'_, Role>,
                    hooks: &mut (dyn Hooks + 'static),
                ) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                    State::fire_with(self, message, delivery, hooks)
                }
            }
        }
    })
}
