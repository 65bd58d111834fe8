//! A round whose decision is the app's own code: it collects one payload per participant, and decides nothing
//! itself. The app's `end_block` (a generated trait method the user implements) reads what it collected.

use std::collections::BTreeMap;

use super::{Collection, Outcome, Participants, Round, RoundError, RoundKind};

/// Collects one payload per participant; never decides by itself. The app's code decides the round at the end
/// of each block from [`Round::submissions`], as an upstream round with its own `end_block` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Custom<P: Ord, T> {
    pub(super) collection: Collection<P, T>,
}

impl<P: Ord + Clone, T: Clone> Custom<P, T> {
    /// An empty round for `participants`.
    pub fn new(participants: &Participants<P>) -> Self {
        Self {
            collection: Collection::new(participants),
        }
    }

    /// The agents taking part in the round.
    pub fn participants(&self) -> &Participants<P> {
        &self.collection.participants
    }
}

impl<P: Ord + Clone, T: Clone> Round for Custom<P, T> {
    type Participant = P;
    type Payload = T;
    type Value = BTreeMap<P, T>;
    const KIND: RoundKind = RoundKind::Custom;

    fn submit(&mut self, who: P, payload: T) -> Result<(), RoundError> {
        self.collection.admit(&who)?;
        self.collection.submissions.insert(who, payload);
        Ok(())
    }

    /// Always `None`: the app's code decides.
    fn outcome(&self) -> Option<Outcome<BTreeMap<P, T>>> {
        None
    }

    fn submissions(&self) -> &BTreeMap<P, T> {
        &self.collection.submissions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_one_payload_per_participant_and_never_decides() {
        let p = Participants::new(["a", "b", "c"]).unwrap();
        let mut r = Custom::new(&p);
        r.submit("a", 1).unwrap();
        assert_eq!(r.submit("a", 2), Err(RoundError::AlreadySubmitted));
        assert_eq!(r.submit("z", 2), Err(RoundError::NotAParticipant));
        r.submit("b", 1).unwrap();
        r.submit("c", 9).unwrap();
        assert_eq!(r.end_block(), None);
        assert_eq!(r.submissions().len(), 3);
        assert_eq!(r.participants().len(), 3);
    }
}
