//! The environment on a spec with a group of agents sized when the environment is built (the stalls), a
//! scripted agent (the crier, who acts on his own), and an observation and action type per kind of agent.
//!
//! `Price`: every stall prices and the crier announces the prices; the stalls are rewarded by default (the
//! crier, scripted, never is). `Buy`: the buyer buys from the stall it picks; the stalls are rewarded.

use super::*;
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Stage {
    Price,
    Buy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Buyer,
    Stalls,
    Crier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Agent {
    Buyer,
    Stalls(u32),
    Crier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sizes {
    stalls: u32,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Agent::Stalls(i) => write!(f, "stalls[{i}]"),
            other => write!(f, "{}", format!("{other:?}").to_lowercase()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fair;

impl StagedSpec for Fair {
    type Stage = Stage;
    type Agent = Agent;
    type Kind = Kind;
    type Sizes = Sizes;
    const NAME: &'static str = "Fair";
    const INITIAL_STAGE: Stage = Stage::Price;
    fn kind(agent: Agent) -> Kind {
        match agent {
            Agent::Buyer => Kind::Buyer,
            Agent::Stalls(_) => Kind::Stalls,
            Agent::Crier => Kind::Crier,
        }
    }
    fn is_scripted(kind: Kind) -> bool {
        kind == Kind::Crier
    }
    fn agents(sizes: &Sizes) -> Vec<Agent> {
        let stalls = (0..sizes.stalls).map(Agent::Stalls);
        [Agent::Buyer]
            .into_iter()
            .chain(stalls)
            .chain([Agent::Crier])
            .collect()
    }
    fn stage(stage: Stage) -> StageInfo<Stage, Kind> {
        match stage {
            Stage::Price => StageInfo {
                id: stage,
                next: &[Stage::Buy],
                acting: &[Kind::Stalls, Kind::Crier],
                rewarded: None,
                has_handler: false,
            },
            Stage::Buy => StageInfo {
                id: stage,
                next: &[Stage::Price],
                acting: &[Kind::Buyer],
                rewarded: Some(&[Kind::Stalls]),
                has_handler: false,
            },
        }
    }
}

/// What each kind observes: the buyer the announced prices, a stall its sales.
#[derive(Clone, Debug, PartialEq)]
enum Obs {
    Buyer(Vec<u64>),
    Stalls(u32),
}

/// What each kind does: the buyer picks a stall, a stall sets its price.
#[derive(Clone, Debug, PartialEq)]
enum Act {
    Buyer(u32),
    Stalls(u64),
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Market {
    prices: BTreeMap<u32, u64>,
    announced: Vec<u64>,
    sales: BTreeMap<u32, u32>,
    log: Vec<String>,
}

impl Dispatch<Market> for Fair {
    type Observation = Obs;
    type Action = Act;
    type Info = ();
    fn reset(d: &mut Market, _: u64) {
        *d = Market::default();
    }
    fn observe(d: &mut Market, agent: Agent, _: View<Stage>) -> Option<Obs> {
        match agent {
            Agent::Buyer => Some(Obs::Buyer(d.announced.clone())),
            Agent::Stalls(i) => Some(Obs::Stalls(d.sales.get(&i).copied().unwrap_or(0))),
            Agent::Crier => None,
        }
    }
    fn info(_: &mut Market, _: Agent, _: View<Stage>) {}
    fn fits(agent: Agent, action: &Act) -> bool {
        matches!(
            (agent, action),
            (Agent::Buyer, Act::Buyer(_)) | (Agent::Stalls(_), Act::Stalls(_))
        )
    }
    fn act(d: &mut Market, agent: Agent, action: Option<Act>, _: View<Stage>) {
        d.log.push(format!("act {agent}"));
        match (agent, action) {
            (Agent::Stalls(i), Some(Act::Stalls(p))) => {
                d.prices.insert(i, p);
            }
            (Agent::Buyer, Some(Act::Buyer(i))) => *d.sales.entry(i).or_insert(0) += 1,
            (Agent::Crier, None) => d.announced = d.prices.values().copied().collect(),
            _ => {}
        }
    }
    fn handle(_: &mut Market, _: View<Stage>) -> Option<Stage> {
        None
    }
    fn resolve(_: &mut Market, _: View<Stage>) {}
    fn reward(d: &mut Market, agent: Agent, view: View<Stage>) -> f64 {
        d.log.push(format!("reward {agent} {}", view.stage));
        match agent {
            Agent::Stalls(i) => f64::from(d.sales.get(&i).copied().unwrap_or(0)),
            _ => 0.0,
        }
    }
    fn agent_terminated(_: &mut Market, _: Agent, _: View<Stage>) -> bool {
        false
    }
    fn is_terminated(_: &mut Market, _: View<Stage>) -> bool {
        false
    }
    fn is_truncated(_: &mut Market, _: View<Stage>) -> bool {
        false
    }
}

fn prices(list: &[(u32, u64)]) -> BTreeMap<Agent, Act> {
    list.iter()
        .map(|&(i, p)| (Agent::Stalls(i), Act::Stalls(p)))
        .collect()
}

#[test]
fn the_groups_are_sized_when_the_environment_is_built_and_the_scripted_agent_acts_on_its_own() {
    let mut env = Env::<Fair, _>::with_sizes(Market::default(), Sizes { stalls: 3 }, 10);
    assert_eq!(env.sizes(), &Sizes { stalls: 3 });
    let stalls: Vec<Agent> = (0..3).map(Agent::Stalls).collect();
    let all: Vec<Agent> = [Agent::Buyer]
        .into_iter()
        .chain(stalls.clone())
        .chain([Agent::Crier])
        .collect();
    assert_eq!(env.agent_ids(), all);
    assert_eq!(env.scripted_agent_ids(), [Agent::Crier]);
    assert_eq!(env.strategic_agent_ids(), all[..4]);
    // The crier acts in `Price` but observes nothing, and gives no action.
    let reset = env.reset(0);
    assert_eq!(
        reset.observations.keys().copied().collect::<Vec<_>>(),
        stalls
    );
    assert_eq!(env.acting_agents(), stalls);
    let step = env.step(prices(&[(0, 5), (1, 3), (2, 4)])).unwrap();
    assert_eq!(
        env.domain().announced,
        [5, 3, 4],
        "the crier announced the prices"
    );
    assert_eq!(
        env.domain().log[..4],
        [
            "act stalls[0]",
            "act stalls[1]",
            "act stalls[2]",
            "act crier"
        ],
        "every acting agent in agent order, the scripted one included"
    );
    // By default the acting agents are rewarded, but never a scripted one.
    assert_eq!(step.rewards.keys().copied().collect::<Vec<_>>(), stalls);
    assert_eq!(
        step.observations,
        [(Agent::Buyer, Obs::Buyer(vec![5, 3, 4]))].into()
    );
    assert_eq!(step.terminations.agents.len(), 4, "the strategic agents");
    env.step([(Agent::Buyer, Act::Buyer(1))].into()).unwrap();
    assert_eq!(env.domain().sales, [(1, 1)].into());
    // Another environment of the same spec, with one stall.
    let mut small = Env::<Fair, _>::with_sizes(Market::default(), Sizes { stalls: 1 }, 10);
    assert_eq!(
        small.agent_ids(),
        [Agent::Buyer, Agent::Stalls(0), Agent::Crier]
    );
    small.reset(0);
    small.step(prices(&[(0, 9)])).unwrap();
    assert_eq!(small.domain().announced, [9]);
}

#[test]
fn actions_are_refused_from_scripted_or_unknown_agents_and_for_another_kind() {
    let mut env = Env::<Fair, _>::with_sizes(Market::default(), Sizes { stalls: 2 }, 10);
    env.reset(0);
    let before = env.domain().clone();
    let mut with = |extra: (Agent, Act)| {
        let mut actions = prices(&[(0, 1), (1, 2)]);
        actions.insert(extra.0, extra.1);
        env.step(actions).unwrap_err()
    };
    let e = with((Agent::Crier, Act::Stalls(1)));
    assert_eq!(
        e,
        StepError::Scripted {
            agent: Agent::Crier
        }
    );
    assert_eq!(
        e.to_string(),
        "agent `crier` is scripted: it acts on its own and takes no action"
    );
    let e = with((Agent::Stalls(2), Act::Stalls(1)));
    assert_eq!(e.to_string(), "the environment has no agent `stalls[2]`");
    let e = with((Agent::Stalls(1), Act::Buyer(0)));
    assert_eq!(
        e,
        StepError::WrongAction {
            agent: Agent::Stalls(1)
        }
    );
    assert_eq!(
        e.to_string(),
        "the action given for `stalls[1]` is another kind of agent's"
    );
    let e = env.step(prices(&[(0, 1)])).unwrap_err();
    assert_eq!(
        e,
        StepError::MissingAction {
            agent: Agent::Stalls(1),
            stage: Stage::Price
        }
    );
    assert_eq!((env.current_step(), env.domain()), (0, &before));
}

#[test]
fn phantom_rewards_are_keyed_by_the_agents_that_observe() {
    let mut env = Env::<Fair, _>::with_sizes(Market::default(), Sizes { stalls: 2 }, 3);
    env.reset(0);
    // `Price` rewards the stalls; the buyer observes next and has no reward yet.
    let step = env.step(prices(&[(0, 1), (1, 2)])).unwrap();
    assert_eq!(
        step.rewards,
        [(Agent::Stalls(0), 0.0), (Agent::Stalls(1), 0.0)].into()
    );
    assert_eq!(step.phantom_rewards, [(Agent::Buyer, None)].into());
    // `Buy` rewards the stalls, who observe next: their latest rewards.
    let step = env.step([(Agent::Buyer, Act::Buyer(0))].into()).unwrap();
    assert_eq!(
        step.phantom_rewards,
        [(Agent::Stalls(0), Some(1.0)), (Agent::Stalls(1), Some(0.0))].into()
    );
    // The last step: every strategic agent's latest reward, the buyer's still none.
    let step = env.step(prices(&[(0, 1), (1, 2)])).unwrap();
    assert!(step.truncations.all);
    assert_eq!(
        step.phantom_rewards,
        [
            (Agent::Buyer, None),
            (Agent::Stalls(0), Some(1.0)),
            (Agent::Stalls(1), Some(0.0))
        ]
        .into()
    );
}

#[test]
fn a_group_of_no_members_acts_in_no_step() {
    let mut env = Env::<Fair, _>::with_sizes(Market::default(), Sizes { stalls: 0 }, 10);
    assert!(env.reset(0).observations.is_empty());
    assert_eq!(env.acting_agents(), []);
    let step = env.step(BTreeMap::new()).unwrap();
    assert!(step.rewards.is_empty());
    assert_eq!(env.domain().log, ["act crier"]);
}
