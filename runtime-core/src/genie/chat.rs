//! The chat history (Genie Flow's dialogue), the progress of an invoker's task, and the turn every hook of a
//! Genie machine sees. Plain data: no template engine, no async runtime.

use std::cell::RefCell;

use super::{Actor, Persistence};

/// How far an invoker's task DAG has got: `done` of `total` tasks, with `done ≤ total` always.
///
/// As in Genie Flow, the numbers are those of the DAG that runs now: an invoker → invoker transition starts a
/// fresh DAG, and with it a fresh progress at zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TaskProgress {
    done: u32,
    total: u32,
}

impl TaskProgress {
    /// A DAG of `total` tasks, none done.
    pub const fn new(total: u32) -> Self {
        Self { done: 0, total }
    }

    /// Tasks completed.
    pub const fn done(self) -> u32 {
        self.done
    }

    /// Tasks in the DAG.
    pub const fn total(self) -> u32 {
        self.total
    }

    /// Tasks still to do.
    pub const fn remaining(self) -> u32 {
        self.total.saturating_sub(self.done)
    }

    /// Whether every task is done.
    pub const fn is_finished(self) -> bool {
        self.done >= self.total
    }

    /// Marks `tasks` more tasks done, stopping at `total`: a late or duplicated completion report cannot push
    /// progress past 100 %.
    pub fn advance(&mut self, tasks: u32) {
        self.done = self.done.saturating_add(tasks).min(self.total);
    }
}

/// One entry of the chat history.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Utterance {
    /// Who said it.
    pub actor: Actor,
    /// What was stored.
    pub text: String,
}

/// The chat history, oldest first: what Genie Flow calls the dialogue, and what a transition's persistence
/// records into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct ChatHistory {
    utterances: Vec<Utterance>,
}

impl ChatHistory {
    /// An empty history.
    pub const fn new() -> Self {
        Self {
            utterances: Vec::new(),
        }
    }

    /// Adds `text`, said by `actor`.
    pub fn push(&mut self, actor: Actor, text: impl Into<String>) {
        self.utterances.push(Utterance {
            actor,
            text: text.into(),
        });
    }

    /// Applies `persistence`: stores `raw` (`Raw`), `rendered` (`Rendered`) or nothing (`None`) as said by
    /// `actor`. Returns whether something was stored.
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
        self.push(actor, text);
        true
    }

    /// All utterances, oldest first.
    pub fn utterances(&self) -> &[Utterance] {
        &self.utterances
    }

    /// The most recent utterance.
    pub fn last(&self) -> Option<&Utterance> {
        self.utterances.last()
    }
}

/// What a Genie machine's transition carries besides its message: the actor's input, the dialogue so far,
/// and what this transition records. Every hook sees it as `t.profile`.
///
/// The persistence a transition records is decided before its hooks run (its transition type, or the spec's
/// `persist`); a hook may change it for this one transition with [`Turn::persist`], as Genie Flow lets any
/// hook before `after_transition` change `dialogue_persistence` (an enter hook is the usual place), or record
/// a derivative of the input instead with [`Turn::record`] (a note of an uploaded file rather than its
/// bytes). The last of the two calls decides.
#[derive(Debug, Default)]
pub struct Turn<'a> {
    input: &'a str,
    dialogue: &'a [Utterance],
    choice: RefCell<Option<Choice>>,
}

/// What a hook chose to record instead of the transition's default.
#[derive(Clone, Debug)]
enum Choice {
    Persist(Persistence),
    Record(String),
}

impl<'a> Turn<'a> {
    /// A turn whose event came with `input`, after `dialogue`.
    pub const fn new(input: &'a str, dialogue: &'a [Utterance]) -> Self {
        Self {
            input,
            dialogue,
            choice: RefCell::new(None),
        }
    }

    /// The input sent with the event (`actor_input`): the user's text, or the output of the invoker's DAG.
    pub const fn actor_input(&self) -> &'a str {
        self.input
    }

    /// The dialogue before this transition.
    pub const fn dialogue(&self) -> &'a [Utterance] {
        self.dialogue
    }

    /// Records `persistence` instead of the default for this transition.
    pub fn persist(&self, persistence: Persistence) {
        self.choice.replace(Some(Choice::Persist(persistence)));
    }

    /// Records `text` in the dialogue for this transition, said by the transition's actor, instead of what its
    /// persistence would record: a derivative of the input (a summary, a note of a file, the input with a
    /// secret masked). A user who started an invoker is shown it, as the dialogue's latest utterance.
    pub fn record(&self, text: impl Into<String>) {
        self.choice.replace(Some(Choice::Record(text.into())));
    }

    /// What a hook set with [`Turn::persist`], if that was the last choice made.
    pub fn persistence_override(&self) -> Option<Persistence> {
        match &*self.choice.borrow() {
            Some(Choice::Persist(p)) => Some(*p),
            _ => None,
        }
    }

    /// What a hook set with [`Turn::record`], if that was the last choice made.
    pub fn derivative(&self) -> Option<String> {
        match &*self.choice.borrow() {
            Some(Choice::Record(text)) => Some(text.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut d = ChatHistory::new();
        assert!(!d.record(Persistence::None, Actor::Assistant, "raw", "shown"));
        assert!(d.record(Persistence::Raw, Actor::User, "raw", "shown"));
        assert!(d.record(Persistence::Rendered, Actor::Assistant, "raw", "shown"));
        let texts: Vec<_> = d
            .utterances()
            .iter()
            .map(|u| (u.actor, u.text.as_str()))
            .collect();
        assert_eq!(texts, [(Actor::User, "raw"), (Actor::Assistant, "shown")]);
        assert_eq!(d.last().map(|u| u.text.as_str()), Some("shown"));
    }

    #[test]
    fn a_turn_carries_input_dialogue_and_an_override() {
        let mut d = ChatHistory::new();
        d.push(Actor::Assistant, "Hello");
        let turn = Turn::new("hi", d.utterances());
        assert_eq!(turn.actor_input(), "hi");
        assert_eq!(turn.dialogue().len(), 1);
        assert_eq!(turn.persistence_override(), None);
        turn.persist(Persistence::None);
        assert_eq!(turn.persistence_override(), Some(Persistence::None));
        assert_eq!(turn.derivative(), None);
        // The last choice decides: a derivative replaces the override, and the other way round.
        turn.record("a file of 3 bytes");
        assert_eq!(turn.persistence_override(), None);
        assert_eq!(turn.derivative().as_deref(), Some("a file of 3 bytes"));
        turn.persist(Persistence::Raw);
        assert_eq!(
            (turn.persistence_override(), turn.derivative()),
            (Some(Persistence::Raw), None)
        );
        assert_eq!(Turn::default().actor_input(), "");
    }
}
