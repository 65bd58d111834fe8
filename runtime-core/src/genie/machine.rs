//! What a generated Genie machine's `State` gives sessions: its facts ([`GenieSpec`]), the step that fires an
//! event by name with the turn's input ([`GenieMachine`]), and the errors a session reports. Plain data and
//! traits, always available: generated code implements them whether or not the runtime's `genie` feature
//! (sessions, templates, tasks) is on.

use std::fmt::{self, Debug, Display, Formatter};

use super::{ABANDON, POLL, Persistence, RETRY, StateType, TaskProgress, Turn};
use crate::transition::InvalidTransition;

/// The facts of a generated Genie machine's `State` that every session of it shares. Generated code
/// implements it; there is no need to implement it by hand.
#[doc(hidden)]
pub trait GenieSpec: Copy + Eq + Debug + Display + Send + Sync + 'static {
    /// The machine's name.
    const MACHINE: &'static str;
    /// The default start state.
    const START: Self;

    /// The state's name.
    fn name(self) -> &'static str;
    /// Whether the user or an invoker acts in the state.
    fn state_type(self) -> StateType;
    /// The path of the state's template, as the spec names it.
    fn template(self) -> &'static str;
    /// Every template of the machine: (path, source), as read when the spec was compiled.
    fn templates() -> &'static [(&'static str, &'static str)];
    /// The names of the events the state accepts, in spec order.
    fn accepted_names(self) -> &'static [&'static str];

    /// The names of the work invoker states run (`runs NAME;`): the module's `Work` enum, so that an invoker
    /// dispatches on a typed name the spec checked, never on a state's name.
    type Work: Copy + Eq + Debug + Display + Send + Sync + 'static;
    /// The work an invoker state runs; `None` for a user state.
    fn work(self) -> Option<Self::Work>;
    /// What the state does when its work fails: its `on_failure`, else the machine's, else
    /// [`FailurePolicy::Continue`] (Genie Flow's behaviour).
    fn on_failure(self) -> FailurePolicy;
}

/// What an invoker state does when its work fails (a task's error or panic, its template failing to render,
/// its event refused), as the spec's `on_failure` says. Every failure is kept in `Model::failures` whatever
/// the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailurePolicy {
    /// `on_failure retry;`: the session waits with the failure shown and offers `retry` (run what did not
    /// finish again) and `abandon` (go on as `Continue` does).
    Retry,
    /// `on_failure continue;`, the default: the state's event is sent on with an empty input, and the next
    /// response shows the failure with the next actions of the state reached, as Genie Flow's error handler
    /// does.
    Continue,
    /// `on_failure = EVENT;`: the state sends this event, with the failure's message as its input; the spec's
    /// transition on it is the way out.
    Send(&'static str),
}

/// A generated Genie machine's `State`, as a session drives it with a context of type `C` (the user's
/// object, implementing the machine's `Hooks`). Generated code implements it for every `C: Hooks`.
#[doc(hidden)]
pub trait GenieMachine<C: ?Sized>: GenieSpec {
    /// Fires the event named `event` with `turn` (the actor's input and the dialogue): builds its message,
    /// runs the validators and conditions and, if they pass, every other hook on `context`.
    fn step(self, event: &str, turn: &Turn<'_>, context: &mut C) -> Result<Step<Self>, GenieError>;
}

/// A transition a Genie machine made.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Step<S> {
    /// The source state.
    pub from: S,
    /// The event's name.
    pub event: &'static str,
    /// The target state.
    pub to: S,
    /// What the dialogue records: the spec's `persist`, the transition type's default, or what a hook set.
    pub persistence: Persistence,
    /// The text a hook recorded instead ([`Turn::record`]), which the dialogue records whatever the
    /// persistence.
    pub recorded: Option<String>,
}

/// An invoker failure, kept in the session: the current one is shown with the responses that follow it (until
/// the failed work is retried or abandoned, or the user's next event), and all of them stay in
/// `Model::failures`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Failure {
    /// The invoker state.
    pub state: String,
    /// The task that failed; `None` when the work failed outside a task (its template did not render, no
    /// event to send, the event refused).
    pub task: Option<String>,
    /// What went wrong.
    pub message: String,
}

impl Display for Failure {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.task {
            Some(task) => write!(
                f,
                "task `{task}` of `{}` failed: {}",
                self.state, self.message
            ),
            None => write!(f, "the work of `{}` failed: {}", self.state, self.message),
        }
    }
}

/// Why a session did not do what it was asked. A refused request changes nothing in the session.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenieError {
    /// An invoker's task runs: only `poll` is offered until it is done.
    Busy {
        /// The invoker state.
        state: String,
        /// How far its DAG has got.
        progress: TaskProgress,
    },
    /// The invoker's work failed and waits: `retry` runs it again, `abandon` gives it up.
    Failed(Failure),
    /// The event is not an event of the machine.
    UnknownEvent {
        /// The machine's name.
        machine: &'static str,
        /// The state the session is in.
        state: String,
        /// The name sent.
        event: String,
        /// The events the state accepts.
        accepted: Vec<String>,
    },
    /// The machine refused the event: not accepted in this state, no guard held, or a validator (or the
    /// reading of the input) rejected it. `message` says which.
    Refused {
        /// The state the session is in.
        state: String,
        /// The event sent.
        event: String,
        /// The machine's explanation.
        message: String,
    },
    /// A template failed to compile or to render.
    Template {
        /// The template's path.
        template: String,
        /// MiniJinja's explanation.
        message: String,
    },
    /// The invoker planned a DAG that cannot run.
    Plan {
        /// The invoker state.
        state: String,
        /// What is wrong with the DAG.
        message: String,
    },
    /// No Tokio runtime to run invoker tasks on: create flows inside one.
    NoRuntime,
    /// `retry` or `abandon` was asked with no failed work waiting.
    NothingFailed,
    /// The session store failed (or its lock could not be taken in time); the session is as the store last
    /// kept it.
    Store(String),
    /// A session `Model` that cannot be resumed (a DAG that does not fit its recorded outputs, or work in
    /// flight in a user state).
    Snapshot(String),
}

impl GenieError {
    /// The error for `event`, a name that is no event of `state`'s machine.
    #[doc(hidden)]
    pub fn unknown_event<S: GenieSpec>(state: S, event: &str) -> Self {
        GenieError::UnknownEvent {
            machine: S::MACHINE,
            state: state.name().to_owned(),
            event: event.to_owned(),
            accepted: state
                .accepted_names()
                .iter()
                .map(|e| (*e).to_owned())
                .collect(),
        }
    }

    /// The error for a transition the machine refused.
    #[doc(hidden)]
    pub fn refused<S: Display, E: Display>(e: &InvalidTransition<S, E>) -> Self {
        GenieError::Refused {
            state: e.state.to_string(),
            event: e.event.to_string(),
            message: e.to_string(),
        }
    }
}

impl Display for GenieError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GenieError::Busy { state, progress } => write!(
                f,
                "`{state}` is working ({} of {} tasks done): only `{POLL}` is offered",
                progress.done(),
                progress.total()
            ),
            GenieError::Failed(failure) => {
                write!(f, "{failure}; send `{RETRY}` or `{ABANDON}`")
            }
            GenieError::UnknownEvent {
                machine,
                state,
                event,
                accepted,
            } => {
                write!(
                    f,
                    "`{event}` is not an event of `{machine}`; `{state}` accepts "
                )?;
                if accepted.is_empty() {
                    f.write_str("no events")
                } else {
                    let names: Vec<String> = accepted.iter().map(|a| format!("`{a}`")).collect();
                    f.write_str(&names.join(", "))
                }
            }
            GenieError::Refused { message, .. } => f.write_str(message),
            GenieError::Template { template, message } => {
                write!(f, "template `{template}` failed: {message}")
            }
            GenieError::Plan { state, message } => {
                write!(
                    f,
                    "the invoker planned no runnable work for `{state}`: {message}"
                )
            }
            GenieError::NoRuntime => f.write_str(
                "no Tokio runtime is running: create the flow inside one (invoker tasks run on it)",
            ),
            GenieError::NothingFailed => {
                f.write_str("no failed work waits to be retried or abandoned")
            }
            GenieError::Store(why) => write!(f, "the session store failed: {why}"),
            GenieError::Snapshot(why) => write!(f, "the session cannot be resumed: {why}"),
        }
    }
}

impl std::error::Error for GenieError {}
