//! The run of one invoker DAG: its template rendered (the prompt), every task started as soon as the tasks it
//! needs are done, each output recorded with the progress, and at the end the state's event sent.
//!
//! The run is linear in the size of the DAG: each task's count of unfinished dependencies is kept, and a
//! finished task decrements only its own dependents' counts (listed once, by [`TaskGraph::dependents`]), so
//! no step looks at the whole DAG. The model lives in a [`Home`] (a session's memory, or a store behind a lock);
//! the run reaches it only through [`Home::with`], one short step at a time.
//!
//! [`TaskGraph::dependents`]: super::tasks::TaskGraph::dependents

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::task::JoinSet;

use super::machine::{GenieError, GenieMachine, GenieSpec};
use super::model::{Model, Task};
use super::tasks::{TaskCall, TaskError};
use super::turn::{self, FlowInner};

/// Where a session's model lives, as the run of its work reaches it.
pub(crate) trait Home<S, C>: Send + Sync + 'static {
    /// Runs `step` on the model under the session's lock, and keeps what it changed (it says whether it did).
    fn with(&self, step: &mut dyn FnMut(&mut Model<S, C>) -> bool) -> Result<(), GenieError>;

    /// Who runs work from here, and until when a claim or renewal made now holds (ms since the Unix epoch).
    fn lease(&self) -> (&str, u64);

    /// How often a run renews its lease while it waits for its tasks: `None` when a lease never runs out.
    fn heartbeat(&self) -> Option<Duration>;

    /// Starts the run of DAG `id` in the background.
    fn spawn(self: Arc<Self>, id: u64);
}

/// The milliseconds since the Unix epoch: when leases run out.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Which tasks of a DAG can start: each task's count of dependencies not yet done, each task's dependents, and
/// the tasks whose count is zero and that have not started.
struct Plan {
    pending: Vec<usize>,
    dependents: Vec<Vec<usize>>,
    ready: Vec<usize>,
}

impl Plan {
    fn new(task: &Task) -> Self {
        let done = |i: usize| task.outputs.get(i).is_some_and(Option::is_some);
        let mut pending = Vec::with_capacity(task.graph.len());
        let mut ready = Vec::new();
        for (i, node) in task.graph.tasks().iter().enumerate() {
            let waiting = node.after.iter().filter(|&&a| !done(a)).count();
            pending.push(waiting);
            if waiting == 0 && !done(i) {
                ready.push(i);
            }
        }
        Plan {
            pending,
            dependents: task.graph.dependents(),
            ready,
        }
    }

    /// Task `index` is done: its dependents whose last dependency it was become ready.
    fn done(&mut self, index: usize) {
        let Some(dependents) = self.dependents.get(index) else {
            return;
        };
        for &d in dependents {
            if let Some(waiting) = self.pending.get_mut(d) {
                *waiting = waiting.saturating_sub(1);
                if *waiting == 0 {
                    self.ready.push(d);
                }
            }
        }
    }

    /// The calls of the ready tasks, with the outputs of the tasks each needs; the ready list is emptied.
    fn calls<S: GenieSpec>(&mut self, state: S, task: &Task) -> Vec<(usize, TaskCall<S::Work>)> {
        let (Some(work), Some(prompt)) = (state.work(), &task.prompt) else {
            return Vec::new();
        };
        let tasks = task.graph.tasks();
        self.ready
            .drain(..)
            .filter_map(|index| {
                let node = tasks.get(index)?;
                let inputs = node
                    .after
                    .iter()
                    .filter_map(|&i| {
                        Some((tasks.get(i)?.name.clone(), task.outputs.get(i)?.clone()?))
                    })
                    .collect();
                let call = TaskCall {
                    state: state.name().to_owned(),
                    work,
                    task: node.name.clone(),
                    index,
                    prompt: prompt.clone(),
                    actor_input: task.input.clone(),
                    inputs,
                };
                Some((index, call))
            })
            .collect()
    }
}

/// How one step of the run went.
enum Next<W> {
    /// Start these tasks and go on.
    Go(Vec<(usize, TaskCall<W>)>),
    /// The run is over: the DAG ended, failed, or is no longer this run's. A DAG the step started next (an
    /// invoker → invoker transition, a state's way out) is `claimed`, to be run.
    Over { claimed: Option<u64> },
}

type Joined = Result<(usize, Result<String, TaskError>), tokio::task::JoinError>;

/// Runs DAG `id` of the session at `home`.
pub(crate) async fn run<S, C>(flow: Arc<FlowInner<S::Work>>, home: Arc<dyn Home<S, C>>, id: u64)
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    let mut plan: Option<Plan> = None;
    let mut running: JoinSet<(usize, Result<String, TaskError>)> = JoinSet::new();
    let mut joined: Option<Joined> = None;
    loop {
        let next = step(
            &flow,
            home.as_ref(),
            id,
            &mut plan,
            joined.take(),
            running.is_empty(),
        );
        match next {
            Next::Go(calls) => {
                for (index, call) in calls {
                    let future = flow.invoker.run(call);
                    running.spawn(async move { (index, future.await) });
                }
            }
            Next::Over { claimed } => {
                if let Some(next) = claimed {
                    Arc::clone(&home).spawn(next);
                }
                return;
            }
        }
        if running.is_empty() {
            // Nothing runs: the next step ends the DAG (its tasks were all done already) or fails it.
            continue;
        }
        joined = match home.heartbeat() {
            None => running.join_next().await,
            // While tasks run, the lease is renewed at each beat (a step with nothing joined does only that).
            Some(beat) => tokio::time::timeout(beat, running.join_next())
                .await
                .unwrap_or_default(),
        };
    }
}

/// One step of the run, under the home's lock: the prompt rendered (first step), the task that `joined`
/// recorded or its failure met, the lease renewed, and the tasks that can start now called.
fn step<S, C>(
    flow: &FlowInner<S::Work>,
    home: &dyn Home<S, C>,
    id: u64,
    plan: &mut Option<Plan>,
    joined: Option<Joined>,
    idle: bool,
) -> Next<S::Work>
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    let (owner, until) = home.lease();
    let now = now_ms();
    let mut next = Next::Over { claimed: None };
    let stored = home.with(&mut |model| {
        if !turn::renew(model, id, owner, until) {
            next = Next::Over { claimed: None };
            return false;
        }
        let over = match &joined {
            Some(Ok((index, Ok(output)))) => {
                if let Some(plan) = plan.as_mut() {
                    plan.done(*index);
                }
                !turn::record(flow, model, id, *index, output.clone())
            }
            Some(Ok((index, Err(error)))) => {
                turn::fail(flow, model, id, Some(*index), error.to_string());
                true
            }
            Some(Err(e)) => {
                let message = if e.is_panic() {
                    "the task panicked"
                } else {
                    "the task was cancelled"
                };
                turn::fail(flow, model, id, None, message.to_owned());
                true
            }
            None => start(flow, model, id, plan, idle),
        };
        if over {
            next = Next::Over {
                claimed: turn::claim(model, owner, now, until),
            };
            return true;
        }
        let state = model.state;
        next = match (model.running_mut(id), plan.as_mut()) {
            (Some(task), Some(plan)) => Next::Go(plan.calls(state, task)),
            _ => Next::Over { claimed: None },
        };
        true
    });
    match stored {
        Ok(()) => next,
        // The store failed: this run stops, and the lease it no longer renews runs out for another worker to
        // take the work over.
        Err(_) => Next::Over { claimed: None },
    }
}

/// A step with no task joined: the first (the prompt rendered and the DAG planned), a heartbeat, or — when
/// nothing runs and nothing can start — the end of a DAG whose tasks were all done already (a session resumed
/// after its last task). Returns whether the run is over.
///
/// A checked DAG always has a task that can start while any is not done (its earliest unfinished task needs
/// only earlier, finished ones), so the last case fails the work only if that were ever not so, rather than
/// leaving the session working for good.
fn start<S, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
    id: u64,
    plan: &mut Option<Plan>,
    idle: bool,
) -> bool
where
    S: GenieMachine<C>,
    C: Clone + Serialize + Send + 'static,
{
    let state = model.state;
    let Some(task) = model.running_mut(id) else {
        return true;
    };
    if task.prompt.is_none() {
        // Genie Flow renders an invoker's template in its task: a template that cannot render is the work's
        // failure, met by the state's policy, not a refusal of the event that entered the state.
        let input = task.input.clone();
        let rendered = turn::render(
            &flow.templates,
            &model.context,
            state,
            &input,
            &model.dialogue,
        );
        match rendered {
            Ok(prompt) => {
                if let Some(task) = model.running_mut(id) {
                    task.prompt = Some(prompt);
                }
            }
            Err(e) => {
                turn::fail(flow, model, id, None, e.to_string());
                return true;
            }
        }
    }
    let Some(task) = model.running_mut(id) else {
        return true;
    };
    let plan = plan.get_or_insert_with(|| Plan::new(task));
    if !idle || !plan.ready.is_empty() {
        return false;
    }
    if task.progress.is_finished() {
        turn::finish(flow, model, id);
    } else {
        let message = "no task of the DAG can start".to_owned();
        turn::fail(flow, model, id, None, message);
    }
    true
}
