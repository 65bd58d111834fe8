//! What a Genie session knows ([`Model`]), and what the front end is shown after a request ([`Response`]).
//!
//! A model is plain data that serializes: the state, the user's context, the dialogue, the work in flight with
//! the outputs of its finished tasks, and the failures. A snapshot read back from JSON or from a store is
//! checked against the machine before a session runs on it ([`Model::check`]), so a tampered one cannot skip an
//! invoker's work or run work where the machine has none.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::machine::{Failure, GenieError, GenieSpec};
use super::tasks::TaskGraph;
use super::{ABANDON, Actor, ChatHistory, POLL, RETRY, StateType, TaskProgress};

/// What the front end shows after a request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Response {
    /// The state the session is in.
    pub state: String,
    /// The text to show: the last user state's rendered template, or (right after the user started an
    /// invoker) the user's own input as the dialogue recorded it.
    pub output: Option<String>,
    /// The events the user may send: only `poll` while work runs; `retry` and `abandon` while failed work
    /// waits; none in a final state.
    pub next_actions: Vec<String>,
    /// The running DAG's progress.
    pub progress: Option<TaskProgress>,
    /// The invoker failure that waits, or the one the conversation went on past (shown until the user's next
    /// event), as Genie Flow's API returns its `task_error` with the next actions.
    pub error: Option<String>,
}

/// Who runs a DAG in flight, and until when (milliseconds since the Unix epoch): a session in memory holds its
/// work for good, a store's worker for a while it keeps renewing, after which another worker takes the work
/// over.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Lease {
    pub(crate) owner: String,
    pub(crate) until: u64,
}

/// A DAG in flight: what it is, and what it has produced so far.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Task {
    /// Distinguishes runs: a runner whose task was replaced (a retry, a new DAG, a worker taking over) stops.
    pub(crate) id: u64,
    pub(crate) graph: TaskGraph,
    /// The invoker state's rendered template: `None` until its work starts and renders it.
    pub(crate) prompt: Option<String>,
    /// The input of the event that entered the state.
    pub(crate) input: String,
    /// Each task's output, once done.
    pub(crate) outputs: Vec<Option<String>>,
    pub(crate) progress: TaskProgress,
    /// Set when the work failed and waits; the task stays so that a retry runs only what is not done.
    pub(crate) failed: Option<Failure>,
    /// Who runs it now; `None` when nobody does (just planned, retried, or failed).
    pub(crate) lease: Option<Lease>,
}

/// Everything a session knows; it serializes, and [`Flow::resume`](super::Flow::resume) or a
/// [`Worker`](super::Worker) continues from it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "S: Serialize, C: Serialize",
    deserialize = "S: DeserializeOwned, C: DeserializeOwned"
))]
pub struct Model<S, C> {
    pub(crate) state: S,
    pub(crate) context: C,
    pub(crate) dialogue: ChatHistory,
    pub(crate) actor: Actor,
    pub(crate) actor_input: String,
    pub(crate) output: Option<String>,
    pub(crate) task: Option<Task>,
    pub(crate) failures: Vec<Failure>,
    /// The failure the conversation went on past (its state's policy is `continue` or an event), shown until
    /// the user's next event.
    pub(crate) notice: Option<Failure>,
    pub(crate) next_task: u64,
}

impl<S: Copy, C> Model<S, C> {
    /// The machine's state.
    pub fn state(&self) -> S {
        self.state
    }

    /// The user's context object.
    pub fn context(&self) -> &C {
        &self.context
    }

    /// The dialogue: the chat history.
    pub fn dialogue(&self) -> &ChatHistory {
        &self.dialogue
    }

    /// Who acts now: the user in a user state, the assistant while an invoker works.
    pub fn actor(&self) -> Actor {
        self.actor
    }

    /// The input of the event that entered the current state.
    pub fn actor_input(&self) -> &str {
        &self.actor_input
    }

    /// The running DAG's progress (`None` when no work runs, or it failed).
    pub fn progress(&self) -> Option<TaskProgress> {
        self.running().map(|t| t.progress)
    }

    /// The invoker failure that waits for `retry` or `abandon`.
    pub fn failure(&self) -> Option<&Failure> {
        self.task.as_ref().and_then(|t| t.failed.as_ref())
    }

    /// The failure the conversation went on past, shown until the user's next event.
    pub fn notice(&self) -> Option<&Failure> {
        self.notice.as_ref()
    }

    /// Every invoker failure of the session, oldest first.
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    pub(crate) fn running(&self) -> Option<&Task> {
        self.task.as_ref().filter(|t| t.failed.is_none())
    }

    /// The running DAG `id`, if it is still the one in flight.
    pub(crate) fn running_mut(&mut self, id: u64) -> Option<&mut Task> {
        self.task
            .as_mut()
            .filter(|t| t.failed.is_none() && t.id == id)
    }
}

impl<S: GenieSpec, C> Model<S, C> {
    /// A new session in `state`, with nothing said yet.
    pub(crate) fn new(state: S, context: C) -> Self {
        Model {
            state,
            context,
            dialogue: ChatHistory::new(),
            actor: Actor::Assistant,
            actor_input: String::new(),
            output: None,
            task: None,
            failures: Vec::new(),
            notice: None,
            next_task: 0,
        }
    }

    pub(crate) fn response(&self) -> Response {
        let next_actions = if self.running().is_some() {
            vec![POLL.to_owned()]
        } else if self.failure().is_some() {
            vec![RETRY.to_owned(), ABANDON.to_owned()]
        } else {
            self.state
                .accepted_names()
                .iter()
                .map(|e| (*e).to_owned())
                .collect()
        };
        Response {
            state: self.state.name().to_owned(),
            output: self.output.clone(),
            next_actions,
            progress: self.progress(),
            error: self.failure().or(self.notice()).map(ToString::to_string),
        }
    }

    /// Checks a model read back (a snapshot, a store's copy) against the machine: an invoker state has its work
    /// in flight and a user state none, the actor is the state's, and the DAG fits its recorded outputs. A
    /// tampered model could otherwise leave an invoker state without running its work, or run work where the
    /// machine has none.
    pub(crate) fn check(&self) -> Result<(), GenieError> {
        let state = self.state.name();
        let refuse = |why: String| Err(GenieError::Snapshot(why));
        match (self.state.state_type(), &self.task) {
            (StateType::User, Some(_)) => {
                return refuse(format!(
                    "it has work in flight in `{state}`, which is a user state"
                ));
            }
            (StateType::Invoker, None) => {
                return refuse(format!(
                    "it is in the invoker state `{state}` without the work that state runs"
                ));
            }
            _ => {}
        }
        let actor = match self.state.state_type() {
            StateType::User => Actor::User,
            StateType::Invoker => Actor::Assistant,
        };
        if self.actor != actor {
            return refuse(format!("its actor in `{state}` is not `{}`", actor.name()));
        }
        let Some(task) = &self.task else {
            return Ok(());
        };
        let total = task
            .graph
            .check()
            .map_err(|e| GenieError::Snapshot(e.to_string()))?;
        let done = task.outputs.iter().filter(|o| o.is_some()).count();
        if task.outputs.len() != task.graph.len()
            || task.progress.total() != total
            || usize::try_from(task.progress.done()).ok() != Some(done)
        {
            return refuse("its task outputs do not match its task DAG".into());
        }
        Ok(())
    }
}
