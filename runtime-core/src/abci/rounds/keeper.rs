//! The only-keeper-sends round and the degenerate (final) round.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use super::{Collection, Outcome, Participants, Round, RoundError, RoundKind};

/// Only the keeper submits: done with its value if it sends `Some`, `Fail` if it sends `None`.
///
/// Anyone else is rejected with [`RoundError::NotKeeper`] (or [`RoundError::NotAParticipant`] if
/// not a participant at all). If the keeper never sends, the round stays undecided and the spec's
/// timeout event moves on; the next round is built with the next keeper
/// ([`Participants::with_keeper`]). A round built from participants without a keeper rejects every
/// payload with [`RoundError::NoKeeper`]: it can only end by its timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlyKeeperSends<P: Ord, T> {
    pub(super) collection: Collection<P, Option<T>>,
}

impl<P: Ord + Clone, T: Ord + Clone> OnlyKeeperSends<P, T> {
    /// An empty round whose keeper is `participants`' keeper.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }

    /// The one participant allowed to submit, if the participants have a keeper.
    pub fn keeper(&self) -> Option<&P> {
        self.collection.participants.keeper()
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for OnlyKeeperSends<P, T> {
    type Participant = P;
    type Payload = Option<T>;
    type Value = T;
    const KIND: RoundKind = RoundKind::OnlyKeeperSends;

    fn submit(&mut self, who: P, payload: Option<T>) -> Result<(), RoundError> {
        // Membership first so a stranger gets the same error as in every other round.
        if !self.collection.participants.contains(&who) {
            return Err(RoundError::NotAParticipant);
        }
        match self.keeper() {
            None => return Err(RoundError::NoKeeper),
            Some(keeper) if *keeper != who => return Err(RoundError::NotKeeper),
            Some(_) => {}
        }
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<T>> {
        match self.collection.submissions.get(self.keeper()?)? {
            Some(v) => Some(Outcome::Done(v.clone())),
            None => Some(Outcome::Fail),
        }
    }

    fn submissions(&self) -> &BTreeMap<P, Option<T>> {
        &self.collection.submissions
    }
}

/// A final round: the app has stopped here. Every submission is rejected with
/// [`RoundError::FinalRound`] and the outcome is always `None` (undecided), because a final state
/// has no outgoing events to map an outcome to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Degenerate<P: Ord, T> {
    // Always empty; kept so `submissions` can hand out a reference like every other round.
    empty: BTreeMap<P, T>,
    _payload: PhantomData<fn(T)>,
}

impl<P: Ord, T> Degenerate<P, T> {
    /// The final round. It needs no participants: nobody may submit.
    pub const fn new() -> Self {
        Self {
            empty: BTreeMap::new(),
            _payload: PhantomData,
        }
    }
}

impl<P: Ord, T> Default for Degenerate<P, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Ord, T> Round for Degenerate<P, T> {
    type Participant = P;
    type Payload = T;
    type Value = ();
    const KIND: RoundKind = RoundKind::Degenerate;

    fn submit(&mut self, _who: P, _payload: T) -> Result<(), RoundError> {
        Err(RoundError::FinalRound)
    }

    fn outcome(&self) -> Option<Outcome<()>> {
        None
    }

    fn submissions(&self) -> &BTreeMap<P, T> {
        &self.empty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_keeper(keeper: char) -> Participants<char> {
        Participants::new(['a', 'b', 'c'])
            .unwrap()
            .with_keeper(keeper)
            .unwrap()
    }

    #[test]
    fn keeper_sends_value() {
        let mut round = OnlyKeeperSends::new(&with_keeper('b'));
        assert_eq!(round.keeper(), Some(&'b'));
        assert_eq!(round.submit('a', Some("tx")), Err(RoundError::NotKeeper));
        assert_eq!(
            round.submit('z', Some("tx")),
            Err(RoundError::NotAParticipant)
        );
        assert_eq!(round.outcome(), None);
        round.submit('b', Some("tx")).unwrap();
        assert_eq!(round.outcome(), Some(Outcome::Done("tx")));
        assert_eq!(round.submit('b', None), Err(RoundError::AlreadySubmitted));
    }

    #[test]
    fn keeper_sends_nothing_is_fail() {
        let mut round = OnlyKeeperSends::<char, u8>::new(&with_keeper('a'));
        round.submit('a', None).unwrap();
        assert_eq!(round.outcome(), Some(Outcome::Fail));
    }

    #[test]
    fn keeper_round_without_keeper_rejects_everyone() {
        let p = Participants::new([1, 2]).unwrap();
        let mut round = OnlyKeeperSends::<i32, i32>::new(&p);
        assert_eq!(round.keeper(), None);
        assert_eq!(round.submit(1, Some(1)), Err(RoundError::NoKeeper));
        assert_eq!(round.submit(7, Some(1)), Err(RoundError::NotAParticipant));
        assert_eq!(round.outcome(), None);
    }

    #[test]
    fn degenerate_rejects_everything() {
        let mut round = Degenerate::<u8, u8>::default();
        assert_eq!(round.submit(1, 1), Err(RoundError::FinalRound));
        assert_eq!(round.outcome(), None);
        assert!(round.submissions().is_empty());
        assert!(<Degenerate<u8, u8> as Round>::KIND.is_final());
    }
}
