//! A staged machine's agents in generated code: `AgentKind` (the agents and groups as the spec declares them),
//! `Agent` (one agent; a member of a group is one), `Sizes` (how many members each group has), and the
//! `Observation` and `Action` enums that carry each kind's own types.

use super::super::tokens::variant;
use crate::hooks;
use crate::spec::Machine;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// One agent as the spec declares it, with the names generated code gives it.
pub(super) struct Kind<'a> {
    /// As written.
    pub name: &'a str,
    /// The variant of `AgentKind`, `Agent`, `Observation` and `Action`.
    pub variant: Ident,
    pub group: bool,
    pub scripted: bool,
}

impl Kind<'_> {
    /// `FactoryObservation`: the `Environment`'s type of what this kind observes.
    pub fn observation(&self) -> Ident {
        Ident::new(&format!("{}Observation", self.variant), Span::call_site())
    }

    /// `FactoryAction`: the `Environment`'s type of what this kind does.
    pub fn action(&self) -> Ident {
        Ident::new(&format!("{}Action", self.variant), Span::call_site())
    }

    /// `observe_factory`.
    pub fn observe_fn(&self) -> Ident {
        Ident::new(&hooks::method("observe", self.name), Span::call_site())
    }

    /// `act_factory`.
    pub fn act_fn(&self) -> Ident {
        Ident::new(&hooks::method("act", self.name), Span::call_site())
    }

    /// The field of `Sizes`, raw if a keyword.
    pub fn field(&self) -> Ident {
        super::super::tokens::snake(self.name)
    }

    /// `Agent::Factory`, or `Agent::Traders(index)` for a member of a group.
    pub fn agent_pattern(&self) -> TokenStream {
        let v = &self.variant;
        if self.group {
            quote! { Agent::#v(index) }
        } else {
            quote! { Agent::#v }
        }
    }
}

/// The machine's agents, in spec order.
pub(super) fn kinds(m: &Machine) -> Vec<Kind<'_>> {
    m.agents
        .iter()
        .enumerate()
        .map(|(i, a)| Kind {
            name: a.as_str(),
            variant: variant(&a.text),
            group: m.roster.is_group(i),
            scripted: m.roster.is_scripted(i),
        })
        .collect()
}

/// `AgentKind`, `Agent` and `Sizes`.
pub(super) fn generate(kinds: &[Kind<'_>]) -> TokenStream {
    let (kind, agent, sizes) = (kind_enum(kinds), agent_enum(kinds), sizes(kinds));
    quote! { #kind #agent #sizes }
}

/// `AgentKind`: the agents and groups as the spec declares them.
fn kind_enum(kinds: &[Kind<'_>]) -> TokenStream {
    let vs: Vec<&Ident> = kinds.iter().map(|k| &k.variant).collect();
    let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    let n = proc_macro2::Literal::usize_unsuffixed(kinds.len());
    let kind_docs = kinds.iter().map(|k| match (k.group, k.scripted) {
        (false, false) => format!(" Agent `{}`.", k.name),
        (true, false) => format!(" The group `{}`, sized when the environment is built.", k.name),
        (false, true) => format!(" Agent `{}`, scripted: it acts on its own.", k.name),
        (true, true) => format!(
            " The group `{}`, sized when the environment is built, scripted: its members act on their own.",
            k.name
        ),
    });
    let groups: Vec<&Ident> = kinds
        .iter()
        .filter(|k| k.group)
        .map(|k| &k.variant)
        .collect();
    let scripted: Vec<&Ident> = kinds
        .iter()
        .filter(|k| k.scripted)
        .map(|k| &k.variant)
        .collect();
    let is = |vs: &[&Ident]| {
        if vs.is_empty() {
            quote! { false }
        } else {
            quote! { matches!(self, #(AgentKind::#vs)|*) }
        }
    };
    let (is_group, is_scripted) = (is(&groups), is(&scripted));
    // An empty enum cannot be indexed or displayed by value: a machine may declare no agents.
    let (kind_name, names_const) = if kinds.is_empty() {
        (quote! { match self {} }, None)
    } else {
        let c = quote! { const KIND_NAMES: [&str; #n] = [#(#names),*]; };
        (quote! { KIND_NAMES[self as usize] }, Some(c))
    };
    quote! {
        /// The agents of the environment as the spec declares them: an agent, or a group of agents. Stages
        /// list these.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum AgentKind { #(#[doc = #kind_docs] #vs,)* }

        #names_const

        impl AgentKind {
            /// Every kind, in spec order.
            pub const ALL: &'static [AgentKind] = &[#(AgentKind::#vs),*];
            /// The name as written in the spec.
            pub const fn name(self) -> &'static str {
                #kind_name
            }
            /// Whether this is a group of agents, sized when the environment is built.
            pub const fn is_group(self) -> bool {
                #is_group
            }
            /// Whether agents of this kind are scripted: they act on their own, take no action from outside,
            /// observe nothing and are never rewarded.
            pub const fn is_scripted(self) -> bool {
                #is_scripted
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for AgentKind {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}

/// `Agent`: one agent, a member of a group by its number.
fn agent_enum(kinds: &[Kind<'_>]) -> TokenStream {
    let agent_variants = kinds.iter().map(|k| {
        let v = &k.variant;
        if k.group {
            let doc = format!(
                " A member of the group `{}`, by its number (from 0).",
                k.name
            );
            quote! { #[doc = #doc] #v(u32) }
        } else {
            let doc = format!(" Agent `{}`.", k.name);
            quote! { #[doc = #doc] #v }
        }
    });
    let kind_of = kinds.iter().map(|k| {
        let v = &k.variant;
        let p = if k.group {
            quote! { Agent::#v(_) }
        } else {
            quote! { Agent::#v }
        };
        quote! { #p => AgentKind::#v }
    });
    let index_of = kinds.iter().filter(|k| k.group).map(|k| {
        let v = &k.variant;
        quote! { Agent::#v(index) => ::core::option::Option::Some(index), }
    });
    quote! {
        /// One agent of the environment (a member of a group is one agent), in the order of the spec's agents
        /// and, within a group, of the members' numbers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Agent { #(#agent_variants,)* }

        impl Agent {
            /// The agent's kind: itself, or its group.
            pub const fn kind(self) -> AgentKind {
                match self {
                    #(#kind_of,)*
                }
            }
            /// The agent's name as written in the spec (a member's is its group's).
            pub const fn name(self) -> &'static str {
                self.kind().name()
            }
            /// A member's number in its group; `None` for an agent that is not a group's.
            pub const fn index(self) -> ::core::option::Option<u32> {
                #[allow(unreachable_patterns)]
                match self {
                    #(#index_of)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        /// The name as written in the spec; a member's with its number, `traders[2]`.
        #[automatically_derived]
        impl ::core::fmt::Display for Agent {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.index() {
                    ::core::option::Option::Some(index) => write!(f, "{}[{}]", self.name(), index),
                    ::core::option::Option::None => f.write_str(self.name()),
                }
            }
        }
    }
}

/// `Sizes`: a field per group. Without groups it has a default (`Env::new` builds the environment); with them
/// the sizes are always given (`Env::with_sizes`), never assumed.
fn sizes(kinds: &[Kind<'_>]) -> TokenStream {
    let fields = kinds.iter().filter(|k| k.group).map(|k| {
        let field = k.field();
        let doc = format!(" How many members the group `{}` has.", k.name);
        quote! { #[doc = #doc] pub #field: u32 }
    });
    let default = (!kinds.iter().any(|k| k.group)).then(|| quote! { Default, });
    quote! {
        /// How many members each group of agents has: given when the environment is built.
        #[derive(Clone, Copy, Debug, #default PartialEq, Eq, Hash)]
        pub struct Sizes { #(#fields,)* }
    }
}

/// The agents of `sizes`, in agent order: `StagedSpec::agents`.
pub(super) fn roster(kinds: &[Kind<'_>]) -> TokenStream {
    let pushes = kinds.iter().map(|k| {
        let v = &k.variant;
        if k.group {
            let field = k.field();
            quote! { agents.extend((0..sizes.#field).map(Agent::#v)); }
        } else {
            quote! { agents.push(Agent::#v); }
        }
    });
    let sizes = if kinds.iter().any(|k| k.group) {
        quote! { sizes }
    } else {
        quote! { _sizes }
    };
    quote! {
        fn agents(#sizes: &Sizes) -> ::std::vec::Vec<Agent> {
            let mut agents = ::std::vec::Vec::new();
            #(#pushes)*
            agents
        }
    }
}
