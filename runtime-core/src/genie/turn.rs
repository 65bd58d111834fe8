//! A session's rules, as functions of its [`Model`]: a transition as Genie Flow's steps order it, the requests
//! a front end sends (an event, `poll`, `retry`, `abandon`), and what becomes of an invoker's work (a task
//! done, the DAG done, a failure met by the state's policy). None of them locks, spawns or stores anything:
//! a session in memory and a store's worker run the same rules, each around its own lock.

use std::sync::Arc;

use serde::Serialize;
use tokio::runtime::Handle;

use super::machine::{Failure, FailurePolicy, GenieError, GenieMachine, GenieSpec};
use super::model::{Lease, Model, Task};
use super::tasks::{Invocation, Invoker};
use super::templates::Templates;
use super::{ABANDON, Actor, ChatHistory, POLL, Persistence, RETRY, StateType, TaskProgress};
use super::{TransitionType, Turn};

/// What every session of a machine shares: its templates, the invoker, and the Tokio runtime work runs on.
pub(crate) struct FlowInner<W> {
    pub(crate) templates: Templates,
    pub(crate) invoker: Arc<dyn Invoker<W>>,
    pub(crate) handle: Handle,
}

/// Renders `state`'s template for `context`, with `input` as `actor_input` and `dialogue`. The context's fields
/// are variables too, as a Genie model's properties are in its templates; `actor_input`, `dialogue` and
/// `state` take precedence.
pub(crate) fn render<S: GenieSpec, C: Serialize>(
    templates: &Templates,
    context: &C,
    state: S,
    input: &str,
    dialogue: &ChatHistory,
) -> Result<String, GenieError> {
    let context = minijinja::context! {
        actor_input => input,
        dialogue => minijinja::Value::from(minijinja::value::Serde(dialogue.utterances())),
        state => state.name(),
        ..minijinja::Value::from(minijinja::value::Serde(context))
    };
    templates.render(state.template(), &context)
}

/// Plans the DAG of the invoker state `model` is in, which its work runs from the start (no prompt yet: the
/// work renders it). Nobody runs it until it is claimed.
pub(crate) fn start_task<S: GenieSpec, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
    input: String,
) -> Result<(), GenieError> {
    let state = model.state;
    let plan_error = |message: String| GenieError::Plan {
        state: state.name().to_owned(),
        message,
    };
    // A checked spec gives every invoker state its work; only a hand-made `GenieSpec` could lack it.
    let work = state
        .work()
        .ok_or_else(|| plan_error("the state names no work (`runs NAME;`)".into()))?;
    let events = work_events(state);
    let invocation = Invocation {
        state: state.name(),
        work,
        actor_input: &input,
        events: &events,
    };
    let graph = flow.invoker.plan(&invocation);
    let total = graph.check().map_err(|e| plan_error(e.to_string()))?;
    model.task = Some(Task {
        id: 0,
        outputs: vec![None; graph.len()],
        graph,
        prompt: None,
        input,
        progress: TaskProgress::new(total),
        failed: None,
        lease: None,
    });
    Ok(())
}

/// One transition, built on a copy of `model` (whose work, if any, has ended): the machine's step (its hooks
/// run on the copy's context), the dialogue recorded as the step says, and the target entered. A user target
/// renders its template now; an invoker target's template is rendered by its work when it starts, as Genie
/// Flow's task renders it (only a `rendered` persistence renders it here too, for the dialogue). Any error
/// leaves `model` as it was.
pub(crate) fn transition<S, C>(
    flow: &FlowInner<S::Work>,
    model: &Model<S, C>,
    event: &str,
    input: &str,
) -> Result<Model<S, C>, GenieError>
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let mut next = model.clone();
    next.task = None;
    let from = model.state;
    let step = {
        let turn = Turn::new(input, model.dialogue.utterances());
        from.step(event, &turn, &mut next.context)?
    };
    let to = step.to;
    let kind = TransitionType::new(from.state_type(), to.state_type());
    let render_now = to.state_type() == StateType::User
        || (step.recorded.is_none() && step.persistence == Persistence::Rendered);
    let rendered = match render_now {
        true => Some(render(
            &flow.templates,
            &next.context,
            to,
            input,
            &model.dialogue,
        )?),
        false => None,
    };
    let said = match (step.recorded, step.persistence) {
        (Some(derivative), _) => Some(derivative),
        (None, Persistence::None) => None,
        (None, Persistence::Raw) => Some(input.to_owned()),
        (None, Persistence::Rendered) => rendered.clone(),
    };
    if let Some(text) = said {
        next.dialogue.push(kind.actor(), text);
    }
    next.state = to;
    next.actor_input = input.to_owned();
    match to.state_type() {
        StateType::User => {
            next.actor = Actor::User;
            next.output = rendered;
        }
        StateType::Invoker => {
            next.actor = Actor::Assistant;
            // The user who started the work sees what the dialogue last recorded (their own input, or what a
            // hook recorded instead); between two invokers the user is shown nothing new.
            if kind.from == StateType::User {
                next.output = next.dialogue.last().map(|u| u.text.clone());
            }
            start_task(flow, &mut next, input.to_owned())?;
        }
    }
    Ok(next)
}

/// A request from the front end: `poll` (changes nothing), `retry`, `abandon`, or an event of the machine with
/// the user's `input`. Returns whether the model changed; a refusal leaves it as it was.
pub(crate) fn send<S, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
    event: &str,
    input: &str,
) -> Result<bool, GenieError>
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    match event {
        POLL => return Ok(false),
        RETRY => return retry(model).map(|()| true),
        ABANDON => return abandon(flow, model).map(|()| true),
        _ => {}
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
    let mut next = transition(flow, model, event, input)?;
    // The user has moved on: the failure the conversation went past is not news any more.
    next.notice = None;
    *model = next;
    Ok(true)
}

/// Runs the failed work again: the tasks that finished keep their outputs (and a prompt that did not render
/// is rendered again).
pub(crate) fn retry<S, C>(model: &mut Model<S, C>) -> Result<(), GenieError> {
    let task = model
        .task
        .as_mut()
        .filter(|t| t.failed.is_some())
        .ok_or(GenieError::NothingFailed)?;
    task.failed = None;
    task.lease = None;
    Ok(())
}

/// Gives the failed work up and takes the state's way out: its failure event when its policy names one, else
/// its event with an empty input, as `continue` does. Refused (and nothing changes) if the machine refuses it.
pub(crate) fn abandon<S, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
) -> Result<(), GenieError>
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let failure = model.failure().cloned().ok_or(GenieError::NothingFailed)?;
    *model = go_on(flow, model, &failure)?;
    Ok(())
}

/// The transition out of an invoker state whose work failed with `failure`: its failure event (with the
/// failure as input) when its policy names one, else the event its work would send, with an empty input.
fn go_on<S, C>(
    flow: &FlowInner<S::Work>,
    model: &Model<S, C>,
    failure: &Failure,
) -> Result<Model<S, C>, GenieError>
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let (event, input) = match model.state.on_failure() {
        FailurePolicy::Send(event) => (event.to_owned(), failure.to_string()),
        FailurePolicy::Retry | FailurePolicy::Continue => {
            let event = choose_event(flow, model, "").map_err(|message| GenieError::Refused {
                state: model.state.name().to_owned(),
                event: ABANDON.to_owned(),
                message,
            })?;
            (event, String::new())
        }
    };
    let mut next = transition(flow, model, &event, &input)?;
    next.notice = Some(failure.clone());
    Ok(next)
}

/// The events an invoker state's work may send when it is done: those it accepts but its failure event, which
/// only a failure sends.
fn work_events<S: GenieSpec>(state: S) -> Vec<&'static str> {
    let failure = match state.on_failure() {
        FailurePolicy::Send(event) => Some(event),
        FailurePolicy::Retry | FailurePolicy::Continue => None,
    };
    let accepted = state.accepted_names().iter().copied();
    accepted.filter(|e| Some(*e) != failure).collect()
}

/// The event the invoker state `model` is in sends with `output`: the invoker's choice, else the only event its
/// work may send (see [`work_events`]).
fn choose_event<S: GenieSpec, C>(
    flow: &FlowInner<S::Work>,
    model: &Model<S, C>,
    output: &str,
) -> Result<String, String> {
    let state = model.state;
    let events = work_events(state);
    let (Some(work), Some(task)) = (state.work(), &model.task) else {
        return Err(format!("`{}` runs no work", state.name()));
    };
    let invocation = Invocation {
        state: state.name(),
        work,
        actor_input: &task.input,
        events: &events,
    };
    match (flow.invoker.event(&invocation, output), events.as_slice()) {
        (Some(event), _) => Ok(event),
        (None, [only]) => Ok((*only).to_owned()),
        (None, _) => {
            let names: Vec<String> = events.iter().map(|e| format!("`{e}`")).collect();
            Err(format!(
                "the state sends one of {}: the invoker must choose (`Invoker::event`)",
                names.join(", ")
            ))
        }
    }
}

/// The work of DAG `id` failed (a task, its template, its event): the failure is kept, and the state's policy
/// decides what follows: wait (`retry`), or go on (`continue`, a failure event). When going on is refused too,
/// that is kept as a second failure and the work waits, offering `retry` and `abandon`.
pub(crate) fn fail<S, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
    id: u64,
    task: Option<usize>,
    message: String,
) where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let Some(running) = model.running_mut(id) else {
        return;
    };
    running.lease = None;
    let task = task.and_then(|i| running.graph.tasks().get(i).map(|t| t.name.clone()));
    let failure = Failure {
        state: model.state.name().to_owned(),
        task,
        message,
    };
    model.failures.push(failure.clone());
    let failure = match model.state.on_failure() {
        FailurePolicy::Retry => failure,
        FailurePolicy::Continue | FailurePolicy::Send(_) => match go_on(flow, model, &failure) {
            Ok(next) => {
                *model = next;
                return;
            }
            Err(e) => {
                let stuck = Failure {
                    state: failure.state.clone(),
                    task: failure.task.clone(),
                    message: format!("{}, and going on was refused: {e}", failure.message),
                };
                model.failures.push(stuck.clone());
                stuck
            }
        },
    };
    if let Some(task) = model.task.as_mut() {
        task.failed = Some(failure);
    }
}

/// Task `index` of DAG `id` is done with `output`; the last one ends the DAG (see [`finish`]). Returns whether
/// DAG `id` is still in flight.
pub(crate) fn record<S, C>(
    flow: &FlowInner<S::Work>,
    model: &mut Model<S, C>,
    id: u64,
    index: usize,
    output: String,
) -> bool
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let Some(task) = model.running_mut(id) else {
        return false;
    };
    if let Some(slot) = task.outputs.get_mut(index) {
        if slot.is_none() {
            task.progress.advance(1);
        }
        *slot = Some(output);
    }
    if task.progress.is_finished() {
        finish(flow, model, id);
        return false;
    }
    true
}

/// DAG `id` is done: its progress goes and the state's event is sent with the last task's output, in one step
/// under the caller's lock, so no poll sees a finished DAG that has not moved on. The event may start the next
/// invoker's DAG (with fresh progress), which the caller then has claimed and run.
pub(crate) fn finish<S, C>(flow: &FlowInner<S::Work>, model: &mut Model<S, C>, id: u64)
where
    S: GenieMachine<C>,
    C: Clone + Serialize,
{
    let Some(task) = model.running_mut(id) else {
        return;
    };
    let output = task.outputs.last().cloned().flatten().unwrap_or_default();
    let event = match choose_event(flow, model, &output) {
        Ok(event) => event,
        Err(message) => return fail(flow, model, id, None, message),
    };
    match transition(flow, model, &event, &output) {
        Ok(next) => *model = next,
        Err(e) => fail(flow, model, id, None, e.to_string()),
    }
}

/// Claims the work in flight for `owner` until `until` when nobody runs it (just planned, retried, resumed)
/// or its last runner's lease ran out by `now`: the DAG gets a new run id, so a runner that lost it stops at
/// its next step. Returns the id to run.
pub(crate) fn claim<S, C>(
    model: &mut Model<S, C>,
    owner: &str,
    now: u64,
    until: u64,
) -> Option<u64> {
    let id = model.next_task;
    let task = model.task.as_mut().filter(|t| t.failed.is_none())?;
    if task.lease.as_ref().is_some_and(|l| l.until > now) {
        return None;
    }
    task.id = id;
    task.lease = Some(Lease {
        owner: owner.to_owned(),
        until,
    });
    model.next_task = id.wrapping_add(1);
    Some(id)
}

/// Extends `owner`'s lease on DAG `id` to `until`; false when the DAG is not `owner`'s to run any more.
pub(crate) fn renew<S: Copy, C>(model: &mut Model<S, C>, id: u64, owner: &str, until: u64) -> bool {
    match model
        .running_mut(id)
        .and_then(|t| t.lease.as_mut())
        .filter(|l| l.owner == owner)
    {
        Some(lease) => {
            lease.until = lease.until.max(until);
            true
        }
        None => false,
    }
}
