//! What Open Autonomy adds to an `abci` machine's (or a composed app's) module: each round's kind and outcome
//! events, and the replicated app ([`app`], with the typed round of each state from [`round`] and what custom
//! rounds add from [`custom`]): the `Spec` the runtime's driver runs, the `Behaviour` trait the user implements
//! and, for custom rounds, the `Rounds` trait that decides them.

mod app;
mod custom;
mod fingerprint;
pub(super) mod round;

pub(crate) use app::assumed;

use super::lists::{Kind, Lists};
use super::tokens::{machine_matches, variant};
use crate::spec::abci::Round;
use crate::spec::{EventId, Machine, StateId};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::rc::Rc;

/// The fact a state's docs give about its round: its kind, when written.
pub(crate) fn state_fact(round: &Round) -> Option<String> {
    round.kind.map(|k| format!("a `{}` round", k.name()))
}

/// The rounds' kinds, resets and outcome events as `State` methods, and the replicated app.
pub(crate) fn generate<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let kinds = lists.list(Kind::Elem, m.states.len(), |i| {
        match runtime_kind(m.states[i].round_kind()) {
            Some(k) => quote! { ::core::option::Option::Some(#k), },
            None => quote! { ::core::option::Option::None, },
        }
    });
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let resets = machine_matches(
        m.states
            .iter()
            .filter(|s| s.round().is_some_and(|r| r.reset))
            .map(|s| variant(&s.name.text))
            .collect(),
    );
    let outgoing = Rc::new(m.outgoing());
    let has_transition = |sid: StateId, e: EventId| {
        outgoing[sid.index()]
            .iter()
            .any(|&t| m.transitions[t].event == Some(e))
    };
    // Only outcomes the state has a transition for: an outcome without one never ends the round.
    let conventional = m.conventional_outcome_events();
    let outcomes: Vec<(StateId, OutcomeKind, EventId)> = m
        .state_ids()
        .flat_map(|sid| {
            m.state(sid)
                .round_kind()
                .outcomes()
                .iter()
                .filter_map(|(o, _)| {
                    m.outcome_event_in(sid, *o, &conventional)
                        .map(|e| (sid, *o, e))
                })
                .filter(|(_, _, e)| has_transition(sid, *e))
                .collect::<Vec<_>>()
        })
        .collect();
    // Rounds that all decide in user code map no outcome: no `match` to write then.
    let outcome_body = if outcomes.is_empty() {
        quote! {
            let _ = (self, outcome);
            ::core::option::Option::None
        }
    } else {
        let arms = lists.list(Kind::Arm, outcomes.len(), move |i| {
            let (sid, o, e) = outcomes[i];
            let sv = variant(&m.state(sid).name.text);
            let ok = outcome_kind(o);
            let ev = variant(&m.event(e).name.text);
            quote! { (State::#sv, #ok) => ::core::option::Option::Some(Event::#ev), }
        });
        quote! {
            #[allow(unreachable_patterns)]
            match (self, outcome) {
                #arms
                _ => ::core::option::Option::None,
            }
        }
    };
    let data_alias = if m.keys.is_empty() {
        quote! {
            /// This machine declares no synchronized data.
            pub type Data = ();
        }
    } else {
        quote! {}
    };
    let app = app::generate(m, &outgoing, lists);
    let fingerprint = fingerprint::generate(m);
    quote! {
        #data_alias
        static ROUND_KINDS: [::core::option::Option<::fsmc_runtime::rounds::RoundKind>; #n] = [#kinds];

        impl State {
            /// The round's kind; `None` for a custom round.
            pub fn round_kind(self) -> ::core::option::Option<::fsmc_runtime::rounds::RoundKind> {
                ROUND_KINDS[self as usize]
            }

            /// Whether this round starts a new period of the synchronized data when it ends with `DONE`.
            pub const fn is_reset(self) -> bool {
                #resets
            }

            /// The event this round emits for a decided outcome; `None` for an outcome it has no transition
            /// for (such an outcome does not end the round).
            pub fn outcome_event(self, outcome: ::fsmc_runtime::rounds::OutcomeKind) -> ::core::option::Option<Event> {
                #outcome_body
            }
        }

        #app
        #fingerprint
    }
}

/// The runtime's round kind; `None` for a custom round, which decides in user code.
fn runtime_kind(k: RoundKind) -> Option<TokenStream> {
    let id = match k {
        RoundKind::CollectSameUntilAll => "CollectSameUntilAll",
        RoundKind::CollectDifferentUntilAll => "CollectDifferentUntilAll",
        RoundKind::CollectSameUntilThreshold => "CollectSameUntilThreshold",
        RoundKind::CollectDifferentUntilThreshold => "CollectDifferentUntilThreshold",
        RoundKind::CollectNonEmptyUntilThreshold => "CollectNonEmptyUntilThreshold",
        RoundKind::OnlyKeeperSends => "OnlyKeeperSends",
        RoundKind::Voting => "Voting",
        RoundKind::Degenerate => "Degenerate",
        RoundKind::Custom => return None,
    };
    let id = Ident::new(id, Span::call_site());
    Some(quote! { ::fsmc_runtime::rounds::RoundKind::#id })
}

/// The runtime's outcome kind.
fn outcome_kind(o: OutcomeKind) -> TokenStream {
    let id = Ident::new(
        match o {
            OutcomeKind::Done => "Done",
            OutcomeKind::None => "None",
            OutcomeKind::NoMajority => "NoMajority",
            OutcomeKind::Negative => "Negative",
            OutcomeKind::Fail => "Fail",
        },
        Span::call_site(),
    );
    quote! { ::fsmc_runtime::rounds::OutcomeKind::#id }
}
