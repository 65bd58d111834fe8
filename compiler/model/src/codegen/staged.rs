//! What a staged environment adds to a `staged` machine's module, after Phantom: its agents (single agents and
//! groups, sized when the environment is built, some scripted), who acts and who is rewarded in each stage, the
//! runtime's `StagedSpec`, and the `Environment` trait the user implements (an observation and an action type
//! per kind of agent, a handler per stage that has one), which the runtime's `Env` calls through `Dispatch`.

mod agents;
mod environment;

use super::tokens::{machine_matches, snake, variant};
use crate::spec::{Machine, State};
use agents::Kind;
use fsmc_base::source::Span;
use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn generate(m: &Machine) -> TokenStream {
    let handlers: Vec<(usize, &State)> = m
        .states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.stage().is_some_and(|st| st.handler.is_some()))
        .collect();
    let kinds = agents::kinds(m);
    let agents = agents::generate(&kinds);
    let lists = stage_lists(m, &kinds);
    let stages = stages(m, &kinds, &handlers);
    let environment = environment::environment(m, &kinds, &handlers);
    let observation = environment::carrier(
        &kinds,
        "Observation",
        " What an agent observes, by its kind: the `Environment`'s observation type of each kind that is not scripted.",
        |k: &Kind| k.observation(),
    );
    let action = environment::carrier(
        &kinds,
        "Action",
        " What an agent does, by its kind: the `Environment`'s action type of each kind that is not scripted.",
        |k: &Kind| k.action(),
    );
    let dispatch = dispatch(&kinds, &handlers);
    quote! {
        #agents
        #lists
        #stages
        #environment
        #observation
        #action
        #dispatch
    }
}

/// Who acts and who is rewarded in each stage, as kinds of agents in spec order, whatever order a stage lists
/// them in.
fn stage_lists(m: &Machine, kinds: &[Kind<'_>]) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let list = |ids: &mut dyn Iterator<Item = usize>| {
        let mut ids: Vec<usize> = ids.collect();
        ids.sort_unstable();
        ids.dedup();
        let vs = ids.iter().filter_map(|i| kinds.get(*i)).map(|k| &k.variant);
        quote! { &[#(AgentKind::#vs),*] }
    };
    let written = |ids: &[(usize, Span)]| ids.iter().map(|&(i, _)| i).collect::<Vec<_>>();
    let acting = m.states.iter().map(|s| {
        let ids = s.stage().map_or(Vec::new(), |st| written(&st.acting));
        list(&mut ids.into_iter())
    });
    // The rewarded agents as written: `None` when the spec does not say, so that Phantom's default (the acting
    // agents) is applied in one place, the runtime's `StageInfo::rewarded_agents`.
    let rewarded = m
        .states
        .iter()
        .map(|s| match s.stage().and_then(|st| st.rewarded.as_ref()) {
            Some(r) => {
                let r = list(&mut written(r).into_iter());
                quote! { ::core::option::Option::Some(#r) }
            }
            None => quote! { ::core::option::Option::None },
        });
    // What `State::rewarded` answers: the default applied, scripted agents (never rewarded) left out.
    let rewarded_kinds = m.states.iter().map(|s| {
        let st = s.stage();
        let ids = match st.and_then(|st| st.rewarded.as_ref()) {
            Some(r) => written(r),
            None => st.map_or(Vec::new(), |st| written(&st.acting)),
        };
        list(&mut ids.into_iter().filter(|i| !m.roster.is_scripted(*i)))
    });
    quote! {
        static ACTING: [&[AgentKind]; #n] = [#(#acting),*];
        static REWARDED: [::core::option::Option<&[AgentKind]>; #n] = [#(#rewarded),*];
        static REWARDED_KINDS: [&[AgentKind]; #n] = [#(#rewarded_kinds),*];
    }
}

/// Each stage's facts as `State` methods, and the runtime's `StagedSpec` with the aliases its `Env` is used by.
fn stages(m: &Machine, kinds: &[Kind<'_>], handlers: &[(usize, &State)]) -> TokenStream {
    let has_handler = machine_matches(
        handlers
            .iter()
            .map(|(_, s)| variant(&s.name.text))
            .collect(),
    );
    let name = m.name.as_str();
    let env_doc = format!(" The environment of `{name}` over the domain `E`: see [`Environment`].");
    let roster = agents::roster(kinds);
    let coverage = super::table::coverage(m, &super::lists::Lists::at_once());
    let site = super::table::site_of(m);
    let mut order: Vec<usize> = (0..m.transitions.len()).collect();
    order.sort_by_key(|&i| site[i]);
    let moves = order.into_iter().map(|i| {
        let t = &m.transitions[i];
        let (from, to) = (
            variant(&m.state(t.from).name.text),
            variant(&m.state(t.to).name.text),
        );
        let i = proc_macro2::Literal::usize_unsuffixed(site[i]);
        quote! { (State::#from, State::#to) => COVERAGE.hit(#i) }
    });
    // Each move is one transition of the spec: counted for coverage, and nothing when it is off.
    let moved = quote! {
        #[allow(unreachable_patterns)]
        match (from, to) {
            #(#moves,)*
            _ => {}
        }
    };
    quote! {
        impl State {
            /// The kinds of agent that act in a step of this stage (the members of a group all do), in the order
            /// of [`AgentKind`].
            pub fn acting(self) -> &'static [AgentKind] {
                ACTING[self as usize]
            }
            /// The kinds of agent rewarded at the end of a step of this stage: the acting ones unless the spec
            /// says otherwise (none for `rewarded none;`), never a scripted one; in the order of [`AgentKind`].
            pub fn rewarded(self) -> &'static [AgentKind] {
                REWARDED_KINDS[self as usize]
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
            type Kind = AgentKind;
            type Sizes = Sizes;
            const NAME: &'static str = #name;
            const INITIAL_STAGE: State = State::DEFAULT_START;
            fn kind(agent: Agent) -> AgentKind {
                agent.kind()
            }
            fn is_scripted(kind: AgentKind) -> bool {
                kind.is_scripted()
            }
            #roster
            fn stage(stage: State) -> ::fsmc_runtime::staged::StageInfo<State, AgentKind> {
                ::fsmc_runtime::staged::StageInfo {
                    id: stage,
                    next: stage.next_stages(),
                    acting: stage.acting(),
                    rewarded: REWARDED[stage as usize],
                    has_handler: stage.has_handler(),
                }
            }
            fn moved(from: State, to: State) {
                #moved
            }
        }

        #coverage

        /// Where an episode is, as the methods of [`Environment`] see it.
        pub type View = ::fsmc_runtime::staged::View<State>;

        #[doc = #env_doc]
        pub type Env<E> = ::fsmc_runtime::staged::Env<Spec, E>;
    }
}

/// `Dispatch`, through which the runtime's `Env` calls the user's `Environment`: each agent's own methods with
/// its own types, a stage's handler, and the fixed methods.
fn dispatch(kinds: &[Kind<'_>], handlers: &[(usize, &State)]) -> TokenStream {
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
    let observe = kinds.iter().map(|k| {
        let (p, v, f) = (k.agent_pattern(), &k.variant, k.observe_fn());
        let index = k.group.then(|| quote! { index, });
        if k.scripted {
            quote! { #p => ::core::option::Option::None }
        } else {
            quote! { #p => ::core::option::Option::Some(Observation::#v(Environment::#f(env, #index view))) }
        }
    });
    let act = kinds.iter().map(|k| {
        let (p, v, f) = (k.agent_pattern(), &k.variant, k.act_fn());
        let index = k.group.then(|| quote! { index, });
        if k.scripted {
            quote! { (#p, _) => Environment::#f(env, #index view) }
        } else {
            quote! { (#p, ::core::option::Option::Some(Action::#v(action))) => Environment::#f(env, #index action, view) }
        }
    });
    quote! {
        impl<E: Environment> ::fsmc_runtime::staged::Dispatch<E> for Spec {
            type Observation = Observation<E>;
            type Action = Action<E>;
            type Info = E::Info;
            fn reset(env: &mut E, seed: u64) {
                Environment::reset(env, seed)
            }
            fn observe(env: &mut E, agent: Agent, view: View) -> ::core::option::Option<Observation<E>> {
                match agent {
                    #(#observe,)*
                }
            }
            fn info(env: &mut E, agent: Agent, view: View) -> E::Info {
                Environment::info(env, agent, view)
            }
            fn fits(agent: Agent, action: &Action<E>) -> bool {
                agent.kind() == action.kind()
            }
            fn act(env: &mut E, agent: Agent, action: ::core::option::Option<Action<E>>, view: View) {
                #[allow(unreachable_patterns)]
                match (agent, action) {
                    #(#act,)*
                    // `Env` gives every agent that is not scripted an action of its own kind (`fits`), checked
                    // before the step touched the domain.
                    _ => {}
                }
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
