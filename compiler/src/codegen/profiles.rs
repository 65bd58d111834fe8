//! What a machine's profile adds to its module: synchronized data, Open Autonomy rounds and behaviours, Genie
//! templates and dialogue persistence, dialogue roles and messages, stages and agents, and for a composed app
//! the machine each state came from.

use super::{docs, snake, variant};
use crate::model::{Machine, MachineId, Outcome, Persistence, Profile, RoundKind, Spec, State};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub(crate) fn generate(m: &Machine, origin: Option<(&[MachineId], &Spec)>) -> TokenStream {
    let mut out = TokenStream::new();
    if !m.keys.is_empty() {
        out.extend(data(m));
    }
    match m.profile {
        Profile::Abci => out.extend(rounds(m)),
        Profile::Genie => out.extend(genie(m)),
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

fn rust_type(text: &str) -> TokenStream {
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
    pick: impl Fn(&'a State) -> &'a [(crate::model::KeyId, crate::source::Span)],
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

fn outcome_kind(o: Outcome) -> TokenStream {
    let id = Ident::new(
        match o {
            Outcome::Done => "Done",
            Outcome::None => "None",
            Outcome::NoMajority => "NoMajority",
            Outcome::Negative => "Negative",
            Outcome::Fail => "Fail",
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
    let has_transition = |sid: crate::model::StateId, e: crate::model::EventId| {
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

fn app_round(m: &Machine, sid: crate::model::StateId, none_handled: bool) -> Option<AppRound> {
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
    let mut docs = s.docs.clone();
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
        let none_handled = m.outcome_event(sid, Outcome::None).is_some_and(|e| {
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

/// A behaviour trait for machines without rounds: one method per non-final state that decides the event.
fn behaviour(m: &Machine) -> TokenStream {
    let guarded = m.transitions.iter().any(|t| !t.guards.is_empty());
    let hooked = guarded || m.transitions.iter().any(|t| !t.actions.is_empty());
    let states: Vec<&State> = m.states.iter().filter(|s| !s.is_final).collect();
    let methods = states.iter().map(|s| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(
            &s.docs,
            &format!("The action of `{}`: decides the event to fire.", s.name),
        );
        quote! { #doc fn #id(&mut self) -> Event; }
    });
    let arms = states.iter().map(|s| {
        let (v, id) = (variant(&s.name.text), snake(&s.name.text));
        quote! { State::#v => Behaviour::#id(behaviour) }
    });
    let (bound, fire) = if hooked {
        (
            quote! { Behaviour + Hooks },
            quote! { state.fire(event, behaviour) },
        )
    } else {
        (quote! { Behaviour }, quote! { state.next(event) })
    };
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

        /// Runs the behaviour of `state` and fires the event it chose; `None` in a final state.
        pub fn step<B: #bound + ?Sized>(state: State, behaviour: &mut B) -> ::core::option::Option<::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>>> {
            #[allow(unreachable_patterns)]
            let event = match state {
                #(#arms,)*
                #final_arm
            };
            ::core::option::Option::Some(#fire)
        }
    }
}

fn genie(m: &Machine) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let types = m.states.iter().map(|s| match s.genie {
        Some(crate::model::GenieType::Invoker) => {
            quote! { ::fsmc_runtime::genie::StateType::Invoker }
        }
        _ => quote! { ::fsmc_runtime::genie::StateType::User },
    });
    let templates = m
        .states
        .iter()
        .map(|s| s.template.as_ref().map_or("", |t| t.as_str()));
    let overrides = m.transitions.iter().filter_map(|t| {
        let (p, _) = t.persist?;
        let e = t.event?;
        let (s, ev, to) = (variant(&m.state(t.from).name.text), variant(&m.event(e).name.text), variant(&m.state(t.to).name.text));
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
    quote! {
        static STATE_TYPES: [::fsmc_runtime::genie::StateType; #n] = [#(#types),*];
        const TEMPLATES: [&str; #n] = [#(#templates),*];

        impl State {
            /// Whether the user or an invoker acts in this state.
            pub fn state_type(self) -> ::fsmc_runtime::genie::StateType {
                STATE_TYPES[self as usize]
            }

            /// The template this state renders.
            pub const fn template(self) -> &'static str {
                TEMPLATES[self as usize]
            }

            /// The event names to offer: only `poll` while an invoker's task runs, else the accepted events.
            pub fn next_actions(self, task_running: bool) -> ::std::vec::Vec<&'static str> {
                if task_running {
                    ::std::vec![::fsmc_runtime::genie::Session::POLL]
                } else {
                    self.accepted().iter().map(|e| e.name()).collect()
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
    let messages = m.events.iter().filter(|e| !e.fields.is_empty()).map(|e| {
        let id = variant(&e.name.text);
        let doc = docs::attrs_or(&e.docs, &format!("The contents of `{}`.", e.name));
        let fields = e.fields.iter().map(|f| {
            let (fid, ty) = (snake(&f.name.text), rust_type(&f.ty.text));
            let doc = format!(" `{}` of `{}`.", f.name, e.name);
            quote! { #[doc = #doc] pub #fid: #ty }
        });
        quote! { #doc #[derive(Clone, Debug, PartialEq)] pub struct #id { #(#fields,)* } }
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

        /// The typed contents of the performatives that carry any.
        pub mod messages {
            #(#messages)*
        }
    }
}

fn staged(m: &Machine) -> TokenStream {
    let agents: Vec<Ident> = m.agents.iter().map(|a| variant(&a.text)).collect();
    let agent_docs = m.agents.iter().map(|a| format!(" Agent `{a}`."));
    let agent_names: Vec<&str> = m.agents.iter().map(|a| a.as_str()).collect();
    let na = proc_macro2::Literal::usize_unsuffixed(agents.len());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let list = |ids: &[(usize, crate::source::Span)]| {
        let vs = ids.iter().filter_map(|(i, _)| agents.get(*i));
        quote! { &[#(Agent::#vs),*] }
    };
    let acting = m.states.iter().map(|s| list(&s.acting)).collect::<Vec<_>>();
    let rewarded = m
        .states
        .iter()
        .map(|s| {
            if s.rewarded.is_empty() {
                list(&s.acting)
            } else {
                list(&s.rewarded)
            }
        })
        .collect::<Vec<_>>();
    let handlers: Vec<&State> = m.states.iter().filter(|s| s.handler.is_some()).collect();
    let has_handler =
        super::machine_matches(handlers.iter().map(|s| variant(&s.name.text)).collect());
    let methods = handlers.iter().map(|s| {
        let id = snake(&s.name.text);
        let doc = docs::attrs_or(
            &s.docs,
            &format!(
                "The handler of stage `{}`: runs the stage and picks the next one.",
                s.name
            ),
        );
        quote! { #doc fn #id(&mut self) -> State; }
    });
    let arms = handlers.iter().map(|s| {
        let (v, id) = (variant(&s.name.text), snake(&s.name.text));
        quote! { State::#v => state.goto(Handlers::#id(handlers)) }
    });
    let automatic = quote! {
        match state.next_stages() {
            [only] => ::core::result::Result::Ok(*only),
            allowed => ::core::result::Result::Err(::fsmc_runtime::InvalidTarget { from: state, to: state, allowed }),
        }
    };
    // Without handlers every stage moves on by itself: no `match` on the stage to write then.
    let body = if handlers.is_empty() {
        quote! {
            let _ = handlers;
            #automatic
        }
    } else {
        quote! {
            #[allow(unreachable_patterns)]
            match state {
                #(#arms,)*
                _ => #automatic,
            }
        }
    };
    quote! {
        /// The agents of the environment.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Agent { #(#[doc = #agent_docs] #agents,)* }

        const AGENT_NAMES: [&str; #na] = [#(#agent_names),*];
        static ACTING: [&[Agent]; #n] = [#(#acting),*];
        static REWARDED: [&[Agent]; #n] = [#(#rewarded),*];

        impl Agent {
            /// The agent's name as written in the spec.
            pub const fn name(self) -> &'static str {
                AGENT_NAMES[self as usize]
            }
        }

        impl State {
            /// The agents that act at the end of each step of this stage.
            pub fn acting(self) -> &'static [Agent] {
                ACTING[self as usize]
            }
            /// The agents rewarded in this stage (the acting agents unless the spec says otherwise).
            pub fn rewarded(self) -> &'static [Agent] {
                REWARDED[self as usize]
            }
            /// Whether a handler chooses the next stage.
            pub const fn has_handler(self) -> bool {
                #has_handler
            }
        }

        /// The handlers of the stages that have one, implemented by the user.
        pub trait Handlers {
            #(#methods)*
        }

        /// Leaves `state`: its handler picks the next stage (checked against the spec's next stages), or a
        /// stage without a handler moves to its one next stage.
        pub fn step<H: Handlers + ?Sized>(state: State, handlers: &mut H) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTarget<State>> {
            #body
        }
    }
}
