//! The part every machine gets: `State` and `Event` enums with their names and facts, the transition function
//! and hooks (`table`, `hooks`), and the direct transitions of a machine that moves without events (a staged
//! machine's next stages).

use super::lists::{Kind, Lists};
use super::tokens::{machine_matches, variant};
use super::{docs, hooks, table};
use crate::spec::{Machine, State};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

fn repr(n: usize) -> Ident {
    // Leave room for the niche that makes `Option<State>` as small as `State`.
    let ty = if n < 255 {
        "u8"
    } else if n < 65_535 {
        "u16"
    } else {
        "u32"
    };
    Ident::new(ty, Span::call_site())
}

/// The core of machine `m`'s module. `profile` is what its system adds to every transition its hooks see (see
/// [`hooks::generate`]); `fact` is what the system says of a state in its docs.
pub(crate) fn generate<'a>(
    m: &'a Machine,
    profile: Option<&TokenStream>,
    fact: fn(&State) -> Option<String>,
    lists: &Lists<'a>,
) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(enums(m, fact, lists));
    out.extend(state_impl(m, lists));
    out.extend(event_impl(m, lists));
    out.extend(transitions(m, profile, lists));
    out
}

fn enums<'a>(m: &'a Machine, fact: fn(&State) -> Option<String>, lists: &Lists<'a>) -> TokenStream {
    let state_repr = repr(m.states.len());
    // A zero-variant enum cannot have a `repr`.
    let event_repr = (!m.events.is_empty()).then(|| {
        let r = repr(m.events.len());
        quote! { #[repr(#r)] }
    });
    let states = lists.list(Kind::Elem, m.states.len(), move |i| {
        let s = &m.states[i];
        let v = variant(&s.name.text);
        let mut lines = s.docs.clone();
        let mut facts = Vec::new();
        if s.default_start {
            facts.push("the default start state".to_string());
        } else if s.start {
            facts.push("a start state".to_string());
        }
        if s.is_final {
            facts.push("a final state".to_string());
        }
        facts.extend(fact(s));
        if lines.is_empty() {
            lines.push(format!("State `{}`.", s.name));
        }
        if !facts.is_empty() {
            lines.push(String::new());
            lines.push(format!("Spec: {}.", facts.join(", ")));
        }
        let doc = docs::attrs(&lines);
        let disc = Literal::usize_unsuffixed(i);
        quote! { #doc #v = #disc, }
    });
    let events = lists.list(Kind::Elem, m.events.len(), |i| {
        let e = &m.events[i];
        let v = variant(&e.name.text);
        let mut lines = e.docs.clone();
        if lines.is_empty() {
            lines.push(format!("Event `{}`.", e.name));
        }
        if let Some(t) = e.timeout {
            lines.push(String::new());
            lines.push(format!("A timeout event: fires after {:?}.", t.duration));
        }
        let doc = docs::attrs(&lines);
        let disc = Literal::usize_unsuffixed(i);
        quote! { #doc #v = #disc, }
    });
    let state_doc = docs::attrs(&[format!("The states of `{}`.", m.name)]);
    let event_doc = docs::attrs(&[format!("The events of `{}`.", m.name)]);
    quote! {
        #state_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        // The variants are the spec's names: Open Autonomy states all end in `Round` by convention.
        #[allow(clippy::enum_variant_names)]
        #[repr(#state_repr)]
        pub enum State { #states }

        #event_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(clippy::enum_variant_names)]
        #event_repr
        pub enum Event { #events }
    }
}

fn state_list<'a>(m: &'a Machine, pick: impl Fn(&State) -> bool + 'a) -> Vec<Ident> {
    m.states
        .iter()
        .filter(|s| pick(s))
        .map(|s| variant(&s.name.text))
        .collect()
}

fn state_impl<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let parse = by_name("State", "state", m.name.as_str());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let each_state = |make: fn(&State) -> TokenStream| {
        lists.list(Kind::Elem, m.states.len(), move |i| make(&m.states[i]))
    };
    let all = each_state(|s| {
        let v = variant(&s.name.text);
        quote! { State::#v, }
    });
    let names = each_state(|s| {
        let name = s.name.as_str();
        quote! { #name, }
    });
    let starts = state_list(m, |s| s.start);
    let finals = state_list(m, |s| s.is_final);
    let is_start = machine_matches(starts.clone());
    let is_final = machine_matches(finals.clone());
    let default = m.default_start().map(|d| variant(&m.state(d).name.text));
    let default_const = default.map(|d| {
        quote! {
            /// The default start state.
            pub const DEFAULT_START: State = State::#d;
        }
    });
    let accepted = m.accepted_events();
    let accepted = lists.list(Kind::Elem, accepted.len(), move |i| {
        let evs = accepted[i].iter().map(|e| variant(&m.event(*e).name.text));
        quote! { &[#(Event::#evs),*], }
    });
    let from_name = lists.list(Kind::Arm, m.states.len(), |i| {
        let (name, v) = (m.states[i].name.as_str(), variant(&m.states[i].name.text));
        quote! { #name => ::core::option::Option::Some(State::#v), }
    });
    quote! {
        const STATE_NAMES: [&str; #n] = [#names];
        static ACCEPTED: [&[Event]; #n] = [#accepted];

        impl State {
            /// Every state, in spec order.
            pub const ALL: &'static [State] = &[#all];
            /// The start states.
            pub const START: &'static [State] = &[#(State::#starts),*];
            /// The final states.
            pub const FINAL: &'static [State] = &[#(State::#finals),*];
            #default_const

            /// The state's name as written in the spec.
            pub const fn name(self) -> &'static str {
                STATE_NAMES[self as usize]
            }

            /// Whether this is a start state.
            pub const fn is_start(self) -> bool {
                #is_start
            }

            /// Whether this is a final state.
            pub const fn is_final(self) -> bool {
                #is_final
            }

            /// The events this state accepts, in spec order (none for a final state).
            pub fn accepted(self) -> &'static [Event] {
                ACCEPTED[self as usize]
            }

            /// The state with this spec name.
            pub fn from_name(name: &str) -> ::core::option::Option<State> {
                match name {
                    #from_name
                    _ => ::core::option::Option::None,
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for State {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        #parse
    }
}

/// `FromStr`, `TryFrom<&str>` and (with the runtime's `serde` feature) serde, all by spec name.
fn by_name(ty: &str, kind: &str, machine: &str) -> TokenStream {
    let id = Ident::new(ty, Span::call_site());
    quote! {
        #[automatically_derived]
        impl ::core::str::FromStr for #id {
            type Err = ::fsmc_runtime::UnknownName;
            // `Self::Err` would be ambiguous with a variant named `Err`: the type is named in full.
            fn from_str(name: &str) -> ::core::result::Result<Self, ::fsmc_runtime::UnknownName> {
                #id::from_name(name).ok_or_else(|| ::fsmc_runtime::UnknownName {
                    kind: #kind,
                    machine: #machine,
                    name: ::std::string::ToString::to_string(name),
                })
            }
        }

        #[automatically_derived]
        impl ::core::convert::TryFrom<&str> for #id {
            type Error = ::fsmc_runtime::UnknownName;
            fn try_from(name: &str) -> ::core::result::Result<Self, ::fsmc_runtime::UnknownName> {
                ::core::str::FromStr::from_str(name)
            }
        }

        ::fsmc_runtime::__serde_by_name!(#id);
    }
}

fn event_impl<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let parse = by_name("Event", "event", m.name.as_str());
    let n = proc_macro2::Literal::usize_unsuffixed(m.events.len());
    let no_events = m.events.is_empty();
    let all = lists.list(Kind::Elem, m.events.len(), |i| {
        let v = variant(&m.events[i].name.text);
        quote! { Event::#v, }
    });
    let names = lists.list(Kind::Elem, m.events.len(), |i| {
        let name = m.events[i].name.as_str();
        quote! { #name, }
    });
    let timeouts = lists.list(Kind::Elem, m.events.len(), |i| match m.events[i].timeout {
        Some(t) => {
            let nanos =
                Literal::u64_unsuffixed(t.duration.as_nanos().min(u128::from(u64::MAX)) as u64);
            quote! { ::core::option::Option::Some(::core::time::Duration::from_nanos(#nanos)), }
        }
        None => quote! { ::core::option::Option::None, },
    });
    let from_name = lists.list(Kind::Arm, m.events.len(), |i| {
        let (name, v) = (m.events[i].name.as_str(), variant(&m.events[i].name.text));
        quote! { #name => ::core::option::Option::Some(Event::#v), }
    });
    // An empty enum cannot be indexed or displayed by value; staged machines have no events.
    let body = if no_events {
        quote! {
            impl Event {
                /// Every event (none: this machine moves without events).
                pub const ALL: &'static [Event] = &[];
                /// The event's name as written in the spec.
                pub const fn name(self) -> &'static str { match self {} }
                /// The event's timeout.
                pub const fn timeout(self) -> ::core::option::Option<::core::time::Duration> { match self {} }
                /// The event with this spec name.
                pub fn from_name(_name: &str) -> ::core::option::Option<Event> { ::core::option::Option::None }
            }
        }
    } else {
        quote! {
            const EVENT_NAMES: [&str; #n] = [#names];
            const TIMEOUTS: [::core::option::Option<::core::time::Duration>; #n] = [#timeouts];

            impl Event {
                /// Every event, in spec order.
                pub const ALL: &'static [Event] = &[#all];

                /// The event's name as written in the spec.
                pub const fn name(self) -> &'static str {
                    EVENT_NAMES[self as usize]
                }

                /// How long a round waits before this (timeout) event fires; `None` for ordinary events.
                pub const fn timeout(self) -> ::core::option::Option<::core::time::Duration> {
                    TIMEOUTS[self as usize]
                }

                /// The event with this spec name.
                pub fn from_name(name: &str) -> ::core::option::Option<Event> {
                    match name {
                        #from_name
                        _ => ::core::option::Option::None,
                    }
                }
            }
        }
    };
    quote! {
        #body

        #[automatically_derived]
        impl ::core::fmt::Display for Event {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        #parse
    }
}

fn transitions<'a>(
    m: &'a Machine,
    profile: Option<&TokenStream>,
    lists: &Lists<'a>,
) -> TokenStream {
    let direct = m.transitions.iter().any(|t| t.event.is_none());
    let mut out = TokenStream::new();
    if crate::hooks::has_hooks(m) {
        out.extend(hooks::messages(m));
        out.extend(table::generate(m, lists));
        out.extend(hooks::generate(m, profile, lists));
    }
    if direct || m.events.is_empty() {
        out.extend(next_stages(m));
    }
    out
}

/// Direct transitions (staged machines): the next stages of each state and a checked `goto`.
fn next_stages(m: &Machine) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let outgoing = m.outgoing();
    let rows = m.state_ids().map(|s| {
        let mut seen: Vec<_> = outgoing[s.index()]
            .iter()
            .map(|&t| &m.transitions[t])
            .filter(|t| t.event.is_none())
            .map(|t| t.to)
            .collect();
        seen.sort();
        seen.dedup();
        let vs = seen.iter().map(|s| variant(&m.state(*s).name.text));
        quote! { &[#(State::#vs),*] }
    });
    quote! {
        static NEXT_STAGES: [&[State]; #n] = [#(#rows),*];

        impl State {
            /// The states this state may move to directly (its next stages).
            pub fn next_stages(self) -> &'static [State] {
                NEXT_STAGES[self as usize]
            }

            /// Moves to `to` if it is one of this state's next stages; anything else is an error naming them.
            pub fn goto(self, to: State) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTarget<State>> {
                ::fsmc_runtime::InvalidTarget::check(self, to, self.next_stages())
            }
        }
    }
}
