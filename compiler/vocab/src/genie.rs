//! Genie Flow conversations (`machine M: genie`): the two state types, what a transition records in the
//! dialogue, what an invoker state does when its work fails, and the events the runtime answers itself.

use std::fmt::{self, Display, Formatter};

/// Whether a state waits for the user or runs an invoker (`state S: user`, `state S: invoker`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum StateType {
    /// The state waits for the user's next event.
    User,
    /// The state runs asynchronous work; the machine moves on when it finishes.
    Invoker,
}

impl StateType {
    /// Both state types.
    pub const ALL: &'static [StateType] = &[StateType::User, StateType::Invoker];

    /// The names of [`StateType::ALL`], in order.
    pub const NAMES: &'static [&'static str] = &["user", "invoker"];

    /// `user` or `invoker`, as a spec writes it and as Genie's `transition_type` names it.
    pub const fn name(self) -> &'static str {
        StateType::NAMES[self as usize]
    }

    /// The state type a spec names, if it is one.
    pub fn parse(s: &str) -> Option<StateType> {
        StateType::ALL.iter().copied().find(|t| t.name() == s)
    }
}

impl Display for StateType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a transition stores in the dialogue (`persist raw;` overrides the transition type's default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "UPPERCASE"))]
pub enum Persistence {
    /// Nothing: the text is an intermediate, technical result.
    None,
    /// The actor's input verbatim.
    Raw,
    /// The text rendered into the target state's template: what the user is shown.
    Rendered,
}

impl Persistence {
    /// Every mode, in the order messages and editors offer them (the ones a user changes to first).
    pub const ALL: &'static [Persistence] =
        &[Persistence::Raw, Persistence::Rendered, Persistence::None];

    /// `none`, `raw` or `rendered`, as a spec writes it after `persist`.
    pub const fn name(self) -> &'static str {
        match self {
            Persistence::None => "none",
            Persistence::Raw => "raw",
            Persistence::Rendered => "rendered",
        }
    }

    /// `NONE`, `RAW` or `RENDERED`, as Genie Flow spells it.
    pub const fn upstream_name(self) -> &'static str {
        match self {
            Persistence::None => "NONE",
            Persistence::Raw => "RAW",
            Persistence::Rendered => "RENDERED",
        }
    }

    /// The mode a spec names, if it is one.
    pub fn parse(s: &str) -> Option<Persistence> {
        Persistence::ALL.iter().copied().find(|p| p.name() == s)
    }

    /// Genie Flow's default for a transition from a `from` state to a `to` state, which a spec may override per
    /// transition: user→user `Rendered`, user→invoker `Raw`, invoker→user `Rendered`, invoker→invoker `None` (an
    /// invoker's output fed to the next invoker is technical and stays out of the chat).
    pub const fn default_for(from: StateType, to: StateType) -> Persistence {
        match (from, to) {
            (StateType::User, StateType::Invoker) => Persistence::Raw,
            (StateType::Invoker, StateType::Invoker) => Persistence::None,
            (_, StateType::User) => Persistence::Rendered,
        }
    }
}

impl Display for Persistence {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The event a front end sends to ask how things stand; the only one offered while an invoker works.
pub const POLL: &str = "poll";

/// The event that runs an invoker's failed work again; offered while failed work waits.
pub const RETRY: &str = "retry";

/// The event that gives failed work up and takes the state's way out; offered while failed work waits.
pub const ABANDON: &str = "abandon";

/// The events the runtime answers itself, which a Genie machine cannot declare.
pub const RESERVED_EVENTS: &[&str] = &[POLL, RETRY, ABANDON];

/// What an invoker state does when its work fails (`on_failure retry;`, `on_failure continue;`); the third
/// form, `on_failure = EVENT;`, sends an event of the machine and is not a word of this list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OnFailure {
    /// The session waits with the failure shown, offering `retry` and `abandon`.
    Retry,
    /// The state's event is sent on with an empty input and the failure shown, as Genie Flow's error handler
    /// does: the default.
    Continue,
}

impl OnFailure {
    /// Both words.
    pub const ALL: &'static [OnFailure] = &[OnFailure::Retry, OnFailure::Continue];

    /// The names of [`OnFailure::ALL`], in order.
    pub const NAMES: &'static [&'static str] = &["retry", "continue"];

    /// `retry` or `continue`, as a spec writes it.
    pub const fn name(self) -> &'static str {
        OnFailure::NAMES[self as usize]
    }

    /// The word a spec names, if it is one.
    pub fn parse(s: &str) -> Option<OnFailure> {
        OnFailure::ALL.iter().copied().find(|p| p.name() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in StateType::ALL {
            assert_eq!(StateType::parse(t.name()), Some(*t));
        }
        for p in Persistence::ALL {
            assert_eq!(Persistence::parse(p.name()), Some(*p));
            assert_eq!(p.upstream_name(), p.name().to_uppercase());
        }
        for p in OnFailure::ALL {
            assert_eq!(OnFailure::parse(p.name()), Some(*p));
        }
        assert_eq!(OnFailure::parse("abandon"), None);
    }

    #[test]
    fn defaults_follow_the_transition_type() {
        use StateType::*;
        assert_eq!(Persistence::default_for(User, User), Persistence::Rendered);
        assert_eq!(Persistence::default_for(User, Invoker), Persistence::Raw);
        assert_eq!(
            Persistence::default_for(Invoker, User),
            Persistence::Rendered
        );
        assert_eq!(
            Persistence::default_for(Invoker, Invoker),
            Persistence::None
        );
    }
}
