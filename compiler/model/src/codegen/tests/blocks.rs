//! The block that makes a round decide an outcome, as an arm of the generated `Harness::step`, from the round's
//! kind (upstream Open Autonomy's round classes decide the same way):
//!
//! | outcome | payloads |
//! |---|---|
//! | `done` | a threshold of equal payloads (every agent for the `until_all` kinds; distinct ones for the `different` kinds), yes votes, the keeper's value |
//! | `no_majority` | every agent a different payload (or half yes, half no) |
//! | `none` | a threshold of empty payloads (`None`) |
//! | `negative` | a threshold of no votes |
//! | `fail` | the keeper's `None` |
//! | timeout | an empty block at the round's start plus its timeout |
//!
//! After the block the arm checks the transition and what the outcome did: the keys the round `writes` hold the
//! decided value, a registration's senders are the participants, an election's candidate is the keeper, a
//! failed keeper is marked, a reset starts a new period.

use crate::codegen::abci::round::AppRound;
use crate::codegen::tokens::{snake, variant};
use crate::spec::Machine;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::time::Duration;

/// How a test makes a transition happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trigger {
    /// The round's kind decides this outcome.
    Outcome(OutcomeKind),
    /// The app's custom round logic ends the round with the transition's event.
    Custom,
    /// The round's timeout passes.
    Timeout(Duration),
}

/// What the tests need to know of one state's round.
pub(super) struct Round {
    pub kind: RoundKind,
    pub app: AppRound,
    pub none_handled: bool,
    pub registration: bool,
    pub reset: bool,
    /// The payload type as written (`()` when none is).
    pub payload: String,
}

impl Round {
    /// Whether the wire payload is an `Option` (a `None` means something to the round).
    fn optional(&self) -> bool {
        match self.kind {
            RoundKind::CollectNonEmptyUntilThreshold | RoundKind::OnlyKeeperSends => true,
            RoundKind::CollectSameUntilThreshold | RoundKind::Voting => self.none_handled,
            _ => false,
        }
    }

    /// The `i`-th value (an expression of `i`) of the round's own payload: a candidate for an election, a
    /// vote (`i` even: yes), else the fixture's.
    fn value(&self, i: &TokenStream) -> TokenStream {
        let method = &self.app.method;
        if self.app.elects {
            quote! { candidates[#i % candidates.len().max(1)].clone() }
        } else if self.kind == RoundKind::Voting {
            quote! { #i % 2 == 0 }
        } else {
            quote! { self.fx.#method(#i) }
        }
    }

    /// `v` as the wire payload.
    fn wire(&self, v: TokenStream) -> TokenStream {
        if self.optional() {
            quote! { ::core::option::Option::Some(#v) }
        } else {
            v
        }
    }
}

/// The payloads `sent` for `outcome`: `(agent, wire payload)` pairs.
fn payloads(r: &Round, outcome: OutcomeKind) -> TokenStream {
    use OutcomeKind as O;
    use RoundKind as K;
    let i = quote! { i };
    let zero = quote! { 0 };
    let none = quote! { ::core::option::Option::None };
    // Every eligible agent, or the first `threshold` of them, each sending `value`.
    let from = |all: bool, value: TokenStream| {
        let take = if all {
            quote! {}
        } else {
            quote! { .take(threshold) }
        };
        quote! { eligible.iter().enumerate()#take.map(|(i, a)| { let _ = i; (a.clone(), #value) }).collect() }
    };
    match (r.kind, outcome) {
        (K::OnlyKeeperSends, O::Done) => {
            let v = r.value(&zero);
            quote! { ::std::vec![(keeper.clone(), ::core::option::Option::Some(#v))] }
        }
        (K::OnlyKeeperSends, _) => quote! { ::std::vec![(keeper.clone(), #none)] },
        (K::CollectSameUntilAll, _) => from(true, r.wire(r.value(&zero))),
        (K::CollectDifferentUntilAll, _) => from(true, r.wire(r.value(&i))),
        (K::CollectDifferentUntilThreshold | K::CollectNonEmptyUntilThreshold, O::Done) => {
            from(false, r.wire(r.value(&i)))
        }
        (_, O::None) => from(false, none),
        (_, O::NoMajority) => from(true, r.wire(r.value(&i))),
        (K::Voting, O::Negative) => from(false, r.wire(quote! { false })),
        _ => from(false, r.wire(r.value(&zero))),
    }
}

/// The arm of `Harness::step` for transition `t`, triggered by `trigger`, from a state whose round is `r`.
pub(super) fn arm(m: &Machine, t: usize, trigger: Trigger, r: &Round) -> TokenStream {
    let tr = &m.transitions[t];
    let from = variant(&m.state(tr.from).name.text);
    let Some(event) = tr.event else {
        return TokenStream::new();
    };
    let ev = variant(&m.event(event).name.text);
    let keeper_round = r.kind == RoundKind::OnlyKeeperSends;
    let keeper = quote! {
        let keeper = self.app().keeper().cloned();
    };
    let failed = quote! {
        if let ::core::option::Option::Some(k) = &keeper {
            let failed = self.app().failed_keepers();
            ::core::assert!(failed.contains(k) || failed.is_empty(), "the keeper that failed is not marked");
        }
    };
    match trigger {
        Trigger::Timeout(d) => {
            let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
            let (keeper, failed) = if keeper_round {
                (keeper, failed)
            } else {
                (quote! {}, quote! {})
            };
            quote! {
                (State::#from, Event::#ev) => {
                    #keeper
                    let time = self.app().round_started_ms().saturating_add(#ms);
                    ::core::assert!(time > self.app().time_ms(), "the walk reached the deadline already");
                    let report = self.deliver(time, ::std::vec::Vec::new());
                    self.expect(&report, from, event, to, Cause::Timeout);
                    #failed
                }
            }
        }
        Trigger::Custom => {
            let method = &r.app.method;
            let conf = r.app.confirmations;
            let writes = s_writes(m, tr.from).into_iter().map(|k| {
                let name = m.key(k).name.text.as_str();
                quote! { ::core::assert!(self.app().data().has(#name), "`{}` was not written", #name); }
            });
            let writes = if r.reset {
                quote! {}
            } else {
                quote! { #(#writes)* }
            };
            // An event that is an outcome's (by mapping or by name) is decided as that outcome, as in upstream.
            let cause = OutcomeKind::ALL
                .iter()
                .find(|o| m.outcome_event(tr.from, **o) == Some(event))
                .map_or(quote! { Cause::Custom }, |o| {
                    let o = outcome_kind(*o);
                    quote! { Cause::Decided(#o) }
                });
            quote! {
                (State::#from, Event::#ev) => {
                    let sent = self.fx.#method(event, &self.eligible());
                    let report = self.decide(&sent, #conf);
                    self.expect(&report, from, event, to, #cause);
                    #writes
                }
            }
        }
        Trigger::Outcome(outcome) => {
            let wire = &r.app.wire_ty;
            let sent = payloads(r, outcome);
            let conf = r.app.confirmations;
            let cause = outcome_kind(outcome);
            let facts = facts(m, tr.from, r, outcome);
            let prepare = if keeper_round {
                quote! {
                    #keeper
                    let keeper = keeper.unwrap_or_else(|| ::core::panic!("no keeper was elected"));
                }
            } else {
                quote! {}
            };
            let failed = if keeper_round && outcome == OutcomeKind::Fail {
                quote! { let keeper = ::core::option::Option::Some(keeper); #failed }
            } else {
                quote! {}
            };
            quote! {
                (State::#from, Event::#ev) => {
                    let eligible = self.eligible();
                    let candidates = self.candidates();
                    let _ = (&eligible, &candidates);
                    #prepare
                    let period = self.app().period();
                    let sent: ::std::vec::Vec<(AgentId, #wire)> = #sent;
                    let report = self.decide(&sent, #conf);
                    self.expect(&report, from, event, to, Cause::Decided(#cause));
                    let _ = period;
                    #facts
                    #failed
                }
            }
        }
    }
}

fn s_writes(m: &Machine, sid: crate::spec::StateId) -> Vec<crate::spec::KeyId> {
    m.state(sid).writes.iter().map(|(k, _)| *k).collect()
}

/// What a decided outcome did besides moving: the written keys, the participants, the keeper, the period.
fn facts(m: &Machine, sid: crate::spec::StateId, r: &Round, outcome: OutcomeKind) -> TokenStream {
    if outcome != OutcomeKind::Done {
        return quote! {};
    }
    let mut out = TokenStream::new();
    if r.registration {
        out.extend(quote! {
            let senders: ::std::collections::BTreeSet<AgentId> = sent.iter().map(|(a, _)| a.clone()).collect();
            ::core::assert_eq!(self.app().participants(), &senders, "the registered agents are not the participants");
        });
    }
    if r.app.elects {
        out.extend(quote! {
            ::core::assert_eq!(self.app().keeper(), candidates.first(), "the agreed candidate is not the keeper");
        });
    }
    if r.reset {
        out.extend(quote! {
            ::core::assert_eq!(self.app().period(), period + 1, "the reset did not start a new period");
        });
    }
    let keys: Vec<crate::spec::KeyId> = s_writes(m, sid)
        .into_iter()
        .filter(|k| !r.reset || m.key(*k).cross_period)
        .collect();
    if keys.is_empty() || keys.len() != r_writes_len(m, sid) {
        return out;
    }
    let fields: Vec<Ident> = keys.iter().map(|k| snake(&m.key(*k).name.text)).collect();
    let value = match r.kind {
        RoundKind::CollectDifferentUntilAll | RoundKind::CollectDifferentUntilThreshold => {
            quote! { sent.iter().cloned().collect::<::std::collections::BTreeMap<_, _>>() }
        }
        RoundKind::CollectNonEmptyUntilThreshold => quote! {
            sent.iter().filter_map(|(a, v)| v.clone().map(|v| (a.clone(), v))).collect::<::std::collections::BTreeMap<_, _>>()
        },
        RoundKind::Voting if r.optional() => {
            quote! { sent.iter().cloned().collect::<::std::collections::BTreeMap<_, _>>() }
        }
        RoundKind::Voting => quote! {
            sent.iter().map(|(a, v)| (a.clone(), ::core::option::Option::Some(*v))).collect::<::std::collections::BTreeMap<_, _>>()
        },
        RoundKind::OnlyKeeperSends => r.value(&quote! { 0 }),
        _ if r.app.elects => quote! { candidates[0].clone() },
        _ => r.value(&quote! { 0 }),
    };
    match fields.as_slice() {
        [one] => out.extend(quote! {
            ::core::assert_eq!(self.app().data().#one(), ::core::option::Option::Some(&#value), "the decided value was not written");
        }),
        many => {
            let parts: Vec<Ident> = (0..many.len())
                .map(|i| quote::format_ident!("v{}", i))
                .collect();
            out.extend(quote! {
                let (#(#parts,)*) = #value;
                #(::core::assert_eq!(self.app().data().#many(), ::core::option::Option::Some(&#parts), "the decided value was not written");)*
            });
        }
    }
    out
}

fn r_writes_len(m: &Machine, sid: crate::spec::StateId) -> usize {
    m.state(sid).writes.len()
}

/// The runtime's outcome kind.
fn outcome_kind(o: OutcomeKind) -> TokenStream {
    let id = Ident::new(&format!("{o:?}"), proc_macro2::Span::call_site());
    quote! { OutcomeKind::#id }
}
