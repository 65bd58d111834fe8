//! The Phantom staged environment of `specs/supply_chain/supply_chain.fsm`, run end to end on generated code and the
//! runtime's `staged::Env`: reset, steps, who acts and who is rewarded, handlers, truncation and termination, and
//! every refusal leaving the environment as it was.

use fsmc_examples::supply_chain::{
    self, Agent, Env, Environment, Observation, State, SupplyChain, View, policy,
};
use fsmc_runtime::staged::{StagedSpec, Status, StepError, validate};
use std::collections::{BTreeMap, BTreeSet};

use supply_chain::supply_chain_env::Spec;

const STAGES: [State; 5] = [
    State::Ordering,
    State::Restocking,
    State::Production,
    State::Delivery,
    State::Audit,
];

fn set(agents: &[Agent]) -> BTreeSet<Agent> {
    agents.iter().copied().collect()
}

/// The supply chain with knobs that make it misbehave or end early: a handler choosing a stage the spec does
/// not allow, an episode the domain terminates, an agent leaving. Everything else is the example's domain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tweaked {
    chain: SupplyChain,
    /// Where the `Ordering` handler goes, whatever the shelves say.
    ordering_to: Option<State>,
    /// The episode is terminated once this many units were delivered.
    end_after_delivering: Option<u32>,
    /// The customer is done from this day on.
    customer_leaves_on_day: Option<u32>,
}

impl Environment for Tweaked {
    type Observation = Observation;
    type Action = u32;
    type Info = u32;

    fn reset(&mut self, seed: u64) {
        self.chain.reset(seed);
    }
    fn observe(&mut self, agent: Agent, view: View) -> Observation {
        self.chain.observe(agent, view)
    }
    /// The day, so that infos are checked to travel with observations.
    fn info(&mut self, _: Agent, _: View) -> u32 {
        self.chain.day
    }
    fn act(&mut self, agent: Agent, action: u32, view: View) {
        self.chain.act(agent, action, view);
    }
    fn ordering(&mut self, view: View) -> State {
        let own = self.chain.ordering(view);
        self.ordering_to.unwrap_or(own)
    }
    fn production(&mut self, view: View) -> State {
        self.chain.production(view)
    }
    fn resolve(&mut self, view: View) {
        self.chain.resolve(view);
    }
    fn reward(&mut self, agent: Agent, view: View) -> f64 {
        self.chain.reward(agent, view)
    }
    fn agent_terminated(&mut self, agent: Agent, _: View) -> bool {
        agent == Agent::Customer
            && self
                .customer_leaves_on_day
                .is_some_and(|d| self.chain.day >= d)
    }
    fn is_terminated(&mut self, _: View) -> bool {
        self.end_after_delivering
            .is_some_and(|n| self.chain.delivered >= n)
    }
}

/// Everything a refused step must leave as it was.
fn snapshot<E: Environment + Clone>(
    env: &Env<E>,
) -> (State, u64, Status, E, BTreeSet<Agent>, Vec<Agent>) {
    (
        env.current_stage(),
        env.current_step(),
        env.status(),
        env.domain().clone(),
        env.terminated_agents().clone(),
        env.acting_agents(),
    )
}

/// The actions of the agents acting now, by their policies, from what they observed.
fn actions<E: Environment>(
    env: &Env<E>,
    observations: &BTreeMap<Agent, Observation>,
) -> BTreeMap<Agent, u32> {
    let stage = env.current_stage();
    env.acting_agents()
        .into_iter()
        .map(|a| (a, policy(a, stage, &observations[&a])))
        .collect()
}

#[test]
fn the_generated_stages_pass_the_runtimes_definition_checks() {
    let stages: Vec<_> = STAGES.into_iter().map(Spec::stage).collect();
    assert_eq!(validate(Spec::INITIAL_STAGE, &stages), Ok(()));
    assert_eq!(Spec::INITIAL_STAGE, State::Ordering);
    assert_eq!(Spec::AGENTS, Agent::ALL);
    // A stage without a handler has exactly one next stage; the others choose among theirs.
    for s in STAGES {
        if !s.has_handler() {
            assert_eq!(s.next_stages().len(), 1, "{s}");
        }
    }
    assert!(State::Ordering.has_handler() && State::Production.has_handler());
    assert_eq!(
        State::Ordering.next_stages(),
        [State::Restocking, State::Delivery]
    );
}

#[test]
fn rewarded_agents_follow_the_spec_and_phantoms_default() {
    // Not written: the acting agents (Phantom: "a reward will be computed for all acting agents").
    assert_eq!(Spec::stage(State::Production).rewarded, None);
    assert_eq!(
        State::Production.rewarded(),
        [Agent::Factory, Agent::Warehouse]
    );
    // Not written, and nobody acts: nobody.
    assert!(State::Restocking.acting().is_empty());
    assert!(State::Restocking.rewarded().is_empty());
    // `rewarded none;`: nobody, although agents act.
    assert_eq!(Spec::stage(State::Ordering).rewarded, Some(&[][..]));
    assert!(State::Ordering.rewarded().is_empty() && !State::Ordering.acting().is_empty());
    // Written: exactly those, acting or not.
    assert_eq!(State::Audit.acting(), [Agent::Regulator]);
    assert_eq!(State::Audit.rewarded(), [Agent::Shop]);
    assert_eq!(State::Delivery.rewarded().len(), 4);
}

#[test]
fn reset_gives_the_observations_of_the_agents_acting_in_the_initial_stage() {
    let mut env = Env::new(SupplyChain::default(), 10);
    assert_eq!(env.status(), Status::NotReset);
    let reset = env.reset(7);
    assert_eq!(env.status(), Status::Running);
    assert_eq!(
        (env.current_stage(), env.current_step()),
        (State::Ordering, 0)
    );
    assert_eq!(env.initial_stage(), State::Ordering);
    assert_eq!(
        reset.observations.keys().copied().collect::<BTreeSet<_>>(),
        set(State::Ordering.acting())
    );
    let o = reset.observations[&Agent::Customer];
    assert_eq!(o.stage, State::Ordering);
    assert_eq!((o.shop_stock, o.open_orders, o.price), (4, 0, 10));
    assert_eq!(o.demand, env.domain().demand);
    assert!((2..=6).contains(&o.demand));
    assert_eq!(reset.infos.len(), 2);
    assert_eq!(env.acting_agents(), [Agent::Shop, Agent::Customer]);
    // A second reset starts the same episode again.
    let again = env.reset(7);
    assert_eq!(again, reset);
}

#[test]
fn every_step_of_an_episode_keeps_to_the_spec() {
    let episode = supply_chain::run(7, 80).expect("the example's handlers pick next stages");
    assert_eq!(episode.first_observers, State::Ordering.acting());
    assert_eq!(episode.trace.len(), 80);
    let mut moves = BTreeSet::new();
    let mut previous_next = State::Ordering;
    for (i, r) in episode.trace.iter().enumerate() {
        assert_eq!(r.step, i as u64 + 1);
        // Steps chain: each runs in the stage the previous one moved to.
        assert_eq!(r.stage, previous_next);
        previous_next = r.next;
        // Exactly the acting agents gave actions; exactly the rewarded agents got rewards.
        assert_eq!(
            r.actions.keys().copied().collect::<BTreeSet<_>>(),
            set(r.stage.acting())
        );
        assert_eq!(
            r.rewards.keys().copied().collect::<BTreeSet<_>>(),
            set(r.stage.rewarded())
        );
        // The next stage is one of the stage's next stages; the agents acting there observed.
        assert!(r.stage.next_stages().contains(&r.next), "{r:?}");
        assert_eq!(r.observers, r.next.acting());
        assert_eq!(r.truncated, i + 1 == 80);
        assert!(!r.terminated);
        moves.insert((r.stage, r.next));
    }
    // Every stage ran, and every handler took each of its branches.
    for (from, to) in [
        (State::Ordering, State::Delivery),
        (State::Ordering, State::Restocking),
        (State::Restocking, State::Production),
        (State::Production, State::Production),
        (State::Production, State::Delivery),
        (State::Delivery, State::Audit),
        (State::Audit, State::Ordering),
    ] {
        assert!(
            moves.contains(&(from, to)),
            "{from} -> {to} never taken: {moves:?}"
        );
    }
    // Goods moved, and the returns are the sums of the rewards.
    let c = &episode.chain;
    assert!(c.delivered > 0 && c.produced > 0);
    assert!(
        c.delivered <= c.produced + 4,
        "nothing is delivered that was not made or stocked"
    );
    let shop: f64 = episode
        .trace
        .iter()
        .filter_map(|r| r.rewards.get(&Agent::Shop))
        .sum();
    assert_eq!(episode.returns[&Agent::Shop], shop);
    assert!(
        !episode.returns.contains_key(&Agent::Regulator),
        "the regulator is never rewarded"
    );
}

#[test]
fn an_episode_is_a_function_of_its_seed() {
    assert_eq!(supply_chain::run(11, 50), supply_chain::run(11, 50));
    let demands = |seed| {
        let mut env = Env::new(SupplyChain::default(), 50);
        env.reset(seed);
        let mut days = vec![env.domain().demand];
        let mut obs = env.reset(seed).observations;
        while env.status() == Status::Running {
            let step = env.step(actions(&env, &obs)).unwrap();
            obs = step.observations;
            days.push(env.domain().demand);
        }
        days
    };
    assert_eq!(demands(3), demands(3));
    assert_ne!(
        demands(3),
        demands(4),
        "the seed is where the variation comes from"
    );
}

#[test]
fn num_steps_truncates_and_an_ended_episode_refuses_steps() {
    let mut env = Env::new(SupplyChain::default(), 3);
    let mut obs = env.reset(5).observations;
    for n in 1..=3 {
        let step = env.step(actions(&env, &obs)).unwrap();
        assert_eq!(step.truncations.all, n == 3);
        assert!(step.truncations.agents.values().all(|&t| t == (n == 3)));
        assert_eq!(step.truncations.agents.len(), Agent::ALL.len());
        assert!(!step.terminations.all);
        obs = step.observations;
    }
    assert_eq!(
        env.status(),
        Status::Finished {
            terminated: false,
            truncated: true
        }
    );
    let before = snapshot(&env);
    let err = env.step(actions(&env, &obs)).unwrap_err();
    assert_eq!(err, StepError::Finished { step: 3 });
    assert_eq!(snapshot(&env), before);
    assert!(env.acting_agents().is_empty());
}

#[test]
fn actions_from_anyone_but_the_acting_agents_are_refused_and_change_nothing() {
    let mut env = Env::new(SupplyChain::default(), 20);
    let err = env.step(BTreeMap::new()).unwrap_err();
    assert_eq!(err, StepError::NotReset);
    assert_eq!(
        err.to_string(),
        "no episode has started: reset the environment first"
    );

    let obs = env.reset(1).observations;
    let good = actions(&env, &obs);

    // An agent that does not act in the stage.
    let before = snapshot(&env);
    let mut extra = good.clone();
    extra.insert(Agent::Factory, 4);
    let err = env.step(extra).unwrap_err();
    assert_eq!(
        err,
        StepError::NotActing {
            agent: Agent::Factory,
            stage: State::Ordering
        }
    );
    assert_eq!(
        err.to_string(),
        "agent `factory` does not act in stage `Ordering`"
    );
    assert_eq!(snapshot(&env), before);

    // An acting agent that gave nothing.
    let mut missing = good.clone();
    missing.remove(&Agent::Shop);
    let err = env.step(missing).unwrap_err();
    assert_eq!(
        err,
        StepError::MissingAction {
            agent: Agent::Shop,
            stage: State::Ordering
        }
    );
    assert_eq!(
        err.to_string(),
        "agent `shop` acts in stage `Ordering` but gave no action"
    );
    assert_eq!(snapshot(&env), before);
    let err = env.step(BTreeMap::new()).unwrap_err();
    assert!(matches!(err, StepError::MissingAction { .. }), "{err}");
    assert_eq!(snapshot(&env), before);

    // The same actions, complete, are taken.
    env.step(good).unwrap();
    assert_ne!(snapshot(&env), before);

    // A stage where nobody acts takes no actions at all.
    let mut env = Env::new(SupplyChain::default(), 20);
    let mut obs = env.reset(1).observations;
    while env.current_stage() != State::Restocking {
        obs = env.step(actions(&env, &obs)).unwrap().observations;
    }
    assert!(
        obs.is_empty(),
        "nobody acts in Restocking, so nobody observed"
    );
    assert!(env.acting_agents().is_empty());
    let before = snapshot(&env);
    let err = env.step([(Agent::Warehouse, 1)].into()).unwrap_err();
    assert_eq!(
        err,
        StepError::NotActing {
            agent: Agent::Warehouse,
            stage: State::Restocking
        }
    );
    assert_eq!(snapshot(&env), before);
    let step = env.step(BTreeMap::new()).unwrap();
    assert!(
        step.rewards.is_empty(),
        "nobody acts, so by default nobody is rewarded"
    );
    assert_eq!(
        env.current_stage(),
        State::Production,
        "its only next stage"
    );
    assert_eq!(
        step.observations.keys().copied().collect::<Vec<_>>(),
        State::Production.acting()
    );
}

#[test]
fn a_handler_choosing_outside_its_next_stages_is_refused_and_its_work_undone() {
    let mut env = Env::new(
        Tweaked {
            ordering_to: Some(State::Audit),
            ..Tweaked::default()
        },
        20,
    );
    let obs = env.reset(2).observations;
    let before = snapshot(&env);
    let err = env.step(actions(&env, &obs)).unwrap_err();
    let StepError::InvalidTransition(target) = err else {
        panic!("expected the handler's choice to be refused, got {err:?}")
    };
    assert_eq!((target.from, target.to), (State::Ordering, State::Audit));
    assert_eq!(target.allowed, State::Ordering.next_stages());
    assert_eq!(
        err.to_string(),
        "the handler of stage `Ordering` chose `Audit`, which is not one of its next stages: `Restocking`, `Delivery`"
    );
    // The customer's order and the shop's price were applied before the handler ran; they are undone too.
    assert_eq!(snapshot(&env), before);
    assert_eq!(env.domain().chain.open_orders, 0);

    // A handler choosing one of its next stages, against what the shelves say, is the domain's business.
    let mut env = Env::new(
        Tweaked {
            ordering_to: Some(State::Restocking),
            ..Tweaked::default()
        },
        20,
    );
    let obs = env.reset(2).observations;
    env.step(actions(&env, &obs)).unwrap();
    assert_eq!(env.current_stage(), State::Restocking);
}

#[test]
fn the_domain_can_end_the_episode_and_retire_agents() {
    // Terminated once goods were delivered: before num_steps.
    let mut env = Env::new(
        Tweaked {
            end_after_delivering: Some(1),
            ..Tweaked::default()
        },
        100,
    );
    let mut obs = env.reset(9).observations;
    let mut last = None;
    while env.status() == Status::Running {
        let step = env.step(actions(&env, &obs)).unwrap();
        obs = step.observations.clone();
        last = Some(step);
    }
    let last = last.expect("at least one step");
    assert!(last.terminations.all && !last.truncations.all);
    assert!(env.current_step() < 100);
    assert!(env.domain().chain.delivered >= 1);
    assert_eq!(
        env.status(),
        Status::Finished {
            terminated: true,
            truncated: false
        }
    );
    // Infos travel with the observations.
    assert_eq!(
        last.infos.keys().collect::<Vec<_>>(),
        last.observations.keys().collect::<Vec<_>>()
    );

    // The customer leaves on day 2: it no longer acts, and an action from it is refused.
    let mut env = Env::new(
        Tweaked {
            customer_leaves_on_day: Some(2),
            ..Tweaked::default()
        },
        100,
    );
    let mut obs = env.reset(9).observations;
    let mut left = false;
    while env.status() == Status::Running && !left {
        let step = env.step(actions(&env, &obs)).unwrap();
        left = step.terminations.agents.get(&Agent::Customer) == Some(&true);
        obs = step.observations;
    }
    assert!(left, "the customer leaves");
    assert!(env.terminated_agents().contains(&Agent::Customer));
    while env.current_stage() != State::Ordering {
        obs = env.step(actions(&env, &obs)).unwrap().observations;
    }
    assert_eq!(env.acting_agents(), [Agent::Shop]);
    let before = snapshot(&env);
    let err = env
        .step([(Agent::Shop, 10), (Agent::Customer, 3)].into())
        .unwrap_err();
    assert_eq!(
        err,
        StepError::AgentTerminated {
            agent: Agent::Customer
        }
    );
    assert_eq!(snapshot(&env), before);
    env.step([(Agent::Shop, 10)].into()).unwrap();
}
