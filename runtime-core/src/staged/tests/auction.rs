//! The environment on a spec of two agents, each its own kind: every rule of a step, refusals, truncation,
//! termination, determinism.

use super::*;
use std::collections::BTreeMap;
use std::fmt;

// The environment, on a spec written by hand as the generated code would write it: an auction where buyer and
// seller bid until the handler clears the market, which nobody acts in and both are rewarded for. `Bid` lists
// its agents out of order and one twice, as a hand-written spec might. `Halt` is
// never a next stage of `Bid`: a handler choosing it is refused. `Auction<true>` is a spec no checker would
// pass: `Clear` has no handler and no next stage.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Stage {
    Bid,
    Clear,
    Halt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Who {
    Buyer,
    Seller,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Auction<const BROKEN: bool>;

impl<const BROKEN: bool> StagedSpec for Auction<BROKEN> {
    type Stage = Stage;
    type Agent = Who;
    // Each agent is its own kind: the spec has no groups.
    type Kind = Who;
    type Sizes = ();
    const NAME: &'static str = "Auction";
    const INITIAL_STAGE: Stage = Stage::Bid;
    fn kind(agent: Who) -> Who {
        agent
    }
    fn is_scripted(_: Who) -> bool {
        false
    }
    fn agents(_: &()) -> Vec<Who> {
        vec![Who::Seller, Who::Buyer]
    }
    fn stage(stage: Stage) -> StageInfo<Stage, Who> {
        match stage {
            Stage::Bid => StageInfo {
                id: stage,
                next: &[Stage::Bid, Stage::Clear],
                // Out of agent order, and twice: the environment still asks each once, in agent order.
                acting: &[Who::Seller, Who::Buyer, Who::Seller],
                rewarded: None,
                has_handler: true,
            },
            Stage::Clear => StageInfo {
                id: stage,
                next: if BROKEN { &[] } else { &[Stage::Bid] },
                acting: &[],
                rewarded: Some(&[Who::Buyer, Who::Seller]),
                has_handler: false,
            },
            Stage::Halt => StageInfo {
                id: stage,
                next: &[Stage::Halt],
                acting: &[],
                rewarded: Some(&[]),
                has_handler: false,
            },
        }
    }
}

/// The domain: bids, a log of every call, and knobs the tests turn.
#[derive(Clone, Debug, Default, PartialEq)]
struct Market {
    seed: u64,
    bids: Vec<(Who, i64)>,
    cleared: u32,
    log: Vec<String>,
    /// Where the handler goes instead of its own choice.
    force: Option<Stage>,
    /// The step from which the buyer is done.
    buyer_done_at: Option<u64>,
    /// The step at which the whole episode is terminated.
    end_at: Option<u64>,
}

impl<const BROKEN: bool> Dispatch<Market> for Auction<BROKEN> {
    type Observation = (Stage, usize);
    type Action = i64;
    type Info = u64;
    fn reset(d: &mut Market, seed: u64) {
        *d = Market {
            seed,
            force: d.force,
            buyer_done_at: d.buyer_done_at,
            end_at: d.end_at,
            ..Market::default()
        };
    }
    fn observe(d: &mut Market, agent: Who, view: View<Stage>) -> Option<(Stage, usize)> {
        d.log.push(format!("observe {agent} {}", view.stage));
        Some((view.stage, d.bids.len()))
    }
    fn info(_: &mut Market, _: Who, view: View<Stage>) -> u64 {
        view.step
    }
    fn fits(_: Who, _: &i64) -> bool {
        true
    }
    fn act(d: &mut Market, agent: Who, action: Option<i64>, view: View<Stage>) {
        d.log.push(format!("act {agent} {}", view.stage));
        d.bids.extend(action.map(|a| (agent, a)));
    }
    fn handle(d: &mut Market, view: View<Stage>) -> Option<Stage> {
        if view.stage != Stage::Bid {
            return None;
        }
        d.log.push(format!("handle {}", view.stage));
        let crossed = d.bids.len() >= 4;
        Some(
            d.force
                .unwrap_or(if crossed { Stage::Clear } else { Stage::Bid }),
        )
    }
    fn resolve(d: &mut Market, view: View<Stage>) {
        d.log.push(format!("resolve {}", view.stage));
        d.cleared += 1;
        d.bids.clear();
    }
    fn reward(d: &mut Market, agent: Who, view: View<Stage>) -> f64 {
        d.log.push(format!("reward {agent} {}", view.stage));
        f64::from(d.cleared)
    }
    fn agent_terminated(d: &mut Market, agent: Who, view: View<Stage>) -> bool {
        agent == Who::Buyer && d.buyer_done_at.is_some_and(|s| view.step >= s)
    }
    fn is_terminated(d: &mut Market, view: View<Stage>) -> bool {
        d.end_at == Some(view.step)
    }
    fn is_truncated(_: &mut Market, _: View<Stage>) -> bool {
        false
    }
}

type Auctions = Env<Auction<false>, Market>;

fn bids(pairs: &[(Who, i64)]) -> BTreeMap<Who, i64> {
    pairs.iter().copied().collect()
}

fn both() -> BTreeMap<Who, i64> {
    bids(&[(Who::Buyer, 10), (Who::Seller, 12)])
}

/// Everything a refused step must leave as it was.
fn snapshot<const B: bool>(
    env: &Env<Auction<B>, Market>,
) -> (Stage, u64, Status, Market, Vec<Who>) {
    (
        env.current_stage(),
        env.current_step(),
        env.status(),
        env.domain().clone(),
        env.terminated_agents().iter().copied().collect(),
    )
}

#[test]
fn reset_observes_the_initial_stage_and_steps_follow_the_handler() {
    let mut env = Auctions::new(Market::default(), 10);
    assert_eq!(env.status(), Status::NotReset);
    assert_eq!(env.acting_agents(), []);
    let reset = env.reset(7);
    assert_eq!(env.domain().seed, 7);
    assert_eq!(
        reset.observations.keys().copied().collect::<Vec<_>>(),
        [Who::Buyer, Who::Seller]
    );
    assert_eq!(reset.observations[&Who::Buyer], (Stage::Bid, 0));
    assert_eq!(reset.infos[&Who::Seller], 0);
    assert_eq!((env.current_stage(), env.current_step()), (Stage::Bid, 0));
    assert_eq!(env.initial_stage(), Stage::Bid);
    assert_eq!(env.acting_agents(), [Who::Buyer, Who::Seller]);

    // Two bids: the handler stays in Bid; the acting agents are rewarded by default.
    let step = env.step(both()).unwrap();
    assert_eq!(env.current_stage(), Stage::Bid);
    assert_eq!(
        step.rewards.keys().copied().collect::<Vec<_>>(),
        [Who::Buyer, Who::Seller]
    );
    assert_eq!(step.observations[&Who::Seller], (Stage::Bid, 2));
    assert_eq!(step.infos[&Who::Seller], 1);
    assert!(!step.terminations.all && !step.truncations.all);
    assert_eq!(step.truncations.agents.len(), 2);

    // Four bids: the handler clears. Nobody acts in Clear, so nobody observes.
    let step = env.step(both()).unwrap();
    assert_eq!(env.current_stage(), Stage::Clear);
    assert!(step.observations.is_empty() && step.infos.is_empty());
    assert_eq!(env.acting_agents(), []);

    // Clear has no handler: resolved, then its only next stage; its rewarded agents are the given ones.
    let step = env.step(BTreeMap::new()).unwrap();
    assert_eq!(env.current_stage(), Stage::Bid);
    assert_eq!(step.rewards, [(Who::Buyer, 1.0), (Who::Seller, 1.0)].into());
    assert_eq!(step.observations[&Who::Buyer], (Stage::Bid, 0));
    assert_eq!(env.current_step(), 3);
    // Within a step: actions in agent order, the handler or the resolution, rewards, then the observations
    // for the next stage.
    let log = &env.domain().log;
    assert_eq!(
        log[..7],
        [
            "observe Buyer Bid",
            "observe Seller Bid",
            "act Buyer Bid",
            "act Seller Bid",
            "handle Bid",
            "reward Buyer Bid",
            "reward Seller Bid",
        ]
    );
    assert_eq!(
        log[log.len() - 5..],
        [
            "resolve Clear",
            "reward Buyer Clear",
            "reward Seller Clear",
            "observe Buyer Bid",
            "observe Seller Bid",
        ]
    );
}

#[test]
fn refused_steps_change_nothing() {
    let mut env = Auctions::new(Market::default(), 10);
    assert_eq!(env.step(both()), Err(StepError::NotReset));
    env.reset(1);
    env.step(both()).unwrap();
    let before = snapshot(&env);
    let err = env.step(bids(&[(Who::Buyer, 1)])).unwrap_err();
    assert_eq!(
        err,
        StepError::MissingAction {
            agent: Who::Seller,
            stage: Stage::Bid
        }
    );
    assert_eq!(
        err.to_string(),
        "agent `Seller` acts in stage `Bid` but gave no action"
    );
    assert_eq!(snapshot(&env), before);

    env.step(both()).unwrap();
    let before = snapshot(&env);
    let err = env.step(both()).unwrap_err();
    assert_eq!(
        err,
        StepError::NotActing {
            agent: Who::Buyer,
            stage: Stage::Clear
        }
    );
    assert_eq!(
        err.to_string(),
        "agent `Buyer` does not act in stage `Clear`"
    );
    assert_eq!(snapshot(&env), before);

    // The handler ran, acted on its copy of the domain, and chose a stage it may not move to.
    let mut env = Auctions::new(
        Market {
            force: Some(Stage::Halt),
            ..Market::default()
        },
        10,
    );
    env.reset(1);
    let before = snapshot(&env);
    let err = env.step(both()).unwrap_err();
    let StepError::InvalidTransition(target) = err else {
        panic!("{err:?}")
    };
    assert_eq!((target.from, target.to), (Stage::Bid, Stage::Halt));
    assert_eq!(
        err.to_string(),
        "the handler of stage `Bid` chose `Halt`, which is not one of its next stages: `Bid`, `Clear`"
    );
    assert_eq!(snapshot(&env), before, "the handler's work is undone");
}

#[test]
fn num_steps_truncates_and_a_finished_episode_refuses_steps() {
    let mut env = Auctions::new(Market::default(), 2);
    env.reset(3);
    assert!(!env.step(both()).unwrap().truncations.all);
    let last = env.step(both()).unwrap();
    assert!(last.truncations.all && last.truncations.agents.values().all(|&t| t));
    assert!(!last.terminations.all);
    assert_eq!(
        env.status(),
        Status::Finished {
            terminated: false,
            truncated: true
        }
    );
    // The last observations are still given: the step an episode ends on is observed like any other.
    assert!(
        last.observations.is_empty(),
        "Clear comes next, where nobody acts"
    );
    let before = snapshot(&env);
    let err = env.step(BTreeMap::new()).unwrap_err();
    assert_eq!(err, StepError::Finished { step: 2 });
    assert_eq!(snapshot(&env), before);
    assert_eq!(env.acting_agents(), []);
    // A reset starts over.
    env.reset(3);
    assert_eq!((env.current_step(), env.status()), (0, Status::Running));

    // With no steps allowed, an episode is over as soon as it starts.
    let mut env = Auctions::new(Market::default(), 0);
    env.reset(3);
    assert_eq!(env.step(both()), Err(StepError::Finished { step: 0 }));
}

#[test]
fn terminated_agents_leave_and_the_episode_ends_when_all_have() {
    let mut env = Auctions::new(
        Market {
            buyer_done_at: Some(1),
            ..Market::default()
        },
        10,
    );
    env.reset(0);
    let step = env.step(both()).unwrap();
    assert_eq!(
        step.terminations.agents,
        [(Who::Buyer, true), (Who::Seller, false)].into()
    );
    assert!(!step.terminations.all);
    // The buyer gets the observation it ends on, but acts no more.
    assert!(step.observations.contains_key(&Who::Buyer));
    assert_eq!(env.acting_agents(), [Who::Seller]);
    let before = snapshot(&env);
    assert_eq!(
        env.step(both()),
        Err(StepError::AgentTerminated { agent: Who::Buyer })
    );
    assert_eq!(snapshot(&env), before);
    let step = env.step(bids(&[(Who::Seller, 1)])).unwrap();
    assert_eq!(
        step.rewards.keys().copied().collect::<Vec<_>>(),
        [Who::Seller]
    );
    assert!(!step.observations.contains_key(&Who::Buyer));
    assert_eq!(step.terminations.agents.len(), 1);

    // The domain ends the episode.
    let mut env = Auctions::new(
        Market {
            end_at: Some(2),
            ..Market::default()
        },
        10,
    );
    env.reset(0);
    env.step(both()).unwrap();
    let step = env.step(both()).unwrap();
    assert!(step.terminations.all && !step.truncations.all);
    assert_eq!(
        env.step(BTreeMap::new()),
        Err(StepError::Finished { step: 2 })
    );
}

#[test]
fn a_stage_without_handler_or_single_next_stage_is_a_runtime_error() {
    let mut env = Env::<Auction<true>, _>::new(Market::default(), 10);
    env.reset(0);
    env.step(both()).unwrap();
    env.step(both()).unwrap();
    let before = snapshot(&env);
    let err = env.step(BTreeMap::new()).unwrap_err();
    assert_eq!(
        err,
        StepError::NoNextStage {
            stage: Stage::Clear,
            count: 0
        }
    );
    assert_eq!(snapshot(&env), before);
    let stages: Vec<_> = [Stage::Bid, Stage::Clear, Stage::Halt]
        .into_iter()
        .map(<Auction<true>>::stage)
        .collect();
    assert_eq!(
        validate(Stage::Bid, &stages),
        Err(vec![StageError::AmbiguousNextStage {
            stage: Stage::Clear,
            count: 0
        }])
    );
}

#[test]
fn an_episode_is_a_function_of_the_seed_and_the_actions() {
    let run = |seed| {
        let mut env = Auctions::new(Market::default(), 6);
        let mut out = vec![format!("{:?}", env.reset(seed))];
        while env.status() == Status::Running {
            let actions = env.acting_agents().into_iter().map(|a| (a, 5)).collect();
            out.push(format!("{:?}", env.step(actions)));
        }
        (out, env.into_domain())
    };
    assert_eq!(run(9), run(9));
    assert_eq!(run(9).1.seed, 9);
}
