//! Invoker work: a DAG of asynchronous tasks that a user-supplied [`Invoker`] plans and runs.
//!
//! A DAG is data ([`TaskGraph`]: names and dependencies), not futures, so a session holding one in flight can
//! be serialized and resumed: the tasks whose outputs it recorded are not run again, the others are.

use std::fmt::{self, Display, Formatter};
use std::future::Future;
use std::pin::Pin;

/// The future of one task: its output text, or why it failed.
pub type TaskFuture = Pin<Box<dyn Future<Output = Result<String, TaskError>> + Send + 'static>>;

/// One task of a DAG.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskNode {
    /// The task's name, as the invoker knows it.
    pub name: String,
    /// The tasks (indices into the DAG) whose outputs it needs; it starts once they are all done.
    pub after: Vec<usize>,
}

/// The tasks an invoker state runs, with their dependencies.
///
/// Tasks are added in an order where each comes after the tasks it needs, so a graph has no cycle by
/// construction. The DAG is done when every task is done; the output of its last task is the input of the
/// event the invoker state then sends (as Genie Flow's final task sends the next event).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct TaskGraph {
    tasks: Vec<TaskNode>,
}

impl TaskGraph {
    /// A graph with no task yet.
    pub const fn new() -> Self {
        Self { tasks: Vec::new() }
    }

    /// A graph of one task.
    pub fn single(name: impl Into<String>) -> Self {
        Self {
            tasks: vec![TaskNode {
                name: name.into(),
                after: Vec::new(),
            }],
        }
    }

    /// Adds a task that starts once the tasks `after` are done (each an index returned by an earlier `add`);
    /// returns its index. An index that names no earlier task is an error.
    pub fn add(&mut self, name: impl Into<String>, after: &[usize]) -> Result<usize, TaskError> {
        let index = self.tasks.len();
        if let Some(bad) = after.iter().find(|&&a| a >= index) {
            return Err(TaskError::new(format!(
                "task {index} cannot come after task {bad}, which is not added before it"
            )));
        }
        self.tasks.push(TaskNode {
            name: name.into(),
            after: after.to_vec(),
        });
        Ok(index)
    }

    /// The tasks, in the order added.
    pub fn tasks(&self) -> &[TaskNode] {
        &self.tasks
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the graph has no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Each task's dependents (the tasks that name it in their `after`), built in one pass over the edges, so
    /// that the runner finds what a finished task unblocks without looking at any other task.
    pub(crate) fn dependents(&self) -> Vec<Vec<usize>> {
        let mut dependents = vec![Vec::new(); self.tasks.len()];
        for (i, t) in self.tasks.iter().enumerate() {
            for &a in &t.after {
                if let Some(d) = dependents.get_mut(a) {
                    d.push(i);
                }
            }
        }
        dependents
    }

    /// Checks what a deserialized or planned graph must hold: at least one task, no more than `u32::MAX`, and
    /// every dependency on an earlier task.
    pub(crate) fn check(&self) -> Result<u32, TaskError> {
        if self.tasks.is_empty() {
            return Err(TaskError::new("the task DAG has no task"));
        }
        let total = u32::try_from(self.tasks.len())
            .map_err(|_| TaskError::new("the task DAG has too many tasks"))?;
        for (i, t) in self.tasks.iter().enumerate() {
            if t.after.iter().any(|&a| a >= i) {
                return Err(TaskError::new(format!(
                    "task `{}` depends on a task that does not come before it",
                    t.name
                )));
            }
        }
        Ok(total)
    }
}

/// Why a task failed (or a DAG could not be planned).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TaskError {
    message: String,
}

impl TaskError {
    /// A failure explained by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The explanation.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl Display for TaskError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TaskError {}

/// What an invoker state asks of the invoker: given to [`Invoker::plan`] and [`Invoker::event`]. `W` is the
/// machine's `Work` enum: the names the spec gives invoker states' work (`runs NAME;`).
#[derive(Clone, Copy, Debug)]
pub struct Invocation<'a, W> {
    /// The invoker state's name, for messages: dispatch on `work`.
    pub state: &'a str,
    /// The work the state runs, as the spec names it.
    pub work: W,
    /// The input of the event that entered the state (`actor_input`).
    pub actor_input: &'a str,
    /// The events the state's work may send when done (those it accepts but its failure event): the DAG's
    /// last task sends one of them.
    pub events: &'a [&'static str],
}

/// One task to run, with everything it needs (owned, so its future can outlive the session's lock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskCall<W> {
    /// The invoker state's name.
    pub state: String,
    /// The work the state runs, as the spec names it.
    pub work: W,
    /// The task's name in the DAG.
    pub task: String,
    /// The task's index in the DAG.
    pub index: usize,
    /// The state's template, rendered when its work started (Genie Flow renders it in the task, not in the
    /// transition).
    pub prompt: String,
    /// The input of the event that entered the state.
    pub actor_input: String,
    /// The outputs of the tasks it depends on, as (task name, output), in the order of its `after`.
    pub inputs: Vec<(String, String)>,
}

/// The asynchronous work of invoker states (an LLM call, a retrieval, …), shared by every session of a flow.
/// `W` is the machine's `Work` enum: each invoker state names the work it runs (`runs retrieval;`), and the
/// invoker matches on it, so a name the spec and the invoker spell differently does not compile.
///
/// When a session enters an invoker state it asks the invoker to [`plan`](Invoker::plan) the state's DAG; the
/// work then starts on the Tokio runtime by rendering the state's template (the prompt), [`run`](Invoker::run)s
/// each task as soon as the tasks it needs are done, and when all are done sends the
/// [`event`](Invoker::event) with the last task's output as its input.
pub trait Invoker<W: Display>: Send + Sync + 'static {
    /// The DAG for `invocation`'s work; by default one task named after the work.
    fn plan(&self, invocation: &Invocation<'_, W>) -> TaskGraph {
        TaskGraph::single(invocation.work.to_string())
    }

    /// Runs one task.
    fn run(&self, call: TaskCall<W>) -> TaskFuture;

    /// The event the finished DAG sends, given the last task's output (empty when the work failed and the
    /// state's failure policy goes on without it); `None` (the default) sends the state's only event, and is a
    /// failure when the state accepts several.
    fn event(&self, invocation: &Invocation<'_, W>, output: &str) -> Option<String> {
        let _ = (invocation, output);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_is_built_in_dependency_order() {
        let mut g = TaskGraph::new();
        assert!(g.check().is_err());
        let a = g.add("search", &[]).unwrap();
        let b = g.add("rank", &[]).unwrap();
        let c = g.add("answer", &[a, b]).unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(g.check(), Ok(3));
        assert!(g.add("loop", &[3]).is_err());
        assert_eq!(g.len(), 3);
        assert_eq!(g.tasks()[2].after, [0, 1]);
        assert_eq!(TaskGraph::single("x").check(), Ok(1));
        assert_eq!(g.dependents(), [vec![2], vec![2], vec![]]);
    }

    #[test]
    fn a_deserialized_graph_with_a_forward_edge_is_refused() {
        let g: TaskGraph =
            serde_json::from_str(r#"[{"name":"a","after":[1]},{"name":"b","after":[]}]"#).unwrap();
        assert!(g.check().unwrap_err().message().contains("`a`"));
    }
}
