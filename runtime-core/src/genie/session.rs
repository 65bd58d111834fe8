//! Genie sessions in memory: one conversation with a generated Genie machine, as a web front end drives it.
//!
//! A [`Flow`] holds what every session of a machine shares (its templates, the [`Invoker`], the Tokio runtime
//! its work runs on); a [`Session`] is one conversation. The front end calls [`Session::send`] with an event
//! name and the user's input and gets back a [`Response`]: the text to show and the next actions. While an
//! invoker state's DAG runs, only `poll` is offered (any other event is refused); when the DAG is done, its
//! last task's output is sent as the input of the state's event, under the same lock that removes the
//! finished progress, so an invoker → invoker transition is seen as one running task with fresh progress.
//! When the work fails, the state's `on_failure` policy decides what follows (see [`FailurePolicy`]).
//!
//! Everything a session knows is its [`Model`], which serializes; [`Flow::resume`] continues from it. A
//! conversation served by several processes keeps its model in a store instead: see [`Worker`].
//!
//! [`FailurePolicy`]: super::FailurePolicy
//! [`Worker`]: super::Worker

use std::fmt::{self, Debug, Formatter};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;
use tokio::runtime::Handle;
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::machine::{GenieError, GenieMachine, GenieSpec};
use super::model::{Model, Response};
use super::run::{self, Home};
use super::tasks::Invoker;
use super::templates::Templates;
use super::turn::{self, FlowInner};
use super::{Actor, ChatHistory, StateType};

/// What every session of one machine shares: its templates, the invoker, and the Tokio runtime work runs on.
/// Cloning a flow is cheap.
pub struct Flow<S: GenieSpec> {
    pub(crate) inner: Arc<FlowInner<S::Work>>,
}

impl<S: GenieSpec> Clone for Flow<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: GenieSpec> Debug for Flow<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flow")
            .field("templates", &self.inner.templates)
            .finish_non_exhaustive()
    }
}

/// The owner of work run by a session in memory: its lease never runs out.
const IN_MEMORY: &str = "memory";

impl<S: GenieSpec> Flow<S> {
    /// A flow with the machine's own templates (as read when the spec was compiled) and `invoker`, running
    /// work on the current Tokio runtime.
    pub fn new(invoker: impl Invoker<S::Work>) -> Result<Self, GenieError> {
        Self::with_templates(invoker, Templates::new(S::templates().iter().copied())?)
    }

    /// A flow with `templates` instead of the machine's own.
    pub fn with_templates(
        invoker: impl Invoker<S::Work>,
        templates: Templates,
    ) -> Result<Self, GenieError> {
        let handle = Handle::try_current().map_err(|_| GenieError::NoRuntime)?;
        Ok(Self {
            inner: Arc::new(FlowInner {
                templates,
                invoker: Arc::new(invoker),
                handle,
            }),
        })
    }

    /// The model of a new conversation with `context`: the start state entered. A user start state's
    /// template, rendered, is the opening utterance; an invoker start state plans its work (which renders its
    /// template when it runs). No hook runs: no transition was made.
    pub(crate) fn open<C>(&self, context: C) -> Result<Model<S, C>, GenieError>
    where
        S: GenieMachine<C>,
        C: Clone + Serialize,
    {
        let mut model = Model::new(S::START, context);
        match S::START.state_type() {
            StateType::User => {
                let rendered = turn::render(
                    &self.inner.templates,
                    &model.context,
                    S::START,
                    "",
                    &ChatHistory::new(),
                )?;
                model.dialogue.push(Actor::Assistant, rendered.clone());
                model.output = Some(rendered);
                model.actor = Actor::User;
            }
            StateType::Invoker => turn::start_task(&self.inner, &mut model, String::new())?,
        }
        Ok(model)
    }

    /// Starts a conversation with `context`, in memory, in the start state: a user start state's template,
    /// rendered, is the opening utterance; an invoker start state plans its work. No hook runs: no transition
    /// was made.
    pub fn start<C>(&self, context: C) -> Result<(Session<S, C>, Response), GenieError>
    where
        S: GenieMachine<C>,
        C: Clone + Serialize + Send + 'static,
    {
        let model = self.open(context)?;
        let session = Session::new(self.clone(), model);
        let response = session.poll();
        Ok((session, response))
    }

    /// Continues a session from its `model` (a snapshot, e.g. deserialized), once [checked](Model) against the
    /// machine: a DAG that was in flight runs its unfinished tasks (a task that was running when the snapshot
    /// was taken runs again); whoever ran it before does not any more.
    pub fn resume<C>(&self, mut model: Model<S, C>) -> Result<Session<S, C>, GenieError>
    where
        S: GenieMachine<C>,
        C: Clone + Serialize + Send + 'static,
    {
        model.check()?;
        if let Some(task) = model.task.as_mut() {
            task.lease = None;
        }
        Ok(Session::new(self.clone(), model))
    }
}

/// One conversation, in memory. A cheap handle: clones share the conversation.
pub struct Session<S: GenieSpec, C> {
    shared: Arc<Shared<S, C>>,
}

struct Shared<S: GenieSpec, C> {
    memory: Arc<Memory<S, C>>,
    flow: Flow<S>,
}

/// A session's model in memory, and what the run of its work needs to reach it.
struct Memory<S: GenieSpec, C> {
    model: Mutex<Model<S, C>>,
    flow: Arc<FlowInner<S::Work>>,
    /// Bumped on every change, for those waiting on the session.
    version: watch::Sender<u64>,
    /// The background run of the current DAG, so that [`Session::close`] can stop it.
    runner: Mutex<Option<AbortHandle>>,
}

impl<S: GenieSpec, C> Clone for Session<S, C> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S: GenieSpec, C> Debug for Session<S, C> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

/// A lock whose holder panicked still guards a consistent model: every transition is built on a copy and
/// swapped in whole, and the other changes are single assignments.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S, C> Home<S, C> for Memory<S, C>
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    fn with(&self, step: &mut dyn FnMut(&mut Model<S, C>) -> bool) -> Result<(), GenieError> {
        let changed = step(&mut lock(&self.model));
        if changed {
            self.version.send_modify(|v| *v = v.wrapping_add(1));
        }
        Ok(())
    }

    fn lease(&self) -> (&str, u64) {
        (IN_MEMORY, u64::MAX)
    }

    fn heartbeat(&self) -> Option<Duration> {
        None
    }

    fn spawn(self: Arc<Self>, id: u64) {
        let flow = Arc::clone(&self.flow);
        let home: Arc<dyn Home<S, C>> = self.clone();
        let handle = self.flow.handle.spawn(run::run(flow, home, id));
        // The run this replaces has ended: its DAG finished (and started this one) or failed (and is retried).
        *lock(&self.runner) = Some(handle.abort_handle());
    }
}

impl<S, C> Session<S, C>
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    fn new(flow: Flow<S>, model: Model<S, C>) -> Self {
        let memory = Arc::new(Memory {
            model: Mutex::new(model),
            flow: Arc::clone(&flow.inner),
            version: watch::Sender::new(0),
            runner: Mutex::new(None),
        });
        let session = Self {
            shared: Arc::new(Shared { memory, flow }),
        };
        session.apply(|_, _| Ok(false)).ok();
        session
    }

    /// Applies `op` to the model under the lock, claims work that nobody runs, starts its run, and answers
    /// what a poll would.
    fn apply(
        &self,
        op: impl FnOnce(&FlowInner<S::Work>, &mut Model<S, C>) -> Result<bool, GenieError>,
    ) -> Result<Response, GenieError> {
        let memory = &self.shared.memory;
        let mut op = Some(op);
        let mut result = Err(GenieError::NothingFailed);
        let mut claimed = None;
        memory.with(&mut |model| {
            let Some(op) = op.take() else { return false };
            match op(&self.shared.flow.inner, model) {
                Ok(changed) => {
                    claimed = turn::claim(model, IN_MEMORY, run::now_ms(), u64::MAX);
                    result = Ok(model.response());
                    changed || claimed.is_some()
                }
                Err(e) => {
                    result = Err(e);
                    false
                }
            }
        })?;
        if let Some(id) = claimed {
            Arc::clone(memory).spawn(id);
        }
        result
    }

    /// Sends `event` with the user's `input`. `poll` just reports; `retry` and `abandon` act on failed work
    /// that waits (see [`Session::retry`], [`Session::abandon`]). While work runs every other event is refused;
    /// a refused event, a rejected input or a template that fails to render leave the session as it was.
    pub fn send(&self, event: &str, input: &str) -> Result<Response, GenieError> {
        self.apply(|flow, model| turn::send(flow, model, event, input))
    }

    /// What `send("poll", "")` answers: the output and next actions, or progress while work runs.
    pub fn poll(&self) -> Response {
        lock(&self.shared.memory.model).response()
    }

    /// Runs the failed work of the current invoker state again: the tasks that finished keep their outputs.
    pub fn retry(&self) -> Result<Response, GenieError> {
        self.apply(|_, model| turn::retry(model).map(|()| true))
    }

    /// Gives the failed work up and takes the state's way out: its failure event (`on_failure = EVENT;`), else
    /// its event with an empty input, as `on_failure continue;` does. The failure stays shown until the user's
    /// next event.
    pub fn abandon(&self) -> Result<Response, GenieError> {
        self.apply(|flow, model| turn::abandon(flow, model).map(|()| true))
    }

    /// Waits until no work runs (done, or failed and waiting) and returns what a poll would.
    pub async fn idle(&self) -> Response {
        let mut updates = self.updates();
        loop {
            {
                let model = lock(&self.shared.memory.model);
                if model.running().is_none() {
                    return model.response();
                }
            }
            if updates.changed().await.is_err() {
                return self.poll();
            }
        }
    }

    /// A receiver that sees a new value after every change of the session (a transition, a finished task):
    /// for a front end that pushes progress rather than waiting for polls.
    pub fn updates(&self) -> watch::Receiver<u64> {
        self.shared.memory.version.subscribe()
    }

    /// A copy of everything the session knows, to serialize; [`Flow::resume`] continues from it.
    pub fn snapshot(&self) -> Model<S, C> {
        lock(&self.shared.memory.model).clone()
    }

    /// The machine's state.
    pub fn state(&self) -> S {
        lock(&self.shared.memory.model).state
    }

    /// The dialogue so far: the chat history.
    pub fn dialogue(&self) -> ChatHistory {
        lock(&self.shared.memory.model).dialogue.clone()
    }

    /// A copy of the user's context.
    pub fn context(&self) -> C {
        lock(&self.shared.memory.model).context.clone()
    }

    /// Stops the work running in the background (its tasks are dropped); the model keeps the DAG in flight,
    /// so a snapshot taken now resumes it.
    pub fn close(&self) {
        if let Some(runner) = lock(&self.shared.memory.runner).take() {
            runner.abort();
        }
    }
}
