//! A Genie session's state: its dialogue and the progress of the running invoker task.

use std::error::Error;
use std::fmt::{self, Display, Formatter};

use super::{Actor, Persistence, TransitionType};

/// How far an invoker's task has got: `done` of `total` steps, with `done ≤ total` always.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TaskProgress {
    done: u32,
    total: u32,
}

impl TaskProgress {
    /// A task of `total` steps, none done.
    pub const fn new(total: u32) -> Self {
        Self { done: 0, total }
    }

    /// Steps completed.
    pub const fn done(self) -> u32 {
        self.done
    }

    /// Steps in the task.
    pub const fn total(self) -> u32 {
        self.total
    }

    /// Steps still to do.
    pub const fn remaining(self) -> u32 {
        self.total.saturating_sub(self.done)
    }

    /// Whether every step is done.
    pub const fn is_finished(self) -> bool {
        self.done >= self.total
    }

    /// Marks `steps` more steps done, stopping at `total`: a late or duplicated completion report
    /// cannot push progress past 100 %.
    pub fn advance(&mut self, steps: u32) {
        self.done = self.done.saturating_add(steps).min(self.total);
    }
}

/// One entry of the chat history.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Utterance {
    /// Who said it.
    pub actor: Actor,
    /// What was stored.
    pub text: String,
}

/// The chat history, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Dialogue {
    utterances: Vec<Utterance>,
}

impl Dialogue {
    /// An empty dialogue.
    pub const fn new() -> Self {
        Self {
            utterances: Vec::new(),
        }
    }

    /// Applies `persistence`: stores `raw` (`Raw`), `rendered` (`Rendered`) or nothing (`None`)
    /// as said by `actor`. Returns whether something was stored.
    pub fn record(
        &mut self,
        persistence: Persistence,
        actor: Actor,
        raw: &str,
        rendered: &str,
    ) -> bool {
        let text = match persistence {
            Persistence::None => return false,
            Persistence::Raw => raw,
            Persistence::Rendered => rendered,
        };
        self.utterances.push(Utterance {
            actor,
            text: text.to_owned(),
        });
        true
    }

    /// All utterances, oldest first.
    pub fn utterances(&self) -> &[Utterance] {
        &self.utterances
    }
}

/// [`Session::advance_task`] was called while no task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NoActiveTask;

impl Display for NoActiveTask {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("no invoker task is running in this session")
    }
}

impl Error for NoActiveTask {}

/// One conversation: its dialogue and, while an invoker state works, its task progress.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Session {
    dialogue: Dialogue,
    task: Option<TaskProgress>,
}

impl Session {
    /// The one event offered while a task runs.
    pub const POLL: &'static str = "poll";

    /// A session with an empty dialogue and no task.
    pub const fn new() -> Self {
        Self {
            dialogue: Dialogue::new(),
            task: None,
        }
    }

    /// Carries out the bookkeeping of one transition of type `transition`: records the text per
    /// `persistence` (the spec's override, else [`TransitionType::default_persistence`]) with the
    /// transition's actor, ends the running task if any (a transition out of an invoker state
    /// means its work finished), and starts a task of `task_steps` steps if the target is an
    /// invoker. As upstream, an invoker→invoker transition restarts progress at zero.
    ///
    /// Returns whether something was stored in the dialogue.
    pub fn transition(
        &mut self,
        transition: TransitionType,
        persistence: Persistence,
        raw: &str,
        rendered: &str,
        task_steps: u32,
    ) -> bool {
        let stored = self
            .dialogue
            .record(persistence, transition.actor(), raw, rendered);
        self.task = transition
            .starts_task()
            .then(|| TaskProgress::new(task_steps));
        stored
    }

    /// Marks `steps` more steps of the running task done.
    pub fn advance_task(&mut self, steps: u32) -> Result<TaskProgress, NoActiveTask> {
        let task = self.task.as_mut().ok_or(NoActiveTask)?;
        task.advance(steps);
        Ok(*task)
    }

    /// Ends the running task (e.g. it failed or was cancelled) and returns its last progress.
    pub fn finish_task(&mut self) -> Option<TaskProgress> {
        self.task.take()
    }

    /// The running task's progress, if a task runs.
    pub fn task(&self) -> Option<TaskProgress> {
        self.task
    }

    /// Whether an invoker task runs.
    pub fn is_task_running(&self) -> bool {
        self.task.is_some()
    }

    /// The events the user may send now: only [`Session::POLL`] while a task runs, else
    /// `accepted`, which the generated code supplies (the current state's accepted event names).
    pub fn next_actions<'a>(&self, accepted: &'a [&'a str]) -> &'a [&'a str] {
        if self.is_task_running() {
            &[Self::POLL]
        } else {
            accepted
        }
    }

    /// The dialogue so far.
    pub fn dialogue(&self) -> &Dialogue {
        &self.dialogue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::genie::StateType::{Invoker, User};

    #[test]
    fn task_progress_never_exceeds_total() {
        let mut p = TaskProgress::new(3);
        assert!(!p.is_finished());
        p.advance(2);
        assert_eq!((p.done(), p.remaining()), (2, 1));
        p.advance(u32::MAX);
        assert_eq!(p.done(), 3);
        assert!(p.is_finished());
        assert!(TaskProgress::new(0).is_finished());
    }

    #[test]
    fn dialogue_applies_persistence() {
        let mut d = Dialogue::new();
        assert!(!d.record(Persistence::None, Actor::Assistant, "raw", "shown"));
        assert!(d.record(Persistence::Raw, Actor::User, "raw", "shown"));
        assert!(d.record(Persistence::Rendered, Actor::Assistant, "raw", "shown"));
        let texts: Vec<_> = d
            .utterances()
            .iter()
            .map(|u| (u.actor, u.text.as_str()))
            .collect();
        assert_eq!(texts, [(Actor::User, "raw"), (Actor::Assistant, "shown")]);
    }

    #[test]
    fn session_offers_only_poll_while_task_runs() {
        const ACCEPTED: &[&str] = &["user_input", "reset"];
        let mut s = Session::new();
        assert_eq!(s.next_actions(ACCEPTED), ACCEPTED);
        assert_eq!(s.advance_task(1), Err(NoActiveTask));

        let to_invoker = TransitionType::new(User, Invoker);
        assert!(s.transition(to_invoker, to_invoker.default_persistence(), "hi", "", 2));
        assert_eq!(s.next_actions(ACCEPTED), ["poll"]);
        assert_eq!(s.advance_task(1).map(TaskProgress::done), Ok(1));

        // Invoker → invoker: nothing stored, a fresh task replaces the old one.
        let chain = TransitionType::new(Invoker, Invoker);
        assert!(!s.transition(chain, chain.default_persistence(), "tmp", "tmp!", 5));
        assert_eq!(s.task(), Some(TaskProgress::new(5)));

        let back = TransitionType::new(Invoker, User);
        assert!(s.transition(back, back.default_persistence(), "out", "<p>out</p>", 0));
        assert!(!s.is_task_running());
        assert_eq!(s.next_actions(ACCEPTED), ACCEPTED);
        let texts: Vec<_> = s
            .dialogue()
            .utterances()
            .iter()
            .map(|u| u.text.as_str())
            .collect();
        assert_eq!(texts, ["hi", "<p>out</p>"]);
    }

    #[test]
    fn finish_task_clears_it() {
        let mut s = Session::new();
        s.transition(
            TransitionType::new(User, Invoker),
            Persistence::None,
            "",
            "",
            1,
        );
        assert_eq!(s.finish_task(), Some(TaskProgress::new(1)));
        assert_eq!(s.finish_task(), None);
    }
}
