//! What the environment and its domain exchange: the view of an episode, the status, what a reset and a step
//! return, and why a step is refused.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::{self, Debug, Display, Formatter};

use crate::transition::InvalidTarget;

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
    /// No episode has started: [`Env::reset`](super::Env::reset) starts one.
    NotReset,
    /// An episode is running: [`Env::step`](super::Env::step) continues it.
    Running,
    /// The episode has ended; only [`Env::reset`](super::Env::reset) starts another.
    Finished {
        /// The episode was terminated.
        terminated: bool,
        /// The episode was truncated (`num_steps` reached, or the domain said so).
        truncated: bool,
    },
}

/// What [`Env::reset`](super::Env::reset) returns: the initial observations, and the infos taken with them.
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

/// What [`Env::step`](super::Env::step) returns (Phantom's `Step(observations, rewards, terminations, truncations,
/// infos)`).
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport<A, O, I> {
    /// The observation of each agent acting in the next stage: the agents that act in the next step.
    pub observations: BTreeMap<A, O>,
    /// The reward of each agent rewarded in the stage just run, as Phantom's documentation words it ("only
    /// the given agents will calculate and return a reward at the end of the step for this stage").
    pub rewards: BTreeMap<A, f64>,
    /// The rewards as Phantom's code returns them, for training code written against it: keyed by the agents
    /// that observe (every agent not scripted, at the step that ends the episode), each with its most recent
    /// reward of the episode, `None` before its first.
    pub phantom_rewards: BTreeMap<A, Option<f64>>,
    /// Which agents are done for the rest of the episode, and whether the episode is terminated.
    pub terminations: Flags<A>,
    /// Whether the episode is truncated, for each agent and for the episode.
    pub truncations: Flags<A>,
    /// The info of each observing agent.
    pub infos: BTreeMap<A, I>,
}

/// Why [`Env::step`](super::Env::step) refused a step. A refused step changes nothing: not the stage, not the step
/// count, not the domain.
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
    /// An action came from an agent the environment does not have (a member beyond its group's size).
    UnknownAgent {
        /// The agent.
        agent: A,
    },
    /// An action came from a scripted agent, which acts on its own.
    Scripted {
        /// The agent.
        agent: A,
    },
    /// The action given for an agent is another kind of agent's.
    WrongAction {
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
            Self::UnknownAgent { agent } => {
                write!(f, "the environment has no agent `{agent}`")
            }
            Self::Scripted { agent } => {
                write!(
                    f,
                    "agent `{agent}` is scripted: it acts on its own and takes no action"
                )
            }
            Self::WrongAction { agent } => {
                write!(
                    f,
                    "the action given for `{agent}` is another kind of agent's"
                )
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
