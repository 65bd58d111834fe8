//! What a machine's profile adds to its module: synchronized data, Open Autonomy rounds and behaviours, Genie
//! templates and dialogue persistence, dialogue roles and messages, stages and agents, and for a composed app
//! the machine each state came from.

use super::{docs, snake, variant};
use crate::spec::{Machine, MachineId, Spec, State};
use fsmc_vocab::Profile;
use fsmc_vocab::abci::OutcomeKind;
use fsmc_vocab::abci::RoundKind;
use fsmc_vocab::genie::Persistence;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub(crate) fn generate(
    m: &Machine,
    origin: Option<(&[MachineId], &Spec)>,
    spec: &Spec,
) -> TokenStream {
    let mut out = TokenStream::new();
    if !m.keys.is_empty() {
        out.extend(data(m));
    }
    match m.profile {
        Profile::Abci => out.extend(rounds(m)),
        Profile::Genie => out.extend(genie(m, spec)),
        Profile::Dialogue => out.extend(dialogue(m)),
        Profile::Staged => out.extend(staged(m)),
        Profile::Plain => {}
    }
    if m.profile != Profile::Abci && m.profile != Profile::Staged && !m.events.is_empty() {
        out.extend(behaviour(m));
    }
    if let Some((origin, spec)) = origin {
        let names = origin.iter().map(|id| spec.machine(*id).name.as_str());
        let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
        out.extend(quote! {
            const ORIGIN: [&str; #n] = [#(#names),*];
            impl State {
                /// The machine of the composition this state came from.
                pub const fn machine(self) -> &'static str {
                    ORIGIN[self as usize]
                }
            }
        });
    }
    out
}

/// What a machine's profile adds to every transition its hooks see (`Transition::profile`), as a type that may
/// name the lifetime `'a`; `None` adds nothing (`()`). The type must implement `Default`: `State::fire` passes
/// the default, `State::fire_with` a given one.
pub(crate) fn transition_profile(m: &Machine) -> Option<TokenStream> {
    match m.profile {
        Profile::Genie => Some(quote! { ::fsmc_runtime::genie::Turn<'a> }),
        // The message's header and whether this party sent or received it (a dialogue's copy fires it).
        Profile::Dialogue => Some(quote! { ::fsmc_runtime::dialogue::Delivery<'a> }),
        Profile::Plain | Profile::Abci | Profile::Staged => None,
    }
}

pub(crate) fn rust_type(text: &str) -> TokenStream {
    match syn::parse_str::<syn::Type>(text) {
        Ok(t) => quote! { #t },
        // The grammar only admits type syntax; anything syn still rejects becomes a clear compile error.
        Err(_) => {
            let msg = format!("fsmc: `{text}` is not a Rust type");
            quote! { ::core::compile_error!(#msg) }
        }
    }
}

fn key_lists<'a>(
    m: &'a Machine,
    pick: impl Fn(&'a State) -> &'a [(crate::spec::KeyId, fsmc_base::source::Span)],
) -> Vec<TokenStream> {
    m.states
        .iter()
        .map(|s| {
            let names = pick(s).iter().map(|(k, _)| m.key(*k).name.as_str());
            quote! { &[#(#names),*] }
        })
        .collect()
}

fn data(m: &Machine) -> TokenStream {
    let fields = m.keys.iter().map(|k| {
        let id = snake(&k.name.text);
        let ty = rust_type(&k.ty.text);
        let mut lines = k.docs.clone();
        if lines.is_empty() {
            lines.push(format!("Key `{}`.", k.name));
        }
        if k.cross_period {
            lines.push(String::new());
            lines.push("Cross-period: carried into every new period.".into());
        }
        let doc = docs::attrs(&lines);
        quote! { #doc pub #id: ::core::option::Option<#ty> }
    });
    let names: Vec<&str> = m.keys.iter().map(|k| k.name.as_str()).collect();
    let cross: Vec<&str> = m
        .keys
        .iter()
        .filter(|k| k.cross_period)
        .map(|k| k.name.as_str())
        .collect();
    let has = m.keys.iter().map(|k| {
        let (name, id) = (k.name.as_str(), snake(&k.name.text));
        quote! { #name => self.#id.is_some() }
    });
    let carry = m.keys.iter().map(|k| {
        let id = snake(&k.name.text);
        if k.cross_period {
            quote! { #id: ::core::clone::Clone::clone(&self.#id) }
        } else {
            quote! { #id: ::core::option::Option::None }
        }
    });
    let accessors = m.keys.iter().map(|k| {
        let id = snake(&k.name.text);
        let setter = Ident::new(
            &format!(
                "set_{}",
                crate::ident::snake(&k.name.text).trim_end_matches('_')
            ),
            Span::call_site(),
        );
        let ty = rust_type(&k.ty.text);
        let (get_doc, set_doc) = (
            format!(" The value of `{}`, if it has one.", k.name),
            format!(" Sets `{}`.", k.name),
        );
        quote! {
            #[doc = #get_doc]
            pub fn #id(&self) -> ::core::option::Option<&#ty> {
                self.#id.as_ref()
            }
            #[doc = #set_doc]
            pub fn #setter(&mut self, value: #ty) {
                self.#id = ::core::option::Option::Some(value);
            }
        }
    });
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let reads = key_lists(m, |s| &s.reads);
    let writes = key_lists(m, |s| &s.writes);
    let requires = key_lists(m, |s| &s.requires);
    let ensures = key_lists(m, |s| &s.ensures);
    quote! {
        /// The synchronized data: one optional value per key, shared by every instance.
        #[derive(Clone, Debug, Default)]
        pub struct Data {
            #(#fields,)*
        }

        impl Data {
            /// Every key, in spec order.
            pub const KEYS: &'static [&'static str] = &[#(#names),*];
            /// The keys carried into a new period.
            pub const CROSS_PERIOD: &'static [&'static str] = &[#(#cross),*];

            /// Whether `key` has a value.
            pub fn has(&self, key: &str) -> bool {
                match key {
                    #(#has,)*
                    _ => false,
                }
            }

            /// The data a new period starts with: the cross-period keys, nothing else.
            pub fn carry(&self) -> Data {
                Data { #(#carry,)* }
            }

            #(#accessors)*

            /// Checks that every key in `keys` has a value (pre-conditions on entry, post-conditions on exit).
            pub fn check(&self, keys: &[&str]) -> ::core::result::Result<(), ::fsmc_runtime::data::MissingKeys> {
                ::fsmc_runtime::data::check_keys(keys, |k| self.has(k))
            }
        }

        static READS: [&[&str]; #n] = [#(#reads),*];
        static WRITES: [&[&str]; #n] = [#(#writes),*];
        static REQUIRES: [&[&str]; #n] = [#(#requires),*];
        static ENSURES: [&[&str]; #n] = [#(#ensures),*];

        impl State {
            /// The keys this state reads.
            pub fn reads(self) -> &'static [&'static str] {
                READS[self as usize]
            }
            /// The keys this state writes.
            pub fn writes(self) -> &'static [&'static str] {
                WRITES[self as usize]
            }
            /// Pre-conditions: keys that must have values when the machine is entered here.
            pub fn requires(self) -> &'static [&'static str] {
                REQUIRES[self as usize]
            }
            /// Post-conditions: keys guaranteed to have values when the machine ends here.
            pub fn ensures(self) -> &'static [&'static str] {
                ENSURES[self as usize]
            }
        }
    }
}

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

/// Open Autonomy: each round's kind and outcome events, and — when every round has a kind the runtime knows —
/// the replicated app: the `Spec` the runtime's driver runs, the typed `Round` of each state, and the
/// `Behaviour` trait the user implements.
fn rounds(m: &Machine) -> TokenStream {
    let kinds = m.states.iter().map(|s| match runtime_kind(s.kind()) {
        Some(k) => quote! { ::core::option::Option::Some(#k) },
        None => quote! { ::core::option::Option::None },
    });
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let resets = super::machine_matches(
        m.states
            .iter()
            .filter(|s| s.reset)
            .map(|s| variant(&s.name.text))
            .collect(),
    );
    let outgoing = m.outgoing();
    let has_transition = |sid: crate::spec::StateId, e: crate::spec::EventId| {
        outgoing[sid.index()]
            .iter()
            .any(|&t| m.transitions[t].event == Some(e))
    };
    // Only outcomes the state has a transition for: an outcome without one never ends the round.
    let outcome_arms: Vec<TokenStream> = m
        .state_ids()
        .flat_map(|sid| {
            let s = m.state(sid);
            let sv = variant(&s.name.text);
            s.kind()
                .outcomes()
                .iter()
                .filter_map(move |(o, _)| m.outcome_event(sid, *o).map(|e| (*o, e)))
                .filter(|(_, e)| has_transition(sid, *e))
                .map(move |(o, e)| {
                    let ok = outcome_kind(o);
                    let ev = variant(&m.event(e).name.text);
                    quote! { (State::#sv, #ok) => ::core::option::Option::Some(Event::#ev) }
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // Rounds that all decide in user code map no outcome: no `match` to write then.
    let outcome_body = if outcome_arms.is_empty() {
        quote! {
            let _ = (self, outcome);
            ::core::option::Option::None
        }
    } else {
        quote! {
            #[allow(unreachable_patterns)]
            match (self, outcome) {
                #(#outcome_arms,)*
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
    let app = replicated(m, &outgoing);
    quote! {
        #data_alias
        static ROUND_KINDS: [::core::option::Option<::fsmc_runtime::rounds::RoundKind>; #n] = [#(#kinds),*];

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
    }
}

/// How one round is generated for the replicated app.
struct AppRound {
    state: Ident,
    method: Ident,
    /// The runtime round type.
    round_ty: TokenStream,
    /// What the behaviour returns and the transaction carries.
    wire_ty: TokenStream,
    /// The payload submitted to the runtime round, from the decoded wire value `p`.
    submit: TokenStream,
    /// Checks on the decoded `p` before it is submitted.
    check: TokenStream,
    /// Statements writing the decided value `v` into `data`, and whether they use `v`.
    write: TokenStream,
    uses_value: bool,
    elects: bool,
    docs: Vec<String>,
}

fn app_round(m: &Machine, sid: crate::spec::StateId, none_handled: bool) -> Option<AppRound> {
    let s = m.state(sid);
    let kind = s.kind();
    let agent = quote! { ::fsmc_runtime::app::AgentId };
    let elects = s.elects_keeper.is_some();
    let t = match s.payload() {
        Some(ty) if !elects => rust_type(ty),
        _ if elects => agent.clone(),
        _ => quote! { () },
    };
    let opt = |ty: &TokenStream| quote! { ::core::option::Option<#ty> };
    // Whether the wire type wraps the payload in `Option` (a `None` payload is possible).
    let (round_ty, wire_ty, submit, optional) = match kind {
        RoundKind::CollectSameUntilAll => (
            quote! { CollectSameUntilAll<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectDifferentUntilAll => (
            quote! { CollectDifferentUntilAll<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectSameUntilThreshold if none_handled => (
            quote! { CollectSameUntilThreshold<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::CollectSameUntilThreshold => (
            quote! { CollectSameUntilThreshold<#agent, #t> },
            t.clone(),
            quote! { ::core::option::Option::Some(p) },
            false,
        ),
        RoundKind::CollectDifferentUntilThreshold => (
            quote! { CollectDifferentUntilThreshold<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectNonEmptyUntilThreshold => (
            quote! { CollectNonEmptyUntilThreshold<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::OnlyKeeperSends => (
            quote! { OnlyKeeperSends<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::Voting if none_handled => (
            quote! { Voting<#agent> },
            quote! { ::core::option::Option<bool> },
            quote! { p },
            true,
        ),
        RoundKind::Voting => (
            quote! { Voting<#agent> },
            quote! { bool },
            quote! { ::core::option::Option::Some(p) },
            false,
        ),
        RoundKind::Degenerate | RoundKind::Custom => return None,
    };
    let check = if !elects {
        quote! {}
    } else if optional {
        quote! {
            if let ::core::option::Option::Some(candidate) = &p {
                keepers.check(candidate)?;
            }
        }
    } else {
        quote! { keepers.check(&p)?; }
    };
    let fields: Vec<Ident> = s
        .writes
        .iter()
        .map(|(k, _)| snake(&m.key(*k).name.text))
        .collect();
    let (write, uses_value) = match fields.as_slice() {
        [] => (quote! {}, false),
        [one] => (
            quote! { data.#one = ::core::option::Option::Some(v); },
            true,
        ),
        many => {
            let parts: Vec<Ident> = (0..many.len())
                .map(|i| Ident::new(&format!("v{i}"), Span::call_site()))
                .collect();
            (
                quote! {
                    let (#(#parts,)*) = v;
                    #(data.#many = ::core::option::Option::Some(#parts);)*
                },
                true,
            )
        }
    };
    let mut docs = s.docs.to_vec();
    if docs.is_empty() {
        docs.push(format!("The proactive action of `{}`.", s.name));
    }
    docs.push(String::new());
    docs.push(format!(
        "Runs in the `{}` round; returns this agent's payload.{}",
        kind.name(),
        match kind {
            RoundKind::OnlyKeeperSends =>
                " Only the keeper is asked; `None` reports that it failed.",
            RoundKind::CollectNonEmptyUntilThreshold => " `None` contributes nothing.",
            RoundKind::CollectSameUntilThreshold if none_handled =>
                " `None` votes for \"nothing to decide\" (the round's `none` outcome).",
            RoundKind::Voting if none_handled => " `None` abstains.",
            _ => "",
        }
    ));
    if s.registration.is_some() {
        docs.push(
            "Every agent of the genesis is asked: the agents whose payloads the round collects become the participants."
                .into(),
        );
    }
    if elects {
        docs.push(
            "The payload is the agent proposed as keeper: a participant that has not failed as keeper in this period \
             (`ctx.next_keeper(seed)` computes one)."
                .into(),
        );
    }
    Some(AppRound {
        state: variant(&s.name.text),
        method: snake(&s.name.text),
        round_ty,
        wire_ty,
        submit,
        check,
        write,
        uses_value,
        elects,
        docs,
    })
}

/// The replicated app of an `abci` machine or composed app whose rounds all have a runtime kind (custom rounds
/// decide in user code, which the generated app cannot run).
fn replicated(m: &Machine, outgoing: &[Vec<usize>]) -> TokenStream {
    let mut rounds = Vec::new();
    for sid in m.state_ids() {
        let s = m.state(sid);
        if s.is_final {
            continue;
        }
        let none_handled = m.outcome_event(sid, OutcomeKind::None).is_some_and(|e| {
            outgoing[sid.index()]
                .iter()
                .any(|&t| m.transitions[t].event == Some(e))
        });
        match app_round(m, sid, none_handled) {
            Some(r) => rounds.push(r),
            None => return quote! {},
        }
    }
    let Some(start) = m.default_start() else {
        return quote! {};
    };
    let start = variant(&m.state(start).name.text);
    let name = m.name.as_str();
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());

    let rules = m.state_ids().map(|sid| {
        let s = m.state(sid);
        let role = Ident::new(
            if s.registration.is_some() {
                "Registration"
            } else if s.elects_keeper.is_some() {
                "KeeperElection"
            } else if s.round == Some(RoundKind::OnlyKeeperSends) {
                "Keeper"
            } else {
                "Collect"
            },
            Span::call_site(),
        );
        let reset = s.reset;
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
            }
        }
    });

    let variants = rounds.iter().map(|r| {
        let (sv, ty) = (&r.state, &r.round_ty);
        let doc = format!(" The round of `{sv}`.");
        quote! { #[doc = #doc] #sv(::fsmc_runtime::rounds::#ty) }
    });
    let tags = rounds.iter().enumerate().map(|(i, r)| {
        let sv = &r.state;
        let tag = u32::try_from(i).unwrap_or(u32::MAX);
        quote! {
            Round::#sv(r) => {
                ::fsmc_runtime::borsh::BorshSerialize::serialize(&#tag, writer)?;
                ::fsmc_runtime::borsh::BorshSerialize::serialize(r, writer)
            }
        }
    });
    let starts = rounds.iter().map(|r| {
        let (sv, ty) = (&r.state, &r.round_ty);
        quote! { State::#sv => ::core::option::Option::Some(Round::#sv(<::fsmc_runtime::rounds::#ty>::new(eligible))) }
    });
    let delivers = rounds.iter().map(|r| {
        let (sv, wire, check, submit) = (&r.state, &r.wire_ty, &r.check, &r.submit);
        quote! {
            Round::#sv(r) => {
                let p: #wire = ::fsmc_runtime::app::decode(payload).ok_or(::fsmc_runtime::app::Rejection::BadPayload)?;
                #check
                ::fsmc_runtime::rounds::Round::submit(r, ::core::clone::Clone::clone(sender), #submit)?;
            }
        }
    });
    let any_write = rounds.iter().any(|r| r.uses_value);
    let data_param = if any_write {
        quote! { data }
    } else {
        quote! { _data }
    };
    let ends = rounds.iter().map(|r| {
        let (sv, write) = (&r.state, &r.write);
        let done = if r.elects {
            quote! {
                ::fsmc_runtime::rounds::Outcome::Done(v) => {
                    let keeper = ::core::option::Option::Some(::core::clone::Clone::clone(&v));
                    #write
                    ::fsmc_runtime::app::Decision { outcome: ::fsmc_runtime::rounds::OutcomeKind::Done, keeper }
                }
            }
        } else if r.uses_value {
            quote! {
                ::fsmc_runtime::rounds::Outcome::Done(v) => {
                    #write
                    ::fsmc_runtime::app::Decision { outcome: ::fsmc_runtime::rounds::OutcomeKind::Done, keeper: ::core::option::Option::None }
                }
            }
        } else {
            quote! {
                ::fsmc_runtime::rounds::Outcome::Done(_) => ::fsmc_runtime::app::Decision { outcome: ::fsmc_runtime::rounds::OutcomeKind::Done, keeper: ::core::option::Option::None }
            }
        };
        quote! {
            Round::#sv(r) => {
                let outcome = ::fsmc_runtime::rounds::Round::outcome(r).filter(|o| handled(o.kind()))?;
                ::core::option::Option::Some(match outcome {
                    #done,
                    other => ::fsmc_runtime::app::Decision { outcome: other.kind(), keeper: ::core::option::Option::None },
                })
            }
        }
    });
    let senders = rounds.iter().map(|r| {
        let sv = &r.state;
        quote! { Round::#sv(r) => ::fsmc_runtime::rounds::Round::submissions(r).keys().cloned().collect() }
    });
    let methods = rounds.iter().map(|r| {
        let (method, wire) = (&r.method, &r.wire_ty);
        let doc = docs::attrs(&r.docs);
        quote! { #doc fn #method(&mut self, ctx: &Context<'_>) -> #wire; }
    });
    let acts = rounds.iter().map(|r| {
        let (sv, method) = (&r.state, &r.method);
        quote! { State::#sv => ::fsmc_runtime::app::encode(&Behaviour::#method(agent, ctx)) }
    });
    let has_finals = m.states.iter().any(|s| s.is_final);
    let act_rest =
        has_finals.then(|| quote! { _ => ::core::result::Result::Ok(::std::vec::Vec::new()), });
    let start_rest = has_finals.then(|| quote! { _ => ::core::option::Option::None, });
    let carry = if m.keys.is_empty() {
        quote! { *data }
    } else {
        quote! { data.carry() }
    };
    let data_encoding = if m.keys.is_empty() {
        quote! {}
    } else {
        let fields = m.keys.iter().map(|k| snake(&k.name.text));
        quote! {
            // The canonical encoding the app hash is computed over: every key, in spec order.
            impl ::fsmc_runtime::borsh::BorshSerialize for Data {
                fn serialize<W: ::fsmc_runtime::borsh::io::Write>(&self, writer: &mut W) -> ::fsmc_runtime::borsh::io::Result<()> {
                    #(::fsmc_runtime::borsh::BorshSerialize::serialize(&self.#fields, writer)?;)*
                    ::core::result::Result::Ok(())
                }
            }
        }
    };
    let spec_doc = format!(
        " What the runtime's replicated driver needs to know about `{name}`: transitions, timeouts, rounds."
    );
    quote! {
        #data_encoding

        static RULES: [::fsmc_runtime::app::Rules<Event>; #n] = [#(#rules),*];

        #[doc = #spec_doc]
        ///
        /// Run a replica with [`App`], or an agent instance with [`Node`]; see `fsmc_runtime::app`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Spec;

        /// One replica of the app: fed ordered blocks, it computes the same state and hash as every other.
        pub type App = ::fsmc_runtime::app::App<Spec>;
        /// One agent instance: a replica and the agent's [`Behaviour`], driven by a consensus engine.
        pub type Node = ::fsmc_runtime::app::Node<Spec>;
        /// What a behaviour sees: the replicated state, from one agent's point of view.
        pub type Context<'a> = ::fsmc_runtime::app::Context<'a, Spec>;

        /// The proactive behaviour of each non-final round, implemented by the user: what this agent submits.
        pub trait Behaviour {
            #(#methods)*
        }

        /// The round in progress, typed by its kind and payload.
        #[derive(Clone, Debug)]
        pub enum Round {
            #(#variants,)*
        }

        impl ::fsmc_runtime::borsh::BorshSerialize for Round {
            fn serialize<W: ::fsmc_runtime::borsh::io::Write>(&self, writer: &mut W) -> ::fsmc_runtime::borsh::io::Result<()> {
                match self {
                    #(#tags)*
                }
            }
        }

        impl ::fsmc_runtime::app::AppRound<Spec> for Round {
            fn deliver(
                &mut self,
                sender: &::fsmc_runtime::app::AgentId,
                payload: &[u8],
                keepers: &::fsmc_runtime::app::KeeperPool<'_>,
            ) -> ::core::result::Result<(), ::fsmc_runtime::app::Rejection> {
                let _ = keepers;
                match self {
                    #(#delivers)*
                }
                ::core::result::Result::Ok(())
            }

            fn end_block(
                &self,
                #data_param: &mut Data,
                handled: &dyn ::core::ops::Fn(::fsmc_runtime::rounds::OutcomeKind) -> bool,
            ) -> ::core::option::Option<::fsmc_runtime::app::Decision> {
                match self {
                    #(#ends)*
                }
            }

            fn senders(&self) -> ::std::vec::Vec<::fsmc_runtime::app::AgentId> {
                match self {
                    #(#senders,)*
                }
            }
        }

        impl ::fsmc_runtime::app::AppSpec for Spec {
            type State = State;
            type Event = Event;
            type Data = Data;
            type Round = Round;
            type Agent = dyn Behaviour;

            const NAME: &'static str = #name;
            const START: State = State::#start;

            fn state_name(state: State) -> &'static str {
                state.name()
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

            fn outcome_event(state: State, outcome: ::fsmc_runtime::rounds::OutcomeKind) -> ::core::option::Option<Event> {
                state.outcome_event(outcome)
            }

            fn start_round(state: State, eligible: &::fsmc_runtime::rounds::Participants<::fsmc_runtime::app::AgentId>) -> ::core::option::Option<Round> {
                match state {
                    #(#starts,)*
                    #start_rest
                }
            }

            fn carry(data: &Data) -> Data {
                #carry
            }

            fn act(agent: &mut Self::Agent, ctx: &Context<'_>) -> ::core::result::Result<::std::vec::Vec<u8>, ::fsmc_runtime::app::EncodeError> {
                match ctx.state() {
                    #(#acts,)*
                    #act_rest
                }
            }
        }
    }
}

/// A behaviour trait for machines without rounds: one method per non-final state that decides the message to
/// fire; `step` fires it with the transition's hooks.
fn behaviour(m: &Machine) -> TokenStream {
    let states: Vec<&State> = m.states.iter().filter(|s| !s.is_final).collect();
    let methods = states.iter().map(|s| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(
            &s.docs,
            &format!("The action of `{}`: decides the message to fire.", s.name),
        );
        quote! { #doc fn #id(&mut self) -> Message; }
    });
    let arms = states.iter().map(|s| {
        let (v, id) = (variant(&s.name.text), snake(&s.name.text));
        quote! { State::#v => Behaviour::#id(behaviour) }
    });
    let final_arm = if states.len() < m.states.len() {
        quote! { _ => return ::core::option::Option::None, }
    } else {
        quote! {}
    };
    quote! {
        /// The behaviour of each non-final state, implemented by the user.
        pub trait Behaviour {
            #(#methods)*
        }

        /// Runs the behaviour of `state` and fires the message it chose with `behaviour`'s hooks
        /// (`State::fire`); `None` in a final state.
        pub fn step<B: Behaviour + Hooks + ?Sized>(state: State, behaviour: &mut B) -> ::core::option::Option<::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>>> {
            #[allow(unreachable_patterns)]
            let message = match state {
                #(#arms,)*
                #final_arm
            };
            ::core::option::Option::Some(state.fire(&message, behaviour))
        }
    }
}

fn genie(m: &Machine, spec: &Spec) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let types = m.states.iter().map(|s| match s.genie {
        Some(fsmc_vocab::genie::StateType::Invoker) => {
            quote! { ::fsmc_runtime::genie::StateType::Invoker }
        }
        _ => quote! { ::fsmc_runtime::genie::StateType::User },
    });
    let templates = m
        .states
        .iter()
        .map(|s| s.template.as_ref().map_or("", |t| t.as_str()));
    // Each template file once, in the order states name them, with the text the check read.
    let mut sources: Vec<(&str, TokenStream)> = Vec::new();
    for st in &m.states {
        let Some(path) = &st.template else { continue };
        if sources.iter().any(|(p, _)| *p == path.as_str()) {
            continue;
        }
        let text = match spec.templates.get(&path.span) {
            Some(Ok(text)) => quote! { #text },
            // The check refuses a spec whose templates could not be read: this is not reached.
            _ => quote! { ::core::compile_error!("fsmc: a template was not read") },
        };
        sources.push((path.as_str(), text));
    }
    let source_entries = sources.iter().map(|(p, t)| quote! { (#p, #t) });
    let ns = proc_macro2::Literal::usize_unsuffixed(sources.len());
    // In event declaration order, as `State::accepted` lists them.
    let accepted_names = m.accepted_events().into_iter().map(|seen| {
        let names = seen.iter().map(|e| m.event(*e).name.as_str());
        quote! { &[#(#names),*] }
    });
    let overrides = m.transitions.iter().filter_map(|t| {
        let (p, _) = t.persist?;
        let e = t.event?;
        let (s, ev, to) = (
            variant(&m.state(t.from).name.text),
            variant(&m.event(e).name.text),
            variant(&m.state(t.to).name.text),
        );
        let p = Ident::new(
            match p {
                Persistence::None => "None",
                Persistence::Raw => "Raw",
                Persistence::Rendered => "Rendered",
            },
            Span::call_site(),
        );
        Some(quote! { (State::#s, Event::#ev, State::#to) => ::fsmc_runtime::genie::Persistence::#p })
    });
    let name = m.name.as_str();
    quote! {
        static STATE_TYPES: [::fsmc_runtime::genie::StateType; #n] = [#(#types),*];
        const TEMPLATES: [&str; #n] = [#(#templates),*];
        /// Every template file the states name, with its text as `fsmc` read it: (path, source).
        static TEMPLATE_SOURCES: [(&str, &str); #ns] = [#(#source_entries),*];
        static ACCEPTED_NAMES: [&[&str]; #n] = [#(#accepted_names),*];

        impl State {
            /// Whether the user or an invoker acts in this state.
            pub fn state_type(self) -> ::fsmc_runtime::genie::StateType {
                STATE_TYPES[self as usize]
            }

            /// The template this state renders, as the spec names it (relative to the spec).
            pub const fn template(self) -> &'static str {
                TEMPLATES[self as usize]
            }

            /// The event names to offer: only `poll` while an invoker's task runs, else the accepted events.
            pub fn next_actions(self, task_running: bool) -> ::std::vec::Vec<&'static str> {
                if task_running {
                    ::std::vec![::fsmc_runtime::genie::POLL]
                } else {
                    ACCEPTED_NAMES[self as usize].to_vec()
                }
            }
        }

        /// The transition type of `from → to`: who acts, and what the dialogue records by default.
        pub fn transition_type(from: State, to: State) -> ::fsmc_runtime::genie::TransitionType {
            ::fsmc_runtime::genie::TransitionType::new(from.state_type(), to.state_type())
        }

        /// What the dialogue records for this transition: the spec's `persist` override, else the default.
        pub fn persistence(from: State, event: Event, to: State) -> ::fsmc_runtime::genie::Persistence {
            #[allow(unreachable_patterns)]
            match (from, event, to) {
                #(#overrides,)*
                _ => transition_type(from, to).default_persistence(),
            }
        }

        // What sessions (`genie::Flow`, with the runtime's `genie` feature) need of the machine.
        #[automatically_derived]
        impl ::fsmc_runtime::genie::GenieSpec for State {
            const MACHINE: &'static str = #name;
            const START: State = State::DEFAULT_START;
            fn name(self) -> &'static str {
                State::name(self)
            }
            fn state_type(self) -> ::fsmc_runtime::genie::StateType {
                State::state_type(self)
            }
            fn template(self) -> &'static str {
                State::template(self)
            }
            fn templates() -> &'static [(&'static str, &'static str)] {
                &TEMPLATE_SOURCES
            }
            fn accepted_names(self) -> &'static [&'static str] {
                ACCEPTED_NAMES[self as usize]
            }
        }

        #[automatically_derived]
        impl<C: Hooks + ?Sized> ::fsmc_runtime::genie::GenieMachine<C> for State {
            fn step(self, event: &str, turn: &::fsmc_runtime::genie::Turn<'_>, context: &mut C) -> ::core::result::Result<::fsmc_runtime::genie::Step<State>, ::fsmc_runtime::genie::GenieError> {
                let ::core::option::Option::Some(event) = Event::from_name(event) else {
                    return ::core::result::Result::Err(::fsmc_runtime::genie::GenieError::unknown_event(self, event));
                };
                let to = self.fire_with(&event, turn, context).map_err(|e| ::fsmc_runtime::genie::GenieError::refused(&e))?;
                let persistence = turn.persistence_override().unwrap_or_else(|| persistence(self, event, to));
                ::core::result::Result::Ok(::fsmc_runtime::genie::Step { from: self, event: event.name(), to, persistence })
            }
        }
    }
}

fn dialogue(m: &Machine) -> TokenStream {
    let roles: Vec<Ident> = m.roles.iter().map(|r| variant(&r.text)).collect();
    let role_docs = m.roles.iter().map(|r| format!(" Role `{r}`."));
    let role_names: Vec<&str> = m.roles.iter().map(|r| r.as_str()).collect();
    let nr = proc_macro2::Literal::usize_unsuffixed(roles.len());
    let role_of = m
        .events
        .iter()
        .map(|e| match e.role.and_then(|r| roles.get(r)) {
            Some(r) => quote! { ::core::option::Option::Some(Role::#r) },
            None => quote! { ::core::option::Option::None },
        });
    let ne = proc_macro2::Literal::usize_unsuffixed(m.events.len());
    let outgoing = m.outgoing();
    let initiation: Vec<Ident> = {
        let mut v = Vec::new();
        for s in m.start_states() {
            for &t in &outgoing[s.index()] {
                if let Some(e) = m.transitions[t].event {
                    let id = variant(&m.event(e).name.text);
                    if !v.contains(&id) {
                        v.push(id);
                    }
                }
            }
        }
        v
    };
    let termination: Vec<Ident> = {
        let mut v = Vec::new();
        for t in m.transitions.iter().filter(|t| m.state(t.to).is_final) {
            if let Some(e) = t.event {
                let id = variant(&m.event(e).name.text);
                if !v.contains(&id) {
                    v.push(id);
                }
            }
        }
        v
    };
    // A checked dialogue has exactly two roles, and a default start state.
    let other = match roles.as_slice() {
        [a, b] => quote! {
            match self {
                Role::#a => Role::#b,
                Role::#b => Role::#a,
            }
        },
        _ => quote! { self },
    };
    let start = m
        .default_start()
        .or_else(|| m.start_states().next())
        .map(|s| variant(&m.state(s).name.text));
    let name = m.name.as_str();
    let protocol = start.map(|start| {
        let performative = if crate::hooks::events_with_data(m).is_empty() {
            quote! { *message }
        } else {
            quote! { message.event() }
        };
        let dialogue_doc = [
            format!(" One party's copy of a `{name}` dialogue: it takes a message only if its sender plays"),
            " the role that sends the performative, its id and target follow the last message, and the protocol"
                .to_string(),
            " allows it as a reply; then the transition fires with its hooks.".to_string(),
        ];
        let dialogues_doc = format!(" One agent's `{name}` dialogues, by dialogue reference.");
        quote! {
            #(#[doc = #dialogue_doc])*
            pub type Dialogue = ::fsmc_runtime::dialogue::Dialogue<State>;
            #[doc = #dialogues_doc]
            pub type Dialogues = ::fsmc_runtime::dialogue::Dialogues<State>;
            /// A message of this protocol: its header (dialogue reference, message id, target, sender,
            /// receiver) and its performative with its contents.
            pub type Envelope = ::fsmc_runtime::dialogue::Envelope<Message>;
            /// Why a dialogue refused a message (it changed nothing).
            pub type DialogueError = ::fsmc_runtime::dialogue::DialogueError<State, Event, Role>;

            #[automatically_derived]
            impl ::fsmc_runtime::dialogue::Protocol for State {
                type Role = Role;
                const START: State = State::#start;

                fn performative(message: &Message) -> Event {
                    #performative
                }
                fn sender_role(performative: Event) -> ::core::option::Option<Role> {
                    performative.role()
                }
                fn other_role(role: Role) -> Role {
                    role.other()
                }
                fn deliver(
                    self,
                    message: &Message,
                    delivery: &::fsmc_runtime::dialogue::Delivery<'_>,
                    hooks: &mut (dyn Hooks + 'static),
                ) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                    State::fire_with(self, message, delivery, hooks)
                }
            }
        }
    });
    quote! {
        /// The two parties of the dialogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Role { #(#[doc = #role_docs] #roles,)* }

        const ROLE_NAMES: [&str; #nr] = [#(#role_names),*];
        static ROLE_OF: [::core::option::Option<Role>; #ne] = [#(#role_of),*];

        impl Role {
            /// The role's name as written in the spec.
            pub const fn name(self) -> &'static str {
                ROLE_NAMES[self as usize]
            }

            /// The other party's role.
            pub const fn other(self) -> Role {
                #other
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for Role {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl Event {
            /// The role that sends this performative.
            pub fn role(self) -> ::core::option::Option<Role> {
                ROLE_OF[self as usize]
            }
        }

        /// The performatives that open a dialogue.
        pub const INITIATION: &[Event] = &[#(Event::#initiation),*];
        /// The performatives that end a dialogue.
        pub const TERMINATION: &[Event] = &[#(Event::#termination),*];

        #protocol
    }
}

fn staged(m: &Machine) -> TokenStream {
    let agents: Vec<Ident> = m.agents.iter().map(|a| variant(&a.text)).collect();
    let agent_docs = m.agents.iter().map(|a| format!(" Agent `{a}`."));
    let agent_names: Vec<&str> = m.agents.iter().map(|a| a.as_str()).collect();
    let na = proc_macro2::Literal::usize_unsuffixed(agents.len());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    // Agent lists in the order the agents are declared (the order of `Agent`, and of the maps a step returns),
    // whatever order a stage lists them in.
    let list = |ids: &[(usize, fsmc_base::source::Span)]| {
        let mut ids: Vec<usize> = ids.iter().map(|&(i, _)| i).collect();
        ids.sort_unstable();
        ids.dedup();
        let vs = ids.iter().filter_map(|i| agents.get(*i));
        quote! { &[#(Agent::#vs),*] }
    };
    let acting = m.states.iter().map(|s| list(&s.acting)).collect::<Vec<_>>();
    // The rewarded agents as written: `None` when the spec does not say, so that Phantom's default (the acting
    // agents) is applied in one place, the runtime's `StageInfo::rewarded_agents`.
    let rewarded = m
        .states
        .iter()
        .map(|s| match &s.rewarded {
            Some(r) => {
                let r = list(r);
                quote! { ::core::option::Option::Some(#r) }
            }
            None => quote! { ::core::option::Option::None },
        })
        .collect::<Vec<_>>();
    let handlers: Vec<(usize, &State)> = m
        .states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.handler.is_some())
        .collect();
    let has_handler = super::machine_matches(
        handlers
            .iter()
            .map(|(_, s)| variant(&s.name.text))
            .collect(),
    );
    let methods = handlers.iter().map(|&(i, s)| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(&s.docs, &format!("The handler of stage `{}`.", s.name));
        let next: Vec<String> = next_stages(m, i).iter().map(|n| format!("`{n}`")).collect();
        let choice = format!(
            " Runs after the stage's agents acted and picks the next stage: {}.",
            next.join(", ")
        );
        quote! {
            #doc
            #[doc = ""]
            #[doc = #choice]
            /// Any other choice is refused, and the step undone.
            fn #id(&mut self, view: View) -> State;
        }
    });
    let arms = handlers.iter().map(|(_, s)| {
        let (v, id) = (variant(&s.name.text), snake(&s.name.text));
        quote! { State::#v => ::core::option::Option::Some(Environment::#id(env, view)) }
    });
    // Without handlers no stage has one to run: no `match` on the stage to write then.
    let handle = if handlers.is_empty() {
        quote! {
            let _ = (env, view);
            ::core::option::Option::None
        }
    } else {
        quote! {
            #[allow(unreachable_patterns)]
            match view.stage {
                #(#arms,)*
                _ => ::core::option::Option::None,
            }
        }
    };
    // An empty enum cannot be indexed or displayed by value: a machine may declare no agents.
    let agent_name = if agents.is_empty() {
        quote! { match self {} }
    } else {
        quote! { AGENT_NAMES[self as usize] }
    };
    let agent_names_const = (!agents.is_empty()).then(|| {
        quote! { const AGENT_NAMES: [&str; #na] = [#(#agent_names),*]; }
    });
    let name = m.name.as_str();
    let env_doc = format!(" The environment of `{name}` over the domain `E`: see [`Environment`].");
    let trait_doc = format!(" The domain of `{name}`, implemented by the user.");
    quote! {
        /// The agents of the environment.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Agent { #(#[doc = #agent_docs] #agents,)* }

        #agent_names_const
        static ACTING: [&[Agent]; #n] = [#(#acting),*];
        static REWARDED: [::core::option::Option<&[Agent]>; #n] = [#(#rewarded),*];

        impl Agent {
            /// Every agent, in spec order.
            pub const ALL: &'static [Agent] = &[#(Agent::#agents),*];
            /// The agent's name as written in the spec.
            pub const fn name(self) -> &'static str {
                #agent_name
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for Agent {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl State {
            /// The agents that act in a step of this stage, from the observations taken at the end of the
            /// previous one (in the order of [`Agent`]).
            pub fn acting(self) -> &'static [Agent] {
                ACTING[self as usize]
            }
            /// The agents rewarded at the end of a step of this stage (the acting agents unless the spec says
            /// otherwise; none for `rewarded none;`), in the order of [`Agent`].
            pub fn rewarded(self) -> &'static [Agent] {
                <Spec as ::fsmc_runtime::staged::StagedSpec>::stage(self).rewarded_agents()
            }
            /// Whether a handler chooses the next stage.
            pub const fn has_handler(self) -> bool {
                #has_handler
            }
        }

        /// The facts of the spec for the runtime's staged environment: stages, agents, who acts and who is
        /// rewarded where, next stages, handlers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Spec;

        impl ::fsmc_runtime::staged::StagedSpec for Spec {
            type Stage = State;
            type Agent = Agent;
            const NAME: &'static str = #name;
            const INITIAL_STAGE: State = State::DEFAULT_START;
            const AGENTS: &'static [Agent] = Agent::ALL;
            fn stage(stage: State) -> ::fsmc_runtime::staged::StageInfo<State, Agent> {
                ::fsmc_runtime::staged::StageInfo {
                    id: stage,
                    next: stage.next_stages(),
                    acting: stage.acting(),
                    rewarded: REWARDED[stage as usize],
                    has_handler: stage.has_handler(),
                }
            }
        }

        /// Where an episode is, as the methods of [`Environment`] see it.
        pub type View = ::fsmc_runtime::staged::View<State>;

        #[doc = #env_doc]
        pub type Env<E> = ::fsmc_runtime::staged::Env<Spec, E>;

        #[doc = #trait_doc]
        ///
        /// What agents observe, what their actions do, the handlers that pick the next stage, and rewards:
        /// [`Env`] calls these methods, each with a [`View`] of the step and the stage concerned.
        pub trait Environment {
            /// What an agent observes before it acts.
            type Observation;
            /// What an agent does in a step.
            type Action;
            /// Auxiliary information that comes with an observation.
            type Info: ::core::default::Default;

            /// Starts a new episode from `seed`: the same seed must give the same episode.
            fn reset(&mut self, seed: u64);
            /// What `agent` observes at the end of a step (or at reset), to act on in the stage `view.stage`.
            fn observe(&mut self, agent: Agent, view: View) -> Self::Observation;
            /// The auxiliary information of `agent`, taken with its observation (by default, the default).
            fn info(&mut self, agent: Agent, view: View) -> Self::Info {
                let _ = (agent, view);
                ::core::default::Default::default()
            }
            /// Applies `agent`'s action in the stage `view.stage`.
            fn act(&mut self, agent: Agent, action: Self::Action, view: View);
            /// Runs the stage `view.stage`, which has no handler, after its agents acted (by default, nothing).
            fn resolve(&mut self, view: View) {
                let _ = view;
            }
            /// The reward of `agent` at the end of a step in the stage `view.stage`.
            fn reward(&mut self, agent: Agent, view: View) -> f64;
            /// Whether `agent` is done for the rest of the episode, asked at the end of each step (by default,
            /// never).
            fn agent_terminated(&mut self, agent: Agent, view: View) -> bool {
                let _ = (agent, view);
                false
            }
            /// Whether the episode is terminated, asked at the end of each step. It also is once every agent
            /// is done (by default, only then).
            fn is_terminated(&mut self, view: View) -> bool {
                let _ = view;
                false
            }
            /// Whether the episode is truncated before `num_steps`, asked at the end of each step (by default,
            /// never).
            fn is_truncated(&mut self, view: View) -> bool {
                let _ = view;
                false
            }
            #(#methods)*
        }

        impl<E: Environment> ::fsmc_runtime::staged::Dispatch<E> for Spec {
            type Observation = E::Observation;
            type Action = E::Action;
            type Info = E::Info;
            fn reset(env: &mut E, seed: u64) {
                Environment::reset(env, seed)
            }
            fn observe(env: &mut E, agent: Agent, view: View) -> E::Observation {
                Environment::observe(env, agent, view)
            }
            fn info(env: &mut E, agent: Agent, view: View) -> E::Info {
                Environment::info(env, agent, view)
            }
            fn act(env: &mut E, agent: Agent, action: E::Action, view: View) {
                Environment::act(env, agent, action, view)
            }
            fn handle(env: &mut E, view: View) -> ::core::option::Option<State> {
                #handle
            }
            fn resolve(env: &mut E, view: View) {
                Environment::resolve(env, view)
            }
            fn reward(env: &mut E, agent: Agent, view: View) -> f64 {
                Environment::reward(env, agent, view)
            }
            fn agent_terminated(env: &mut E, agent: Agent, view: View) -> bool {
                Environment::agent_terminated(env, agent, view)
            }
            fn is_terminated(env: &mut E, view: View) -> bool {
                Environment::is_terminated(env, view)
            }
            fn is_truncated(env: &mut E, view: View) -> bool {
                Environment::is_truncated(env, view)
            }
        }
    }
}

/// The names of the next stages of state `index`, in spec order (as `next_stages()` lists them).
fn next_stages(m: &Machine, index: usize) -> Vec<&str> {
    let mut next: Vec<_> = m
        .transitions
        .iter()
        .filter(|t| t.from.index() == index && t.event.is_none())
        .map(|t| t.to)
        .collect();
    next.sort();
    next.dedup();
    next.iter().map(|t| m.state(*t).name.as_str()).collect()
}
