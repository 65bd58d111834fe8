//! What a decided round produced, with its value. The kinds of round and of outcome are the language's
//! vocabulary (`fsmc-vocab`), which the compiler reads too: one list, so the two cannot disagree.

pub use fsmc_vocab::abci::{Need, OutcomeKind, RoundKind};

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

#[cfg(test)]
mod tests {
    use super::*;

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
