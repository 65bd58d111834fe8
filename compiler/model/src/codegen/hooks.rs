//! Events with their data (`messages`, `Message`), the `Transition` every hook sees, the `Hooks` trait and
//! `State::fire`, which runs a transition's hooks in the order of Genie Flow's transition steps:
//! validators → conditions → before → exit → on → state update → enter → after.
//!
//! Every hook but the spec's guards and actions has a default that does nothing, so a user implements only
//! what they need, and a machine without guards or actions has the same API as one with them.

use super::docs;
use super::lists::{Kind, Lists};
use super::table::{is_guarded, pairs};
use super::tokens::{eq_hash, rust_type, serde, snake, variant};
use super::typed::{self, Typed};
use crate::hooks;
use crate::spec::dialogue::ActionSide;
use crate::spec::{Action, EventId, Machine, StateId};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::collections::BTreeSet;

/// `messages` (one struct per event that carries data) and `Message` (an event with its data); a machine
/// whose events carry none has `type Message = Event`.
pub(crate) fn messages(m: &Machine) -> TokenStream {
    let with_data = hooks::events_with_data(m);
    if with_data.is_empty() {
        return quote! {
            /// An event with its data: this machine's events carry none, so a message is its event.
            pub type Message = Event;
        };
    }
    let structs = with_data.iter().map(|&e| {
        let ev = m.event(e);
        let id = variant(&ev.name.text);
        let doc = docs::attrs_or(&ev.docs, &format!("The data of `{}`.", ev.name));
        let fields = ev.fields.iter().map(|f| {
            let (fid, ty) = (snake(&f.name.text), rust_type(&f.ty.text));
            let doc = format!(" `{}` of `{}`.", f.name, ev.name);
            quote! { #[doc = #doc] pub #fid: #ty }
        });
        let types = || ev.fields.iter().map(|f| f.ty.text.as_str());
        let derives = derives(eq_hash(types()));
        let serde = serde(types()).then(|| {
            let fields = ev.fields.iter().map(|f| {
                let (fid, ty) = (snake(&f.name.text), rust_type(&f.ty.text));
                quote! { #fid: #ty }
            });
            quote! { ::fsmc_runtime::__serde_struct!(#id { #(#fields,)* }); }
        });
        quote! { #doc #derives pub struct #id { #(#fields,)* } #serde }
    });
    let all_eq_hash = eq_hash(
        with_data
            .iter()
            .flat_map(|&e| m.event(e).fields.iter().map(|f| f.ty.text.as_str())),
    );
    let message_derives = derives(all_eq_hash);
    let all_serde = serde(
        with_data
            .iter()
            .flat_map(|&e| m.event(e).fields.iter().map(|f| f.ty.text.as_str())),
    );
    let variants = m.events.iter().map(|e| {
        let id = variant(&e.name.text);
        let doc = format!(" `{}`.", e.name);
        if e.fields.is_empty() {
            quote! { #[doc = #doc] #id }
        } else {
            quote! { #[doc = #doc] #id(messages::#id) }
        }
    });
    let event_arms = m.events.iter().map(|e| {
        let id = variant(&e.name.text);
        if e.fields.is_empty() {
            quote! { Message::#id => Event::#id }
        } else {
            quote! { Message::#id(_) => Event::#id }
        }
    });
    let froms = with_data.iter().map(|&e| {
        let id = variant(&m.event(e).name.text);
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<messages::#id> for Message {
                fn from(data: messages::#id) -> Message {
                    Message::#id(data)
                }
            }
        }
    });
    let message_serde = all_serde.then(|| {
        let variants = m.events.iter().map(|e| {
            let id = variant(&e.name.text);
            if e.fields.is_empty() {
                quote! { #id }
            } else {
                quote! { #id(messages::#id) }
            }
        });
        quote! { ::fsmc_runtime::__serde_enum!(Message { #(#variants,)* }); }
    });
    quote! {
        /// The data the events carry: one struct per event that has fields.
        pub mod messages {
            #(#structs)*
        }

        /// An event with its data, as `State::fire` takes it.
        #message_derives
        pub enum Message { #(#variants,)* }
        #message_serde

        impl Message {
            /// The event, without its data.
            pub fn event(&self) -> Event {
                match self {
                    #(#event_arms,)*
                }
            }
        }

        #(#froms)*
    }
}

/// What a message struct derives: `Eq` and `Hash` too when its fields' types are known to have them.
fn derives(eq_hash: bool) -> TokenStream {
    if eq_hash {
        quote! { #[derive(Clone, Debug, PartialEq, Eq, Hash)] }
    } else {
        quote! { #[derive(Clone, Debug, PartialEq)] }
    }
}

/// Where an action runs in a dialogue: on both parties' copies (`None`), or on one (`sender do`, `receiver do`).
type Sides = BTreeSet<Option<ActionSide>>;

/// The guards and the actions named in the spec, each once, in the order first written; with each action, the
/// sides it runs on.
fn guards_and_actions(m: &Machine) -> (Vec<String>, Vec<(String, Sides)>) {
    let mut guards: Vec<String> = Vec::new();
    let mut actions: Vec<(String, Sides)> = Vec::new();
    for t in &m.transitions {
        for g in &t.guards {
            if !guards.contains(&g.name.text.to_string()) {
                guards.push(g.name.text.to_string());
            }
        }
        for a in &t.actions {
            let side = a.side.map(|(s, _)| s);
            match actions.iter_mut().find(|(n, _)| *n == a.name.text) {
                Some((_, sides)) => {
                    sides.insert(side);
                }
                None => actions.push((a.name.text.to_string(), BTreeSet::from([side]))),
            }
        }
    }
    (guards, actions)
}

/// Where an action runs, for its documentation: nothing to add when it runs wherever its transition fires.
fn sides_doc(sides: &Sides) -> String {
    let on = |side: ActionSide| match side {
        ActionSide::Sender => "the sender's copy of the dialogue (`sender do`)",
        ActionSide::Receiver => "the receiver's copy (`receiver do`)",
    };
    let named: Vec<&str> = sides.iter().flatten().map(|s| on(*s)).collect();
    if named.is_empty() {
        return String::new();
    }
    let mut doc = format!(" It runs on {}", named.join(", and on "));
    if sides.contains(&None) {
        doc.push_str(", and on both copies where it is named without a side");
    }
    doc.push('.');
    doc
}

fn method(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The `Transition` alias, the `Hooks` trait and `State::fire` (with `fire_with` when the profile adds
/// something to a transition: `profile` is its type, naming the lifetime `'a`).
pub(crate) fn generate<'a>(
    m: &'a Machine,
    profile: Option<&TokenStream>,
    lists: &Lists<'a>,
) -> TokenStream {
    let name = m.name.as_str();
    let alias_doc = format!(
        " A transition of `{name}` as every hook sees it: source, event, target, the message with its data, \
         and the state the machine is in while the hook runs."
    );
    let alias = match profile {
        Some(p) => {
            quote! { pub type Transition<'a> = ::fsmc_runtime::Transition<'a, State, Event, Message, #p>; }
        }
        None => {
            quote! { pub type Transition<'a> = ::fsmc_runtime::Transition<'a, State, Event, Message>; }
        }
    };
    let hooks_trait = hooks_trait(m, lists);
    let fire = fire(m, profile, lists);
    quote! {
        #[doc = #alias_doc]
        #alias

        #hooks_trait

        /// Runs the validators on a candidate transition: an error refuses the event.
        fn validated<H: Hooks + ?Sized>(hooks: &H, t: &Transition<'_>) -> ::core::result::Result<(), ::fsmc_runtime::InvalidTransition<State, Event>> {
            hooks.validate(t).map_err(|e| ::fsmc_runtime::InvalidTransition::new(t.from, t.event, ::fsmc_runtime::Reason::Rejected(e)))
        }

        #fire
    }
}

/// The data parameter of an event's hooks, if it carries data.
fn data_param(m: &Machine, e: EventId) -> Option<TokenStream> {
    let ev = m.event(e);
    (!ev.fields.is_empty()).then(|| {
        let id = variant(&ev.name.text);
        quote! { , data: &messages::#id }
    })
}

fn hooks_trait<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let name = m.name.as_str();
    let (guards, actions) = guards_and_actions(m);
    let typed = Typed::of(m);
    let receives = |e: Option<EventId>| {
        e.map_or(String::new(), |e| {
            format!(
                " It receives the data of `{}`, the one event it is named on.",
                m.event(e).name
            )
        })
    };
    let guard_methods = guards.iter().map(|g| {
        let id = snake(g);
        let e = typed.guard(g);
        let doc = format!(
            " Guard `{g}`: whether a transition it guards may be taken (`unless {g}` takes it when not). \
             Asked after the validators, on the source state; it cannot change the context.{}",
            receives(e)
        );
        let data = typed::param(m, e);
        quote! { #[doc = #doc] fn #id(&self, t: &Transition<'_> #data) -> bool; }
    });
    let action_methods = actions.iter().map(|(a, sides)| {
        let id = snake(a);
        let e = typed.action(a);
        let doc = format!(
            " Action `{a}`: runs when a transition that names it (`do {a}`) is taken, in the `on` group, after \
             `on_transition` and the event's `on_` hook.{}{}",
            sides_doc(sides),
            receives(e)
        );
        let data = typed::param(m, e);
        quote! { #[doc = #doc] fn #id(&mut self, t: &Transition<'_> #data); }
    });
    let event_hook = |which: usize, what: &'static str| {
        lists.list(Kind::Item, m.events.len(), move |i| {
            let e = EventId(i as u32);
            let ev = m.event(e);
            let id = method(&hooks::event_hooks(&ev.name.text)[which]);
            let data = data_param(m, e);
            let doc = format!(" {what} of event `{}`.", ev.name);
            quote! { #[doc = #doc] fn #id(&mut self, t: &Transition<'_> #data) {} }
        })
    };
    let state_hook =
        |ids: Vec<crate::spec::StateId>, name_of: fn(&str) -> String, what: &'static str| {
            lists.list(Kind::Item, ids.len(), move |i| {
                let st = m.state(ids[i]);
                let id = method(&name_of(&st.name.text));
                let doc = format!(" {what} `{}`.", st.name);
                quote! { #[doc = #doc] fn #id(&mut self, t: &Transition<'_>) {} }
            })
        };
    let before = event_hook(0, "The `before` hook");
    let on = event_hook(1, "The `on` hook");
    let after = event_hook(2, "The `after` hook");
    let exit = state_hook(hooks::exited(m), hooks::exit_hook, "Runs when leaving");
    let enter = state_hook(hooks::entered(m), hooks::enter_hook, "Runs when entering");
    let trait_doc =
        format!(" The hooks of `{name}`'s transitions, implemented by the user's context object.");
    let unit_impl = (guards.is_empty() && actions.is_empty()).then(|| {
        quote! {
            /// No hooks: every hook has a default, so `()` fires events with none.
            impl Hooks for () {}
        }
    });
    quote! {
        #[doc = #trait_doc]
        ///
        /// `State::fire` runs them in groups, in this order, each only if implemented (every method but the
        /// spec's guards and actions does nothing by default): validators (`validate`), conditions (the
        /// spec's guards), before (`before_transition`, `before_<event>`), exit (`on_exit_state`,
        /// `on_exit_<state>`), on (`on_transition`, `on_<event>`, then the spec's actions), the state update,
        /// enter (`on_enter_state`, `on_enter_<state>`) and after (`after_transition`, `after_<event>`).
        /// Validators and guards decide and cannot change the context: a refused event changes nothing.
        #[allow(unused_variables)]
        pub trait Hooks {
            #(#guard_methods)*
            #(#action_methods)*
            /// Validators: whether the message may be taken on this candidate transition. An error refuses
            /// the event with that explanation.
            fn validate(&self, t: &Transition<'_>) -> ::core::result::Result<(), ::fsmc_runtime::ValidationError> {
                ::core::result::Result::Ok(())
            }
            /// Runs before every transition, once validators and conditions passed.
            fn before_transition(&mut self, t: &Transition<'_>) {}
            #before
            /// Runs when leaving any state (`t.state` is still the source).
            fn on_exit_state(&mut self, t: &Transition<'_>) {}
            #exit
            /// Runs on every transition, before the state changes.
            fn on_transition(&mut self, t: &Transition<'_>) {}
            #on
            /// Runs when entering any state (`t.state` is the target).
            fn on_enter_state(&mut self, t: &Transition<'_>) {}
            #enter
            /// Runs after every transition.
            fn after_transition(&mut self, t: &Transition<'_>) {}
            #after
        }

        #unit_impl
    }
}

/// `match message { … }` calling event hook `which` (0 before, 1 on, 2 after) with the event's data.
fn event_dispatch<'a>(m: &'a Machine, which: usize, lists: &Lists<'a>) -> TokenStream {
    let with_data = !hooks::events_with_data(m).is_empty();
    let arm = move |i: usize| {
        let ev = &m.events[i];
        let v = variant(&ev.name.text);
        let id = method(&hooks::event_hooks(&ev.name.text)[which]);
        match (with_data, data_param(m, EventId(i as u32)).is_some()) {
            (false, _) => (quote! { Event::#v }, quote! { hooks.#id(&t); }),
            (true, false) => (quote! { Message::#v }, quote! { hooks.#id(&t); }),
            (true, true) => (
                quote! { Message::#v(data) },
                quote! { hooks.#id(&t, data); },
            ),
        }
    };
    let on = if with_data {
        quote! { message }
    } else {
        quote! { event }
    };
    partial_match(on, m.events.len(), arm, true, lists)
}

/// `match state { … }` calling the exit or enter hook of the states that have one.
fn state_dispatch<'a>(
    m: &'a Machine,
    on: TokenStream,
    ids: Vec<crate::spec::StateId>,
    name_of: fn(&str) -> String,
    lists: &Lists<'a>,
) -> TokenStream {
    let (all, len) = (ids.len() == m.states.len(), ids.len());
    let arm = move |i: usize| {
        let st = m.state(ids[i]);
        let (v, id) = (variant(&st.name.text), method(&name_of(&st.name.text)));
        (quote! { State::#v }, quote! { hooks.#id(&t); })
    };
    partial_match(on, len, arm, all, lists)
}

/// `match on { pattern => { body } … }` over the `len` arms `arm(i)` makes, with `_ => {}` unless
/// `exhaustive`; one arm of a partial match is an `if let` (what a person would write, and what clippy asks
/// for), none is nothing.
fn partial_match<'a>(
    on: TokenStream,
    len: usize,
    arm: impl Fn(usize) -> (TokenStream, TokenStream) + 'a,
    exhaustive: bool,
    lists: &Lists<'a>,
) -> TokenStream {
    match len {
        0 if !exhaustive => TokenStream::new(),
        1 if !exhaustive => {
            let (pattern, body) = arm(0);
            quote! {
                if let #pattern = #on {
                    #body
                }
            }
        }
        _ => {
            let arms = lists.list(Kind::Arm, len, move |i| {
                let (p, b) = arm(i);
                quote! { #p => { #b } }
            });
            let rest = (!exhaustive).then(|| quote! { _ => {} });
            quote! {
                match #on {
                    #arms
                    #rest
                }
            }
        }
    }
}

fn fire<'a>(m: &'a Machine, profile: Option<&TokenStream>, lists: &Lists<'a>) -> TokenStream {
    let pairs = pairs(m);
    let any_guarded = pairs.iter().any(|(_, list)| is_guarded(m, list));
    let event_of = if hooks::events_with_data(m).is_empty() {
        quote! { *message }
    } else {
        quote! { message.event() }
    };
    let any_actions = m.transitions.iter().any(|t| !t.actions.is_empty());
    // The spec's actions, in the `on` group.
    let actions = any_actions.then(|| actions(m, &pairs, any_guarded, lists));
    let resolve = resolve(m, pairs, any_guarded, any_actions, lists);
    let before = event_dispatch(m, 0, lists);
    let on = event_dispatch(m, 1, lists);
    let after = event_dispatch(m, 2, lists);
    let exit = state_dispatch(
        m,
        quote! { self },
        hooks::exited(m),
        hooks::exit_hook,
        lists,
    );
    let enter = state_dispatch(
        m,
        quote! { t.to },
        hooks::entered(m),
        hooks::enter_hook,
        lists,
    );
    let body = quote! {
        let event = #event_of;
        let mut t: Transition<'_> = ::fsmc_runtime::Transition { from: self, event, to: self, state: self, message, profile };
        #resolve
        hooks.before_transition(&t);
        #before
        hooks.on_exit_state(&t);
        #exit
        hooks.on_transition(&t);
        #on
        #actions
        t.state = t.to;
        hooks.on_enter_state(&t);
        #enter
        hooks.after_transition(&t);
        #after
        ::core::result::Result::Ok(t.to)
    };
    let doc = quote! {
        /// Fires `message`: runs the transition's hooks on `hooks`, in the order of [`Hooks`], and returns the
        /// new state.
        ///
        /// The transitions of this state on the event are candidates in spec order: for each, the validators
        /// run, then its guards; the first whose guards hold is taken. A validator's error, an event the state
        /// does not accept, or guards that all fail refuse the event (the error says which) before any other
        /// hook ran: nothing changed. Once taken, a transition completes.
    };
    let result =
        quote! { ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> };
    // With a profile, an action of one side that receives its event's data is an `if let` inside the side's
    // `if`: collapsing the two takes a let chain, which a user's crate on edition 2021 cannot compile.
    match profile {
        Some(p) => quote! {
            impl State {
                #doc
                ///
                /// The profile's part of the transition is its default; [`State::fire_with`] gives it.
                pub fn fire<H: Hooks + ?Sized>(self, message: &Message, hooks: &mut H) -> #result {
                    self.fire_with(message, &::core::default::Default::default(), hooks)
                }

                /// [`State::fire`], with what the profile adds to the transition (`t.profile` in every hook).
                #[allow(clippy::collapsible_if)]
                pub fn fire_with<'a, H: Hooks + ?Sized>(self, message: &'a Message, profile: &'a #p, hooks: &mut H) -> #result {
                    #body
                }
            }
        },
        None => quote! {
            impl State {
                #doc
                pub fn fire<H: Hooks + ?Sized>(self, message: &Message, hooks: &mut H) -> #result {
                    let profile = &();
                    #body
                }
            }
        },
    }
}

/// Validators and conditions: which transition is taken. A pair the event alone decides is looked up in
/// the table; a guarded pair tries its candidates in spec order (`taken` is the candidate's position).
fn resolve<'a>(
    m: &'a Machine,
    pairs: Vec<((StateId, EventId), Vec<usize>)>,
    any_guarded: bool,
    any_actions: bool,
    lists: &Lists<'a>,
) -> TokenStream {
    if !any_guarded {
        return quote! {
            t.to = State::next(self, event)?;
            validated(hooks, &t)?;
        };
    }
    let guarded: Vec<_> = pairs
        .into_iter()
        .filter(|(_, list)| is_guarded(m, list))
        .collect();
    let typed = Typed::of(m);
    let site = super::table::site_of(m);
    let arms = lists.list(Kind::Arm, guarded.len(), move |i| {
        let ((s, e), list) = &guarded[i];
        candidates(m, *s, *e, list, &typed, &site)
    });
    let taken = if any_actions {
        quote! { taken }
    } else {
        quote! { _taken }
    };
    quote! {
        let #taken: ::core::option::Option<usize> = match State::next(self, event) {
            ::core::result::Result::Ok(to) => {
                t.to = to;
                validated(hooks, &t)?;
                ::core::option::Option::None
            }
            ::core::result::Result::Err(refused) if matches!(refused.reason, ::fsmc_runtime::Reason::NeedsGuards) => {
                ::core::option::Option::Some(match (self, event) {
                    #arms
                    _ => return ::core::result::Result::Err(refused),
                })
            }
            ::core::result::Result::Err(refused) => return ::core::result::Result::Err(refused),
        };
    }
}

/// The arm of a guarded `(state, event)` pair: its candidates in spec order, each validated, the first whose
/// guards hold taken (its position is the arm's value); when none holds, the event is refused.
/// `typed` says which guards receive their event's data; `site` gives each transition's coverage counter.
fn candidates(
    m: &Machine,
    s: StateId,
    e: EventId,
    list: &[usize],
    typed: &Typed,
    site: &[usize],
) -> TokenStream {
    let (sv, ev) = (
        variant(&m.state(s).name.text),
        variant(&m.event(e).name.text),
    );
    // When every candidate is guarded the event can be refused, and the refusal names the guard that said no on
    // each candidate: each guard is then asked on its own, so the one that failed is known.
    let refusable = list.iter().all(|&i| !m.transitions[i].guards.is_empty());
    let mut tries = TokenStream::new();
    if refusable {
        tries.extend(
            quote! { let mut refused_by: ::std::vec::Vec<&'static str> = ::std::vec::Vec::new(); },
        );
    }
    let mut unguarded_last = false;
    for (k, &i) in list.iter().enumerate() {
        let t = &m.transitions[i];
        let to = variant(&m.state(t.to).name.text);
        let k = Literal::usize_unsuffixed(k);
        let index = Literal::usize_unsuffixed(site[i]);
        tries.extend(quote! {
            t.to = State::#to;
            validated(hooks, &t)?;
        });
        if t.guards.is_empty() {
            tries.extend(quote! { COVERAGE.hit(#index); #k });
            unguarded_last = true;
            break;
        }
        let asks = t.guards.iter().map(|g| {
            let ask = typed::ask(m, &snake(&g.name.text), typed.guard(&g.name.text));
            (
                if g.negated {
                    quote! { !#ask }
                } else {
                    ask
                },
                g,
            )
        });
        if refusable {
            let label = syn::Lifetime::new(&format!("'candidate_{k}"), Span::call_site());
            let checks = asks.map(|(ask, g)| {
                let written = format!(
                    "{} {}",
                    if g.negated { "unless" } else { "if" },
                    g.name.text
                );
                quote! { if !(#ask) { refused_by.push(#written); break #label; } }
            });
            tries.extend(quote! {
                #label: {
                    #(#checks)*
                    COVERAGE.hit(#index);
                    break 'candidates #k;
                }
            });
        } else {
            let conds = asks.map(|(ask, _)| ask);
            tries.extend(quote! {
                if #(#conds)&&* {
                    COVERAGE.hit(#index);
                    break 'candidates #k;
                }
            });
        }
    }
    if !unguarded_last {
        tries.extend(quote! {
            return ::core::result::Result::Err(::fsmc_runtime::InvalidTransition::no_guard_held(self, event, refused_by))
        });
    }
    quote! { (State::#sv, Event::#ev) => 'candidates: { #tries } }
}

/// The calls of a transition's actions in the order written; a run of actions of one side of a dialogue is
/// called only on that side's copy (`t.profile` is the dialogue's `Delivery`).
fn sided_calls(m: &Machine, actions: &[Action], typed: &Typed) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(first) = actions.get(i) {
        let side = first.side.map(|(s, _)| s);
        let run: Vec<&Action> = actions[i..]
            .iter()
            .take_while(|a| a.side.map(|(s, _)| s) == side)
            .collect();
        i += run.len();
        let calls = run
            .iter()
            .map(|a| typed::run(m, &snake(&a.name.text), typed.action(&a.name.text)));
        out.push(match side {
            None => quote! { #(#calls)* },
            Some(side) => {
                let sent = side_holds(side);
                quote! { if #sent { #(#calls)* } }
            }
        });
    }
    out
}

/// The spec's actions, in the `on` group: by pair for a pair the event decides, by candidate otherwise.
fn actions<'a>(
    m: &'a Machine,
    pairs: &[((StateId, EventId), Vec<usize>)],
    any_guarded: bool,
    lists: &Lists<'a>,
) -> TokenStream {
    let mut arms = Vec::new();
    let mut side_guards = false;
    let typed = Typed::of(m);
    for ((s, e), list) in pairs {
        let guarded = is_guarded(m, list);
        for (k, &i) in list.iter().enumerate() {
            let t = &m.transitions[i];
            if t.actions.is_empty() {
                continue;
            }
            let (sv, ev) = (
                variant(&m.state(*s).name.text),
                variant(&m.event(*e).name.text),
            );
            let pattern = match (any_guarded, guarded) {
                (false, _) => quote! { (State::#sv, Event::#ev) },
                (true, false) => {
                    quote! { (State::#sv, Event::#ev, ::core::option::Option::None) }
                }
                (true, true) => {
                    let k = Literal::usize_unsuffixed(k);
                    quote! { (State::#sv, Event::#ev, ::core::option::Option::Some(#k)) }
                }
            };
            // Actions all on one side are that arm's guard (an arm's pattern is its transition's alone, so no
            // other arm takes the message when the guard fails); mixed sides gate each run in the body.
            let sides: Sides = t.actions.iter().map(|a| a.side.map(|(s, _)| s)).collect();
            let one_side = match (sides.len(), sides.first()) {
                (1, Some(&side)) => side,
                _ => None,
            };
            let arm = match one_side {
                Some(side) => {
                    side_guards = true;
                    let sent = side_holds(side);
                    let calls = t
                        .actions
                        .iter()
                        .map(|a| typed::run(m, &snake(&a.name.text), typed.action(&a.name.text)));
                    (quote! { #pattern if #sent }, quote! { #(#calls)* })
                }
                None => {
                    let calls = sided_calls(m, &t.actions, &typed);
                    (pattern, quote! { #(#calls)* })
                }
            };
            arms.push(arm);
            if !guarded {
                break;
            }
        }
    }
    let on = if any_guarded {
        quote! { (self, event, taken) }
    } else {
        quote! { (self, event) }
    };
    // A lone arm with a guard stays a `match`: `if let` takes no guard.
    if let [(pattern, body)] = arms.as_slice()
        && side_guards
    {
        return quote! { match #on { #pattern => { #body } _ => {} } };
    }
    let len = arms.len();
    partial_match(on, len, move |i| arms[i].clone(), false, lists)
}

/// Whether this party's copy is the side `side`, as a condition on the transition `t`.
fn side_holds(side: ActionSide) -> TokenStream {
    match side {
        ActionSide::Sender => quote! { t.profile.is_sent() },
        ActionSide::Receiver => quote! { !t.profile.is_sent() },
    }
}
