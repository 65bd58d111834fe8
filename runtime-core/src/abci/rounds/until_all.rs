//! Rounds that wait for every participant: collect-same-until-all and collect-different-until-all.

use std::collections::BTreeMap;

use super::{Collection, Outcome, Participants, Round, RoundError, RoundKind};

/// Every participant must submit the same payload; done with that payload once all have.
///
/// A payload that differs from the first one is rejected ([`RoundError::PayloadMismatch`]) rather
/// than counted, as upstream does: this round kind asserts agreement, it does not vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectSameUntilAll<P: Ord, T> {
    pub(super) collection: Collection<P, T>,
}

impl<P: Ord + Clone, T: Ord + Clone> CollectSameUntilAll<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for CollectSameUntilAll<P, T> {
    type Participant = P;
    type Payload = T;
    type Value = T;
    const KIND: RoundKind = RoundKind::CollectSameUntilAll;

    fn submit(&mut self, who: P, payload: T) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        if self.collection.submissions.values().any(|v| *v != payload) {
            return Err(RoundError::PayloadMismatch);
        }
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<T>> {
        if !self.collection.is_complete() {
            return None;
        }
        // All values are equal by construction, so any one is the agreed value.
        self.collection
            .submissions
            .values()
            .next()
            .cloned()
            .map(Outcome::Done)
    }

    fn submissions(&self) -> &BTreeMap<P, T> {
        &self.collection.submissions
    }
}

/// Every participant must submit a payload no other participant submitted; done with all of them,
/// by sender, once all have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectDifferentUntilAll<P: Ord, T> {
    pub(super) collection: Collection<P, T>,
}

impl<P: Ord + Clone, T: Ord + Clone> CollectDifferentUntilAll<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }
}

impl<P: Ord + Clone, T: Ord + Clone> Round for CollectDifferentUntilAll<P, T> {
    type Participant = P;
    type Payload = T;
    type Value = BTreeMap<P, T>;
    const KIND: RoundKind = RoundKind::CollectDifferentUntilAll;

    fn submit(&mut self, who: P, payload: T) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        if self.collection.submissions.values().any(|v| *v == payload) {
            return Err(RoundError::DuplicatePayload);
        }
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome<BTreeMap<P, T>>> {
        self.collection
            .is_complete()
            .then(|| Outcome::Done(self.collection.submissions.clone()))
    }

    fn submissions(&self) -> &BTreeMap<P, T> {
        &self.collection.submissions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> Participants<&'static str> {
        Participants::new(["a", "b", "c"]).unwrap()
    }

    #[test]
    fn same_until_all_waits_for_everyone() {
        let mut round = CollectSameUntilAll::new(&three());
        round.submit("a", 7).unwrap();
        round.submit("b", 7).unwrap();
        assert_eq!(round.outcome(), None);
        round.submit("c", 7).unwrap();
        assert_eq!(round.outcome(), Some(Outcome::Done(7)));
        assert_eq!(round.submissions().len(), 3);
    }

    #[test]
    fn same_until_all_rejects_mismatch_without_recording() {
        let mut round = CollectSameUntilAll::new(&three());
        round.submit("a", 7).unwrap();
        assert_eq!(round.submit("b", 8), Err(RoundError::PayloadMismatch));
        assert_eq!(round.submissions().len(), 1);
        // b may still send the right value.
        round.submit("b", 7).unwrap();
    }

    #[test]
    fn sender_checks_apply() {
        let mut round = CollectSameUntilAll::new(&three());
        assert_eq!(round.submit("z", 1), Err(RoundError::NotAParticipant));
        round.submit("a", 1).unwrap();
        assert_eq!(round.submit("a", 1), Err(RoundError::AlreadySubmitted));
    }

    #[test]
    fn different_until_all_collects_by_sender() {
        let mut round = CollectDifferentUntilAll::new(&three());
        round.submit("c", 3).unwrap();
        round.submit("a", 1).unwrap();
        assert_eq!(round.outcome(), None);
        assert_eq!(round.submit("b", 3), Err(RoundError::DuplicatePayload));
        round.submit("b", 2).unwrap();
        let expected = BTreeMap::from([("a", 1), ("b", 2), ("c", 3)]);
        assert_eq!(round.outcome(), Some(Outcome::Done(expected)));
    }

    #[test]
    fn decided_round_is_closed() {
        let p = Participants::new(["solo"]).unwrap();
        let mut round = CollectDifferentUntilAll::new(&p);
        round.submit("solo", 1).unwrap();
        assert!(round.outcome().is_some());
        assert_eq!(round.submit("solo", 2), Err(RoundError::AlreadySubmitted));
        assert_eq!(
            <CollectDifferentUntilAll<&str, i32> as Round>::KIND,
            RoundKind::CollectDifferentUntilAll
        );
    }
}
