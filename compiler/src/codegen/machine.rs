//! The part every machine gets: `State` and `Event` enums with their tables, and the transition function.
//!
//! `State::next` indexes a dense `[[Option<State>; EVENTS]; STATES]` table: one load and one compare per event,
//! no search and no branch mispredictions from a large `match`. `Option<State>` costs one byte per cell
//! because the enum's unused discriminants give `None` a niche.

use super::docs;
use super::{snake, variant};
use crate::model::Machine;
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

pub(crate) fn generate(m: &Machine) -> TokenStream {
    let mut out = TokenStream::new();
    out.extend(enums(m));
    out.extend(state_impl(m));
    out.extend(event_impl(m));
    out.extend(transitions(m));
    out
}

fn enums(m: &Machine) -> TokenStream {
    let state_repr = repr(m.states.len());
    // A zero-variant enum cannot have a `repr`.
    let event_repr = (!m.events.is_empty()).then(|| {
        let r = repr(m.events.len());
        quote! { #[repr(#r)] }
    });
    let states = m.states.iter().enumerate().map(|(i, s)| {
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
        if let Some(k) = s.round {
            facts.push(format!("a `{}` round", k.name()));
        }
        if let Some(g) = s.genie {
            facts.push(format!("a `{}` state", g.name()));
        }
        if lines.is_empty() {
            lines.push(format!("State `{}`.", s.name));
        }
        if !facts.is_empty() {
            lines.push(String::new());
            lines.push(format!("Spec: {}.", facts.join(", ")));
        }
        let doc = docs::attrs(&lines);
        let disc = Literal::usize_unsuffixed(i);
        quote! { #doc #v = #disc }
    });
    let events = m.events.iter().enumerate().map(|(i, e)| {
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
        quote! { #doc #v = #disc }
    });
    let state_doc = docs::attrs(&[format!("The states of `{}`.", m.name)]);
    let event_doc = docs::attrs(&[format!("The events of `{}`.", m.name)]);
    quote! {
        #state_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        // The variants are the spec's names: Open Autonomy states all end in `Round` by convention.
        #[allow(clippy::enum_variant_names)]
        #[repr(#state_repr)]
        pub enum State { #(#states,)* }

        #event_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(clippy::enum_variant_names)]
        #event_repr
        pub enum Event { #(#events,)* }
    }
}

fn state_list<'a>(m: &'a Machine, pick: impl Fn(&crate::model::State) -> bool + 'a) -> Vec<Ident> {
    m.states
        .iter()
        .filter(|s| pick(s))
        .map(|s| variant(&s.name.text))
        .collect()
}

fn state_impl(m: &Machine) -> TokenStream {
    let parse = by_name("State", "state", m.name.as_str());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let all = state_list(m, |_| true);
    let starts = state_list(m, |s| s.start);
    let finals = state_list(m, |s| s.is_final);
    let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    let is_start = super::machine_matches(starts.clone());
    let is_final = super::machine_matches(finals.clone());
    let default = m.default_start().map(|d| variant(&m.state(d).name.text));
    let default_const = default.map(|d| {
        quote! {
            /// The default start state.
            pub const DEFAULT_START: State = State::#d;
        }
    });
    let outgoing = m.outgoing();
    let accepted = m.state_ids().map(|s| {
        // In event declaration order, so that reordering transitions does not change the output.
        let mut seen: Vec<_> = outgoing[s.index()]
            .iter()
            .filter_map(|&t| m.transitions[t].event)
            .collect();
        seen.sort();
        seen.dedup();
        let evs = seen.iter().map(|e| variant(&m.event(*e).name.text));
        quote! { &[#(Event::#evs),*] }
    });
    let from_name = names
        .iter()
        .zip(&all)
        .map(|(name, v)| quote! { #name => ::core::option::Option::Some(State::#v) });
    quote! {
        const STATE_NAMES: [&str; #n] = [#(#names),*];
        static ACCEPTED: [&[Event]; #n] = [#(#accepted),*];

        impl State {
            /// Every state, in spec order.
            pub const ALL: &'static [State] = &[#(State::#all),*];
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
                    #(#from_name,)*
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

fn event_impl(m: &Machine) -> TokenStream {
    let parse = by_name("Event", "event", m.name.as_str());
    let n = proc_macro2::Literal::usize_unsuffixed(m.events.len());
    let no_events = m.events.is_empty();
    let all: Vec<Ident> = m.events.iter().map(|e| variant(&e.name.text)).collect();
    let names: Vec<&str> = m.events.iter().map(|e| e.name.as_str()).collect();
    let timeouts = m.events.iter().map(|e| match e.timeout {
        Some(t) => {
            let nanos =
                Literal::u64_unsuffixed(t.duration.as_nanos().min(u128::from(u64::MAX)) as u64);
            quote! { ::core::option::Option::Some(::core::time::Duration::from_nanos(#nanos)) }
        }
        None => quote! { ::core::option::Option::None },
    });
    let from_name = names
        .iter()
        .zip(&all)
        .map(|(name, v)| quote! { #name => ::core::option::Option::Some(Event::#v) });
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
            const EVENT_NAMES: [&str; #n] = [#(#names),*];
            const TIMEOUTS: [::core::option::Option<::core::time::Duration>; #n] = [#(#timeouts),*];

            impl Event {
                /// Every event, in spec order.
                pub const ALL: &'static [Event] = &[#(Event::#all),*];

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
                        #(#from_name,)*
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

fn transitions(m: &Machine) -> TokenStream {
    let guarded = m.transitions.iter().any(|t| !t.guards.is_empty());
    let hooked = guarded || m.transitions.iter().any(|t| !t.actions.is_empty());
    let evented = m.transitions.iter().any(|t| t.event.is_some());
    let direct = m.transitions.iter().any(|t| t.event.is_none());
    let mut out = TokenStream::new();
    if !guarded && !m.events.is_empty() {
        out.extend(table(m));
    }
    if hooked && evented {
        out.extend(hooks(m, guarded));
    }
    if direct || m.events.is_empty() {
        out.extend(next_stages(m));
    }
    out
}

/// Up to this many cells (states × events), `next` indexes a dense table; beyond, the table would grow with
/// states × events instead of transitions (a 3000 × 3000 machine is nine million cells), so `next` searches
/// each event's sorted list of transitions instead: code and memory in proportion to the transitions.
pub const DENSE_TABLE_LIMIT: usize = 1 << 16;

/// The table and `next`, for machines whose transitions do not depend on guards.
fn table(m: &Machine) -> TokenStream {
    let (ns, ne) = (m.states.len(), m.events.len());
    if ns.saturating_mul(ne) > DENSE_TABLE_LIMIT {
        return sparse_table(m);
    }
    let (ns_lit, ne_lit) = (Literal::usize_unsuffixed(ns), Literal::usize_unsuffixed(ne));
    // Indexed `TABLE[event][state]`: the state is the value each lookup depends on, and keeping the row
    // multiplication on the event (known from the input) takes it off that dependency chain.
    let mut cells = vec![vec![None; ns]; ne];
    for t in &m.transitions {
        if let Some(e) = t.event {
            // Structure checks guarantee one target per (state, event); keep the first if not.
            cells[e.index()][t.from.index()].get_or_insert(t.to);
        }
    }
    let rows = cells.iter().map(|row| {
        let cells = row.iter().map(|c| match c {
            Some(s) => {
                let v = variant(&m.state(*s).name.text);
                quote! { ::core::option::Option::Some(State::#v) }
            }
            None => quote! { ::core::option::Option::None },
        });
        quote! { [#(#cells),*] }
    });
    let example = m
        .transitions
        .iter()
        .filter(|t| t.event.is_some())
        .min_by_key(|t| (t.from, t.event))
        .map(|t| {
            let doc = format!(
                " `State::{}.next(Event::{})` is `Ok(State::{})`.",
                variant(&m.state(t.from).name.text),
                t.event
                    .map_or(String::new(), |e| variant(&m.event(e).name.text)
                        .to_string()),
                variant(&m.state(t.to).name.text)
            );
            quote! { #[doc = ""] #[doc = #doc] }
        });
    quote! {
        /// The transition table: `TABLE[event][state]` is the next state, if the state accepts the event.
        static TABLE: [[::core::option::Option<State>; #ns_lit]; #ne_lit] = [#(#rows),*];

        impl State {
            /// The state `event` leads to from here, or an error naming this state and the events it accepts.
            ///
            /// A table lookup: no allocation, no search.
            #example
            #[inline]
            pub fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                match TABLE[event as usize][self as usize] {
                    ::core::option::Option::Some(next) => ::core::result::Result::Ok(next),
                    ::core::option::Option::None => ::core::result::Result::Err(::fsmc_runtime::InvalidTransition {
                        state: self,
                        event,
                        accepted: self.accepted(),
                        guarded: false,
                    }),
                }
            }
        }

        #[automatically_derived]
        impl ::fsmc_runtime::Machine for State {
            type Event = Event;
            const ALL: &'static [State] = State::ALL;

            fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                State::next(self, event)
            }
            fn is_final(self) -> bool {
                State::is_final(self)
            }
            fn accepted(self) -> &'static [Event] {
                State::accepted(self)
            }
            fn name(self) -> &'static str {
                State::name(self)
            }
        }
    }
}

/// Guards and actions: a `Hooks` trait the user implements, and `State::fire`, which tries a pair's
/// transitions in spec order, firing the first whose guards hold and running its actions.
fn hooks(m: &Machine, guarded: bool) -> TokenStream {
    let mut guards: Vec<&str> = Vec::new();
    let mut actions: Vec<&str> = Vec::new();
    for t in &m.transitions {
        for g in &t.guards {
            if !guards.contains(&g.name.as_str()) {
                guards.push(g.name.as_str());
            }
        }
        for a in &t.actions {
            if !actions.contains(&a.as_str()) {
                actions.push(a.as_str());
            }
        }
    }
    let guard_methods = guards.iter().map(|g| {
        let id = snake(g);
        let doc = format!(
            " Guard `{g}`: whether the transitions it guards may fire (`unless {g}` negates it)."
        );
        quote! { #[doc = #doc] fn #id(&mut self, from: State, event: Event) -> bool; }
    });
    let action_methods = actions.iter().map(|a| {
        let id = snake(a);
        let doc = format!(" Action `{a}`: runs when a transition that names it fires.");
        quote! { #[doc = #doc] fn #id(&mut self, from: State, event: Event, to: State); }
    });
    // Group transitions by (state, event), in spec order.
    let mut groups: Vec<((u32, u32), Vec<usize>)> = Vec::new();
    for (i, t) in m.transitions.iter().enumerate() {
        let Some(e) = t.event else { continue };
        let key = (t.from.0, e.0);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let arms = groups.iter().map(|((s, e), list)| {
        let sv = variant(&m.states[*s as usize].name.text);
        let ev = variant(&m.events[*e as usize].name.text);
        let tries = list.iter().map(|&i| {
            let t = &m.transitions[i];
            let to = variant(&m.state(t.to).name.text);
            let conds = t.guards.iter().map(|g| {
                let id = snake(&g.name.text);
                if g.negated {
                    quote! { !Hooks::#id(hooks, self, event) }
                } else {
                    quote! { Hooks::#id(hooks, self, event) }
                }
            });
            let acts = t.actions.iter().map(|a| {
                let id = snake(&a.text);
                quote! { Hooks::#id(hooks, self, event, State::#to); }
            });
            if t.guards.is_empty() {
                quote! {
                    #(#acts)*
                    return ::core::result::Result::Ok(State::#to);
                }
            } else {
                quote! {
                    if #(#conds)&&* {
                        #(#acts)*
                        return ::core::result::Result::Ok(State::#to);
                    }
                }
            }
        });
        quote! { (State::#sv, Event::#ev) => { #(#tries)* } }
    });
    let fire_doc = if guarded {
        " Fires `event`: tries this state's transitions on it in spec order and takes the first whose guards hold, running its actions. An event the state does not accept, or whose guards all fail, is an error."
    } else {
        " Fires `event` like [`State::next`], running the actions of the transition taken."
    };
    quote! {
        /// Guards and actions named in the spec, implemented by the user.
        pub trait Hooks {
            #(#guard_methods)*
            #(#action_methods)*
        }

        impl State {
            #[doc = #fire_doc]
            pub fn fire<H: Hooks + ?Sized>(self, event: Event, hooks: &mut H) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                #[allow(unreachable_patterns, clippy::match_single_binding)]
                match (self, event) {
                    #(#arms)*
                    _ => {}
                }
                // Reaching here with an event the state accepts means every transition on it was guarded and refused.
                ::core::result::Result::Err(::fsmc_runtime::InvalidTransition { state: self, event, accepted: self.accepted(), guarded: self.accepted().contains(&event) })
            }
        }
    }
}

/// `next` for a large machine: per event, its transitions sorted by source state, found by binary search.
fn sparse_table(m: &Machine) -> TokenStream {
    let ne = m.events.len();
    let ne_lit = Literal::usize_unsuffixed(ne);
    let mut rows: Vec<Vec<(usize, crate::model::StateId)>> = vec![Vec::new(); ne];
    for t in &m.transitions {
        if let Some(e) = t.event {
            rows[e.index()].push((t.from.index(), t.to));
        }
    }
    let rows = rows.iter_mut().map(|row| {
        // Sorted by source; one target per (state, event) as in the dense table (the first written).
        row.sort_by_key(|(from, _)| *from);
        row.dedup_by_key(|(from, _)| *from);
        let pairs = row.iter().map(|(from, to)| {
            let (f, t) = (
                variant(&m.states[*from].name.text),
                variant(&m.state(*to).name.text),
            );
            quote! { (State::#f, State::#t) }
        });
        quote! { &[#(#pairs),*] }
    });
    quote! {
        /// The transitions of each event, sorted by source state: `ROWS[event]` holds `(from, to)` pairs.
        static ROWS: [&[(State, State)]; #ne_lit] = [#(#rows),*];

        impl State {
            /// The state `event` leads to from here, or an error naming this state and the events it accepts.
            ///
            /// A binary search in the event's transitions: no allocation, and code in proportion to the
            /// transitions rather than to states × events.
            #[inline]
            pub fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                let row = ROWS[event as usize];
                match row.binary_search_by_key(&(self as usize), |(from, _)| *from as usize) {
                    ::core::result::Result::Ok(i) => match row.get(i) {
                        ::core::option::Option::Some((_, to)) => ::core::result::Result::Ok(*to),
                        ::core::option::Option::None => ::core::result::Result::Err(::fsmc_runtime::InvalidTransition::for_state(self, event)),
                    },
                    ::core::result::Result::Err(_) => ::core::result::Result::Err(::fsmc_runtime::InvalidTransition::for_state(self, event)),
                }
            }
        }

        #[automatically_derived]
        impl ::fsmc_runtime::Machine for State {
            type Event = Event;
            const ALL: &'static [State] = State::ALL;

            fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                State::next(self, event)
            }
            fn is_final(self) -> bool {
                State::is_final(self)
            }
            fn accepted(self) -> &'static [Event] {
                State::accepted(self)
            }
            fn name(self) -> &'static str {
                State::name(self)
            }
        }
    }
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
