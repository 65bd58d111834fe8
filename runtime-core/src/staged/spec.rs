//! What generated code provides for the environment: the facts of a spec (`StagedSpec`) and the way to the
//! user's domain (`Dispatch`).

use std::fmt::{Debug, Display};

use super::StageInfo;
use super::report::{Reset, StepReport, View};

/// What the generated code of a `staged` machine tells [`Env`]: the facts of its spec.
///
/// Everything here is fixed by the spec (stages, the agents and groups of agents, which are scripted, who acts
/// and who is rewarded where, next stages, which stages have a handler) but how many members each group has,
/// which is given when the environment is built ([`Env::with_sizes`]). So the environment's rules are written
/// once, in [`Env`], and every spec gets the same semantics. The implementing type is a marker (the generated
/// unit struct `Spec`).
#[doc(hidden)]
pub trait StagedSpec: Copy + Eq + Debug + 'static {
    /// The generated `State` enum: the stages.
    type Stage: Copy + Ord + Debug + Display + 'static;
    /// The generated `Agent` enum: one agent (a member of a group is one agent).
    type Agent: Copy + Ord + Debug + Display + 'static;
    /// The generated `AgentKind` enum: the agents and the groups of agents as the spec declares them, which
    /// is what stages list.
    type Kind: Copy + Ord + Debug + Display + 'static;
    /// The generated `Sizes`: how many members each group has.
    type Sizes: Clone + Debug;

    /// The machine's name.
    const NAME: &'static str;
    /// The stage [`Env::reset`] puts the environment in: the spec's default start state.
    const INITIAL_STAGE: Self::Stage;

    /// The kind `agent` is: itself, or its group.
    fn kind(agent: Self::Agent) -> Self::Kind;
    /// Whether agents of `kind` are scripted: they act on their own, take no action from outside, observe
    /// nothing and are never rewarded (Phantom's non-strategic agents).
    fn is_scripted(kind: Self::Kind) -> bool;
    /// Every agent of an environment whose groups have `sizes`, in agent order.
    fn agents(sizes: &Self::Sizes) -> Vec<Self::Agent>;
    /// What the spec says about `stage`.
    fn stage(stage: Self::Stage) -> StageInfo<Self::Stage, Self::Kind>;
    /// The environment moved from `from` to `to`: generated code counts the move for spec coverage
    /// (`fsmc_runtime::coverage`); by default, nothing.
    #[doc(hidden)]
    fn moved(from: Self::Stage, to: Self::Stage) {
        let _ = (from, to);
    }
}

/// How [`Env`] reaches the user's domain `D`: observations, actions, handlers, rewards, infos and the end of
/// an episode.
///
/// The generated module implements it for its `Spec` and every type implementing the module's own
/// `Environment` trait, by forwarding: the user writes one trait, with an observation and an action type and
/// methods for each kind of agent and one method per handler, and the environment stays generic. Every method
/// gets a [`View`] of where the episode is.
#[doc(hidden)]
pub trait Dispatch<D>: StagedSpec {
    /// What an agent observes before it acts: the generated `Observation<D>`, one variant per kind of agent.
    type Observation;
    /// What an agent does in a step: the generated `Action<D>`, one variant per kind of agent.
    type Action;
    /// Auxiliary information that comes with an observation.
    type Info;

    /// Starts a new episode, seeded: the same seed must give the same episode.
    fn reset(domain: &mut D, seed: u64);
    /// What `agent` observes at the end of a step (or at reset), to act on in `view.stage`; `None` for a
    /// scripted agent, which observes nothing.
    fn observe(
        domain: &mut D,
        agent: Self::Agent,
        view: View<Self::Stage>,
    ) -> Option<Self::Observation>;
    /// The auxiliary information of `agent`, taken with its observation.
    fn info(domain: &mut D, agent: Self::Agent, view: View<Self::Stage>) -> Self::Info;
    /// Whether `action` is an action of `agent`'s kind.
    fn fits(agent: Self::Agent, action: &Self::Action) -> bool;
    /// Applies `agent`'s action in the stage `view.stage`; a scripted agent acts on its own (`None`).
    fn act(
        domain: &mut D,
        agent: Self::Agent,
        action: Option<Self::Action>,
        view: View<Self::Stage>,
    );
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

/// The [`StepReport`] of a spec `S` run on a domain `D`.
pub type StepReportOf<S, D> =
    StepReport<<S as StagedSpec>::Agent, <S as Dispatch<D>>::Observation, <S as Dispatch<D>>::Info>;

/// The [`Reset`] of a spec `S` run on a domain `D`.
pub type ResetOf<S, D> =
    Reset<<S as StagedSpec>::Agent, <S as Dispatch<D>>::Observation, <S as Dispatch<D>>::Info>;
