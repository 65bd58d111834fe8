//! Genie Flow support: transition types, dialogue persistence, the chat history and the turn every hook
//! of a Genie machine sees, and — with the `genie` feature — sessions that render Jinja2 templates and run
//! invoker work as a DAG of asynchronous tasks, in memory ([`Session`]) or in a shared store with a lock per
//! session ([`Worker`] over a [`SessionStore`]).
//!
//! A Genie state is a `user` state (waiting for the user) or an `invoker` state (running asynchronous work).
//! The pair (source type, target type) of a transition decides who the actor is and what enters the dialogue.
//!
//! The types here are always available (they cost nothing), and so is what a generated machine implements for
//! sessions; what needs a template engine and an async runtime — `Flow`, `Session`, `Templates`, the task DAG —
//! is behind the runtime's `genie` feature. `docs/genie.md` walks through a whole session.

// The module's docs link sessions and workers, which exist only with the `genie` feature: without it the links
// cannot resolve, and are left as text rather than dropped from the docs of a build that has them.
#![cfg_attr(not(feature = "genie"), allow(rustdoc::broken_intra_doc_links))]

// What generated code provides, and what it calls here (the contract with the code generator): a `genie`
// machine's `State` implements `GenieSpec` (its facts: name, start, each state's `StateType`, template,
// accepted event names, the typed name of the work an invoker state runs (`type Work`, the module's `Work`
// enum) and its `FailurePolicy`, and the template sources read at compile time) and, for every context
// implementing its `Hooks`, `GenieMachine`, whose `step` fires an event by name with the `Turn` as every hook's
// `t.profile` and returns the `Step` taken, or a `GenieError` built with `GenieError::unknown_event` or
// `GenieError::refused`. Its own functions name `StateType`, `TransitionType`, `Persistence`,
// `FailurePolicy` and `POLL`. `GenieSpec`, `GenieMachine`, `Step` and the two constructors are hidden from the
// documentation: sessions use them, users do not.

mod chat;
mod machine;
#[cfg(feature = "genie")]
mod model;
#[cfg(feature = "genie")]
mod run;
#[cfg(feature = "genie")]
mod session;
#[cfg(feature = "genie")]
mod store;
#[cfg(feature = "genie")]
mod tasks;
#[cfg(feature = "genie")]
mod templates;
#[cfg(feature = "genie")]
mod turn;

pub use chat::{ChatHistory, TaskProgress, Turn, Utterance};
pub use machine::{Failure, FailurePolicy, GenieError, GenieMachine, GenieSpec, Step};
#[cfg(feature = "genie")]
pub use model::{Model, Response};
#[cfg(feature = "genie")]
pub use session::{Flow, Session};
#[cfg(feature = "genie")]
pub use store::{SessionStore, StoreError, StoreLock, Worker};
#[cfg(feature = "genie")]
pub use tasks::{Invocation, Invoker, TaskCall, TaskError, TaskFuture, TaskGraph, TaskNode};
#[cfg(feature = "genie")]
pub use templates::Templates;

// The events the runtime answers itself (`poll`; `retry` and `abandon` while failed work waits) are words of
// the language too: a Genie machine cannot declare them.
pub use fsmc_vocab::genie::{ABANDON, POLL, RETRY};

// A state's type and what a transition records are words of the language: the compiler reads the same ones.
pub use fsmc_vocab::genie::{Persistence, StateType};

/// Who produced an utterance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Actor {
    /// The person using the flow (input sent through the API).
    User,
    /// The invoker's output.
    Assistant,
}

impl Actor {
    /// `user` or `assistant`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// The (source, target) state types of a transition, which fix its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TransitionType {
    /// The source state's type.
    pub from: StateType,
    /// The target state's type.
    pub to: StateType,
}

impl TransitionType {
    /// The transition type from `from` to `to`.
    pub const fn new(from: StateType, to: StateType) -> Self {
        Self { from, to }
    }

    /// Genie's default persistence, which a spec may override per transition:
    /// user→user `Rendered`, user→invoker `Raw`, invoker→user `Rendered`, invoker→invoker `None`
    /// (an invoker's output fed to the next invoker is technical and stays out of the chat).
    pub const fn default_persistence(self) -> Persistence {
        Persistence::default_for(self.from, self.to)
    }

    /// The actor of the transition, decided by the source: a user state's event comes from the
    /// user, an invoker state's from the assistant.
    pub const fn actor(self) -> Actor {
        match self.from {
            StateType::User => Actor::User,
            StateType::Invoker => Actor::Assistant,
        }
    }

    /// Whether entering the target starts a task (it does exactly when the target is an invoker).
    pub const fn starts_task(self) -> bool {
        matches!(self.to, StateType::Invoker)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use StateType::{Invoker, User};

    #[test]
    fn transition_type_table() {
        let table = [
            (User, User, Actor::User, Persistence::Rendered, false),
            (User, Invoker, Actor::User, Persistence::Raw, true),
            (
                Invoker,
                User,
                Actor::Assistant,
                Persistence::Rendered,
                false,
            ),
            (Invoker, Invoker, Actor::Assistant, Persistence::None, true),
        ];
        for (from, to, actor, persistence, task) in table {
            let t = TransitionType::new(from, to);
            assert_eq!(t.actor(), actor, "{t:?}");
            assert_eq!(t.default_persistence(), persistence, "{t:?}");
            assert_eq!(t.starts_task(), task, "{t:?}");
        }
    }
}
