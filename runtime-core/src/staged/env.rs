//! The environment: one episode at a time, stage by stage, as Phantom's `FiniteStateMachineEnv` runs it.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::fmt::{self, Debug, Display, Formatter};

use super::StageInfo;
use crate::transition::InvalidTarget;

/// What the generated code of a `staged` machine tells [`Env`]: the facts of its spec.
///
/// Everything here is fixed by the spec (stages, agents, who acts and who is rewarded where, next stages,
/// which stages have a handler), so the environment's rules are written once, in [`Env`], and every spec
/// gets the same semantics. The implementing type is a marker (the generated unit struct `Spec`).
#[doc(hidden)]
pub trait StagedSpec: Copy + Eq + Debug + 'static {
    /// The generated `State` enum: the stages.
    type Stage: Copy + Ord + Debug + Display + 'static;
    /// The generated `Agent` enum.
    type Agent: Copy + Ord + Debug + Display + 'static;

    /// The machine's name.
    const NAME: &'static str;
    /// The stage [`Env::reset`] puts the environment in: the spec's default start state.
    const INITIAL_STAGE: Self::Stage;
    /// Every agent, in spec order.
    const AGENTS: &'static [Self::Agent];

    /// What the spec says about `stage`.
    fn stage(stage: Self::Stage) -> StageInfo<Self::Stage, Self::Agent>;
}

/// How [`Env`] reaches the user's domain `D`: observations, actions, handlers, rewards, infos and the end of
/// an episode.
///
/// The generated module implements it for its `Spec` and every type implementing the module's own
/// `Environment` trait, by forwarding: the user writes one trait with one method per handler, and the
/// environment stays generic. Every method gets a [`View`] of where the episode is.
#[doc(hidden)]
pub trait Dispatch<D>: StagedSpec {
    /// What an agent observes before it acts.
    type Observation;
    /// What an agent does in a step.
    type Action;
    /// Auxiliary information that comes with an observation.
    type Info;

    /// Starts a new episode, seeded: the same seed must give the same episode.
    fn reset(domain: &mut D, seed: u64);
    /// What `agent` observes at the end of a step (or at reset), to act on in `view.stage`.
    fn observe(domain: &mut D, agent: Self::Agent, view: View<Self::Stage>) -> Self::Observation;
    /// The auxiliary information of `agent`, taken with its observation.
    fn info(domain: &mut D, agent: Self::Agent, view: View<Self::Stage>) -> Self::Info;
    /// Applies `agent`'s action in the stage `view.stage`.
    fn act(domain: &mut D, agent: Self::Agent, action: Self::Action, view: View<Self::Stage>);
    /// Runs the handler of `view.stage` and returns the stage it chose, or `None` when the stage has no
    /// handler.
    fn handle(domain: &mut D, view: View<Self::Stage>) -> Option<Self::Stage>;
    /// Runs a stage without a handler, after its agents acted.
    fn resolve(domain: &mut D, view: View<Self::Stage>);
    /// The reward of `agent` at the end of a step in `view.stage`.
    fn reward(domain: &mut D, agent: Self::Agent, view: View<Self::Stage>) -> f64;
    /// Whether `agent` is done for the rest of the episode, asked at the end of each step.
    fn agent_terminated(domain: &mut D, agent: Self::Agent, view: View<Self::Stage>) -> bool;
    /// Whether the episode is terminated, asked at the end of each step.
    fn is_terminated(domain: &mut D, view: View<Self::Stage>) -> bool;
    /// Whether the episode is truncated before `num_steps`, asked at the end of each step.
    fn is_truncated(domain: &mut D, view: View<Self::Stage>) -> bool;
}

/// Where an episode is, as the domain sees it (Phantom's `FSMEnvView`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct View<S> {
    /// The step being run: 1 in the first step after a reset, 0 during the reset itself.
    pub step: u64,
    /// The number of steps after which the episode is truncated.
    pub num_steps: u64,
    /// The stage concerned: the stage being run, or for an observation (and its info) the stage the
    /// observing agent acts in next.
    pub stage: S,
}

/// Where the environment is between episodes and steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// No episode has started: [`Env::reset`] starts one.
    NotReset,
    /// An episode is running: [`Env::step`] continues it.
    Running,
    /// The episode has ended; only [`Env::reset`] starts another.
    Finished {
        /// The episode was terminated.
        terminated: bool,
        /// The episode was truncated (`num_steps` reached, or the domain said so).
        truncated: bool,
    },
}

/// What [`Env::reset`] returns: the initial observations, and the infos taken with them.
#[derive(Clone, Debug, PartialEq)]
pub struct Reset<A, O, I> {
    /// The observation of each agent acting in the initial stage.
    pub observations: BTreeMap<A, O>,
    /// The info of each observing agent.
    pub infos: BTreeMap<A, I>,
}

/// Per-agent flags and the episode's own (Phantom's `"__all__"` entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flags<A> {
    /// The flag of every agent still in the episode when the step started.
    pub agents: BTreeMap<A, bool>,
    /// The flag of the episode.
    pub all: bool,
}

/// What [`Env::step`] returns (Phantom's `Step(observations, rewards, terminations, truncations, infos)`).
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport<A, O, I> {
    /// The observation of each agent acting in the next stage: the agents that act in the next step.
    pub observations: BTreeMap<A, O>,
    /// The reward of each agent rewarded in the stage just run.
    pub rewards: BTreeMap<A, f64>,
    /// Which agents are done for the rest of the episode, and whether the episode is terminated.
    pub terminations: Flags<A>,
    /// Whether the episode is truncated, for each agent and for the episode.
    pub truncations: Flags<A>,
    /// The info of each observing agent.
    pub infos: BTreeMap<A, I>,
}

/// Why [`Env::step`] refused a step. A refused step changes nothing: not the stage, not the step count,
/// not the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepError<S: 'static, A> {
    /// No episode has started.
    NotReset,
    /// The episode has ended.
    Finished {
        /// The step it ended at.
        step: u64,
    },
    /// An action came from an agent that does not act in the current stage.
    NotActing {
        /// The agent.
        agent: A,
        /// The current stage.
        stage: S,
    },
    /// An action came from an agent that is done for the rest of the episode.
    AgentTerminated {
        /// The agent.
        agent: A,
    },
    /// An agent acting in the current stage gave no action.
    MissingAction {
        /// The agent.
        agent: A,
        /// The current stage.
        stage: S,
    },
    /// The stage's handler chose a stage that is not one of its next stages (Phantom's
    /// `FSMRuntimeError`).
    InvalidTransition(InvalidTarget<S>),
    /// A stage without a handler does not have exactly one next stage, so nothing says where it goes.
    /// fsmc refuses such a spec (E0901); only a hand-written `StagedSpec` can get here.
    NoNextStage {
        /// The stage.
        stage: S,
        /// How many next stages it has.
        count: usize,
    },
}

impl<S: Display, A: Display> Display for StepError<S, A> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotReset => f.write_str("no episode has started: reset the environment first"),
            Self::Finished { step } => {
                write!(
                    f,
                    "the episode ended at step {step}: reset the environment to start another"
                )
            }
            Self::NotActing { agent, stage } => {
                write!(f, "agent `{agent}` does not act in stage `{stage}`")
            }
            Self::AgentTerminated { agent } => {
                write!(f, "agent `{agent}` is done for the rest of the episode")
            }
            Self::MissingAction { agent, stage } => {
                write!(
                    f,
                    "agent `{agent}` acts in stage `{stage}` but gave no action"
                )
            }
            Self::InvalidTransition(e) => {
                write!(f, "the handler of stage `{}` chose `{}`, ", e.from, e.to)?;
                if e.allowed.is_empty() {
                    f.write_str("but the stage has no next stages")
                } else {
                    f.write_str("which is not one of its next stages: ")?;
                    for (i, s) in e.allowed.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "`{s}`")?;
                    }
                    Ok(())
                }
            }
            Self::NoNextStage { stage, count } => write!(
                f,
                "stage `{stage}` has no handler, so it needs exactly one next stage, not {count}"
            ),
        }
    }
}

impl<S: Display + Debug, A: Display + Debug> Error for StepError<S, A> {}

/// The [`StepReport`] of a spec `S` run on a domain `D`.
pub type StepReportOf<S, D> =
    StepReport<<S as StagedSpec>::Agent, <S as Dispatch<D>>::Observation, <S as Dispatch<D>>::Info>;

/// The [`Reset`] of a spec `S` run on a domain `D`.
pub type ResetOf<S, D> =
    Reset<<S as StagedSpec>::Agent, <S as Dispatch<D>>::Observation, <S as Dispatch<D>>::Info>;

/// A staged environment: Phantom's `FiniteStateMachineEnv(num_steps, network, initial_stage, stages)`,
/// with the stages from a spec `S` and the user's domain `D` in place of the network.
///
/// An episode goes like this:
///
/// * [`Env::reset`] (`reset(seed)`) resets the step count, puts the environment in the initial stage, lets
///   the domain reset itself from the seed, and returns the observations of the agents acting in the
///   initial stage ("At the end of each state agents take observations and at the start of the next step
///   the agents provide actions based on the observations").
/// * [`Env::step`] (`step(actions)`) runs one step of the current stage: it takes exactly one action from
///   each agent acting in the stage (and from no other agent), applies them, then runs the stage's handler,
///   which chooses the next stage among the stage's next stages; a stage without a handler is resolved and
///   moves to its only next stage. The agents rewarded in the stage (by default its acting agents) get a
///   reward; the agents acting in the next stage observe. The episode is truncated after `num_steps` steps
///   (or when the domain says so) and terminated when the domain says so or every agent is done.
/// * A step is all or nothing: every check that can refuse it comes before the domain is touched, except
///   the handler's choice, which is why a stage with a handler runs on a copy of the domain, kept only if
///   the choice is one of the stage's next stages. A refused step leaves the environment as it was.
///
/// Nothing here is random: the seed given to [`Env::reset`] is the only source of variation, so an episode
/// is a function of the seed and the actions.
#[derive(Clone, Debug)]
pub struct Env<S: StagedSpec, D> {
    domain: D,
    num_steps: u64,
    step: u64,
    stage: S::Stage,
    status: Status,
    /// Agents done for the rest of the episode: they no longer act, observe or get rewards.
    done: BTreeSet<S::Agent>,
}

impl<S: Dispatch<D>, D> Env<S, D> {
    /// An environment over `domain` whose episodes are truncated after `num_steps` steps. No episode runs
    /// until [`Env::reset`].
    pub fn new(domain: D, num_steps: u64) -> Self {
        Env {
            domain,
            num_steps,
            step: 0,
            stage: S::INITIAL_STAGE,
            status: Status::NotReset,
            done: BTreeSet::new(),
        }
    }

    /// Starts a new episode from `seed`: step 0, the initial stage, every agent in play. Returns the
    /// observations (and infos) of the agents acting in the initial stage. With `num_steps` 0 the episode
    /// is over at once (truncated).
    pub fn reset(&mut self, seed: u64) -> ResetOf<S, D> {
        S::reset(&mut self.domain, seed);
        self.step = 0;
        self.stage = S::INITIAL_STAGE;
        self.done.clear();
        self.status = if self.num_steps == 0 {
            Status::Finished {
                terminated: false,
                truncated: true,
            }
        } else {
            Status::Running
        };
        let view = self.view(0, self.stage);
        observe::<S, D>(
            &mut self.domain,
            S::stage(self.stage).acting,
            &self.done,
            view,
        )
    }

    /// Runs one step with the actions of the agents acting in the current stage (see [`Env`]).
    ///
    /// Refused, with nothing changed: before the first reset or after the episode ended; an action from an
    /// agent that does not act in the stage, or is done; a missing action; a handler choosing a stage that
    /// is not one of its next stages.
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
        for &agent in actions.keys() {
            if !info.acting.contains(&agent) {
                return Err(StepError::NotActing { agent, stage });
            }
            if self.done.contains(&agent) {
                return Err(StepError::AgentTerminated { agent });
            }
        }
        if let Some(agent) = self
            .expected(&info)
            .into_iter()
            .find(|a| !actions.contains_key(a))
        {
            return Err(StepError::MissingAction { agent, stage });
        }
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
        let (next, rewards, stepped) = match automatic {
            Some(next) => run::<S, D>(&mut self.domain, &info, actions, &self.done, view, |d| {
                S::resolve(d, view);
                Ok(next)
            })?,
            None => {
                let mut copy = self.domain.clone();
                let out = run::<S, D>(&mut copy, &info, actions, &self.done, view, |d| {
                    match S::handle(d, view) {
                        Some(to) => info.check_target(to).map_err(StepError::InvalidTransition),
                        // A dispatch without a handler for the stage: the stage goes where a stage without
                        // one goes, if that is defined.
                        None => match info.next {
                            [only] => {
                                S::resolve(d, view);
                                Ok(*only)
                            }
                            next => Err(StepError::NoNextStage {
                                stage,
                                count: next.len(),
                            }),
                        },
                    }
                })?;
                self.domain = copy;
                out
            }
        };
        Ok(self.commit(view, next, rewards, stepped))
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

    /// Every agent of the environment, in spec order (Phantom's `agent_ids`).
    pub fn agent_ids(&self) -> &'static [S::Agent] {
        S::AGENTS
    }

    /// The agents whose actions the next [`Env::step`] takes: those acting in the current stage that are
    /// not done, in agent order (the order of the maps a step returns). Empty when no episode is running.
    pub fn acting_agents(&self) -> Vec<S::Agent> {
        if self.status != Status::Running {
            return Vec::new();
        }
        self.expected(&S::stage(self.stage))
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

    /// The agents acting in the stage that are not done, in agent order.
    fn expected(&self, info: &StageInfo<S::Stage, S::Agent>) -> Vec<S::Agent> {
        in_play(info.acting, &self.done)
    }

    /// Ends a step that ran in `view.stage` and moves to `next`: the end-of-step questions, the
    /// observations for the next step, then the new step count, stage and status.
    fn commit(
        &mut self,
        view: View<S::Stage>,
        next: S::Stage,
        rewards: BTreeMap<S::Agent, f64>,
        stepped: Vec<S::Agent>,
    ) -> StepReportOf<S, D> {
        let step = view.step;
        let mut terminations = BTreeMap::new();
        for &agent in &stepped {
            let done = S::agent_terminated(&mut self.domain, agent, view);
            terminations.insert(agent, done);
            if done {
                self.done.insert(agent);
            }
        }
        let everyone_done =
            !S::AGENTS.is_empty() && S::AGENTS.iter().all(|a| self.done.contains(a));
        let terminated = S::is_terminated(&mut self.domain, view) || everyone_done;
        let truncated = step >= self.num_steps || S::is_truncated(&mut self.domain, view);
        // The agents that observe are those acting next; an agent done in this step still gets its last
        // observation (the one it ends on), but does not act again.
        let in_play_before = |a: &S::Agent| stepped.contains(a);
        let observers: Vec<S::Agent> = S::stage(next)
            .acting
            .iter()
            .copied()
            .filter(in_play_before)
            .collect();
        let next_view = self.view(step, next);
        let Reset {
            observations,
            infos,
        } = observe::<S, D>(&mut self.domain, &observers, &BTreeSet::new(), next_view);
        self.step = step;
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

/// The observations and infos of `agents` (those not `done`), in agent order: what a reset returns, and the
/// part of a step's result that says what agents saw.
fn observe<S: Dispatch<D>, D>(
    domain: &mut D,
    agents: &[S::Agent],
    done: &BTreeSet<S::Agent>,
    view: View<S::Stage>,
) -> ResetOf<S, D> {
    let mut observations = BTreeMap::new();
    let mut infos = BTreeMap::new();
    for agent in in_play(agents, done) {
        observations.insert(agent, S::observe(domain, agent, view));
        infos.insert(agent, S::info(domain, agent, view));
    }
    Reset {
        observations,
        infos,
    }
}

/// The body of a step on `domain`: the actions in agent order, the stage's own work (`decide`, which picks
/// the next stage), then the rewards of the stage's rewarded agents. Returns the next stage, the rewards and
/// the agents that were in play.
#[allow(clippy::type_complexity)]
fn run<S: Dispatch<D>, D>(
    domain: &mut D,
    info: &StageInfo<S::Stage, S::Agent>,
    actions: BTreeMap<S::Agent, <S as Dispatch<D>>::Action>,
    done: &BTreeSet<S::Agent>,
    view: View<S::Stage>,
    decide: impl FnOnce(&mut D) -> Result<S::Stage, StepError<S::Stage, S::Agent>>,
) -> Result<(S::Stage, BTreeMap<S::Agent, f64>, Vec<S::Agent>), StepError<S::Stage, S::Agent>> {
    for (agent, action) in actions {
        S::act(domain, agent, action, view);
    }
    let next = decide(domain)?;
    let mut rewards = BTreeMap::new();
    for agent in in_play(info.rewarded_agents(), done) {
        rewards.insert(agent, S::reward(domain, agent, view));
    }
    let stepped = S::AGENTS
        .iter()
        .copied()
        .filter(|a| !done.contains(a))
        .collect();
    Ok((next, rewards, stepped))
}

/// `agents` without those `done`, in agent order and each once: every call into the domain for a set of agents
/// goes in this order, whatever order a stage lists them in.
fn in_play<A: Ord + Copy>(agents: &[A], done: &BTreeSet<A>) -> Vec<A> {
    let mut out: Vec<A> = agents
        .iter()
        .copied()
        .filter(|a| !done.contains(a))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
