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

/// Open Autonomy: round kinds wired to the runtime's round types, the outcome → event mapping, and the
/// `Behaviour` trait with one proactive method per non-final round.
fn rounds(m: &Machine) -> TokenStream {
    let kind_of = |s: &State| {
        s.round.unwrap_or(if s.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        })
    };
    let kinds = m.states.iter().map(|s| match runtime_kind(kind_of(s)) {
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
    let outcome_arms = m.state_ids().flat_map(|sid| {
        let s = m.state(sid);
        let sv = variant(&s.name.text);
        kind_of(s)
            .outcomes()
            .iter()
            .filter_map(move |(o, _)| m.outcome_event(sid, *o).map(|e| (*o, e)))
            .map(move |(o, e)| {
                let ok = outcome_kind(o);
                let ev = variant(&m.event(e).name.text);
                quote! { (State::#sv, #ok) => ::core::option::Option::Some(Event::#ev) }
            })
            .collect::<Vec<_>>()
    });
    let outcome_arms: Vec<TokenStream> = outcome_arms.collect();
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
    // The typed round of each non-final round with a runtime kind.
    let mut variants = Vec::new();
    let mut news = Vec::new();
    let mut decides = Vec::new();
    let mut methods = Vec::new();
    let mut submits = Vec::new();
    for s in m.states.iter().filter(|s| !s.is_final) {
        let sv = variant(&s.name.text);
        let method = snake(&s.name.text);
        let payload_ty = s
            .attributes
            .iter()
            .find(|(n, _)| n.as_str() == "payload")
            .and_then(|(_, v)| v.as_deref())
            .map_or(quote! { () }, rust_type);
        let mut lines = s.docs.clone();
        if lines.is_empty() {
            lines.push(format!("The proactive action of `{}`.", s.name));
        }
        let kind = kind_of(s);
        let (round_ty, submitted) = match kind {
            RoundKind::CollectSameUntilAll => (
                quote! { CollectSameUntilAll<P, #payload_ty> },
                quote! { #payload_ty },
            ),
            RoundKind::CollectDifferentUntilAll => (
                quote! { CollectDifferentUntilAll<P, #payload_ty> },
                quote! { #payload_ty },
            ),
            RoundKind::CollectSameUntilThreshold => (
                quote! { CollectSameUntilThreshold<P, #payload_ty> },
                quote! { ::core::option::Option<#payload_ty> },
            ),
            RoundKind::CollectDifferentUntilThreshold => (
                quote! { CollectDifferentUntilThreshold<P, #payload_ty> },
                quote! { #payload_ty },
            ),
            RoundKind::CollectNonEmptyUntilThreshold => (
                quote! { CollectNonEmptyUntilThreshold<P, #payload_ty> },
                quote! { ::core::option::Option<#payload_ty> },
            ),
            RoundKind::OnlyKeeperSends => (
                quote! { OnlyKeeperSends<P, #payload_ty> },
                quote! { ::core::option::Option<#payload_ty> },
            ),
            RoundKind::Voting => (
                quote! { Voting<P> },
                quote! { ::core::option::Option<bool> },
            ),
            RoundKind::Degenerate | RoundKind::Custom => {
                lines.push(String::new());
                lines.push("A custom round: the behaviour decides the event itself.".into());
                let doc = docs::attrs(&lines);
                methods.push(quote! { #doc fn #method(&mut self, data: &Data) -> Event; });
                continue;
            }
        };
        lines.push(String::new());
        lines.push(format!(
            "Runs in the `{}` round; its return value is this instance's payload.",
            kind.name()
        ));
        let doc = docs::attrs(&lines);
        methods.push(quote! { #doc fn #method(&mut self, data: &Data) -> #submitted; });
        let vdoc = format!(" The `{}` round of `{}`.", kind.name(), s.name);
        variants.push(quote! { #[doc = #vdoc] #sv(::fsmc_runtime::rounds::#round_ty) });
        let new = if kind == RoundKind::OnlyKeeperSends {
            quote! { State::#sv => ::fsmc_runtime::rounds::OnlyKeeperSends::new(participants).map(|r| ::core::option::Option::Some(Round::#sv(r))) }
        } else {
            quote! { State::#sv => ::core::result::Result::Ok(::core::option::Option::Some(Round::#sv(<::fsmc_runtime::rounds::#round_ty>::new(participants)))) }
        };
        news.push(new);
        decides.push(quote! { Round::#sv(r) => ::fsmc_runtime::rounds::Round::outcome(r).and_then(|o| State::#sv.outcome_event(o.kind())) });
        submits.push(quote! { Round::#sv(r) => ::fsmc_runtime::rounds::submit_from(r, who, || behaviour.#method(data)) });
    }
    let data_ty = if m.keys.is_empty() {
        quote! { () }
    } else {
        quote! { Data }
    };
    let data_alias = if m.keys.is_empty() {
        quote! {
            /// This machine declares no synchronized data.
            pub type Data = ();
        }
    } else {
        quote! {}
    };
    let _ = data_ty;
    let round_enum = if variants.is_empty() {
        quote! {}
    } else {
        quote! {
            /// The running round of the current state, typed by its kind and payload.
            #[derive(Clone, Debug)]
            pub enum Round<P: ::core::cmp::Ord + ::core::clone::Clone> {
                #(#variants,)*
            }

            impl<P: ::core::cmp::Ord + ::core::clone::Clone> Round<P> {
                /// A fresh round for `state`; `None` for final and custom rounds, which collect nothing.
                pub fn new(state: State, participants: &::fsmc_runtime::rounds::Participants<P>) -> ::core::result::Result<::core::option::Option<Round<P>>, ::fsmc_runtime::rounds::RoundError> {
                    #[allow(unreachable_patterns)]
                    match state {
                        #(#news,)*
                        _ => ::core::result::Result::Ok(::core::option::Option::None),
                    }
                }

                /// The event the round decided, once it has.
                pub fn decided(&self) -> ::core::option::Option<Event> {
                    match self {
                        #(#decides,)*
                    }
                }

                /// Runs `who`'s behaviour for this round and submits its payload.
                pub fn submit_behaviour<B: Behaviour + ?Sized>(&mut self, behaviour: &mut B, data: &Data, who: P) -> ::core::result::Result<(), ::fsmc_runtime::rounds::RoundError> {
                    match self {
                        #(#submits,)*
                    }
                }
            }
        }
    };
    quote! {
        #data_alias
        static ROUND_KINDS: [::core::option::Option<::fsmc_runtime::rounds::RoundKind>; #n] = [#(#kinds),*];

        impl State {
            /// The round's kind; `None` for a custom round.
            pub fn round_kind(self) -> ::core::option::Option<::fsmc_runtime::rounds::RoundKind> {
                ROUND_KINDS[self as usize]
            }

            /// Whether entering this round starts a new period of the synchronized data.
            pub const fn is_reset(self) -> bool {
                #resets
            }

            /// The event this round emits for a decided outcome.
            pub fn outcome_event(self, outcome: ::fsmc_runtime::rounds::OutcomeKind) -> ::core::option::Option<Event> {
                #outcome_body
            }
        }

        /// The proactive behaviour of each non-final round, implemented by the user.
        pub trait Behaviour {
            #(#methods)*
        }

        #round_enum
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
        quote! { State::#v => behaviour.#id() }
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
        quote! { State::#v => state.goto(handlers.#id()) }
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
