//! The environment: one episode at a time, stage by stage, as Phantom's `FiniteStateMachineEnv` runs it.

use std::collections::{BTreeMap, BTreeSet};

use super::StageInfo;
use super::report::{Flags, Reset, Status, StepError, StepReport, View};
use super::spec::{Dispatch, ResetOf, StagedSpec, StepReportOf};

/// A staged environment: Phantom's `FiniteStateMachineEnv(num_steps, network, initial_stage, stages)`,
/// with the stages from a spec `S` and the user's domain `D` in place of the network.
///
/// The agents are the spec's, each group with the number of members given when the environment is built
/// ([`Env::with_sizes`]), as Phantom's stages take lists of agent ids known only when the environment is
/// initialised. A scripted agent acts in the stages that list it, on its own: it takes no action from outside,
/// observes nothing and is never rewarded (Phantom's non-strategic agents). The others are the strategic
/// agents.
///
/// An episode goes like this:
///
/// * [`Env::reset`] (`reset(seed)`) resets the step count, puts the environment in the initial stage, lets
///   the domain reset itself from the seed, and returns the observations of the strategic agents acting in the
///   initial stage ("At the end of each state agents take observations and at the start of the next step
///   the agents provide actions based on the observations").
/// * [`Env::step`] (`step(actions)`) runs one step of the current stage: it takes exactly one action from
///   each strategic agent acting in the stage (and from no other agent), applies them and lets the scripted
///   agents acting in it act, in agent order, then runs the stage's handler, which chooses the next stage
///   among the stage's next stages; a stage without a handler is resolved and moves to its only next stage.
///   The agents rewarded in the stage (by default its acting agents) get a reward; the agents acting in the
///   next stage observe. The episode is truncated after `num_steps` steps (or when the domain says so) and
///   terminated when the domain says so or every strategic agent is done.
/// * A step is all or nothing: every check that can refuse it comes before the domain is touched, except
///   the handler's choice, which is why a stage with a handler runs on a copy of the domain, kept only if
///   the choice is one of the stage's next stages. A refused step leaves the environment as it was.
///
/// Nothing here is random: the seed given to [`Env::reset`] is the only source of variation, so an episode
/// is a function of the seed and the actions.
#[derive(Clone, Debug)]
pub struct Env<S: StagedSpec, D> {
    domain: D,
    sizes: S::Sizes,
    /// Every agent, in agent order (sorted: the order of `S::Agent`).
    agents: Vec<S::Agent>,
    num_steps: u64,
    step: u64,
    stage: S::Stage,
    status: Status,
    /// Agents done for the rest of the episode: they no longer act, observe or get rewards.
    done: BTreeSet<S::Agent>,
    /// Each agent's most recent reward of the episode, for [`StepReport::phantom_rewards`].
    latest: BTreeMap<S::Agent, f64>,
}

impl<S: Dispatch<D>, D> Env<S, D> {
    /// An environment over `domain` whose episodes are truncated after `num_steps` steps, for a spec without
    /// groups of agents. No episode runs until [`Env::reset`].
    pub fn new(domain: D, num_steps: u64) -> Self
    where
        S::Sizes: Default,
    {
        Self::with_sizes(domain, S::Sizes::default(), num_steps)
    }

    /// An environment over `domain` whose groups of agents have `sizes` members, and whose episodes are
    /// truncated after `num_steps` steps. No episode runs until [`Env::reset`].
    pub fn with_sizes(domain: D, sizes: S::Sizes, num_steps: u64) -> Self {
        let mut agents = S::agents(&sizes);
        agents.sort_unstable();
        agents.dedup();
        Env {
            domain,
            sizes,
            agents,
            num_steps,
            step: 0,
            stage: S::INITIAL_STAGE,
            status: Status::NotReset,
            done: BTreeSet::new(),
            latest: BTreeMap::new(),
        }
    }

    /// Starts a new episode from `seed`: step 0, the initial stage, every agent in play. Returns the
    /// observations (and infos) of the strategic agents acting in the initial stage. With `num_steps` 0 the
    /// episode is over at once (truncated).
    pub fn reset(&mut self, seed: u64) -> ResetOf<S, D> {
        S::reset(&mut self.domain, seed);
        self.step = 0;
        self.stage = S::INITIAL_STAGE;
        self.done.clear();
        self.latest.clear();
        self.status = if self.num_steps == 0 {
            Status::Finished {
                terminated: false,
                truncated: true,
            }
        } else {
            Status::Running
        };
        let view = self.view(0, self.stage);
        let observers = self.strategic(S::stage(self.stage).acting);
        observe::<S, D>(&mut self.domain, &observers, view)
    }

    /// Runs one step with the actions of the strategic agents acting in the current stage (see [`Env`]).
    ///
    /// Refused, with nothing changed: before the first reset or after the episode ended; an action from an
    /// agent the environment does not have, a scripted one, one that does not act in the stage, or is done;
    /// an action of another kind of agent's; a missing action; a handler choosing a stage that is not one of
    /// its next stages.
    pub fn step(
        &mut self,
        actions: BTreeMap<S::Agent, <S as Dispatch<D>>::Action>,
    ) -> Result<StepReportOf<S, D>, StepError<S::Stage, S::Agent>>
    where
        D: Clone,
    {
        match self.status {
            Status::NotReset => return Err(StepError::NotReset),
            Status::Finished { .. } => return Err(StepError::Finished { step: self.step }),
            Status::Running => {}
        }
        let stage = self.stage;
        let info = S::stage(stage);
        self.check(&info, &actions)?;
        // A stage without a handler cannot fail once it starts, so its next stage is known up front and the
        // domain is changed in place; a handler's choice is checked after it ran, so it runs on a copy.
        let automatic = if info.has_handler {
            None
        } else {
            match info.next {
                [only] => Some(*only),
                next => {
                    return Err(StepError::NoNextStage {
                        stage,
                        count: next.len(),
                    });
                }
            }
        };
        let step = self.step.saturating_add(1);
        let view = self.view(step, stage);
        let acting = self.members(info.acting);
        let rewarded = self.strategic(info.rewarded_agents());
        let body = Body::<S, D> {
            acting: &acting,
            rewarded: &rewarded,
            actions,
            view,
        };
        let (next, rewards) = match automatic {
            Some(next) => body.run(&mut self.domain, |d| {
                S::resolve(d, view);
                Ok(next)
            })?,
            None => {
                let mut copy = self.domain.clone();
                let out = body.run(&mut copy, |d| decide::<S, D>(d, &info, view))?;
                self.domain = copy;
                out
            }
        };
        Ok(self.commit(view, next, rewards))
    }

    /// The checks on a step's actions, before anything runs.
    fn check(
        &self,
        info: &StageInfo<S::Stage, S::Kind>,
        actions: &BTreeMap<S::Agent, <S as Dispatch<D>>::Action>,
    ) -> Result<(), StepError<S::Stage, S::Agent>> {
        let stage = info.id;
        for (&agent, action) in actions {
            if self.agents.binary_search(&agent).is_err() {
                return Err(StepError::UnknownAgent { agent });
            }
            let kind = S::kind(agent);
            if S::is_scripted(kind) {
                return Err(StepError::Scripted { agent });
            }
            if !info.acting.contains(&kind) {
                return Err(StepError::NotActing { agent, stage });
            }
            if self.done.contains(&agent) {
                return Err(StepError::AgentTerminated { agent });
            }
            if !S::fits(agent, action) {
                return Err(StepError::WrongAction { agent });
            }
        }
        match self
            .strategic(info.acting)
            .into_iter()
            .find(|a| !actions.contains_key(a))
        {
            Some(agent) => Err(StepError::MissingAction { agent, stage }),
            None => Ok(()),
        }
    }

    /// The stage the environment is in (Phantom's `current_stage`).
    pub fn current_stage(&self) -> S::Stage {
        self.stage
    }

    /// The stage every episode starts in (Phantom's `initial_stage`).
    pub fn initial_stage(&self) -> S::Stage {
        S::INITIAL_STAGE
    }

    /// The number of steps run in this episode (Phantom's `current_step`).
    pub fn current_step(&self) -> u64 {
        self.step
    }

    /// The number of steps after which an episode is truncated.
    pub fn num_steps(&self) -> u64 {
        self.num_steps
    }

    /// Where the environment is: before the first episode, running, or finished.
    pub fn status(&self) -> Status {
        self.status
    }

    /// How many members each group of agents has.
    pub fn sizes(&self) -> &S::Sizes {
        &self.sizes
    }

    /// Every agent of the environment, in agent order (Phantom's `agent_ids`).
    pub fn agent_ids(&self) -> &[S::Agent] {
        &self.agents
    }

    /// The agents that give actions (Phantom's `strategic_agent_ids`), in agent order.
    pub fn strategic_agent_ids(&self) -> Vec<S::Agent> {
        self.agents
            .iter()
            .copied()
            .filter(|a| !S::is_scripted(S::kind(*a)))
            .collect()
    }

    /// The scripted agents (Phantom's `non_strategic_agent_ids`), in agent order.
    pub fn scripted_agent_ids(&self) -> Vec<S::Agent> {
        self.agents
            .iter()
            .copied()
            .filter(|a| S::is_scripted(S::kind(*a)))
            .collect()
    }

    /// The agents whose actions the next [`Env::step`] takes: the strategic agents acting in the current stage
    /// that are not done, in agent order (the order of the maps a step returns). Empty when no episode is
    /// running.
    pub fn acting_agents(&self) -> Vec<S::Agent> {
        if self.status != Status::Running {
            return Vec::new();
        }
        self.strategic(S::stage(self.stage).acting)
    }

    /// The agents done for the rest of the episode.
    pub fn terminated_agents(&self) -> &BTreeSet<S::Agent> {
        &self.done
    }

    /// The user's domain.
    pub fn domain(&self) -> &D {
        &self.domain
    }

    /// The user's domain, taken back.
    pub fn into_domain(self) -> D {
        self.domain
    }

    fn view(&self, step: u64, stage: S::Stage) -> View<S::Stage> {
        View {
            step,
            num_steps: self.num_steps,
            stage,
        }
    }

    /// The agents of `kinds`, in agent order, scripted ones included.
    fn members(&self, kinds: &[S::Kind]) -> Vec<S::Agent> {
        self.agents
            .iter()
            .copied()
            .filter(|a| kinds.contains(&S::kind(*a)))
            .collect()
    }

    /// The strategic agents of `kinds` that are not done, in agent order.
    fn strategic(&self, kinds: &[S::Kind]) -> Vec<S::Agent> {
        self.members(kinds)
            .into_iter()
            .filter(|a| !S::is_scripted(S::kind(*a)) && !self.done.contains(a))
            .collect()
    }

    /// Ends a step that ran in `view.stage` and moves to `next`: the end-of-step questions, the
    /// observations for the next step, then the new step count, stage and status.
    fn commit(
        &mut self,
        view: View<S::Stage>,
        next: S::Stage,
        rewards: BTreeMap<S::Agent, f64>,
    ) -> StepReportOf<S, D> {
        let step = view.step;
        // The strategic agents in play when the step started.
        let stepped: Vec<S::Agent> = self
            .strategic_agent_ids()
            .into_iter()
            .filter(|a| !self.done.contains(a))
            .collect();
        let mut terminations = BTreeMap::new();
        for &agent in &stepped {
            let done = S::agent_terminated(&mut self.domain, agent, view);
            terminations.insert(agent, done);
            if done {
                self.done.insert(agent);
            }
        }
        let strategic = self.strategic_agent_ids();
        let everyone_done =
            !strategic.is_empty() && strategic.iter().all(|a| self.done.contains(a));
        let terminated = S::is_terminated(&mut self.domain, view) || everyone_done;
        let truncated = step >= self.num_steps || S::is_truncated(&mut self.domain, view);
        // The agents that observe are the strategic ones acting next; an agent done in this step still gets its
        // last observation (the one it ends on), but does not act again.
        let observers: Vec<S::Agent> = self
            .members(S::stage(next).acting)
            .into_iter()
            .filter(|a| stepped.contains(a))
            .collect();
        let next_view = self.view(step, next);
        let Reset {
            observations,
            infos,
        } = observe::<S, D>(&mut self.domain, &observers, next_view);
        self.latest.extend(rewards.iter().map(|(a, r)| (*a, *r)));
        // Phantom's code keys the rewards it returns by the agents that observe, and gives every strategic
        // agent's once the episode ends.
        let keyed_by = if terminated || truncated {
            strategic
        } else {
            observations.keys().copied().collect()
        };
        let phantom_rewards = keyed_by
            .into_iter()
            .map(|a| (a, self.latest.get(&a).copied()))
            .collect();
        self.step = step;
        S::moved(self.stage, next);
        self.stage = next;
        if terminated || truncated {
            self.status = Status::Finished {
                terminated,
                truncated,
            };
        }
        StepReport {
            observations,
            rewards,
            phantom_rewards,
            terminations: Flags {
                agents: terminations,
                all: terminated,
            },
            truncations: Flags {
                agents: stepped.iter().map(|&a| (a, truncated)).collect(),
                all: truncated,
            },
            infos,
        }
    }
}

/// The observations and infos of `agents`, in the order given: what a reset returns, and the part of a step's
/// result that says what agents saw.
fn observe<S: Dispatch<D>, D>(
    domain: &mut D,
    agents: &[S::Agent],
    view: View<S::Stage>,
) -> ResetOf<S, D> {
    let mut observations = BTreeMap::new();
    let mut infos = BTreeMap::new();
    for &agent in agents {
        if let Some(o) = S::observe(domain, agent, view) {
            observations.insert(agent, o);
            infos.insert(agent, S::info(domain, agent, view));
        }
    }
    Reset {
        observations,
        infos,
    }
}

/// The handler's choice of the stage after `info`'s, checked against its next stages.
fn decide<S: Dispatch<D>, D>(
    d: &mut D,
    info: &StageInfo<S::Stage, S::Kind>,
    view: View<S::Stage>,
) -> Result<S::Stage, StepError<S::Stage, S::Agent>> {
    match S::handle(d, view) {
        Some(to) => info.check_target(to).map_err(StepError::InvalidTransition),
        // A dispatch without a handler for the stage: the stage goes where a stage without one goes, if that
        // is defined.
        None => match info.next {
            [only] => {
                S::resolve(d, view);
                Ok(*only)
            }
            next => Err(StepError::NoNextStage {
                stage: info.id,
                count: next.len(),
            }),
        },
    }
}

/// What a step runs on the domain: the acting agents (scripted ones included) in agent order, the strategic
/// ones' actions, and the agents rewarded at its end.
struct Body<'a, S: Dispatch<D>, D> {
    acting: &'a [S::Agent],
    rewarded: &'a [S::Agent],
    actions: BTreeMap<S::Agent, <S as Dispatch<D>>::Action>,
    view: View<S::Stage>,
}

impl<S: Dispatch<D>, D> Body<'_, S, D> {
    /// The actions in agent order (a scripted agent acting on its own), the stage's own work (`decide`, which
    /// picks the next stage), then the rewards of the stage's rewarded agents. Returns the next stage and the
    /// rewards.
    #[allow(clippy::type_complexity)]
    fn run(
        mut self,
        domain: &mut D,
        decide: impl FnOnce(&mut D) -> Result<S::Stage, StepError<S::Stage, S::Agent>>,
    ) -> Result<(S::Stage, BTreeMap<S::Agent, f64>), StepError<S::Stage, S::Agent>> {
        for &agent in self.acting {
            let action = self.actions.remove(&agent);
            S::act(domain, agent, action, self.view);
        }
        let next = decide(domain)?;
        let rewards = self
            .rewarded
            .iter()
            .map(|&agent| (agent, S::reward(domain, agent, self.view)))
            .collect();
        Ok((next, rewards))
    }
}
