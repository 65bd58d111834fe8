//! Genie Flow conversations (`machine M: genie`): the two state types and what a transition records in the
//! dialogue.

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
