//! The Phantom staged environment of `specs/supply_chain/supply_chain.fsm`, run end to end on generated code and the
//! runtime's `staged::Env`: an environment sized when it is built, a scripted regulator, each kind of agent with
//! its own observation and action types, reset, steps, who acts and who is rewarded, handlers, truncation and
//! termination, and every refusal leaving the environment as it was.

use fsmc_examples::supply_chain::{
    self, Action, Agent, AgentKind, Batch, Capacity, Env, Environment, Observation, Offer, Order,
    Shelf, ShopAction, Sizes, State, Stocks, SupplyChain, View, policy,
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

/// The strategic agents of `env` of the kinds `kinds`: who gives actions in (or is rewarded for) a stage.
fn members<E: Environment>(env: &Env<E>, kinds: &[AgentKind]) -> BTreeSet<Agent> {
    env.agent_ids()
        .iter()
        .copied()
        .filter(|a| kinds.contains(&a.kind()) && !a.kind().is_scripted())
        .collect()
}

/// The supply chain with knobs that make it misbehave or end early: a handler choosing a stage the spec does
/// not allow, an episode the domain terminates, a customer leaving. Everything else is the example's domain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tweaked {
    chain: SupplyChain,
    /// Where the `Ordering` handler goes, whatever the shelves say.
    ordering_to: Option<State>,
    /// The episode is terminated once this many units were delivered.
    end_after_delivering: Option<u32>,
    /// Customer 0 is done from this day on.
    customer_leaves_on_day: Option<u32>,
}

impl Environment for Tweaked {
    type Info = u32;
    type FactoryObservation = Stocks;
    type FactoryAction = Capacity;
    type WarehouseObservation = Stocks;
    type WarehouseAction = Batch;
    type ShopObservation = Shelf;
    type ShopAction = ShopAction;
    type CustomersObservation = Offer;
    type CustomersAction = Order;

    fn reset(&mut self, seed: u64) {
        self.chain.reset(seed);
    }
    fn observe_factory(&mut self, view: View) -> Stocks {
        self.chain.observe_factory(view)
    }
    fn act_factory(&mut self, action: Capacity, view: View) {
        self.chain.act_factory(action, view);
    }
    fn observe_warehouse(&mut self, view: View) -> Stocks {
        self.chain.observe_warehouse(view)
    }
    fn act_warehouse(&mut self, action: Batch, view: View) {
        self.chain.act_warehouse(action, view);
    }
    fn observe_shop(&mut self, view: View) -> Shelf {
        self.chain.observe_shop(view)
    }
    fn act_shop(&mut self, action: ShopAction, view: View) {
        self.chain.act_shop(action, view);
    }
    fn observe_customers(&mut self, index: u32, view: View) -> Offer {
        self.chain.observe_customers(index, view)
    }
    fn act_customers(&mut self, index: u32, action: Order, view: View) {
        self.chain.act_customers(index, action, view);
    }
    fn act_regulator(&mut self, view: View) {
        self.chain.act_regulator(view);
    }
    /// The day, so that infos are checked to travel with observations.
    fn info(&mut self, _: Agent, _: View) -> u32 {
        self.chain.day
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
        agent == Agent::Customers(0)
            && self
                .customer_leaves_on_day
                .is_some_and(|d| self.chain.day >= d)
    }
    fn is_terminated(&mut self, _: View) -> bool {
        self.end_after_delivering
            .is_some_and(|n| self.chain.delivered >= n)
    }
}

/// A tweaked chain of two customers.
fn tweaked(t: Tweaked, num_steps: u64) -> Env<Tweaked> {
    let chain = SupplyChain::new(2);
    let sizes = chain.sizes();
    Env::with_sizes(Tweaked { chain, ..t }, sizes, num_steps)
}

/// The example's chain of `customers` customers.
fn chain(customers: u32, num_steps: u64) -> Env<SupplyChain> {
    let chain = SupplyChain::new(customers);
    Env::with_sizes(chain.clone(), chain.sizes(), num_steps)
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

type Observations<E> = BTreeMap<Agent, Observation<E>>;

/// The actions of the agents acting now, by their policies, from what they observed.
fn actions<E: Environment>(
    env: &Env<E>,
    observations: &Observations<SupplyChain>,
) -> BTreeMap<Agent, Action<SupplyChain>> {
    env.acting_agents()
        .into_iter()
        .map(|a| (a, policy(&observations[&a])))
        .collect()
}

/// The policies' actions on a tweaked environment, whose observations carry the same types.
fn tweaked_actions(
    env: &Env<Tweaked>,
    observations: &Observations<Tweaked>,
) -> BTreeMap<Agent, Action<Tweaked>> {
    env.acting_agents()
        .into_iter()
        .map(|a| (a, retype(policy(&untype(&observations[&a])))))
        .collect()
}

fn untype(o: &Observation<Tweaked>) -> Observation<SupplyChain> {
    match o {
        Observation::Factory(x) => Observation::Factory(*x),
        Observation::Warehouse(x) => Observation::Warehouse(*x),
        Observation::Shop(x) => Observation::Shop(*x),
        Observation::Customers(x) => Observation::Customers(*x),
    }
}

fn retype(a: Action<SupplyChain>) -> Action<Tweaked> {
    match a {
        Action::Factory(x) => Action::Factory(x),
        Action::Warehouse(x) => Action::Warehouse(x),
        Action::Shop(x) => Action::Shop(x),
        Action::Customers(x) => Action::Customers(x),
    }
}

#[test]
fn the_generated_stages_pass_the_runtimes_definition_checks() {
    let stages: Vec<_> = STAGES.into_iter().map(Spec::stage).collect();
    assert_eq!(validate(Spec::INITIAL_STAGE, &stages), Ok(()));
    assert_eq!(Spec::INITIAL_STAGE, State::Ordering);
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
    // The kinds of agent: one group, one scripted agent.
    assert_eq!(
        AgentKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
        ["factory", "warehouse", "shop", "customers", "regulator"]
    );
    assert!(AgentKind::Customers.is_group() && !AgentKind::Shop.is_group());
    assert!(AgentKind::Regulator.is_scripted() && !AgentKind::Customers.is_scripted());
    assert_eq!(Agent::Customers(2).kind(), AgentKind::Customers);
    assert_eq!(Agent::Customers(2).to_string(), "customers[2]");
    assert_eq!(
        (Agent::Customers(2).index(), Agent::Shop.index()),
        (Some(2), None)
    );
    assert!(Spec::is_scripted(AgentKind::Regulator));
}

#[test]
fn rewarded_agents_follow_the_spec_and_phantoms_default() {
    // Not written: the acting agents (Phantom: "a reward will be computed for all acting agents").
    assert_eq!(Spec::stage(State::Production).rewarded, None);
    assert_eq!(
        State::Production.rewarded(),
        [AgentKind::Factory, AgentKind::Warehouse]
    );
    // Not written, and nobody acts: nobody.
    assert!(State::Restocking.acting().is_empty());
    assert!(State::Restocking.rewarded().is_empty());
    // `rewarded none;`: nobody, although agents act.
    assert_eq!(Spec::stage(State::Ordering).rewarded, Some(&[][..]));
    assert!(State::Ordering.rewarded().is_empty() && !State::Ordering.acting().is_empty());
    // Written: exactly those, acting or not. The scripted regulator acts and is never rewarded.
    assert_eq!(State::Audit.acting(), [AgentKind::Regulator]);
    assert_eq!(State::Audit.rewarded(), [AgentKind::Shop]);
    assert_eq!(State::Delivery.rewarded().len(), 4);
}

#[test]
fn the_environment_is_sized_when_it_is_built() {
    let env = chain(3, 10);
    assert_eq!(env.sizes(), &Sizes { customers: 3 });
    assert_eq!(
        env.agent_ids(),
        [
            Agent::Factory,
            Agent::Warehouse,
            Agent::Shop,
            Agent::Customers(0),
            Agent::Customers(1),
            Agent::Customers(2),
            Agent::Regulator
        ]
    );
    assert_eq!(env.scripted_agent_ids(), [Agent::Regulator]);
    // The same spec, another size.
    let small = chain(1, 10);
    assert_eq!(small.agent_ids().len(), 5);
    // Every customer observes and orders on its own.
    let mut env = chain(3, 10);
    let reset = env.reset(7);
    assert_eq!(
        reset.observations.keys().copied().collect::<BTreeSet<_>>(),
        members(&env, State::Ordering.acting())
    );
    let demands: Vec<u32> = (0..3)
        .map(|i| match &reset.observations[&Agent::Customers(i)] {
            Observation::Customers(o) => o.demand,
            other => panic!("a customer observes an offer, not {other:?}"),
        })
        .collect();
    assert_eq!(
        demands,
        env.domain().demand.values().copied().collect::<Vec<_>>()
    );
    let orders: BTreeMap<Agent, Action<SupplyChain>> = (0..3)
        .map(|i| (Agent::Customers(i), Action::Customers(Order(i + 1))))
        .chain([(Agent::Shop, Action::Shop(ShopAction::SetPrice(9)))])
        .collect();
    env.step(orders).unwrap();
    assert_eq!(env.domain().orders, [(0, 1), (1, 2), (2, 3)].into());
    assert_eq!(env.domain().price, 9);
}

#[test]
fn the_scripted_regulator_acts_on_its_own_and_is_never_observed_or_rewarded() {
    let mut env = chain(2, 40);
    let mut obs = env.reset(3).observations;
    while env.current_stage() != State::Audit {
        obs = env.step(actions(&env, &obs)).unwrap().observations;
    }
    assert!(
        obs.is_empty(),
        "only the regulator acts in Audit, and it observes nothing"
    );
    assert_eq!(env.acting_agents(), [], "nobody gives an action in Audit");
    let before = snapshot(&env);
    let err = env
        .step([(Agent::Regulator, Action::Shop(ShopAction::SetPrice(12)))].into())
        .unwrap_err();
    assert_eq!(
        err,
        StepError::Scripted {
            agent: Agent::Regulator
        }
    );
    assert_eq!(snapshot(&env), before);
    let step = env.step(BTreeMap::new()).unwrap();
    assert_eq!(env.domain().fair_price, supply_chain::FAIR_PRICE);
    assert_eq!(
        step.rewards.keys().copied().collect::<Vec<_>>(),
        [Agent::Shop]
    );
    assert!(!step.terminations.agents.contains_key(&Agent::Regulator));
    // Over a whole episode: never observed, never rewarded, always acting in Audit.
    let episode = supply_chain::run(7, 60, 3).unwrap();
    assert!(
        episode
            .trace
            .iter()
            .all(|r| !r.observers.contains(&Agent::Regulator))
    );
    assert!(!episode.returns.contains_key(&Agent::Regulator));
    for r in &episode.trace {
        assert_eq!(r.scripted.is_empty(), r.stage != State::Audit, "{r:?}");
    }
}

#[test]
fn each_kind_observes_and_acts_with_its_own_types() {
    let mut env = chain(1, 10);
    let obs = env.reset(1).observations;
    assert!(matches!(
        obs[&Agent::Shop],
        Observation::Shop(Shelf {
            stage: State::Ordering,
            ..
        })
    ));
    assert!(matches!(
        obs[&Agent::Customers(0)],
        Observation::Customers(Offer { price: 10, .. })
    ));
    assert_eq!(obs[&Agent::Shop].kind(), AgentKind::Shop);
    // An action of another kind is refused before anything runs.
    let before = snapshot(&env);
    let mut wrong = actions(&env, &obs);
    wrong.insert(Agent::Shop, Action::Customers(Order(2)));
    let err = env.step(wrong).unwrap_err();
    assert_eq!(err, StepError::WrongAction { agent: Agent::Shop });
    assert_eq!(
        err.to_string(),
        "the action given for `shop` is another kind of agent's"
    );
    assert_eq!(snapshot(&env), before);
    // And so is one from a member beyond the group's size.
    let mut stranger = actions(&env, &obs);
    stranger.insert(Agent::Customers(1), Action::Customers(Order(2)));
    let err = env.step(stranger).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the environment has no agent `customers[1]`"
    );
    assert_eq!(snapshot(&env), before);
}

#[test]
fn every_step_of_an_episode_keeps_to_the_spec() {
    let episode = supply_chain::run(7, 80, 3).expect("the example's handlers pick next stages");
    let env = chain(3, 80);
    assert_eq!(
        episode
            .first_observers
            .iter()
            .copied()
            .collect::<BTreeSet<_>>(),
        members(&env, State::Ordering.acting())
    );
    assert_eq!(episode.trace.len(), 80);
    let mut moves = BTreeSet::new();
    let mut previous_next = State::Ordering;
    for (i, r) in episode.trace.iter().enumerate() {
        assert_eq!(r.step, i as u64 + 1);
        // Steps chain: each runs in the stage the previous one moved to.
        assert_eq!(r.stage, previous_next);
        previous_next = r.next;
        // Exactly the strategic acting agents gave actions; exactly the rewarded agents got rewards.
        assert_eq!(
            r.actions.keys().copied().collect::<BTreeSet<_>>(),
            members(&env, r.stage.acting())
        );
        assert_eq!(
            r.rewards.keys().copied().collect::<BTreeSet<_>>(),
            members(&env, r.stage.rewarded())
        );
        // The next stage is one of the stage's next stages; the agents acting there observed.
        assert!(r.stage.next_stages().contains(&r.next), "{r:?}");
        assert_eq!(
            r.observers.iter().copied().collect::<BTreeSet<_>>(),
            members(&env, r.next.acting())
        );
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
    // Goods moved, the shop was fined at least once, and the returns are the sums of the rewards.
    let c = &episode.chain;
    assert!(c.delivered > 0 && c.produced > 0);
    assert!(
        c.delivered <= c.produced + 4,
        "nothing is delivered that was not made or stocked"
    );
    let shop: Vec<f64> = episode
        .trace
        .iter()
        .filter_map(|r| r.rewards.get(&Agent::Shop).copied())
        .collect();
    assert_eq!(episode.returns[&Agent::Shop], shop.iter().sum::<f64>());
    assert!(
        episode
            .trace
            .iter()
            .any(|r| r.stage == State::Audit && r.rewards[&Agent::Shop] < 0.0)
    );
}

#[test]
fn an_episode_is_a_function_of_its_seed_and_sizes() {
    assert_eq!(supply_chain::run(11, 50, 2), supply_chain::run(11, 50, 2));
    assert_ne!(supply_chain::run(11, 50, 2), supply_chain::run(11, 50, 3));
    let demands = |seed| {
        let mut env = chain(2, 50);
        let mut obs = env.reset(seed).observations;
        let mut days = vec![env.domain().demand.clone()];
        while env.status() == Status::Running {
            let step = env.step(actions(&env, &obs)).unwrap();
            obs = step.observations;
            days.push(env.domain().demand.clone());
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
fn phantom_rewards_are_keyed_by_the_agents_that_observe() {
    let mut env = chain(2, 6);
    let mut obs = env.reset(5).observations;
    while env.status() == Status::Running {
        let stage = env.current_stage();
        let step = env.step(actions(&env, &obs)).unwrap();
        let keys: Vec<Agent> = step.phantom_rewards.keys().copied().collect();
        if step.truncations.all {
            assert_eq!(
                keys,
                env.strategic_agent_ids(),
                "every strategic agent at the end"
            );
        } else {
            assert_eq!(
                keys,
                step.observations.keys().copied().collect::<Vec<_>>(),
                "{stage}"
            );
        }
        // A reward the documents' way is a latest reward Phantom's code's way.
        for (a, r) in &step.rewards {
            if let Some(latest) = step.phantom_rewards.get(a) {
                assert_eq!(*latest, Some(*r));
            }
        }
        obs = step.observations;
    }
}

#[test]
fn num_steps_truncates_and_an_ended_episode_refuses_steps() {
    let mut env = chain(2, 3);
    let mut obs = env.reset(5).observations;
    for n in 1..=3 {
        let step = env.step(actions(&env, &obs)).unwrap();
        assert_eq!(step.truncations.all, n == 3);
        assert!(step.truncations.agents.values().all(|&t| t == (n == 3)));
        assert_eq!(
            step.truncations.agents.len(),
            env.strategic_agent_ids().len()
        );
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
    let mut env = chain(2, 20);
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
    extra.insert(Agent::Factory, Action::Factory(Capacity(4)));
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

    // An acting agent that gave nothing: a member of a group acts as any agent does.
    let mut missing = good.clone();
    missing.remove(&Agent::Customers(1));
    let err = env.step(missing).unwrap_err();
    assert_eq!(
        err,
        StepError::MissingAction {
            agent: Agent::Customers(1),
            stage: State::Ordering
        }
    );
    assert_eq!(
        err.to_string(),
        "agent `customers[1]` acts in stage `Ordering` but gave no action"
    );
    assert_eq!(snapshot(&env), before);

    // The same actions, complete, are taken.
    env.step(good).unwrap();
    assert_ne!(snapshot(&env), before);

    // A stage where nobody acts takes no actions at all.
    let mut env = chain(2, 20);
    let mut obs = env.reset(1).observations;
    while env.current_stage() != State::Restocking {
        obs = env.step(actions(&env, &obs)).unwrap().observations;
    }
    assert!(
        obs.is_empty(),
        "nobody acts in Restocking, so nobody observed"
    );
    let before = snapshot(&env);
    let err = env
        .step([(Agent::Warehouse, Action::Warehouse(Batch(1)))].into())
        .unwrap_err();
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
}

#[test]
fn a_handler_choosing_outside_its_next_stages_is_refused_and_its_work_undone() {
    let mut env = tweaked(
        Tweaked {
            ordering_to: Some(State::Audit),
            ..Tweaked::default()
        },
        20,
    );
    let obs = env.reset(2).observations;
    let before = snapshot(&env);
    let err = env.step(tweaked_actions(&env, &obs)).unwrap_err();
    let StepError::InvalidTransition(target) = err else {
        panic!("expected the handler's choice to be refused, got {err:?}")
    };
    assert_eq!((target.from, target.to), (State::Ordering, State::Audit));
    assert_eq!(target.allowed, State::Ordering.next_stages());
    assert_eq!(
        err.to_string(),
        "the handler of stage `Ordering` chose `Audit`, which is not one of its next stages: `Restocking`, `Delivery`"
    );
    // The customers' orders and the shop's price were applied before the handler ran; they are undone too.
    assert_eq!(snapshot(&env), before);
    assert_eq!(env.domain().chain.open_orders(), 0);

    // A handler choosing one of its next stages, against what the shelves say, is the domain's business.
    let mut env = tweaked(
        Tweaked {
            ordering_to: Some(State::Restocking),
            ..Tweaked::default()
        },
        20,
    );
    let obs = env.reset(2).observations;
    env.step(tweaked_actions(&env, &obs)).unwrap();
    assert_eq!(env.current_stage(), State::Restocking);
}

#[test]
fn the_domain_can_end_the_episode_and_retire_agents() {
    // Terminated once goods were delivered: before num_steps.
    let mut env = tweaked(
        Tweaked {
            end_after_delivering: Some(1),
            ..Tweaked::default()
        },
        100,
    );
    let mut obs = env.reset(9).observations;
    let mut last = None;
    while env.status() == Status::Running {
        let step = env.step(tweaked_actions(&env, &obs)).unwrap();
        obs = step.observations.clone();
        last = Some(step);
    }
    let last = last.expect("at least one step");
    assert!(last.terminations.all && !last.truncations.all);
    assert!(env.current_step() < 100);
    assert!(env.domain().chain.delivered >= 1);
    // Infos travel with the observations.
    assert_eq!(
        last.infos.keys().collect::<Vec<_>>(),
        last.observations.keys().collect::<Vec<_>>()
    );

    // Customer 0 leaves on day 2: it no longer acts, and an action from it is refused; customer 1 stays.
    let mut env = tweaked(
        Tweaked {
            customer_leaves_on_day: Some(2),
            ..Tweaked::default()
        },
        100,
    );
    let mut obs = env.reset(9).observations;
    let mut left = false;
    while env.status() == Status::Running && !left {
        let step = env.step(tweaked_actions(&env, &obs)).unwrap();
        left = step.terminations.agents.get(&Agent::Customers(0)) == Some(&true);
        obs = step.observations;
    }
    assert!(left, "the customer leaves");
    assert!(env.terminated_agents().contains(&Agent::Customers(0)));
    while env.current_stage() != State::Ordering {
        obs = env.step(tweaked_actions(&env, &obs)).unwrap().observations;
    }
    assert_eq!(env.acting_agents(), [Agent::Shop, Agent::Customers(1)]);
    let before = snapshot(&env);
    let mut with_leaver = tweaked_actions(&env, &obs);
    with_leaver.insert(Agent::Customers(0), Action::Customers(Order(3)));
    let err = env.step(with_leaver).unwrap_err();
    assert_eq!(
        err,
        StepError::AgentTerminated {
            agent: Agent::Customers(0)
        }
    );
    assert_eq!(snapshot(&env), before);
    env.step(tweaked_actions(&env, &obs)).unwrap();
}
