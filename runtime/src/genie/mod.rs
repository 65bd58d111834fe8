//! Genie Flow support: transition types, dialogue persistence, task progress and hook order (seed 001).
//!
//! A Genie state is a `user` state (waiting for the user) or an `invoker` state (running
//! asynchronous work). The pair (source type, target type) of a transition decides who the actor
//! is and what enters the dialogue. There is no async runtime here: a task is modelled as
//! [`TaskProgress`] that the caller advances as its work completes.

mod session;

pub use session::{Dialogue, NoActiveTask, Session, TaskProgress, Utterance};

/// Whether a state waits for the user or runs an invoker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateType {
    /// The state waits for the user's next event.
    User,
    /// The state runs asynchronous work; the machine moves on when it finishes.
    Invoker,
}

impl StateType {
    /// `user` or `invoker`, as in Genie's `transition_type`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Invoker => "invoker",
        }
    }
}

/// Who produced an utterance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// What a transition stores in the dialogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Persistence {
    /// Nothing: the text is an intermediate, technical result.
    None,
    /// The actor's input verbatim.
    Raw,
    /// The text rendered into the target state's template: what the user is shown.
    Rendered,
}

impl Persistence {
    /// `NONE`, `RAW` or `RENDERED`, as Genie spells them.
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "NONE",
            Self::Raw => "RAW",
            Self::Rendered => "RENDERED",
        }
    }
}

/// The (source, target) state types of a transition, which fix its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
        match (self.from, self.to) {
            (StateType::User, StateType::Invoker) => Persistence::Raw,
            (StateType::Invoker, StateType::Invoker) => Persistence::None,
            (_, StateType::User) => Persistence::Rendered,
        }
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

/// The groups of hooks run during a transition, in the order they run. Hooks inside one group
/// have no defined order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookGroup {
    /// Validators, on the source state.
    Validators,
    /// `cond` / `unless` guards, on the source state.
    Conditions,
    /// Before-transition and before-event hooks.
    Before,
    /// Exit hooks of the source state.
    Exit,
    /// On-transition and on-event hooks.
    On,
    /// The state changes to the target.
    StateUpdate,
    /// Enter hooks of the target state.
    Enter,
    /// After-transition and after-event hooks, on the target state.
    After,
}

impl HookGroup {
    /// Every group in running order; equal to the `Ord` order.
    pub const ORDER: [Self; 8] = [
        Self::Validators,
        Self::Conditions,
        Self::Before,
        Self::Exit,
        Self::On,
        Self::StateUpdate,
        Self::Enter,
        Self::After,
    ];

    /// The snake_case name, e.g. `state_update`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Validators => "validators",
            Self::Conditions => "conditions",
            Self::Before => "before",
            Self::Exit => "exit",
            Self::On => "on",
            Self::StateUpdate => "state_update",
            Self::Enter => "enter",
            Self::After => "after",
        }
    }

    /// Whether the group runs with the target as current state (after the state update).
    pub const fn in_target(self) -> bool {
        matches!(self, Self::Enter | Self::After)
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

    #[test]
    fn hook_order_is_the_genie_order() {
        let names: Vec<_> = HookGroup::ORDER.iter().map(|g| g.name()).collect();
        assert_eq!(
            names,
            [
                "validators",
                "conditions",
                "before",
                "exit",
                "on",
                "state_update",
                "enter",
                "after"
            ]
        );
        assert!(HookGroup::ORDER.is_sorted());
        assert!(HookGroup::After.in_target() && !HookGroup::On.in_target());
    }
}
