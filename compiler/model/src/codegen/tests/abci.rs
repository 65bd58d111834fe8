//! Tests of an `abci` machine or composed app: each walks the app from genesis on two replicas, making every
//! round of the walk decide the outcome the walk needs with a block synthesised from the round's kind, or
//! letting its timeout pass with an empty block at the deadline; each step asserts the transition, the cause,
//! the values the round wrote, the transaction rejected (one from an agent outside the service rides along in
//! every block) and that both replicas agree on the app hash.
//!
//! The generated `Fixture` trait gives the payloads: the `i`-th value of each round's payload type (written by
//! the generator for the types it knows), the app's custom round logic and the payloads that make a custom
//! round end with a given event (the user's). `Harness` is public, so a user's own tests can walk the app the
//! same way.

use super::blocks::{Round, Trigger, arm};
use super::{Leg, TestOptions, plan, test_names, values};
use crate::codegen::abci::round::app_round;
use crate::codegen::tokens::{rust_type, snake, variant};
use crate::spec::Machine;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// Every state's round as the replicated app runs it (`None` for final states, or when the app is not
/// generated), and every transition's trigger.
fn rounds_and_triggers(m: &Machine) -> (Vec<Option<Round>>, Vec<Option<Trigger>>) {
    let outgoing = m.outgoing();
    let rounds: Vec<Option<Round>> = m
        .state_ids()
        .map(|sid| {
            let s = m.state(sid);
            if s.is_final {
                return None;
            }
            let none_handled = m.outcome_event(sid, OutcomeKind::None).is_some_and(|e| {
                outgoing[sid.index()]
                    .iter()
                    .any(|&t| m.transitions[t].event == Some(e))
            });
            let app = app_round(m, sid, none_handled)?;
            Some(Round {
                kind: s.round_kind(),
                app,
                none_handled,
                registration: s.round().is_some_and(|r| r.registration.is_some()),
                reset: s.round().is_some_and(|r| r.reset),
                payload: s.payload().unwrap_or("()").to_string(),
            })
        })
        .collect();
    let triggers = m
        .transitions
        .iter()
        .map(|t| {
            let e = t.event?;
            rounds[t.from.index()].as_ref()?;
            if let Some(timeout) = m.event(e).timeout {
                return Some(Trigger::Timeout(timeout.duration));
            }
            let kind = m.state(t.from).round_kind();
            if kind == RoundKind::Custom {
                return Some(Trigger::Custom);
            }
            kind.outcomes()
                .iter()
                .map(|(o, _)| *o)
                .find(|o| m.outcome_event(t.from, *o) == Some(e))
                .map(Trigger::Outcome)
        })
        .collect();
    (rounds, triggers)
}

pub(super) fn generate(m: &Machine, opts: TestOptions) -> TokenStream {
    let Some(start) = m.default_start() else {
        return TokenStream::new();
    };
    let (rounds, triggers) = rounds_and_triggers(m);
    if rounds.iter().flatten().count() == 0 {
        return TokenStream::new();
    }
    let can: Vec<bool> = triggers.iter().map(Option::is_some).collect();
    let (legs, missed) = plan(m, &[start], &can, opts);
    let module = snake(&m.name.text);
    let tests_module = format_ident!("{}_tests", module.to_string().trim_start_matches("r#"));
    let (fixture, complete) = fixture(m, &rounds);
    let arms = (0..m.transitions.len()).filter_map(|t| {
        Some(arm(
            m,
            t,
            triggers[t]?,
            rounds[m.transitions[t].from.index()].as_ref()?,
        ))
    });
    let harness = harness(arms.collect());
    let walks: Vec<TokenStream> = legs.iter().map(|l| walk(m, l)).collect();
    let names: Vec<Ident> = if opts.tour {
        vec![Ident::new("tour", Span::call_site())]
    } else {
        test_names(m, &legs)
            .iter()
            .map(|n| format_ident!("check_{}", n))
            .collect()
    };
    let checks = if opts.tour {
        quote! {
            /// Takes every transition along a short tour of the app.
            pub fn check_tour<F: Fixture + ?Sized>(fx: &F) {
                #(#walks)*
                snapshot();
            }
        }
    } else {
        quote! {
            #(
                /// One transition, after the shortest walk to its source.
                pub fn #names<F: Fixture + ?Sized>(fx: &F) {
                    #walks
                    snapshot();
                }
            )*
        }
    };
    let all_checks: Vec<Ident> = if opts.tour {
        vec![Ident::new("check_tour", Span::call_site())]
    } else {
        names.clone()
    };
    let tests = complete.then(|| default_tests(&all_checks));
    let doc = module_doc(m, legs.len(), &missed);
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, dead_code, clippy::all)]
        pub mod #tests_module {
            use super::#module::*;
            use ::fsmc_runtime::app::{AgentId, AppSpec, Cause, Genesis, Tx};
            use ::fsmc_runtime::rounds::OutcomeKind;

            #fixture
            #harness
            #checks

            /// Every check, one after the other.
            pub fn check_all<F: Fixture + ?Sized>(fx: &F) {
                #(#all_checks(fx);)*
            }

            /// Writes the coverage snapshot of this process, when coverage is on and a directory is given.
            fn snapshot() {
                if let ::core::result::Result::Err(e) = ::fsmc_runtime::coverage::write_snapshot() {
                    ::core::panic!("writing the coverage snapshot: {e}");
                }
            }

            #tests
        }
    }
}

/// The module's doc: how many walks, and which transitions none takes.
fn module_doc(m: &Machine, legs: usize, missed: &[usize]) -> String {
    let mut doc = format!(
        " Tests of `{}` generated from its spec: {legs} walks from genesis, each step a synthesised block on two \
         replicas.",
        m.name
    );
    if !missed.is_empty() {
        let list: Vec<String> = missed
            .iter()
            .map(|&t| {
                let t = &m.transitions[t];
                format!(
                    "`({}, {}) -> {}`",
                    m.state(t.from).name,
                    t.event.map_or("-".into(), |e| m.event(e).name.to_string()),
                    m.state(t.to).name
                )
            })
            .collect();
        doc.push_str(&format!(" Not taken: {}.", list.join(", ")));
    }
    doc
}

/// The `Fixture` trait, and whether every method has a default (then the `#[test]`s are generated too).
fn fixture(m: &Machine, rounds: &[Option<Round>]) -> (TokenStream, bool) {
    let mut complete = true;
    let mut methods = Vec::new();
    for (sid, r) in m.state_ids().zip(rounds) {
        let Some(r) = r else { continue };
        let method = &r.app.method;
        let name = &m.state(sid).name;
        if r.kind == RoundKind::Custom {
            complete = false;
            let wire = &r.app.wire_ty;
            let doc = format!(
                " The payloads that make the custom round `{name}` end with `event`, from some of the `eligible` \
                 agents."
            );
            methods.push(quote! {
                #[doc = #doc]
                fn #method(&self, event: Event, eligible: &[AgentId]) -> ::std::vec::Vec<(AgentId, #wire)>;
            });
            continue;
        }
        if r.app.elects || r.kind == RoundKind::Voting {
            continue;
        }
        let ty = rust_type(&r.payload);
        let doc = format!(
            " The `i`-th payload of `{name}`: different `i`, different payloads (agents agree by sending the same)."
        );
        match values::sample(&r.payload) {
            Some(v) => {
                methods.push(quote! { #[doc = #doc] fn #method(&self, i: usize) -> #ty { #v } })
            }
            None => {
                complete = false;
                methods.push(quote! { #[doc = #doc] fn #method(&self, i: usize) -> #ty; });
            }
        }
    }
    let custom = rounds.iter().flatten().any(|r| r.kind == RoundKind::Custom);
    let logic = if custom {
        quote! {
            /// The app's custom round logic, the same on every replica.
            fn logic(&self) -> ::std::sync::Arc<<Spec as AppSpec>::Logic>;
        }
    } else {
        quote! {
            /// The app's round logic: it has no custom rounds.
            fn logic(&self) -> ::std::sync::Arc<<Spec as AppSpec>::Logic> {
                ::std::sync::Arc::new(::fsmc_runtime::app::NoRounds)
            }
        }
    };
    let doc = format!(
        " What the tests of `{}` need from the user: payloads of each round (defaults where the generator knows the \
         type) and, for custom rounds, the app's logic and the payloads that decide them.",
        m.name
    );
    let tokens = quote! {
        #[doc = #doc]
        pub trait Fixture {
            #logic
            #(#methods)*
        }
    };
    (tokens, complete)
}

/// The `#[test]`s of an app whose fixture is complete by default.
fn default_tests(checks: &[Ident]) -> TokenStream {
    let names = checks.iter().map(|c| {
        Ident::new(
            c.to_string().trim_start_matches("check_"),
            Span::call_site(),
        )
    });
    quote! {
        /// The fixture every default of [`Fixture`] makes.
        pub struct Defaults;
        impl Fixture for Defaults {}

        #(
            #[cfg(test)]
            #[test]
            fn #names() {
                #checks(&Defaults);
            }
        )*
    }
}

/// A walk: fresh replicas at genesis, then one checked step per transition.
fn walk(m: &Machine, l: &Leg) -> TokenStream {
    let steps = l.steps.iter().map(|&t| {
        let tr = &m.transitions[t];
        let from = variant(&m.state(tr.from).name.text);
        let ev = variant(tr.event.map_or("", |e| m.event(e).name.text.as_str()));
        let to = variant(&m.state(tr.to).name.text);
        quote! { h.step(State::#from, Event::#ev, State::#to); }
    });
    quote! {
        {
            let mut h = Harness::new(fx);
            #(#steps)*
        }
    }
}

/// `Harness`: two replicas fed the same blocks, and `step`, whose arms synthesise each transition's block.
fn harness(arms: Vec<TokenStream>) -> TokenStream {
    quote! {
        /// The agents of the tests' service.
        pub const AGENTS: usize = 4;
        /// An agent outside the service: its transaction in every block must be rejected.
        pub const OUTSIDER: &str = "outsider";

        /// Two replicas of the app fed the same blocks, stepped one transition at a time.
        pub struct Harness<'f, F: Fixture + ?Sized> {
            fx: &'f F,
            replicas: [App; 2],
        }

        impl<'f, F: Fixture + ?Sized> Harness<'f, F> {
            /// Both replicas at genesis, with agents `agent-0` … `agent-3` at time 0.
            pub fn new(fx: &'f F) -> Self {
                let genesis = Genesis::new((0..AGENTS).map(|i| ::std::format!("agent-{i}")), 0);
                let replica = || match App::with_rounds(genesis.clone(), fx.logic()) {
                    ::core::result::Result::Ok(app) => app,
                    ::core::result::Result::Err(e) => ::core::panic!("genesis refused: {e}"),
                };
                Harness { fx, replicas: [replica(), replica()] }
            }

            /// The first replica.
            pub fn app(&self) -> &App {
                &self.replicas[0]
            }

            /// Delivers a block at `time_ms` to both replicas, and checks they report the same and agree on the
            /// app hash.
            pub fn deliver(&mut self, time_ms: u64, txs: ::std::vec::Vec<Tx>) -> ::fsmc_runtime::app::BlockReport<Spec> {
                let block = ::fsmc_runtime::app::Block { height: self.app().height() + 1, time_ms, txs };
                let mut reports = self.replicas.iter_mut().map(|r| match r.deliver_block(&block) {
                    ::core::result::Result::Ok(report) => report,
                    ::core::result::Result::Err(e) => ::core::panic!("block {} refused: {e}", block.height),
                });
                let (first, second) = (reports.next(), reports.next());
                ::core::assert_eq!(first, second, "the replicas disagree");
                first.unwrap_or_else(|| ::core::unreachable!())
            }

            /// Delivers `sent` (and the outsider's copy of the first payload) in the next block, checks that
            /// only the outsider's was rejected, then empty blocks while the round waits for `confirmations`.
            pub fn decide<P: ::fsmc_runtime::borsh::BorshSerialize>(&mut self, sent: &[(AgentId, P)], confirmations: u32) -> ::fsmc_runtime::app::BlockReport<Spec> {
                let tx = |who: &str, p: &P| Tx {
                    sender: who.to_string(),
                    data: self.app().submission(::fsmc_runtime::app::encode(p).unwrap_or_default()),
                };
                let mut txs: ::std::vec::Vec<Tx> = sent.iter().map(|(a, p)| tx(a, p)).collect();
                txs.extend(sent.first().map(|(_, p)| tx(OUTSIDER, p)));
                let time = self.app().time_ms() + 1;
                let mut report = self.deliver(time, txs);
                ::core::assert_eq!(report.accepted, sent.len(), "payloads rejected: {:?}", report.rejected);
                let rejected: ::std::vec::Vec<&str> = report.rejected.iter().map(|r| r.sender.as_str()).collect();
                ::core::assert_eq!(rejected, if sent.is_empty() { ::std::vec![] } else { ::std::vec![OUTSIDER] });
                for _ in 0..confirmations {
                    if !report.steps.is_empty() {
                        break;
                    }
                    let time = self.app().time_ms() + 1;
                    report = self.deliver(time, ::std::vec::Vec::new());
                }
                report
            }

            /// Checks that the block made exactly the transition `from` —`event`→ `to`, for `cause`.
            pub fn expect(&self, report: &::fsmc_runtime::app::BlockReport<Spec>, from: State, event: Event, to: State, cause: Cause) {
                let steps: ::std::vec::Vec<(State, Event, State, Cause)> = report.steps.iter().map(|s| (s.from, s.event, s.to, s.cause)).collect();
                ::core::assert_eq!(steps, ::std::vec![(from, event, to, cause)]);
                ::core::assert_eq!(self.app().state(), to);
            }

            /// The agents the current round takes payloads from, in order.
            fn eligible(&self) -> ::std::vec::Vec<AgentId> {
                self.app().eligible().iter().cloned().collect()
            }

            /// The participants that may be elected keeper now, in order.
            fn candidates(&self) -> ::std::vec::Vec<AgentId> {
                let app = self.app();
                app.participants().iter().filter(|p| !app.failed_keepers().contains(*p)).cloned().collect()
            }

            /// Makes the app take `from` —`event`→ `to` with the block the round's kind decides that way, and
            /// checks what the round wrote and decided.
            pub fn step(&mut self, from: State, event: Event, to: State) {
                ::core::assert_eq!(self.app().state(), from, "the walk is not where it should be");
                let threshold = ::fsmc_runtime::rounds::threshold(self.eligible().len());
                let _ = threshold;
                match (from, event) {
                    #(#arms)*
                    _ => ::core::panic!("no generated step for {from} on {event}"),
                }
            }
        }
    }
}
