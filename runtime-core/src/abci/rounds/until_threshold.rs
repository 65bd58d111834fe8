//! The rounds decided by the consensus threshold: three collect-until-threshold kinds and voting.

use std::collections::BTreeMap;

use super::{Collection, Outcome, Participants, Round, RoundError, RoundKind, Tally, tally};

/// Participants vote for a value (`Some`) or for nothing (`None`).
///
/// Decided by the tally rule, checked after every payload, with `t` the consensus threshold:
/// * a `Some(v)` with at least `t` votes → `Done(v)`;
/// * `None` with at least `t` votes → `None`;
/// * otherwise, if `best + remaining < t` → `NoMajority`, where `best` is the highest vote count of
///   any one payload (`None` included) and `remaining` is the number of participants that have not
///   voted yet: even if all of them joined the leader it could not win;
/// * otherwise undecided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectSameUntilThreshold<P: Ord, T> {
    pub(super) collection: Collection<P, Option<T>>,
}

impl<P: Ord + Clone, T: Ord + Clone> CollectSameUntilThreshold<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for CollectSameUntilThreshold<P, T> {
    type Participant = P;
    type Payload = Option<T>;
    type Value = T;
    const KIND: RoundKind = RoundKind::CollectSameUntilThreshold;

    fn submit(&mut self, who: P, payload: Option<T>) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<T>> {
        let c = &self.collection;
        match tally(
            c.submissions.values(),
            c.remaining(),
            c.participants.threshold(),
        ) {
            Tally::Reached(Some(v)) => Some(Outcome::Done(v.clone())),
            Tally::Reached(None) => Some(Outcome::None),
            Tally::NoMajority => Some(Outcome::NoMajority),
            Tally::Open => None,
        }
    }

    fn submissions(&self) -> &BTreeMap<P, Option<T>> {
        &self.collection.submissions
    }
}

/// Collects one payload per participant; done with all payloads, by sender, as soon as the
/// threshold of participants has submitted.
///
/// As upstream, payloads need not be distinct here (only senders are): "different" refers to each
/// agent contributing its own value, e.g. its registration data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectDifferentUntilThreshold<P: Ord, T> {
    pub(super) collection: Collection<P, T>,
}

impl<P: Ord + Clone, T: Ord + Clone> CollectDifferentUntilThreshold<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for CollectDifferentUntilThreshold<P, T> {
    type Participant = P;
    type Payload = T;
    type Value = BTreeMap<P, T>;
    const KIND: RoundKind = RoundKind::CollectDifferentUntilThreshold;

    fn submit(&mut self, who: P, payload: T) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<BTreeMap<P, T>>> {
        let c = &self.collection;
        (c.submissions.len() >= c.participants.threshold())
            .then(|| Outcome::Done(c.submissions.clone()))
    }

    fn submissions(&self) -> &BTreeMap<P, T> {
        &self.collection.submissions
    }
}

/// Collects one optional payload per participant until the threshold of participants has
/// submitted; then done with the non-empty payloads by sender, or `None` if every one was empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectNonEmptyUntilThreshold<P: Ord, T> {
    pub(super) collection: Collection<P, Option<T>>,
}

impl<P: Ord + Clone, T: Ord + Clone> CollectNonEmptyUntilThreshold<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for CollectNonEmptyUntilThreshold<P, T> {
    type Participant = P;
    type Payload = Option<T>;
    type Value = BTreeMap<P, T>;
    const KIND: RoundKind = RoundKind::CollectNonEmptyUntilThreshold;

    fn submit(&mut self, who: P, payload: Option<T>) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<BTreeMap<P, T>>> {
        let c = &self.collection;
        if c.submissions.len() < c.participants.threshold() {
            return None;
        }
        let values: BTreeMap<P, T> = c
            .submissions
            .iter()
            .filter_map(|(who, v)| Some((who.clone(), v.clone()?)))
            .collect();
        Some(if values.is_empty() {
            Outcome::None
        } else {
            Outcome::Done(values)
        })
    }

    fn submissions(&self) -> &BTreeMap<P, Option<T>> {
        &self.collection.submissions
    }
}

/// A yes/no vote: `Some(true)` for, `Some(false)` against, `None` for "cannot tell".
///
/// Decided by the same tally rule as [`CollectSameUntilThreshold`]: `Some(true)` reaching the
/// threshold → `Done(ballots)`, `Some(false)` → `Negative`, `None` → `None`, and `NoMajority` once no
/// answer can reach it. As upstream, a positive vote's value is every ballot cast, by sender: what
/// the app writes into its synchronized data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voting<P: Ord> {
    pub(super) collection: Collection<P, Option<bool>>,
}

impl<P: Ord + Clone> Voting<P> {
    /// An empty vote among `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone> Round for Voting<P> {
    type Participant = P;
    type Payload = Option<bool>;
    type Value = BTreeMap<P, Option<bool>>;
    const KIND: RoundKind = RoundKind::Voting;

    fn submit(&mut self, who: P, payload: Option<bool>) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<BTreeMap<P, Option<bool>>>> {
        let c = &self.collection;
        match tally(
            c.submissions.values(),
            c.remaining(),
            c.participants.threshold(),
        ) {
            Tally::Reached(Some(true)) => Some(Outcome::Done(c.submissions.clone())),
            Tally::Reached(Some(false)) => Some(Outcome::Negative),
            Tally::Reached(None) => Some(Outcome::None),
            Tally::NoMajority => Some(Outcome::NoMajority),
            Tally::Open => None,
        }
    }

    fn submissions(&self) -> &BTreeMap<P, Option<bool>> {
        &self.collection.submissions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four participants: threshold 3.
    fn four() -> Participants<u8> {
        Participants::new([1, 2, 3, 4]).unwrap()
    }

    fn feed<R: Round>(
        round: &mut R,
        payloads: impl IntoIterator<Item = (R::Participant, R::Payload)>,
    ) {
        for (who, payload) in payloads {
            round.submit(who, payload).unwrap();
        }
    }

    #[test]
    fn same_until_threshold_done_at_threshold() {
        let mut round = CollectSameUntilThreshold::new(&four());
        feed(&mut round, [(1, Some("x")), (2, Some("y")), (3, Some("x"))]);
        assert_eq!(round.outcome(), None);
        feed(&mut round, [(4, Some("x"))]);
        assert_eq!(round.outcome(), Some(Outcome::Done("x")));
    }

    #[test]
    fn same_until_threshold_none_wins() {
        let mut round = CollectSameUntilThreshold::<u8, u8>::new(&four());
        feed(&mut round, [(1, None), (2, None), (3, None)]);
        assert_eq!(round.outcome(), Some(Outcome::None));
    }

    #[test]
    fn same_until_threshold_no_majority_as_soon_as_impossible() {
        let mut round = CollectSameUntilThreshold::new(&four());
        feed(&mut round, [(1, Some(1)), (2, Some(2))]);
        // best 1 + remaining 2 = 3: still possible.
        assert_eq!(round.outcome(), None);
        feed(&mut round, [(3, None)]);
        // best 1 + remaining 1 = 2 < 3.
        assert_eq!(round.outcome(), Some(Outcome::NoMajority));
    }

    #[test]
    fn different_until_threshold_allows_equal_payloads() {
        let mut round = CollectDifferentUntilThreshold::new(&four());
        feed(&mut round, [(4, "same"), (2, "same")]);
        assert_eq!(round.outcome(), None);
        assert_eq!(round.submit(2, "other"), Err(RoundError::AlreadySubmitted));
        feed(&mut round, [(1, "own")]);
        let done = BTreeMap::from([(1, "own"), (2, "same"), (4, "same")]);
        assert_eq!(round.outcome(), Some(Outcome::Done(done)));
    }

    #[test]
    fn non_empty_until_threshold_keeps_only_values() {
        let mut round = CollectNonEmptyUntilThreshold::new(&four());
        feed(&mut round, [(1, Some(10)), (2, None)]);
        assert_eq!(round.outcome(), None);
        feed(&mut round, [(3, Some(30))]);
        let done = BTreeMap::from([(1, 10), (3, 30)]);
        assert_eq!(round.outcome(), Some(Outcome::Done(done)));
    }

    #[test]
    fn non_empty_until_threshold_judges_the_whole_block() {
        // One block holding [None, None, None, Some(5)]: judged after the third payload this would be
        // `None`; judged at the end of the block, as upstream does, it is `Done` with the one value.
        let mut round = CollectNonEmptyUntilThreshold::new(&four());
        feed(&mut round, [(1, None), (2, None), (3, None), (4, Some(5))]);
        assert_eq!(
            round.outcome(),
            Some(Outcome::Done(BTreeMap::from([(4, 5)])))
        );
    }

    #[test]
    fn non_empty_until_threshold_all_empty_is_none() {
        let mut round = CollectNonEmptyUntilThreshold::<u8, u8>::new(&four());
        feed(&mut round, [(1, None), (2, None), (3, None)]);
        assert_eq!(round.outcome(), Some(Outcome::None));
    }

    #[test]
    fn voting_outcomes() {
        let mut yes = Voting::new(&four());
        feed(
            &mut yes,
            [(1, Some(true)), (2, Some(false)), (3, Some(true))],
        );
        assert_eq!(yes.outcome(), None);
        feed(&mut yes, [(4, Some(true))]);
        let ballots = BTreeMap::from([
            (1, Some(true)),
            (2, Some(false)),
            (3, Some(true)),
            (4, Some(true)),
        ]);
        assert_eq!(yes.outcome(), Some(Outcome::Done(ballots)));

        let mut no = Voting::new(&four());
        feed(
            &mut no,
            [(1, Some(false)), (2, Some(false)), (3, Some(false))],
        );
        assert_eq!(no.outcome(), Some(Outcome::Negative));

        let mut none = Voting::new(&four());
        feed(&mut none, [(1, None), (2, None), (4, None)]);
        assert_eq!(none.outcome(), Some(Outcome::None));

        let mut split = Voting::new(&four());
        feed(&mut split, [(1, Some(true)), (2, Some(false))]);
        assert_eq!(split.outcome(), None);
        feed(&mut split, [(3, None)]);
        assert_eq!(split.outcome(), Some(Outcome::NoMajority));
        assert_eq!(split.submissions().len(), 3);
    }

    #[test]
    fn single_participant_decides_alone() {
        let solo = Participants::new(["me"]).unwrap();
        let mut round = Voting::new(&solo);
        assert_eq!(
            round.submit("you", Some(true)),
            Err(RoundError::NotAParticipant)
        );
        round.submit("me", Some(false)).unwrap();
        assert_eq!(round.outcome(), Some(Outcome::Negative));
    }

    #[test]
    fn outcome_is_independent_of_arrival_order() {
        // Determinism: replicas that saw the same payloads agree, whatever their order.
        let payloads = [(1, Some(5)), (2, Some(5)), (3, None), (4, Some(5))];
        let mut forward = CollectSameUntilThreshold::new(&four());
        let mut backward = CollectSameUntilThreshold::new(&four());
        for (who, p) in payloads {
            let _ = forward.submit(who, p);
        }
        for (who, p) in payloads.into_iter().rev() {
            let _ = backward.submit(who, p);
        }
        assert_eq!(forward.outcome(), Some(Outcome::Done(5)));
        assert_eq!(forward.outcome(), backward.outcome());
    }
}
