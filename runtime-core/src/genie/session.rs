//! Genie sessions: one conversation with a generated Genie machine, as a web front end drives it.
//!
//! A [`Flow`] holds what every session of a machine shares (its templates, the [`Invoker`], the Tokio runtime
//! its tasks run on); a [`Session`] is one conversation. The front end calls [`Session::send`] with an event
//! name and the user's input and gets back a [`Response`]: the text to show and the next actions. While an
//! invoker state's DAG runs, only `poll` is offered (any other event is refused); when the DAG is done, its
//! last task's output is sent as the input of the state's event, under the same lock that removes the
//! finished progress, so an invoker → invoker transition is seen as one running task with fresh progress.
//!
//! Everything a session knows is its [`Model`], which serializes: the state, the user's context, the
//! dialogue, and a DAG in flight with the outputs of its finished tasks. [`Flow::resume`] continues from it.

use std::fmt::{self, Debug, Formatter};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::runtime::Handle;
use tokio::sync::watch;
use tokio::task::{AbortHandle, JoinSet};

use super::machine::{Failure, GenieError, GenieMachine, GenieSpec};
use super::tasks::{Invocation, Invoker, TaskCall, TaskError, TaskGraph};
use super::templates::Templates;
use super::{Actor, ChatHistory, POLL, StateType, TaskProgress, TransitionType, Turn};

/// What the front end shows after a request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Response {
    /// The state the session is in.
    pub state: String,
    /// The text to show: the last user state's rendered template, or (right after the user started an
    /// invoker) the user's own input as the dialogue recorded it.
    pub output: Option<String>,
    /// The events the user may send: only `poll` while a task runs; none after an invoker failure or in a
    /// final state.
    pub next_actions: Vec<String>,
    /// The running DAG's progress.
    pub progress: Option<TaskProgress>,
    /// The invoker failure waiting for a retry, if any.
    pub error: Option<String>,
}

/// A DAG in flight: what it is, and what it has produced so far.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Task {
    /// Distinguishes runs: a runner whose task was replaced (a retry, a new DAG) stops.
    id: u64,
    graph: TaskGraph,
    /// The invoker state's rendered template.
    prompt: String,
    /// The input of the event that entered the state.
    input: String,
    /// Each task's output, once done.
    outputs: Vec<Option<String>>,
    progress: TaskProgress,
    /// Set when the work failed; the task stays so that a retry runs only what is not done.
    failed: Option<Failure>,
}

/// Everything a session knows; it serializes, and [`Flow::resume`] continues from it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "S: Serialize, C: Serialize",
    deserialize = "S: DeserializeOwned, C: DeserializeOwned"
))]
pub struct Model<S, C> {
    state: S,
    context: C,
    dialogue: ChatHistory,
    actor: Actor,
    actor_input: String,
    output: Option<String>,
    task: Option<Task>,
    failures: Vec<Failure>,
    next_task: u64,
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

    /// The running DAG's progress (`None` when no task runs, or it failed).
    pub fn progress(&self) -> Option<TaskProgress> {
        self.running().map(|t| t.progress)
    }

    /// The invoker failure waiting for a retry.
    pub fn failure(&self) -> Option<&Failure> {
        self.task.as_ref().and_then(|t| t.failed.as_ref())
    }

    /// Every invoker failure of the session, oldest first.
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    fn running(&self) -> Option<&Task> {
        self.task.as_ref().filter(|t| t.failed.is_none())
    }

    fn fail(&mut self, failure: Failure) {
        self.failures.push(failure.clone());
        if let Some(task) = self.task.as_mut() {
            task.failed = Some(failure);
        }
    }
}

impl<S: GenieSpec, C> Model<S, C> {
    fn response(&self) -> Response {
        let next_actions = if self.running().is_some() {
            vec![POLL.to_owned()]
        } else if self.failure().is_some() {
            Vec::new()
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
            error: self.failure().map(ToString::to_string),
        }
    }
}

/// What every session of one machine shares: its templates, the invoker, and the Tokio runtime tasks run on.
/// Cloning a flow is cheap.
pub struct Flow<S> {
    inner: Arc<FlowInner>,
    _machine: std::marker::PhantomData<fn() -> S>,
}

struct FlowInner {
    templates: Templates,
    invoker: Arc<dyn Invoker>,
    handle: Handle,
}

impl<S> Clone for Flow<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            _machine: std::marker::PhantomData,
        }
    }
}

impl<S> Debug for Flow<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flow")
            .field("templates", &self.inner.templates)
            .finish_non_exhaustive()
    }
}

impl<S: GenieSpec> Flow<S> {
    /// A flow with the machine's own templates (as read when the spec was compiled) and `invoker`, running
    /// tasks on the current Tokio runtime.
    pub fn new(invoker: impl Invoker) -> Result<Self, GenieError> {
        Self::with_templates(invoker, Templates::new(S::templates().iter().copied())?)
    }

    /// A flow with `templates` instead of the machine's own.
    pub fn with_templates(invoker: impl Invoker, templates: Templates) -> Result<Self, GenieError> {
        let handle = Handle::try_current().map_err(|_| GenieError::NoRuntime)?;
        Ok(Self {
            inner: Arc::new(FlowInner {
                templates,
                invoker: Arc::new(invoker),
                handle,
            }),
            _machine: std::marker::PhantomData,
        })
    }

    /// Starts a conversation with `context`: the start state's template, rendered, is the opening utterance.
    /// An invoker start state starts its task instead. No hook runs: no transition was made.
    pub fn start<C>(&self, context: C) -> Result<(Session<S, C>, Response), GenieError>
    where
        S: GenieMachine<C>,
        C: Clone + Serialize + Send + 'static,
    {
        let mut model = Model {
            state: S::START,
            context,
            dialogue: ChatHistory::new(),
            actor: Actor::Assistant,
            actor_input: String::new(),
            output: None,
            task: None,
            failures: Vec::new(),
            next_task: 0,
        };
        let rendered = render(
            &self.inner.templates,
            &model,
            S::START,
            "",
            &ChatHistory::new(),
        )?;
        match S::START.state_type() {
            StateType::User => {
                model.dialogue.push(Actor::Assistant, rendered.clone());
                model.output = Some(rendered);
                model.actor = Actor::User;
            }
            StateType::Invoker => start_task(&self.inner, &mut model, rendered, String::new())?,
        }
        let session = Session::new(self.clone(), model);
        let response = session.lock().response();
        session.spawn_if_running();
        Ok((session, response))
    }

    /// Continues a session from its `model` (a snapshot, e.g. deserialized): a DAG that was in flight runs
    /// its unfinished tasks (a task that was running when the snapshot was taken runs again).
    pub fn resume<C>(&self, model: Model<S, C>) -> Result<Session<S, C>, GenieError>
    where
        S: GenieMachine<C>,
        C: Clone + Serialize + Send + 'static,
    {
        if let Some(task) = &model.task {
            let total = task
                .graph
                .check()
                .map_err(|e| GenieError::Snapshot(e.to_string()))?;
            let done = task.outputs.iter().filter(|o| o.is_some()).count();
            if task.outputs.len() != task.graph.len()
                || task.progress.total() != total
                || usize::try_from(task.progress.done()).ok() != Some(done)
            {
                return Err(GenieError::Snapshot(
                    "its task outputs do not match its task DAG".into(),
                ));
            }
            // Only an invoker state runs work: a DAG recorded in a user state is not a session this machine
            // could have been in.
            if model.state.state_type() != StateType::Invoker {
                return Err(GenieError::Snapshot(format!(
                    "it has work in flight in `{}`, which is a user state",
                    model.state.name()
                )));
            }
        }
        let session = Session::new(self.clone(), model);
        session.spawn_if_running();
        Ok(session)
    }
}

/// One conversation. A cheap handle: clones share the conversation.
pub struct Session<S, C> {
    shared: Arc<Shared<S, C>>,
}

struct Shared<S, C> {
    model: Mutex<Model<S, C>>,
    flow: Flow<S>,
    /// Bumped on every change, for those waiting on the session.
    version: watch::Sender<u64>,
    /// The background run of the current DAG, so that [`Session::close`] can stop it.
    runner: Mutex<Option<AbortHandle>>,
}

impl<S, C> Clone for Session<S, C> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S, C> Debug for Session<S, C> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

/// A lock whose holder panicked still guards a consistent model: every change is built on a copy and
/// swapped in whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S, C> Session<S, C>
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    fn new(flow: Flow<S>, model: Model<S, C>) -> Self {
        Self {
            shared: Arc::new(Shared {
                model: Mutex::new(model),
                flow,
                version: watch::Sender::new(0),
                runner: Mutex::new(None),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Model<S, C>> {
        lock(&self.shared.model)
    }

    /// Sends `event` with the user's `input` (`poll` just reports). While a task runs every other event is
    /// refused; a refused event, a rejected input or a template that fails to render leave the session as
    /// it was.
    pub fn send(&self, event: &str, input: &str) -> Result<Response, GenieError> {
        let mut model = self.lock();
        if event == POLL {
            return Ok(model.response());
        }
        if let Some(task) = &model.task {
            return Err(match &task.failed {
                Some(failure) => GenieError::Failed(failure.clone()),
                None => GenieError::Busy {
                    state: model.state.name().to_owned(),
                    progress: task.progress,
                },
            });
        }
        let next = transition(&self.shared.flow.inner, &model, event, input)?;
        *model = next;
        let response = model.response();
        drop(model);
        self.changed();
        self.spawn_if_running();
        Ok(response)
    }

    /// What `send("poll", "")` answers: the output and next actions, or progress while a task runs.
    pub fn poll(&self) -> Response {
        self.lock().response()
    }

    /// Runs the failed work of the current invoker state again: the tasks that finished keep their outputs.
    pub fn retry(&self) -> Result<Response, GenieError> {
        let mut model = self.lock();
        let id = model.next_task;
        let Some(task) = model.task.as_mut().filter(|t| t.failed.is_some()) else {
            return Err(GenieError::NothingToRetry);
        };
        task.failed = None;
        task.id = id;
        model.next_task = id.wrapping_add(1);
        let response = model.response();
        drop(model);
        self.changed();
        self.spawn_if_running();
        Ok(response)
    }

    /// Waits until no task runs (done, or failed) and returns what a poll would.
    pub async fn idle(&self) -> Response {
        let mut updates = self.shared.version.subscribe();
        loop {
            {
                let model = self.lock();
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
        self.shared.version.subscribe()
    }

    /// A copy of everything the session knows, to serialize; [`Flow::resume`] continues from it.
    pub fn snapshot(&self) -> Model<S, C> {
        self.lock().clone()
    }

    /// The machine's state.
    pub fn state(&self) -> S {
        self.lock().state
    }

    /// The dialogue so far: the chat history.
    pub fn dialogue(&self) -> ChatHistory {
        self.lock().dialogue.clone()
    }

    /// A copy of the user's context.
    pub fn context(&self) -> C {
        self.lock().context.clone()
    }

    /// Stops the work running in the background (its tasks are dropped); the model keeps the DAG in flight,
    /// so a snapshot taken now resumes it.
    pub fn close(&self) {
        if let Some(runner) = lock(&self.shared.runner).take() {
            runner.abort();
        }
    }

    fn changed(&self) {
        self.shared.version.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Starts the background run of the current DAG, if one should run.
    fn spawn_if_running(&self) {
        let Some(id) = self.lock().running().map(|t| t.id) else {
            return;
        };
        let session = self.clone();
        let handle = self
            .shared
            .flow
            .inner
            .handle
            .spawn(async move { session.run(id).await });
        // The run this replaces has ended: its DAG finished (and started this one) or failed (and is retried).
        *lock(&self.shared.runner) = Some(handle.abort_handle());
    }

    /// Runs DAG `id`: every task as soon as the tasks it needs are done, recording each output and the
    /// progress; at the end, sends the state's event with the last output.
    async fn run(&self, id: u64) {
        let invoker = Arc::clone(&self.shared.flow.inner.invoker);
        let mut running: JoinSet<(usize, Result<String, TaskError>)> = JoinSet::new();
        let mut started: Vec<bool> = Vec::new();
        loop {
            let calls = {
                let model = self.lock();
                let Some(task) = model.running().filter(|t| t.id == id) else {
                    return;
                };
                if started.len() != task.graph.len() {
                    started = task.outputs.iter().map(Option::is_some).collect();
                }
                ready(model.state.name(), task, &mut started)
            };
            for (index, call) in calls {
                let future = invoker.run(call);
                running.spawn(async move { (index, future.await) });
            }
            match running.join_next().await {
                // Every task was done already (a session resumed after its last task): end the DAG now.
                None => {
                    let mut model = self.lock();
                    self.finish(&mut model, id);
                    drop(model);
                    self.changed();
                    self.spawn_if_running();
                    return;
                }
                Some(Ok((index, Ok(output)))) => self.record(id, index, output),
                Some(Ok((index, Err(error)))) => {
                    self.fail(id, Some(index), error.to_string());
                    return;
                }
                Some(Err(panicked)) => {
                    let message = if panicked.is_panic() {
                        "the task panicked".to_owned()
                    } else {
                        "the task was cancelled".to_owned()
                    };
                    self.fail(id, None, message);
                    return;
                }
            }
        }
    }

    /// Records task `index`'s output. The last task's output ends the DAG under the same lock (see
    /// [`Session::finish`]), so no poll sees a finished DAG that has not sent its event.
    fn record(&self, id: u64, index: usize, output: String) {
        let mut model = self.lock();
        let Some(task) = model.task.as_mut().filter(|t| t.id == id) else {
            return;
        };
        if let Some(slot) = task.outputs.get_mut(index) {
            if slot.is_none() {
                task.progress.advance(1);
            }
            *slot = Some(output);
        }
        let finished = task.outputs.iter().all(Option::is_some);
        if finished {
            self.finish(&mut model, id);
        }
        drop(model);
        self.changed();
        // A finished DAG may have started the next invoker's; this run goes on with its own DAG otherwise.
        if finished {
            self.spawn_if_running();
        }
    }

    fn fail(&self, id: u64, index: Option<usize>, message: String) {
        let mut model = self.lock();
        let Some(task) = model.task.as_ref().filter(|t| t.id == id) else {
            return;
        };
        let failure = Failure {
            state: model.state.name().to_owned(),
            task: index.and_then(|i| task.graph.tasks().get(i).map(|t| t.name.clone())),
            message,
        };
        model.fail(failure);
        drop(model);
        self.changed();
    }

    /// The DAG is done: under the lock the caller holds, its progress is removed and the state's event is sent
    /// with the last task's output, which may start the next invoker's DAG (with fresh progress). The caller
    /// then starts that DAG's run.
    fn finish(&self, model: &mut Model<S, C>, id: u64) {
        let Some(task) = model.running().filter(|t| t.id == id).cloned() else {
            return;
        };
        let output = task.outputs.last().cloned().flatten().unwrap_or_default();
        let events = model.state.accepted_names();
        let invocation = Invocation {
            state: model.state.name(),
            prompt: &task.prompt,
            actor_input: &task.input,
            events,
        };
        let chosen = self.shared.flow.inner.invoker.event(&invocation, &output);
        let event = match (chosen, events) {
            (Some(event), _) => event,
            (None, [only]) => (*only).to_owned(),
            (None, _) => {
                let names: Vec<String> = events.iter().map(|e| format!("`{e}`")).collect();
                let failure = Failure {
                    state: model.state.name().to_owned(),
                    task: None,
                    message: format!(
                        "the state sends one of {}: the invoker must choose (`Invoker::event`)",
                        names.join(", ")
                    ),
                };
                model.fail(failure);
                return;
            }
        };
        let mut ended = model.clone();
        ended.task = None;
        match transition(&self.shared.flow.inner, &ended, &event, &output) {
            Ok(next) => *model = next,
            Err(e) => {
                let failure = Failure {
                    state: model.state.name().to_owned(),
                    task: None,
                    message: e.to_string(),
                };
                model.fail(failure);
            }
        }
    }
}

/// The tasks of `task` that can start now (their dependencies done), marked started, with their calls.
fn ready(state: &str, task: &Task, started: &mut [bool]) -> Vec<(usize, TaskCall)> {
    let mut calls = Vec::new();
    for (index, node) in task.graph.tasks().iter().enumerate() {
        let done = |i: &usize| task.outputs.get(*i).is_some_and(Option::is_some);
        if started.get(index).copied().unwrap_or(true) || !node.after.iter().all(done) {
            continue;
        }
        if let Some(flag) = started.get_mut(index) {
            *flag = true;
        }
        let inputs = node
            .after
            .iter()
            .filter_map(|&i| {
                let name = task.graph.tasks().get(i)?.name.clone();
                Some((name, task.outputs.get(i)?.clone()?))
            })
            .collect();
        calls.push((
            index,
            TaskCall {
                state: state.to_owned(),
                task: node.name.clone(),
                index,
                prompt: task.prompt.clone(),
                actor_input: task.input.clone(),
                inputs,
            },
        ));
    }
    calls
}

/// Renders `state`'s template for `model`'s context, with `input` as `actor_input` and `dialogue` (the
/// dialogue before this transition records anything). The context's fields are variables too, as a Genie
/// model's properties are in its templates; `actor_input`, `dialogue` and `state` take precedence.
fn render<S, C>(
    templates: &Templates,
    model: &Model<S, C>,
    state: S,
    input: &str,
    dialogue: &ChatHistory,
) -> Result<String, GenieError>
where
    S: GenieSpec,
    C: Serialize,
{
    let context = minijinja::context! {
        actor_input => input,
        dialogue => minijinja::Value::from(minijinja::value::Serde(dialogue.utterances())),
        state => state.name(),
        ..minijinja::Value::from(minijinja::value::Serde(&model.context))
    };
    templates.render(state.template(), &context)
}

/// Plans and registers the DAG of the invoker state `model` is entering (progress at zero).
fn start_task<S, C>(
    flow: &FlowInner,
    model: &mut Model<S, C>,
    prompt: String,
    input: String,
) -> Result<(), GenieError>
where
    S: GenieSpec,
{
    let state = model.state;
    let invocation = Invocation {
        state: state.name(),
        prompt: &prompt,
        actor_input: &input,
        events: state.accepted_names(),
    };
    let graph = flow.invoker.plan(&invocation);
    let total = graph.check().map_err(|e| GenieError::Plan {
        state: state.name().to_owned(),
        message: e.to_string(),
    })?;
    let id = model.next_task;
    model.next_task = id.wrapping_add(1);
    model.task = Some(Task {
        id,
        outputs: vec![None; graph.len()],
        graph,
        prompt,
        input,
        progress: TaskProgress::new(total),
        failed: None,
    });
    Ok(())
}

/// One transition, built on a copy of `model`: the machine's step (its hooks run on the copy's context),
/// the target's template rendered, the dialogue recorded as the step's persistence says, and an invoker
/// target's DAG planned. Any error leaves `model` as it was.
fn transition<S, C>(
    flow: &FlowInner,
    model: &Model<S, C>,
    event: &str,
    input: &str,
) -> Result<Model<S, C>, GenieError>
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let mut next = model.clone();
    let from = model.state;
    let step = {
        let turn = Turn::new(input, model.dialogue.utterances());
        from.step(event, &turn, &mut next.context)?
    };
    let to = step.to;
    let kind = TransitionType::new(from.state_type(), to.state_type());
    let rendered = render(&flow.templates, &next, to, input, &model.dialogue)?;
    next.dialogue
        .record(step.persistence, kind.actor(), input, &rendered);
    next.state = to;
    next.actor_input = input.to_owned();
    match to.state_type() {
        StateType::User => {
            next.actor = Actor::User;
            next.output = Some(rendered);
        }
        StateType::Invoker => {
            next.actor = Actor::Assistant;
            // The user who started the work sees what the dialogue last recorded (their own input); between
            // two invokers the user is shown nothing new.
            if kind.from == StateType::User {
                next.output = next.dialogue.last().map(|u| u.text.clone());
            }
            start_task(flow, &mut next, rendered, input.to_owned())?;
        }
    }
    Ok(next)
}
