//! What an app with custom rounds adds: per custom round, an enum of the events it may end with and a struct of
//! the values it writes; the `Rounds` trait the user implements (each method is Open Autonomy's `end_block` of
//! one round, written in Rust); and the arm of `end_block` that asks it.

use super::round::{AppRound, Rounds};
use crate::codegen::docs;
use crate::codegen::lists::{Kind, Lists};
use crate::codegen::tokens::{clone_and_debug, rust_type, snake, standard, variant};
use crate::spec::{EventId, Machine, State, StateId};
use fsmc_vocab::abci::OutcomeKind;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::rc::Rc;

/// The events a custom round may end with: those of its transitions that are not timeouts (a timeout ends the
/// round by itself), in declaration order.
fn events(m: &Machine, outgoing: &[Vec<usize>], sid: StateId) -> Vec<EventId> {
    let mut events: Vec<EventId> = outgoing[sid.index()]
        .iter()
        .filter_map(|&t| m.transitions[t].event)
        .filter(|e| m.event(*e).timeout.is_none())
        .collect();
    events.sort();
    events.dedup();
    events
}

/// `XOutcome` and `XWrites` of custom round `X`.
fn names(r: &AppRound) -> (Ident, Ident) {
    (
        format_ident!("{}Outcome", r.state),
        format_ident!("{}Writes", r.state),
    )
}

/// The enums, structs and the `Rounds` trait of the custom rounds; nothing for an app without them.
pub(super) fn generate<'a>(
    m: &'a Machine,
    outgoing: &Rc<Vec<Vec<usize>>>,
    rounds: &Rc<Rounds<'a>>,
    lists: &Lists<'a>,
    assumed: &TokenStream,
) -> TokenStream {
    if rounds.customs.is_empty() {
        return quote! {};
    }
    let types = {
        let outgoing = Rc::clone(outgoing);
        let assumed = assumed.clone();
        rounds.custom_list(lists, Kind::Item, move |r| types(m, &outgoing, r, &assumed))
    };
    let assumed = assumed.clone();
    let methods = rounds.custom_list(lists, Kind::Item, move |r| {
        let sid = r.sid;
        let (method, wire) = (&r.method, &r.wire_ty);
        let (outcome, writes) = names(r);
        let returns = if m.state(sid).writes.is_empty() {
            quote! { ::core::option::Option<#outcome> }
        } else {
            quote! { ::core::option::Option<(#outcome, #writes)> }
        };
        let doc = format!(
            " The end of block of `{}`: decides the round from the payloads it collected (each agent's `{}`), or \
             `None` to keep collecting.",
            m.state(sid).name,
            quote!(#wire).to_string().replace(' ', "")
        );
        quote! {
            #[doc = #doc]
            fn #method(&self, round: &Deciding<'_, #wire>) -> #returns #assumed;
        }
    });
    quote! {
        /// What a custom round's decision sees: the payloads it collected, by agent, and the replicated state.
        pub type Deciding<'a, P> = ::fsmc_runtime::app::Deciding<'a, Spec, P>;

        #types

        /// The app's own round logic, implemented by the user: for each custom round, Open Autonomy's
        /// `end_block`, written in Rust. Every replica calls it at the end of every block while the round is open,
        /// and every replica must come to the same decision: decide only from what [`Deciding`] shows (no clock,
        /// no randomness, no I/O, no state kept between calls). The app hash covers what it decides and writes.
        pub trait Rounds: ::core::marker::Send + ::core::marker::Sync + 'static {
            #methods
        }
    }
}

/// `XOutcome`, one variant per event custom round `X` may end with, and `XWrites`, the values it writes.
/// `assumed` is the app's `where` clause (its payload and key types implement the runtime's traits).
fn types(m: &Machine, outgoing: &[Vec<usize>], r: &AppRound, assumed: &TokenStream) -> TokenStream {
    let sid = r.sid;
    let s = m.state(sid);
    let (outcome, writes) = names(r);
    let variants = events(m, outgoing, sid).into_iter().map(|e| {
        let v = variant(&m.event(e).name.text);
        let doc = format!(" Ends `{}` with `{}`.", s.name, m.event(e).name);
        quote! { #[doc = #doc] #v }
    });
    let outcome_doc = format!(
        " How `{}` may end: one variant per event it has a transition for.",
        s.name
    );
    let writes_def = (!s.writes.is_empty()).then(|| writes_struct(m, s, &writes, assumed));
    quote! {
        #[doc = #outcome_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        // Variants are the spec's event names, which may share a prefix or a suffix.
        #[allow(clippy::enum_variant_names)]
        pub enum #outcome {
            #(#variants,)*
        }

        #writes_def
    }
}

/// The arm of `end_block` for custom round `r`: asks the app's logic, writes what it returns, names the event.
/// `conventional` is [`Machine::conventional_outcome_events`], looked up once for every round.
pub(super) fn end_block(
    m: &Machine,
    outgoing: &[Vec<usize>],
    conventional: &[Option<EventId>],
    r: &AppRound,
) -> TokenStream {
    let sid = r.sid;
    let s = m.state(sid);
    let (sv, method) = (&r.state, &r.method);
    let (outcome, _) = names(r);
    let arms = events(m, outgoing, sid).into_iter().map(|e| {
        let v = variant(&m.event(e).name.text);
        // The outcome whose event this is, if one is: `done` makes a registration's senders the participants
        // and starts a reset round's new period.
        let kind = OutcomeKind::ALL
            .iter()
            .find(|o| m.outcome_event_in(sid, **o, conventional) == Some(e))
            .map_or(quote! { ::core::option::Option::None }, |o| {
                let o = Ident::new(&format!("{o:?}"), Span::call_site());
                quote! { ::core::option::Option::Some(::fsmc_runtime::rounds::OutcomeKind::#o) }
            });
        quote! { #outcome::#v => (Event::#v, #kind) }
    });
    let (decided, writes) = if s.writes.is_empty() {
        (quote! { outcome }, quote! {})
    } else {
        let fields = s.writes.iter().map(|(k, _)| snake(&m.key(*k).name.text));
        (
            quote! { (outcome, writes) },
            quote! { #(data.#fields = ::core::option::Option::Some(writes.#fields);)* },
        )
    };
    quote! {
        Round::#sv(r) => {
            let #decided = {
                let round = end.deciding(::fsmc_runtime::rounds::Round::submissions(r), &*data);
                Rounds::#method(end.logic(), &round)
            }?;
            #writes
            let (event, outcome) = match outcome {
                #(#arms,)*
            };
            ::core::option::Option::Some(::fsmc_runtime::app::Decision {
                event,
                outcome,
                keeper: ::core::option::Option::None,
            })
        }
    }
}

/// `XWrites`, the values custom round `X` writes. With key types of the user's crate, `Clone` and `Debug` are
/// written out rather than derived (see `clone_and_debug`), and `PartialEq`, which is not among a key's bounds,
/// holds when the keys' types are comparable.
fn writes_struct(m: &Machine, s: &State, writes: &Ident, assumed: &TokenStream) -> TokenStream {
    let keys: Vec<_> = s.writes.iter().map(|(k, _)| m.key(*k)).collect();
    let fields = keys.iter().map(|key| {
        let (id, ty) = (snake(&key.name.text), rust_type(&key.ty.text));
        let doc = docs::attrs_or(&key.docs, &format!("The value `{}` takes.", key.name));
        quote! { #doc pub #id: #ty }
    });
    let doc = format!(
        " What `{}` writes whenever it decides (its `writes`): the keys take these values.",
        s.name
    );
    if assumed.is_empty() {
        return quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            pub struct #writes {
                #(#fields,)*
            }
        };
    }
    let ids: Vec<_> = keys.iter().map(|key| snake(&key.name.text)).collect();
    let own: std::collections::BTreeSet<&str> = keys
        .iter()
        .map(|key| key.ty.text.as_str())
        .filter(|t| !standard(t))
        .collect();
    let comparable = (!own.is_empty()).then(|| {
        let bounds = own.into_iter().map(|t| {
            let ty = rust_type(t);
            quote! { for<'fsmc> #ty: ::core::cmp::PartialEq }
        });
        quote! { where #(#bounds),* }
    });
    let clone_and_debug = clone_and_debug(writes, &ids, assumed);
    quote! {
        #[doc = #doc]
        pub struct #writes {
            #(#fields,)*
        }

        #clone_and_debug

        impl ::core::cmp::PartialEq for #writes #comparable {
            fn eq(&self, other: &Self) -> bool {
                #(self.#ids == other.#ids)&&*
            }
        }
    }
}
