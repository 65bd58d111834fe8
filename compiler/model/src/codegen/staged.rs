//! What a staged environment adds to a `staged` machine's module, after Phantom: its agents, who acts and who is
//! rewarded in each stage, the runtime's `StagedSpec`, and the `Environment` trait the user implements (with a
//! handler per stage that has one), which the runtime's `Env` calls through `Dispatch`.

use super::docs;
use super::tokens::{machine_matches, snake, variant};
use crate::spec::{Machine, State};
use fsmc_base::source::Span;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

pub(crate) fn generate(m: &Machine) -> TokenStream {
    let handlers: Vec<(usize, &State)> = m
        .states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.stage().is_some_and(|st| st.handler.is_some()))
        .collect();
    let agents = agents(m);
    let stages = stages(m, &handlers);
    let environment = environment(m, &handlers);
    let dispatch = dispatch(&handlers);
    quote! {
        #agents
        #stages
        #environment
        #dispatch
    }
}

/// The agents, and who acts and who is rewarded in each stage.
fn agents(m: &Machine) -> TokenStream {
    let agents: Vec<Ident> = m.agents.iter().map(|a| variant(&a.text)).collect();
    let agent_docs = m.agents.iter().map(|a| format!(" Agent `{a}`."));
    let agent_names: Vec<&str> = m.agents.iter().map(|a| a.as_str()).collect();
    let na = proc_macro2::Literal::usize_unsuffixed(agents.len());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    // Agent lists in the order the agents are declared (the order of `Agent`, and of the maps a step returns),
    // whatever order a stage lists them in.
    let list = |ids: &[(usize, Span)]| {
        let mut ids: Vec<usize> = ids.iter().map(|&(i, _)| i).collect();
        ids.sort_unstable();
        ids.dedup();
        let vs = ids.iter().filter_map(|i| agents.get(*i));
        quote! { &[#(Agent::#vs),*] }
    };
    let acting = m
        .states
        .iter()
        .map(|s| list(s.stage().map_or(&[][..], |st| &st.acting)))
        .collect::<Vec<_>>();
    // The rewarded agents as written: `None` when the spec does not say, so that Phantom's default (the acting
    // agents) is applied in one place, the runtime's `StageInfo::rewarded_agents`.
    let rewarded = m
        .states
        .iter()
        .map(|s| match s.stage().and_then(|st| st.rewarded.as_ref()) {
            Some(r) => {
                let r = list(r);
                quote! { ::core::option::Option::Some(#r) }
            }
            None => quote! { ::core::option::Option::None },
        })
        .collect::<Vec<_>>();
    // An empty enum cannot be indexed or displayed by value: a machine may declare no agents.
    let agent_name = if agents.is_empty() {
        quote! { match self {} }
    } else {
        quote! { AGENT_NAMES[self as usize] }
    };
    let agent_names_const = (!agents.is_empty()).then(|| {
        quote! { const AGENT_NAMES: [&str; #na] = [#(#agent_names),*]; }
    });
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
    }
}

/// Each stage's facts as `State` methods, and the runtime's `StagedSpec` with the aliases its `Env` is used by.
fn stages(m: &Machine, handlers: &[(usize, &State)]) -> TokenStream {
    let has_handler = machine_matches(
        handlers
            .iter()
            .map(|(_, s)| variant(&s.name.text))
            .collect(),
    );
    let name = m.name.as_str();
    let env_doc = format!(" The environment of `{name}` over the domain `E`: see [`Environment`].");
    quote! {
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
    }
}

/// The `Environment` trait the user implements: its fixed methods, and a handler per stage that has one.
fn environment(m: &Machine, handlers: &[(usize, &State)]) -> TokenStream {
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
    let trait_doc = format!(
        " The domain of `{}`, implemented by the user.",
        m.name.as_str()
    );
    quote! {
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
    }
}

/// `Dispatch`, through which the runtime's `Env` calls the user's `Environment` (and a stage's handler).
fn dispatch(handlers: &[(usize, &State)]) -> TokenStream {
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
    quote! {
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
