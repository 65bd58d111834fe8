//! Guards and actions typed by event, as smlang types them: a guard or an action named only on transitions of
//! one event that carries data receives that data (`&messages::Pay`) after the transition, so its body reads
//! `data.amount` instead of matching `t.message` against every variant. One named on transitions of several
//! events (or of an event without data) sees the transition only, as every hook does.

use super::tokens::variant;
use crate::spec::{EventId, Machine};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// The event whose data each guard and action receives, by name; absent for those that receive none.
pub(crate) struct Typed {
    guards: BTreeMap<String, EventId>,
    actions: BTreeMap<String, EventId>,
}

impl Typed {
    pub fn of(m: &Machine) -> Typed {
        // `None` once a name is seen on transitions of two events (or of none).
        let mut guards: BTreeMap<String, Option<EventId>> = BTreeMap::new();
        let mut actions: BTreeMap<String, Option<EventId>> = BTreeMap::new();
        let see = |map: &mut BTreeMap<String, Option<EventId>>, name: &str, e: Option<EventId>| {
            map.entry(name.to_string())
                .and_modify(|seen| {
                    if *seen != e {
                        *seen = None;
                    }
                })
                .or_insert(e);
        };
        for t in &m.transitions {
            for g in &t.guards {
                see(&mut guards, &g.name.text, t.event);
            }
            for a in &t.actions {
                see(&mut actions, &a.name.text, t.event);
            }
        }
        let with_data = |map: BTreeMap<String, Option<EventId>>| {
            map.into_iter()
                .filter_map(|(name, e)| {
                    e.filter(|e| !m.event(*e).fields.is_empty())
                        .map(|e| (name, e))
                })
                .collect()
        };
        Typed {
            guards: with_data(guards),
            actions: with_data(actions),
        }
    }

    /// The event whose data guard `name` receives.
    pub fn guard(&self, name: &str) -> Option<EventId> {
        self.guards.get(name).copied()
    }

    /// The event whose data action `name` receives.
    pub fn action(&self, name: &str) -> Option<EventId> {
        self.actions.get(name).copied()
    }
}

/// The data parameter of a hook that receives the data of `e`.
pub(crate) fn param(m: &Machine, e: Option<EventId>) -> Option<TokenStream> {
    e.map(|e| {
        let id = variant(&m.event(e).name.text);
        quote! { , data: &messages::#id }
    })
}

/// Guard `id` asked on the transition `t` of `message` (a `bool`); a typed guard is given the data, which
/// the message of its event always has.
pub(crate) fn ask(m: &Machine, id: &Ident, e: Option<EventId>) -> TokenStream {
    match e {
        None => quote! { hooks.#id(&t) },
        Some(e) => {
            let ev = variant(&m.event(e).name.text);
            quote! { matches!(message, Message::#ev(data) if hooks.#id(&t, data)) }
        }
    }
}

/// Action `id` run on the transition `t` of `message` (a statement).
pub(crate) fn run(m: &Machine, id: &Ident, e: Option<EventId>) -> TokenStream {
    match e {
        None => quote! { hooks.#id(&t); },
        Some(e) => {
            let ev = variant(&m.event(e).name.text);
            quote! {
                if let Message::#ev(data) = message {
                    hooks.#id(&t, data);
                }
            }
        }
    }
}
