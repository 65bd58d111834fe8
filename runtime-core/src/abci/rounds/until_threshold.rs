//! The rounds decided by the consensus threshold: three collect-until-threshold kinds and voting.

use std::collections::BTreeMap;

use super::{
    Collection, Confirmations, Outcome, Participants, Round, RoundError, RoundKind, Tally, tally,
};

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

    /// The same round, waiting `required` blocks after its threshold before it decides (see
    /// [`Confirmations`]).
    pub fn with_confirmations(mut self, required: u32) -> Self {
        self.collection.confirmations = Confirmations { required, seen: 0 };
        self
    }

    /// The block confirmations required and counted so far: what a model of the round (`fsmc verify`) keeps
    /// between blocks.
    #[doc(hidden)]
    pub fn confirmations(&self) -> Confirmations {
        self.collection.confirmations
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

    /// Without confirmations, [`Round::outcome`]. With them, upstream's `RegistrationRound`: the count goes up
    /// in every block that ends with a value at the threshold; the round is done (or `None`, for an empty
    /// payload) once the count exceeds the requirement, and ends with no majority only when none is possible
    /// and the count exceeds it too.
    fn end_block(&mut self) -> Option<Outcome<T>> {
        if self.collection.confirmations.required == 0 {
            return self.outcome();
        }
        let decided = self.outcome();
        let reached = matches!(decided, Some(Outcome::Done(_) | Outcome::None));
        if self.collection.confirmations.count(reached) {
            return decided;
        }
        match decided {
            Some(Outcome::NoMajority) if self.collection.confirmations.passed() => {
                Some(Outcome::NoMajority)
            }
            _ => None,
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

    /// The same round, waiting `required` blocks after its threshold before it decides (see
    /// [`Confirmations`]).
    pub fn with_confirmations(mut self, required: u32) -> Self {
        self.collection.confirmations = Confirmations { required, seen: 0 };
        self
    }

    /// The block confirmations required and counted so far: what a model of the round (`fsmc verify`) keeps
    /// between blocks.
    #[doc(hidden)]
    pub fn confirmations(&self) -> Confirmations {
        self.collection.confirmations
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

    /// Upstream's `end_block`: done once the blocks that ended with the threshold reached exceed the required
    /// confirmations (the first such block without confirmations), with every payload collected by then.
    fn end_block(&mut self) -> Option<Outcome<BTreeMap<P, T>>> {
        let decided = self.outcome();
        self.collection.confirmations.confirm(decided)
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

    /// The same round, waiting `required` blocks after its threshold before it decides (see
    /// [`Confirmations`]).
    pub fn with_confirmations(mut self, required: u32) -> Self {
        self.collection.confirmations = Confirmations { required, seen: 0 };
        self
    }

    /// The block confirmations required and counted so far: what a model of the round (`fsmc verify`) keeps
    /// between blocks.
    #[doc(hidden)]
    pub fn confirmations(&self) -> Confirmations {
        self.collection.confirmations
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

    /// As [`CollectDifferentUntilThreshold`]: decided once the blocks that ended with the threshold reached
    /// exceed the required confirmations, on every payload collected by then.
    fn end_block(&mut self) -> Option<Outcome<BTreeMap<P, T>>> {
        let decided = self.outcome();
        self.collection.confirmations.confirm(decided)
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

    #[test]
    fn confirmations_keep_collecting_after_the_threshold() {
        // Without confirmations the first block with the threshold decides, on the payloads then.
        let mut plain = CollectDifferentUntilThreshold::new(&four());
        feed(&mut plain, [(1, 10), (2, 20), (3, 30)]);
        assert_eq!(
            plain.end_block().map(|o| o.kind()),
            Some(super::super::OutcomeKind::Done)
        );

        // With two, the round decides at the third block that ends with the threshold reached, with the
        // late payload counted (upstream's `block_confirmations > required_block_confirmations`).
        let mut round = CollectDifferentUntilThreshold::new(&four()).with_confirmations(2);
        feed(&mut round, [(1, 10), (2, 20), (3, 30)]);
        assert_eq!(round.end_block(), None);
        feed(&mut round, [(4, 40)]);
        assert_eq!(round.end_block(), None);
        match round.end_block() {
            Some(Outcome::Done(all)) => assert_eq!(all.len(), 4),
            other => panic!("{other:?}"),
        }

        // Blocks before the threshold do not count.
        let mut slow = CollectNonEmptyUntilThreshold::new(&four()).with_confirmations(1);
        feed(&mut slow, [(1, Some(1))]);
        assert_eq!(slow.end_block(), None);
        assert_eq!(slow.end_block(), None);
        feed(&mut slow, [(2, None), (3, Some(3))]);
        assert_eq!(slow.end_block(), None);
        assert!(matches!(slow.end_block(), Some(Outcome::Done(v)) if v.len() == 2));
    }

    #[test]
    fn a_registration_round_waits_its_confirmations_as_upstreams_does() {
        // Upstream's `RegistrationRound`: the late agent's registration within the confirmations counts.
        let mut round = CollectSameUntilThreshold::new(&four()).with_confirmations(1);
        feed(&mut round, [(1, Some(7)), (2, Some(7)), (3, Some(7))]);
        assert_eq!(round.end_block(), None);
        feed(&mut round, [(4, Some(7))]);
        assert_eq!(round.end_block(), Some(Outcome::Done(7)));
        assert_eq!(round.submissions().len(), 4);

        // Its no-majority is decided only after the confirmations too, which count only blocks at the
        // threshold: as upstream, a round that never reaches it waits (for its timeout).
        let mut split = CollectSameUntilThreshold::new(&four()).with_confirmations(1);
        feed(
            &mut split,
            [(1, Some(1)), (2, Some(2)), (3, Some(3)), (4, Some(4))],
        );
        assert_eq!(split.outcome(), Some(Outcome::NoMajority));
        assert_eq!(split.end_block(), None);
        assert_eq!(split.end_block(), None);
    }

    #[test]
    fn confirmations_enter_the_encoding_only_when_required() {
        let encode = |r: &CollectDifferentUntilThreshold<u8, u8>| borsh::to_vec(r).unwrap();
        let plain = CollectDifferentUntilThreshold::new(&four());
        let zero = CollectDifferentUntilThreshold::new(&four()).with_confirmations(0);
        assert_eq!(encode(&plain), encode(&zero));
        let mut waiting = CollectDifferentUntilThreshold::new(&four()).with_confirmations(2);
        assert_ne!(encode(&plain), encode(&waiting));
        feed(&mut waiting, [(1, 1), (2, 2), (3, 3)]);
        let before = encode(&waiting);
        waiting.end_block();
        assert_ne!(
            before,
            encode(&waiting),
            "the count is part of the replicated state"
        );
    }
}
