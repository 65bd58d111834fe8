//! Tests of a staged environment: each walk resets an `Env` over a scripted domain (every observation and
//! action is `()`, each handler picks the stage the walk goes to next) and steps it once per transition, giving
//! an action for every agent the stage asks one of, and asserts the stage reached, which agents acted (the
//! scripted ones on their own) and which were rewarded. Groups have two members.

use super::plain::module_doc;
use super::{Leg, TestOptions, checks, plan};
use crate::codegen::tokens::{snake, variant};
use crate::hooks;
use crate::spec::{Machine, State};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// How many members each group has in the tests.
const GROUP_SIZE: u32 = 2;

pub(super) fn generate(m: &Machine, opts: TestOptions) -> TokenStream {
    let Some(start) = m.default_start() else {
        return TokenStream::new();
    };
    let can = vec![true; m.transitions.len()];
    let (legs, missed) = plan(m, &[start], &can, opts);
    let module = snake(&m.name.text);
    let tests_module = format_ident!("{}_tests", module.to_string().trim_start_matches("r#"));
    let script = script(m);
    let walks: Vec<TokenStream> = legs.iter().map(|l| walk(m, l)).collect();
    let tests = checks(m, &legs, &walks, opts);
    let groups = (0..m.agents.len())
        .filter(|&i| m.roster.is_group(i))
        .map(|i| snake(&m.agents[i].text));
    let sizes = if m.roster.groups.is_empty() {
        quote! { ::core::default::Default::default() }
    } else {
        let size = GROUP_SIZE;
        quote! { Sizes { #(#groups: #size,)* } }
    };
    let doc = module_doc(m, legs.len(), &missed);
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, unreachable_patterns, dead_code, clippy::all)]
        pub mod #tests_module {
            use super::#module::*;
            use ::std::collections::BTreeSet;

            #script

            /// A running episode whose handlers take the stages of `plan`, one per step.
            fn episode(plan: ::std::vec::Vec<State>) -> Env<Script> {
                let steps = plan.len() as u64 + 1;
                let mut env = Env::with_sizes(Script { plan, ..Script::default() }, #sizes, steps);
                env.reset(0);
                env
            }

            /// One step with an action from every agent the stage asks one of: the stage must become `to`,
            /// exactly `acting` must have acted and exactly `rewarded` been rewarded.
            fn step(env: &mut Env<Script>, to: State, acting: &[Agent], rewarded: &[Agent]) {
                let from = env.current_stage();
                let before = env.domain().acted.len();
                let actions = env.acting_agents().into_iter().map(|a| (a, action(a))).collect();
                let report = match env.step(actions) {
                    ::core::result::Result::Ok(report) => report,
                    ::core::result::Result::Err(e) => ::core::panic!("step from {from}: {e}"),
                };
                ::core::assert_eq!(env.current_stage(), to, "the stage after {from}");
                let acted: BTreeSet<Agent> = env.domain().acted[before..].iter().copied().collect();
                ::core::assert_eq!(acted, acting.iter().copied().collect::<BTreeSet<Agent>>(), "who acted in {from}");
                let got: BTreeSet<Agent> = report.rewards.keys().copied().collect();
                ::core::assert_eq!(got, rewarded.iter().copied().collect::<BTreeSet<Agent>>(), "who was rewarded in {from}");
            }

            #tests
        }
    }
}

/// The scripted domain and `action`, which gives an agent its kind's `()` action.
fn script(m: &Machine) -> TokenStream {
    let mut items = Vec::new();
    let mut arms = Vec::new();
    for (i, a) in m.agents.iter().enumerate() {
        let v = variant(&a.text);
        let group = m.roster.is_group(i);
        let (index, agent) = if group {
            (quote! { index: u32, }, quote! { Agent::#v(index) })
        } else {
            (quote! {}, quote! { Agent::#v })
        };
        let act = Ident::new(&hooks::method("act", &a.text), Span::call_site());
        if m.roster.is_scripted(i) {
            items.push(
                quote! { fn #act(&mut self, #index _view: View) { self.acted.push(#agent); } },
            );
            continue;
        }
        let observe = Ident::new(&hooks::method("observe", &a.text), Span::call_site());
        let (obs, action) = (
            format_ident!("{}Observation", v),
            format_ident!("{}Action", v),
        );
        items.push(quote! {
            type #obs = ();
            type #action = ();
            fn #observe(&mut self, #index _view: View) {}
            fn #act(&mut self, #index _action: (), _view: View) { self.acted.push(#agent); }
        });
        let pattern = if group {
            quote! { Agent::#v(_) }
        } else {
            quote! { Agent::#v }
        };
        arms.push(quote! { #pattern => Action::#v(()) });
    }
    let handlers = m.states.iter().filter(|s| has_handler(s)).map(|s| {
        let id = snake(&s.name.text);
        quote! {
            fn #id(&mut self, view: View) -> State {
                self.plan.get(view.step.saturating_sub(1) as usize).copied().unwrap_or(view.stage)
            }
        }
    });
    quote! {
        /// A domain with nothing in it: its handlers follow `plan`, and it records who acted.
        #[derive(Clone, Debug, Default)]
        struct Script {
            plan: ::std::vec::Vec<State>,
            acted: ::std::vec::Vec<Agent>,
        }

        impl Environment for Script {
            type Info = ();
            #(#items)*
            fn reset(&mut self, _seed: u64) {}
            fn reward(&mut self, _agent: Agent, _view: View) -> f64 { 0.0 }
            #(#handlers)*
        }

        /// The `()` action of `agent`'s kind.
        fn action(agent: Agent) -> Action<Script> {
            match agent {
                #(#arms,)*
                _ => ::core::unreachable!("a scripted agent takes no action"),
            }
        }
    }
}

fn has_handler(s: &State) -> bool {
    s.stage().is_some_and(|st| st.handler.is_some())
}

/// The agents of `list` (indices into the machine's agents), members of groups spelled out.
fn agents(m: &Machine, list: impl Iterator<Item = usize>) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for i in list {
        let v = variant(&m.agents[i].text);
        if m.roster.is_group(i) {
            out.extend((0..GROUP_SIZE).map(|n| quote! { Agent::#v(#n) }));
        } else {
            out.push(quote! { Agent::#v });
        }
    }
    out
}

fn walk(m: &Machine, l: &Leg) -> TokenStream {
    let plan = l
        .steps
        .iter()
        .map(|&t| variant(&m.state(m.transitions[t].to).name.text));
    let steps = l.steps.iter().map(|&t| {
        let tr = &m.transitions[t];
        let to = variant(&m.state(tr.to).name.text);
        let stage = m.state(tr.from).stage();
        let acting: Vec<usize> = stage
            .map(|s| s.acting.iter().map(|(a, _)| *a).collect())
            .unwrap_or_default();
        let rewarded: Vec<usize> = match stage.and_then(|s| s.rewarded.as_ref()) {
            Some(list) => list.iter().map(|(a, _)| *a).collect(),
            None => acting
                .iter()
                .copied()
                .filter(|&a| !m.roster.is_scripted(a))
                .collect(),
        };
        let (acting, rewarded) = (
            agents(m, acting.into_iter()),
            agents(m, rewarded.into_iter()),
        );
        quote! { step(&mut env, State::#to, &[#(#acting),*], &[#(#rewarded),*]); }
    });
    quote! {
        {
            let mut env = episode(::std::vec![#(State::#plan),*]);
            #(#steps)*
        }
    }
}
