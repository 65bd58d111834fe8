//! Round outcomes and the names of the round kinds, shared by the runtime and the compiler's checks.

use std::fmt::{self, Display, Formatter};

/// What a decided round produced. The generated code maps each variant to the event the spec
/// declares for it (conventionally `DONE`, `NONE`, `NO_MAJORITY`, `NEGATIVE`, `FAIL`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome<V> {
    /// The round reached its goal; `V` is what it agreed on or collected.
    Done(V),
    /// The agreed answer was "nothing" (an empty payload reached the threshold, or all were empty).
    None,
    /// No value can reach the threshold any more.
    NoMajority,
    /// A vote reached the threshold against the proposal.
    Negative,
    /// The keeper reported failure.
    Fail,
}

impl<V> Outcome<V> {
    /// Which variant this is, without the value.
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Self::Done(_) => OutcomeKind::Done,
            Self::None => OutcomeKind::None,
            Self::NoMajority => OutcomeKind::NoMajority,
            Self::Negative => OutcomeKind::Negative,
            Self::Fail => OutcomeKind::Fail,
        }
    }

    /// Transforms the value of `Done`, keeping every other variant.
    pub fn map<U>(self, f: impl FnOnce(V) -> U) -> Outcome<U> {
        match self {
            Self::Done(v) => Outcome::Done(f(v)),
            Self::None => Outcome::None,
            Self::NoMajority => Outcome::NoMajority,
            Self::Negative => Outcome::Negative,
            Self::Fail => Outcome::Fail,
        }
    }
}

/// The variants of [`Outcome`] without their values: what a spec maps to events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutcomeKind {
    /// [`Outcome::Done`].
    Done,
    /// [`Outcome::None`].
    None,
    /// [`Outcome::NoMajority`].
    NoMajority,
    /// [`Outcome::Negative`].
    Negative,
    /// [`Outcome::Fail`].
    Fail,
}

impl OutcomeKind {
    /// Every outcome kind, in declaration order.
    pub const ALL: &'static [Self] = &[
        Self::Done,
        Self::None,
        Self::NoMajority,
        Self::Negative,
        Self::Fail,
    ];

    /// The snake_case name (`done`, `none`, `no_majority`, `negative`, `fail`); the conventional
    /// Open Autonomy event is its upper-case form.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::None => "none",
            Self::NoMajority => "no_majority",
            Self::Negative => "negative",
            Self::Fail => "fail",
        }
    }
}

impl Display for OutcomeKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The round kinds of Open Autonomy, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoundKind {
    /// [`CollectSameUntilAll`](super::CollectSameUntilAll).
    CollectSameUntilAll,
    /// [`CollectDifferentUntilAll`](super::CollectDifferentUntilAll).
    CollectDifferentUntilAll,
    /// [`CollectSameUntilThreshold`](super::CollectSameUntilThreshold).
    CollectSameUntilThreshold,
    /// [`CollectDifferentUntilThreshold`](super::CollectDifferentUntilThreshold).
    CollectDifferentUntilThreshold,
    /// [`CollectNonEmptyUntilThreshold`](super::CollectNonEmptyUntilThreshold).
    CollectNonEmptyUntilThreshold,
    /// [`OnlyKeeperSends`](super::OnlyKeeperSends).
    OnlyKeeperSends,
    /// [`Voting`](super::Voting).
    Voting,
    /// [`Degenerate`](super::Degenerate): a final round.
    Degenerate,
}

impl RoundKind {
    /// Every round kind, in declaration order.
    pub const ALL: &'static [Self] = &[
        Self::CollectSameUntilAll,
        Self::CollectDifferentUntilAll,
        Self::CollectSameUntilThreshold,
        Self::CollectDifferentUntilThreshold,
        Self::CollectNonEmptyUntilThreshold,
        Self::OnlyKeeperSends,
        Self::Voting,
        Self::Degenerate,
    ];

    /// The snake_case name used in specs, e.g. `collect_same_until_threshold`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::CollectSameUntilAll => "collect_same_until_all",
            Self::CollectDifferentUntilAll => "collect_different_until_all",
            Self::CollectSameUntilThreshold => "collect_same_until_threshold",
            Self::CollectDifferentUntilThreshold => "collect_different_until_threshold",
            Self::CollectNonEmptyUntilThreshold => "collect_non_empty_until_threshold",
            Self::OnlyKeeperSends => "only_keeper_sends",
            Self::Voting => "voting",
            Self::Degenerate => "degenerate",
        }
    }

    /// The kind called `name` (as returned by [`RoundKind::name`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.name() == name)
    }

    /// The outcomes this kind can emit, in [`OutcomeKind`] order. A spec must give each one an
    /// event; a degenerate round emits none.
    pub const fn outcomes(self) -> &'static [OutcomeKind] {
        use OutcomeKind as O;
        match self {
            Self::CollectSameUntilAll
            | Self::CollectDifferentUntilAll
            | Self::CollectDifferentUntilThreshold => &[O::Done],
            Self::CollectSameUntilThreshold => &[O::Done, O::None, O::NoMajority],
            Self::CollectNonEmptyUntilThreshold => &[O::Done, O::None],
            Self::OnlyKeeperSends => &[O::Done, O::Fail],
            Self::Voting => &[O::Done, O::None, O::NoMajority, O::Negative],
            Self::Degenerate => &[],
        }
    }

    /// Whether this kind is final (degenerate).
    pub const fn is_final(self) -> bool {
        matches!(self, Self::Degenerate)
    }
}

impl Display for RoundKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for &kind in RoundKind::ALL {
            assert_eq!(RoundKind::from_name(kind.name()), Some(kind));
            assert_eq!(kind.to_string(), kind.name());
        }
        assert_eq!(RoundKind::from_name("CollectSameUntilAll"), None);
        assert_eq!(RoundKind::from_name(""), None);
        let mut names: Vec<_> = RoundKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RoundKind::ALL.len());
    }

    #[test]
    fn outcomes_per_kind() {
        use OutcomeKind as O;
        assert_eq!(
            RoundKind::Voting.outcomes(),
            [O::Done, O::None, O::NoMajority, O::Negative]
        );
        assert_eq!(
            RoundKind::CollectSameUntilThreshold.outcomes(),
            [O::Done, O::None, O::NoMajority]
        );
        assert_eq!(RoundKind::OnlyKeeperSends.outcomes(), [O::Done, O::Fail]);
        assert!(RoundKind::Degenerate.outcomes().is_empty());
        assert!(RoundKind::Degenerate.is_final());
        for &kind in RoundKind::ALL {
            // Listed in OutcomeKind order, so the compiler's messages are stable.
            assert!(kind.outcomes().is_sorted(), "{kind}");
            assert_eq!(kind.is_final(), kind.outcomes().is_empty(), "{kind}");
        }
    }

    #[test]
    fn outcome_kind_and_map() {
        assert_eq!(Outcome::Done(2).map(|v| v * 10), Outcome::Done(20));
        assert_eq!(Outcome::<u8>::Fail.map(|v| v * 10), Outcome::Fail);
        assert_eq!(Outcome::Done(()).kind(), OutcomeKind::Done);
        assert_eq!(Outcome::<()>::NoMajority.kind().name(), "no_majority");
        let kinds: Vec<_> = [
            Outcome::Done(()),
            Outcome::None,
            Outcome::NoMajority,
            Outcome::Negative,
            Outcome::Fail,
        ]
        .iter()
        .map(Outcome::kind)
        .collect();
        assert_eq!(kinds, OutcomeKind::ALL);
    }
}
