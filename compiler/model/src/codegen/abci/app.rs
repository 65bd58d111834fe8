//! The replicated app of an `abci` machine or composed app: the `Spec` the runtime's driver runs, the typed
//! `Round` in progress, the `Behaviour` trait the user implements (asynchronous: one method per round), and,
//! for an app with custom rounds, what [`custom`](super::custom) adds.

use super::custom;
use super::round::{AppRound, Rounds, app_round};
use crate::codegen::docs;
use crate::codegen::lists::{Kind, Lists};
use crate::codegen::tokens::{rust_type, snake, standard, variant};
use crate::spec::{Machine, StateId};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::rc::Rc;

/// The app, or nothing when the machine has no default start. `outgoing` is [`Machine::outgoing`].
pub(super) fn generate<'a>(
    m: &'a Machine,
    outgoing: &Rc<Vec<Vec<usize>>>,
    lists: &Lists<'a>,
) -> TokenStream {
    let mut rounds = Rounds {
        m,
        states: Vec::new(),
        uses_data: false,
        customs: Vec::new(),
    };
    let conventional = m.conventional_outcome_events();
    for sid in m.state_ids() {
        let s = m.state(sid);
        if s.is_final {
            continue;
        }
        let none_handled = m
            .outcome_event_in(sid, OutcomeKind::None, &conventional)
            .is_some_and(|e| {
                outgoing[sid.index()]
                    .iter()
                    .any(|&t| m.transitions[t].event == Some(e))
            });
        let Some(r) = app_round(m, sid, none_handled) else {
            return quote! {};
        };
        rounds.states.push((sid, none_handled));
        rounds.uses_data |= r.uses_value || r.custom;
        if r.custom {
            rounds.customs.push(rounds.states.len() - 1);
        }
    }
    let rounds = Rc::new(rounds);
    let Some(start) = m.default_start() else {
        return quote! {};
    };
    let start = variant(&m.state(start).name.text);
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let rules = rules(m, Rc::clone(outgoing), lists);
    let assumed = assumed(m);
    let data_encoding = data_encoding(m, &assumed);
    let types = types(m, &rounds, lists, &assumed);
    let customs = custom::generate(m, outgoing, &rounds, lists, &assumed);
    let round_impl = round_impl(m, outgoing, &rounds, lists, &assumed);
    let spec_impl = spec_impl(m, &rounds, &start, lists, &assumed);
    let drive = drive(&rounds, lists, &assumed);
    quote! {
        #data_encoding

        static RULES: [::fsmc_runtime::app::Rules<Event>; #n] = [#rules];

        #types

        #customs

        #round_impl

        #spec_impl

        #drive
    }
}

/// The `where` clause of every impl that encodes, decodes, orders or hands over payload and key values: each
/// payload and key type of the user's crate (one [`standard`] does not know) implements the runtime's `Payload`
/// or `Key`. The binder (`for<'fsmc>`, which no bound uses) makes rustc assume the bound inside the impl and
/// check it only where the impl is used, instead of checking it where it is written (what it does to a bound
/// naming no parameter): a type lacking a bound then gets the one error the `fsm!` macro's assertion reports,
/// which names the state or key and the spec's line, and none from each impl or from inside the runtime. Empty
/// when every type is standard.
pub(crate) fn assumed(m: &Machine) -> TokenStream {
    let payloads = m
        .states
        .iter()
        .filter_map(|s| s.payload())
        .map(|t| (t, quote! { Payload }));
    let keys = m.keys.iter().map(|k| (k.ty.text.as_str(), quote! { Key }));
    let bounds: std::collections::BTreeMap<(&str, String), TokenStream> = payloads
        .chain(keys)
        .filter(|(t, _)| !standard(t))
        .map(|(t, bound)| {
            let ty = rust_type(t);
            (
                (t, bound.to_string()),
                quote! { for<'fsmc> #ty: ::fsmc_runtime::app::#bound },
            )
        })
        .collect();
    if bounds.is_empty() {
        return TokenStream::new();
    }
    let bounds = bounds.values();
    quote! { where #(#bounds),* }
}

/// Each state's part in a period (registration, keeper election, keeper round, or collecting), whether it
/// resets, and its timeout.
fn rules<'a>(m: &'a Machine, outgoing: Rc<Vec<Vec<usize>>>, lists: &Lists<'a>) -> TokenStream {
    lists.list(Kind::Elem, m.states.len(), move |i| {
            let sid = StateId(i as u32);
            let s = m.state(sid);
            let round = s.round();
            let role = Ident::new(
                if round.is_some_and(|r| r.registration.is_some()) {
                    "Registration"
                } else if round.is_some_and(|r| r.elects_keeper.is_some()) {
                    "KeeperElection"
                } else if round.and_then(|r| r.kind) == Some(RoundKind::OnlyKeeperSends) {
                    "Keeper"
                } else {
                    "Collect"
                },
                Span::call_site(),
            );
            let reset = round.is_some_and(|r| r.reset);
            let timeout = outgoing[sid.index()]
                .iter()
                .filter_map(|&t| m.transitions[t].event)
                .find_map(|e| m.event(e).timeout.map(|t| (e, t.duration)));
            let timeout = match timeout {
                Some((e, d)) => {
                    let ev = variant(&m.event(e).name.text);
                    let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
                    quote! { ::core::option::Option::Some((Event::#ev, ::core::time::Duration::from_nanos(#nanos))) }
                }
                None => quote! { ::core::option::Option::None },
            };
            quote! {
                ::fsmc_runtime::app::Rules {
                    role: ::fsmc_runtime::app::Role::#role,
                    reset: #reset,
                    timeout: #timeout,
                },
            }
        })
}

/// The canonical encoding the app hash is computed over, for a machine with keys.
fn data_encoding(m: &Machine, assumed: &TokenStream) -> TokenStream {
    if m.keys.is_empty() {
        return quote! {};
    }
    let fields = m.keys.iter().map(|k| snake(&k.name.text));
    let read = fields.clone();
    quote! {
        // The canonical encoding the app hash is computed over: every key, in spec order.
        impl ::fsmc_runtime::borsh::BorshSerialize for Data #assumed {
            fn serialize<W: ::fsmc_runtime::borsh::io::Write>(&self, writer: &mut W) -> ::fsmc_runtime::borsh::io::Result<()> {
                #(::fsmc_runtime::borsh::BorshSerialize::serialize(&self.#fields, writer)?;)*
                ::core::result::Result::Ok(())
            }
        }

        // The same encoding read back, for a replica restored from a snapshot.
        impl ::fsmc_runtime::borsh::BorshDeserialize for Data #assumed {
            fn deserialize_reader<R: ::fsmc_runtime::borsh::io::Read>(reader: &mut R) -> ::fsmc_runtime::borsh::io::Result<Self> {
                ::core::result::Result::Ok(Data {
                    #(#read: ::fsmc_runtime::borsh::BorshDeserialize::deserialize_reader(reader)?,)*
                })
            }
        }
    }
}

/// `Spec` and its aliases, the `Behaviour` trait, and the `Round` enum with its encoding.
fn types<'a>(
    m: &Machine,
    rounds: &Rc<Rounds<'a>>,
    lists: &Lists<'a>,
    assumed: &TokenStream,
) -> TokenStream {
    let name = m.name.as_str();
    let spec_doc = format!(
        " What the runtime's replicated driver needs to know about `{name}`: transitions, timeouts, rounds."
    );
    let methods = {
        let (rounds, assumed) = (Rc::clone(rounds), assumed.clone());
        lists.list(Kind::Item, rounds.len(), move |i| {
            let Some(r) = rounds.get(i) else {
                return TokenStream::new();
            };
            let (method, wire) = (&r.method, &r.wire_ty);
            let doc = docs::attrs(&r.docs);
            quote! {
                #doc
                fn #method(&self, ctx: Context) -> impl ::core::future::Future<Output = ::core::result::Result<#wire, ::fsmc_runtime::app::Abstain>> + ::core::marker::Send #assumed;
            }
        })
    };
    let variants = rounds.list(lists, Kind::Elem, |r| {
        let (sv, ty) = (&r.state, &r.round_ty);
        let doc = format!(" The round of `{sv}`.");
        quote! { #[doc = #doc] #sv(::fsmc_runtime::rounds::#ty), }
    });
    let tags = {
        let rounds = Rc::clone(rounds);
        lists.list(Kind::Arm, rounds.len(), move |i| {
            let Some(r) = rounds.get(i) else {
                return TokenStream::new();
            };
            let sv = &r.state;
            let tag = u32::try_from(i).unwrap_or(u32::MAX);
            quote! {
                Round::#sv(r) => {
                    ::fsmc_runtime::borsh::BorshSerialize::serialize(&#tag, writer)?;
                    ::fsmc_runtime::borsh::BorshSerialize::serialize(r, writer)
                }
            }
        })
    };
    let (derived, copy_and_show) = if assumed.is_empty() {
        (quote! { #[derive(Clone, Debug)] }, TokenStream::new())
    } else {
        (TokenStream::new(), copy_and_show(rounds, lists, assumed))
    };
    let decodes = {
        let rounds = Rc::clone(rounds);
        lists.list(Kind::Arm, rounds.len(), move |i| {
            let Some(r) = rounds.get(i) else {
                return TokenStream::new();
            };
            let (sv, n) = (&r.state, r.confirmations);
            let tag = u32::try_from(i).unwrap_or(u32::MAX);
            quote! {
                #tag => ::core::result::Result::Ok(Round::#sv(::fsmc_runtime::rounds::DecodeRound::decode_round(reader, #n)?)),
            }
        })
    };
    quote! {
        #[doc = #spec_doc]
        ///
        /// Run a replica with [`App`], or an agent instance with [`Node`]; see `fsmc_runtime::app`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Spec;

        /// One replica of the app: fed ordered blocks, it computes the same state and hash as every other.
        pub type App = ::fsmc_runtime::app::App<Spec>;
        /// One agent instance: a replica and the agent's behaviour `B` (a [`Behaviour`]), driven by a consensus
        /// engine.
        pub type Node<B> = ::fsmc_runtime::app::Node<Spec, B>;
        /// What a behaviour sees: the replicated state when its round opened, from one agent's point of view.
        pub type Context = ::fsmc_runtime::app::Context<Spec>;

        /// The proactive behaviour of each non-final round, implemented by the user: what this agent submits.
        /// Each method is asynchronous (write it as an `async fn`): it may wait on I/O across blocks while the
        /// replica goes on, return `Err` to abstain (`?` on any error does), and is dropped when its round ends.
        pub trait Behaviour: ::core::marker::Send + ::core::marker::Sync + 'static {
            #methods
        }

        /// The round in progress, typed by its kind and payload.
        #derived
        // Variants are the spec's state names, which upstream ends with `Round`.
        #[allow(clippy::enum_variant_names)]
        pub enum Round {
            #variants
        }

        #copy_and_show

        impl ::fsmc_runtime::borsh::BorshSerialize for Round #assumed {
            fn serialize<W: ::fsmc_runtime::borsh::io::Write>(&self, writer: &mut W) -> ::fsmc_runtime::borsh::io::Result<()> {
                match self {
                    #tags
                }
            }
        }

        // The same encoding read back, for a replica restored from a snapshot: the tag names the round, and
        // the spec says how many confirmations it requires.
        impl ::fsmc_runtime::borsh::BorshDeserialize for Round #assumed {
            fn deserialize_reader<R: ::fsmc_runtime::borsh::io::Read>(reader: &mut R) -> ::fsmc_runtime::borsh::io::Result<Self> {
                match <u32 as ::fsmc_runtime::borsh::BorshDeserialize>::deserialize_reader(reader)? {
                    #decodes
                    _ => ::core::result::Result::Err(::fsmc_runtime::borsh::io::ErrorKind::InvalidData.into()),
                }
            }
        }
    }
}

/// `Clone` and `Debug` for the `Round` of an app with payload types of the user's crate, written out rather than
/// derived so that they assume the payloads' bounds as the other impls do: a payload type without `Clone` or
/// `Debug` gets only the `fsm!` macro's error. An app of standard types derives them.
fn copy_and_show<'a>(
    rounds: &Rc<Rounds<'a>>,
    lists: &Lists<'a>,
    assumed: &TokenStream,
) -> TokenStream {
    let clones = rounds.list(lists, Kind::Arm, |r| {
        let sv = &r.state;
        quote! { Round::#sv(ref r) => Round::#sv(::core::clone::Clone::clone(r)), }
    });
    let debugs = rounds.list(lists, Kind::Arm, |r| {
        let sv = &r.state;
        let name = sv.to_string();
        quote! { Round::#sv(ref r) => f.debug_tuple(#name).field(r).finish(), }
    });
    quote! {
        impl ::core::clone::Clone for Round #assumed {
            fn clone(&self) -> Self {
                match *self {
                    #clones
                }
            }
        }

        impl ::core::fmt::Debug for Round #assumed {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match *self {
                    #debugs
                }
            }
        }
    }
}

/// `AppRound` for `Round`: a payload delivered to the round in progress, the decision at the end of a block,
/// and who submitted.
fn round_impl<'a>(
    m: &'a Machine,
    outgoing: &Rc<Vec<Vec<usize>>>,
    rounds: &Rc<Rounds<'a>>,
    lists: &Lists<'a>,
    assumed: &TokenStream,
) -> TokenStream {
    let delivers = rounds.list(lists, Kind::Arm, |r| {
        let (sv, wire, check, submit) = (&r.state, &r.wire_ty, &r.check, &r.submit);
        quote! {
            Round::#sv(r) => {
                let p: #wire = ::fsmc_runtime::app::decode(payload).ok_or(::fsmc_runtime::app::Rejection::BadPayload)?;
                #check
                ::fsmc_runtime::rounds::Round::submit(r, ::core::clone::Clone::clone(sender), #submit)?;
            }
        }
    });
    let data_param = if rounds.uses_data {
        quote! { data }
    } else {
        quote! { _data }
    };
    let end_param = if !rounds.customs.is_empty() {
        quote! { end }
    } else {
        quote! { _end }
    };
    let ends = {
        let (rounds, outgoing) = (Rc::clone(rounds), Rc::clone(outgoing));
        // Looked up once: a lookup per round is a search of the events per round.
        let conventional = m.conventional_outcome_events();
        lists.list(Kind::Arm, rounds.len(), move |i| match rounds.get(i) {
            Some(r) if r.custom => custom::end_block(m, &outgoing, &conventional, &r),
            Some(r) => end_block(&r),
            None => TokenStream::new(),
        })
    };
    let senders = rounds.list(lists, Kind::Arm, |r| {
        let sv = &r.state;
        quote! { Round::#sv(r) => ::fsmc_runtime::rounds::Round::submissions(r).keys().cloned().collect(), }
    });
    quote! {
        impl ::fsmc_runtime::app::AppRound<Spec> for Round #assumed {
            fn deliver(
                &mut self,
                sender: &::fsmc_runtime::app::AgentId,
                payload: &[u8],
                keepers: &::fsmc_runtime::app::KeeperPool<'_>,
            ) -> ::core::result::Result<(), ::fsmc_runtime::app::Rejection> {
                let _ = keepers;
                match self {
                    #delivers
                }
                ::core::result::Result::Ok(())
            }

            fn end_block(
                &mut self,
                #data_param: &mut Data,
                #end_param: &::fsmc_runtime::app::BlockEnd<'_, Spec>,
            ) -> ::core::option::Option<::fsmc_runtime::app::Decision<Event>> {
                match self {
                    #ends
                }
            }

            fn senders(&self) -> ::std::vec::Vec<::fsmc_runtime::app::AgentId> {
                match self {
                    #senders
                }
            }
        }
    }
}

/// The arm of `end_block` for a round its kind decides: the outcome, once its confirmations have passed, the
/// event the state has for it, the decided value written and the keeper elected.
fn end_block(r: &AppRound) -> TokenStream {
    let (sv, write) = (&r.state, &r.write);
    let decision = |keeper: TokenStream| {
        quote! {
            ::fsmc_runtime::app::Decision {
                event,
                outcome: ::core::option::Option::Some(::fsmc_runtime::rounds::OutcomeKind::Done),
                #keeper
            }
        }
    };
    let done = if r.elects {
        let d = decision(quote! { keeper, });
        quote! {
            ::fsmc_runtime::rounds::Outcome::Done(v) => {
                let keeper = ::core::option::Option::Some(::core::clone::Clone::clone(&v));
                #write
                #d
            }
        }
    } else if r.uses_value {
        let d = decision(quote! { keeper: ::core::option::Option::None, });
        quote! {
            ::fsmc_runtime::rounds::Outcome::Done(v) => {
                #write
                #d
            }
        }
    } else {
        let d = decision(quote! { keeper: ::core::option::Option::None, });
        quote! { ::fsmc_runtime::rounds::Outcome::Done(_) => #d }
    };
    quote! {
        Round::#sv(r) => {
            let outcome = ::fsmc_runtime::rounds::Round::end_block(r)?;
            let event = State::#sv.outcome_event(outcome.kind())?;
            ::core::option::Option::Some(match outcome {
                #done,
                other => ::fsmc_runtime::app::Decision {
                    event,
                    outcome: ::core::option::Option::Some(other.kind()),
                    keeper: ::core::option::Option::None,
                },
            })
        }
    }
}

/// `Drive` for `Spec`: every type implementing `Behaviour` runs as an agent's behaviour, one method per round.
fn drive<'a>(rounds: &Rc<Rounds<'a>>, lists: &Lists<'a>, assumed: &TokenStream) -> TokenStream {
    let acts = rounds.list(lists, Kind::Arm, |r| {
        let (sv, method) = (&r.state, &r.method);
        quote! {
            State::#sv => ::core::option::Option::Some(::std::boxed::Box::pin(async move {
                // No binding: a unit payload would make one a lint.
                ::core::result::Result::Ok(::fsmc_runtime::app::encode(
                    &Behaviour::#method(&*agent, ctx).await?,
                )?)
            })),
        }
    });
    quote! {
        impl<B: Behaviour> ::fsmc_runtime::app::Drive<B> for Spec #assumed {
            fn act(agent: &::std::sync::Arc<B>, ctx: Context) -> ::core::option::Option<::fsmc_runtime::app::Pending> {
                let agent = ::std::sync::Arc::clone(agent);
                #[allow(unreachable_patterns)]
                match ctx.state() {
                    #acts
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}

/// `AppSpec` for `Spec`: what the driver asks of the machine.
fn spec_impl<'a>(
    m: &Machine,
    rounds: &Rc<Rounds<'a>>,
    start: &Ident,
    lists: &Lists<'a>,
    assumed: &TokenStream,
) -> TokenStream {
    let name = m.name.as_str();
    let starts = rounds.list(lists, Kind::Arm, |r| {
        let (sv, ty) = (&r.state, &r.round_ty);
        let confirmations = (r.confirmations > 0).then(|| {
            let n = r.confirmations;
            quote! { .with_confirmations(#n) }
        });
        quote! { State::#sv => ::core::option::Option::Some(Round::#sv(<::fsmc_runtime::rounds::#ty>::new(eligible)#confirmations)), }
    });
    let has_finals = m.states.iter().any(|s| s.is_final);
    let start_rest = has_finals.then(|| quote! { _ => ::core::option::Option::None, });
    let carry = if m.keys.is_empty() {
        quote! { *data }
    } else {
        quote! { data.carry() }
    };
    let logic = if !rounds.customs.is_empty() {
        quote! { dyn Rounds }
    } else {
        quote! { ::fsmc_runtime::app::NoRounds }
    };
    quote! {
        impl ::fsmc_runtime::app::AppSpec for Spec #assumed {
            type State = State;
            type Event = Event;
            type Data = Data;
            type Round = Round;
            type Logic = #logic;

            const NAME: &'static str = #name;
            const START: State = State::#start;
            const FINGERPRINT: [u8; 32] = FINGERPRINT;

            fn state_name(state: State) -> &'static str {
                state.name()
            }

            fn state_named(name: &str) -> ::core::option::Option<State> {
                State::from_name(name)
            }

            fn next(state: State, event: Event) -> ::core::option::Option<State> {
                state.next(event).ok()
            }

            fn is_final(state: State) -> bool {
                state.is_final()
            }

            fn rules(state: State) -> ::fsmc_runtime::app::Rules<Event> {
                RULES[state as usize]
            }

            fn start_round(state: State, eligible: &::fsmc_runtime::rounds::Participants<::fsmc_runtime::app::AgentId>) -> ::core::option::Option<Round> {
                match state {
                    #starts
                    #start_rest
                }
            }

            fn carry(data: &Data) -> Data {
                #carry
            }
        }
    }
}
