//! Tests of a plain machine: each fires the events of a shortest walk from a start state through `State::fire`,
//! with the guards the step needs holding, and asserts every state it reaches and the actions each step ran.
//!
//! The guards come from a generated stub (`Stub`, whose guards hold when the step names them), and an event's
//! data from sample values of its fields' types, so every test is complete as generated. A transition on an
//! event whose data has a type of the user's own is left to the user's tests (the module's doc lists it).

use super::{Leg, TestOptions, checks, plan, values};
use crate::codegen::tokens::{snake, variant};
use crate::spec::{EventId, Machine, StateId, Transition};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub(super) fn generate(m: &Machine, opts: TestOptions) -> TokenStream {
    if m.events.is_empty() {
        return TokenStream::new();
    }
    let holding: Vec<Option<BTreeSet<String>>> =
        (0..m.transitions.len()).map(|t| guards_for(m, t)).collect();
    let can: Vec<bool> = holding.iter().map(Option::is_some).collect();
    let starts: Vec<StateId> = m.start_states().collect();
    let (legs, missed) = plan(m, &starts, &can, opts);
    let module = snake(&m.name.text);
    let tests_module = format_ident!("{}_tests", module.to_string().trim_start_matches("r#"));
    let stub = stub(m);
    let legs_code: Vec<TokenStream> = legs.iter().map(|l| leg(m, l, &holding)).collect();
    let tests = checks(m, &legs, &legs_code, opts);
    let doc = module_doc(m, legs.len(), &missed);
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, dead_code, clippy::all)]
        pub mod #tests_module {
            use super::#module::*;

            #stub

            /// Fires `event` in `state` with the guards in `holding`, and checks the machine moves to `to`
            /// having run exactly `actions`.
            fn step(state: &mut State, hooks: &mut Stub, message: Message, holding: &'static [&'static str], to: State, actions: &[&'static str]) {
                hooks.holding = holding;
                hooks.actions.clear();
                let from = *state;
                let event = ::std::format!("{:?}", message);
                match from.fire(&message, hooks) {
                    ::core::result::Result::Ok(next) => {
                        ::core::assert_eq!(next, to, "{} on {}", from, event);
                        ::core::assert_eq!(hooks.actions, actions, "{} on {}", from, event);
                        *state = next;
                    }
                    ::core::result::Result::Err(e) => ::core::panic!("{} on {} was refused: {}", from, event, e),
                }
            }

            #tests
        }
    }
}

/// The module's doc: how many tests, and which transitions none takes.
pub(super) fn module_doc(m: &Machine, legs: usize, missed: &[usize]) -> String {
    let mut doc = format!(
        " Tests of `{}` generated from its spec: {legs} walks.",
        m.name
    );
    if !missed.is_empty() {
        let list: Vec<String> = missed
            .iter()
            .map(|&t| describe(m, &m.transitions[t]))
            .collect();
        doc.push_str(&format!(" Not taken: {}.", list.join(", ")));
    }
    doc
}

fn describe(m: &Machine, t: &Transition) -> String {
    format!(
        "`({}, {}) -> {}`",
        m.state(t.from).name,
        t.event
            .map_or("-".to_string(), |e| m.event(e).name.to_string()),
        m.state(t.to).name
    )
}

/// The message of `event` with sample data (the `0`-th value of each field's type); `None` when a field's type
/// is not one the generator can sample.
pub(super) fn message(m: &Machine, event: EventId) -> Option<TokenStream> {
    let ev = m.event(event);
    let id = variant(&ev.name.text);
    if ev.fields.is_empty() {
        return Some(if m.events.iter().all(|e| e.fields.is_empty()) {
            quote! { Event::#id }
        } else {
            quote! { Message::#id }
        });
    }
    let fields = ev
        .fields
        .iter()
        .map(|f| {
            let v = values::sample(&f.ty.text)?;
            let name = snake(&f.name.text);
            Some(quote! { #name: { let i = 0usize; #v } })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(quote! { Message::#id(messages::#id { #(#fields,)* }) })
}

/// The guards that must hold for transition `t` to be the one `fire` takes: its own `if` guards, and for every
/// earlier candidate on the same state and event a guard of its that fails. `None` when no assignment does it
/// (an earlier candidate shadows it) or the event's data cannot be sampled.
pub(super) fn guards_for(m: &Machine, t: usize) -> Option<BTreeSet<String>> {
    let tr = &m.transitions[t];
    let event = tr.event?;
    message(m, event)?;
    let mut value: std::collections::BTreeMap<String, bool> = tr
        .guards
        .iter()
        .map(|g| (g.name.text.to_string(), !g.negated))
        .collect();
    let earlier = m.transitions[..t]
        .iter()
        .filter(|o| o.from == tr.from && o.event == tr.event);
    for o in earlier {
        // Fail the earlier candidate on a guard this transition leaves free, if it has one.
        let free = o
            .guards
            .iter()
            .find(|g| !value.contains_key(g.name.text.as_str()));
        if let Some(g) = free {
            value.insert(g.name.text.to_string(), g.negated);
        }
        let holds = o
            .guards
            .iter()
            .all(|g| value.get(g.name.text.as_str()).copied().unwrap_or(false) != g.negated);
        if holds {
            return None;
        }
    }
    Some(
        value
            .into_iter()
            .filter(|(_, v)| *v)
            .map(|(g, _)| g)
            .collect(),
    )
}

/// The stub hooks: each guard holds when the step names it, each action records its name.
pub(super) fn stub(m: &Machine) -> TokenStream {
    let mut guards: Vec<String> = Vec::new();
    let mut actions: Vec<String> = Vec::new();
    for t in &m.transitions {
        for g in &t.guards {
            if !guards.iter().any(|x| *x == g.name.text) {
                guards.push(g.name.text.to_string());
            }
        }
        for a in &t.actions {
            if !actions.iter().any(|x| *x == a.name.text) {
                actions.push(a.name.text.to_string());
            }
        }
    }
    // A guard or action named on one event with data also receives that data (see `codegen::typed`).
    let typed = crate::codegen::typed::Typed::of(m);
    let data = |e: Option<EventId>| {
        e.map(|e| {
            let ty = variant(&m.event(e).name.text);
            quote! { , _data: &messages::#ty }
        })
    };
    let guard_fns = guards.iter().map(|g| {
        let id = snake(g);
        let data = data(typed.guard(g));
        quote! { fn #id(&self, _t: &Transition<'_> #data) -> bool { self.holding.contains(&#g) } }
    });
    let action_fns = actions.iter().map(|a| {
        let id = snake(a);
        let data = data(typed.action(a));
        quote! { fn #id(&mut self, _t: &Transition<'_> #data) { self.actions.push(#a); } }
    });
    quote! {
        /// Hooks whose guards hold when the step under way names them, and whose actions record their names.
        #[derive(Debug, Default)]
        struct Stub {
            holding: &'static [&'static str],
            actions: ::std::vec::Vec<&'static str>,
        }

        impl Hooks for Stub {
            #(#guard_fns)*
            #(#action_fns)*
        }
    }
}

/// One walk: the start state, then a checked step per transition.
fn leg(m: &Machine, l: &Leg, holding: &[Option<BTreeSet<String>>]) -> TokenStream {
    let start = variant(&m.state(l.start).name.text);
    let steps = l.steps.iter().map(|&t| {
        let tr = &m.transitions[t];
        let msg = tr.event.and_then(|e| message(m, e)).unwrap_or_default();
        let to = variant(&m.state(tr.to).name.text);
        let guards = holding[t].iter().flatten();
        let actions = tr.actions.iter().map(|a| a.name.text.as_str());
        quote! { step(&mut state, &mut hooks, #msg, &[#(#guards),*], State::#to, &[#(#actions),*]); }
    });
    quote! {
        {
            let mut state = State::#start;
            let mut hooks = Stub::default();
            #(#steps)*
        }
    }
}
