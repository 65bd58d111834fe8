//! Phantom-style staged environments (Phantom's `FiniteStateMachineEnv`): the environment that runs an episode,
//! stage by stage.
//!
//! A stage lists its acting agents, its rewarded agents, the stages it may move to, and whether a
//! handler runs in it. An agent is one agent or a group of them, sized when the environment is built, and may
//! be scripted (it acts on its own). A `staged` machine generates the facts of its stages and an `Environment`
//! trait the user implements, with an observation and an action type for each kind of agent; [`Env`] runs
//! episodes with them, once for every spec: [`Env::reset`] gives the first observations, [`Env::step`] takes
//! the acting agents' actions and returns observations, rewards, terminations, truncations and infos. How a
//! step goes, rule by rule, is documented on [`Env`].
//!
//! fsmc checks a spec's stages at compile time. A handler moving to a stage outside its list is the run-time
//! error [`InvalidTarget`], which [`Env::step`] returns as [`StepError::InvalidTransition`].

// What generated code provides, and what it calls here (the contract with the code generator): a `staged`
// machine's `Spec`, a unit struct implementing `StagedSpec` (the initial stage, the kind of each agent and
// whether it is scripted, the agents for given group sizes, a `StageInfo` per stage, listing kinds), and
// `Dispatch<E>` for every `E` implementing the module's `Environment` trait, forwarding each call to the
// user's domain with a `View` of the episode and wrapping each kind's observation and action in the module's
// `Observation<E>` and `Action<E>`. `State::goto` checks a handler's choice with
// `InvalidTarget::check`, and `State::rewarded` reads `StageInfo::rewarded_agents`. `validate` (with its
// `StageError`) runs the compiler's checks over stages built at run time, for a hand-written `StagedSpec`.
// `StagedSpec`, `Dispatch`, `StageInfo`, `validate` and `StageError` are hidden from the documentation: `Env`
// runs on them, users do not.

mod env;
mod report;
mod spec;
#[cfg(test)]
mod tests;

pub use env::Env;
pub use report::{Flags, Reset, Status, StepError, StepReport, View};
pub use spec::{Dispatch, ResetOf, StagedSpec, StepReportOf};

use std::collections::BTreeSet;
use std::error::Error;
use std::fmt::{self, Display, Formatter};

use crate::transition::InvalidTarget;

/// A definition-time error in a set of stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[doc(hidden)]
pub enum StageError<S> {
    /// There are no stages at all.
    NoStages,
    /// Two stages have the same id.
    DuplicateStage(S),
    /// The initial stage is not one of the stages.
    UnknownInitialStage(S),
    /// A stage lists a next stage that does not exist.
    UnknownNextStage {
        /// The stage listing it.
        stage: S,
        /// The missing next stage.
        next: S,
    },
    /// A stage without a handler has zero or several next stages, so nothing can choose where it
    /// goes.
    AmbiguousNextStage {
        /// The stage.
        stage: S,
        /// How many next stages it lists.
        count: usize,
    },
}

impl<S: Display> Display for StageError<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoStages => f.write_str("no stages are defined"),
            Self::DuplicateStage(s) => write!(f, "stage `{s}` is defined more than once"),
            Self::UnknownInitialStage(s) => write!(f, "initial stage `{s}` is not defined"),
            Self::UnknownNextStage { stage, next } => {
                write!(
                    f,
                    "stage `{stage}` lists next stage `{next}`, which is not defined"
                )
            }
            Self::AmbiguousNextStage { stage, count } => write!(
                f,
                "stage `{stage}` has no handler, so it needs exactly one next stage, not {count}"
            ),
        }
    }
}

impl<S: Display + fmt::Debug> Error for StageError<S> {}

/// One stage of a staged environment. Its agents are kinds (`K`): an agent, or a group standing for all of its
/// members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct StageInfo<S: 'static, K: 'static> {
    /// The stage's id.
    pub id: S,
    /// The stages it may move to.
    pub next: &'static [S],
    /// The agents that act in a step of this stage (the strategic ones from what they observed at the end of
    /// the previous one, the scripted ones on their own); possibly none.
    pub acting: &'static [K],
    /// The agents that compute a reward at the end of a step in this stage (scripted agents never do). `None`
    /// means "the acting agents", Phantom's default when `rewarded_agents` is not given ("If not provided, a
    /// reward will be computed for all acting agents for the current stage"); `Some(&[])` rewards nobody.
    pub rewarded: Option<&'static [K]>,
    /// Whether a handler runs in this stage. Without one the stage always moves to its single
    /// next stage.
    pub has_handler: bool,
}

impl<S: Copy + PartialEq, K> StageInfo<S, K> {
    /// The agents rewarded in this stage: [`StageInfo::rewarded`], or [`StageInfo::acting`] when
    /// it is not given.
    pub fn rewarded_agents(&self) -> &'static [K] {
        self.rewarded.unwrap_or(self.acting)
    }

    /// Accepts the handler's choice `to` if it is one of this stage's next stages.
    pub fn check_target(&self, to: S) -> Result<S, InvalidTarget<S>> {
        InvalidTarget::check(self.id, to, self.next)
    }

    /// Where a stage without a handler goes: its only next stage. `None` if it has a handler or
    /// does not have exactly one next stage (which [`validate`] reports).
    pub fn automatic_next(&self) -> Option<S> {
        match self.next {
            [only] if !self.has_handler => Some(*only),
            _ => None,
        }
    }
}

/// Checks a set of stages and its initial stage, reporting every problem, in a fixed order:
/// no stages; duplicate ids (in order of their repeats); an unknown initial stage; then per stage,
/// in order, unknown next stages and a handler-less stage without exactly one next stage.
#[doc(hidden)]
pub fn validate<S: Ord + Copy, K>(
    initial: S,
    stages: &[StageInfo<S, K>],
) -> Result<(), Vec<StageError<S>>> {
    if stages.is_empty() {
        return Err(vec![StageError::NoStages]);
    }
    let mut errors = Vec::new();
    let mut ids = BTreeSet::new();
    for stage in stages {
        if !ids.insert(stage.id) {
            errors.push(StageError::DuplicateStage(stage.id));
        }
    }
    if !ids.contains(&initial) {
        errors.push(StageError::UnknownInitialStage(initial));
    }
    for stage in stages {
        for &next in stage.next {
            if !ids.contains(&next) {
                errors.push(StageError::UnknownNextStage {
                    stage: stage.id,
                    next,
                });
            }
        }
        if !stage.has_handler && stage.next.len() != 1 {
            errors.push(StageError::AmbiguousNextStage {
                stage: stage.id,
                count: stage.next.len(),
            });
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
