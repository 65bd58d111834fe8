//! Open Autonomy rounds: the round kinds that turn agents' payloads into one outcome.
//!
//! In an FSM app every agent instance submits a payload per round; once the round has seen enough
//! payloads it emits an outcome (done, none, no majority, …) and the generated code maps that
//! outcome to the spec's event. Every instance sees the same payloads in the same order (consensus
//! orders them), so as long as these rules are deterministic every instance reaches the same
//! outcome. Each round kind is a struct implementing [`Round`]:
//!
//! | kind | payload | outcomes |
//! |---|---|---|
//! | [`CollectSameUntilAll`] | `T` | done |
//! | [`CollectDifferentUntilAll`] | `T` | done |
//! | [`CollectSameUntilThreshold`] | `Option<T>` | done, none, no majority |
//! | [`CollectDifferentUntilThreshold`] | `T` | done |
//! | [`CollectNonEmptyUntilThreshold`] | `Option<T>` | done, none |
//! | [`OnlyKeeperSends`] | `Option<T>` | done, fail |
//! | [`Voting`] | `Option<bool>` | done, negative, none, no majority |
//! | [`Degenerate`] | any | none: a final round |
//! | [`Custom`] | `T` | whatever the app's own code decides from the payloads |
//!
//! The three collect-until-threshold kinds can wait for block confirmations after their threshold
//! ([`Confirmations`], upstream's `required_block_confirmations`), so that late payloads still count.
//!
//! Rules shared by every kind:
//!
//! * a sender must be one of the round's [`Participants`], and may submit once;
//! * [`Round::submit`] only records (or rejects) a payload; [`Round::outcome`] is the evaluation
//!   Open Autonomy runs at the end of each block (`end_block`). A block may hold several payloads
//!   for one round, and the round is judged on all of them together: with four participants, a
//!   block holding `[None, None, None, Some(5)]` in a collect-non-empty round is `Done({d: 5})`,
//!   where judging after the third payload would have said `None`. The app driver
//!   ([`crate::app`]) calls `outcome` once per block and replaces a decided round with the next
//!   one, so nothing is ever submitted to a decided round.

// What generated code provides, and what it calls here (the contract with the code generator): an app's
// `Round` enum holds one round kind per non-final state, built with the kind's `new` over the eligible
// `Participants`; its `AppRound` implementation submits decoded payloads with `Round::submit` and reads
// `Round::outcome` and `Round::submissions` at the end of a block; `State::round_kind` and `outcome_event` name
// `RoundKind` and `OutcomeKind`. Nothing here is hidden: the kinds are the user's too, to run a round without
// an app, and the generated `Round` enum shows them.

mod custom;
mod decode;
mod keeper;
mod kind;
mod until_all;
mod until_threshold;

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;

use borsh::BorshSerialize;
use std::fmt::{self, Display, Formatter};

pub use custom::Custom;
pub use decode::DecodeRound;
pub use keeper::{Degenerate, OnlyKeeperSends};
pub use kind::{Need, Outcome, OutcomeKind, RoundKind};
pub use until_all::{CollectDifferentUntilAll, CollectSameUntilAll};
pub use until_threshold::{
    CollectDifferentUntilThreshold, CollectNonEmptyUntilThreshold, CollectSameUntilThreshold,
    Voting,
};

/// The consensus threshold for `n` participants: ⌈(2n+1)/3⌉, the smallest count that is more than
/// two thirds of `n`.
///
/// `threshold(0)` is `1`, which is what the formula gives: with no participants no value can ever
/// reach the threshold. (A [`Participants`] set is never empty, so rounds never see `n = 0`.)
/// Computed without forming `2n+1`, so it cannot overflow for any `n`.
pub const fn threshold(n: usize) -> usize {
    // ⌈(2n+1)/3⌉ = 2⌊n/3⌋ + 1, plus one more when n mod 3 = 2.
    let extra = if n % 3 == 2 { 2 } else { 1 };
    (n / 3).saturating_mul(2).saturating_add(extra)
}

/// Why a round rejected a payload or could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundError {
    /// A participant set was built from an empty list.
    NoParticipants,
    /// The keeper named for a participant set is not one of its participants.
    KeeperNotParticipant,
    /// A keeper round has no keeper (none was elected), so nobody may submit.
    NoKeeper,
    /// The sender is not a participant of this round.
    NotAParticipant,
    /// The sender already submitted a payload in this round.
    AlreadySubmitted,
    /// In a collect-same-until-all round, the payload differs from the ones already submitted.
    PayloadMismatch,
    /// In a collect-different-until-all round, another participant already submitted this payload.
    DuplicatePayload,
    /// In an only-keeper-sends round, the sender is not the keeper.
    NotKeeper,
    /// The round is degenerate (final): it accepts no payloads at all.
    FinalRound,
}

impl Display for RoundError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoParticipants => "a round needs at least one participant",
            Self::KeeperNotParticipant => "the keeper is not one of the participants",
            Self::NoKeeper => "no keeper has been elected for this round",
            Self::NotAParticipant => "the sender is not a participant of this round",
            Self::AlreadySubmitted => "the sender already submitted a payload in this round",
            Self::PayloadMismatch => "the payload differs from the payloads already submitted",
            Self::DuplicatePayload => "another participant already submitted this payload",
            Self::NotKeeper => "only the keeper may submit in this round",
            Self::FinalRound => "a final (degenerate) round accepts no payloads",
        })
    }
}

impl Error for RoundError {}

/// The agents taking part in a round: a non-empty, deduplicated, ordered set, with an optional
/// keeper (the one agent allowed to send in an [`OnlyKeeperSends`] round).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Participants<P: Ord> {
    members: BTreeSet<P>,
    keeper: Option<P>,
}

impl<P: Ord + Clone> Participants<P> {
    /// A set from `members`; duplicates collapse. An empty list is an error because no round
    /// could ever decide.
    pub fn new(members: impl IntoIterator<Item = P>) -> Result<Self, RoundError> {
        let members: BTreeSet<P> = members.into_iter().collect();
        if members.is_empty() {
            return Err(RoundError::NoParticipants);
        }
        Ok(Self {
            members,
            keeper: None,
        })
    }

    /// The same set with `keeper` as its keeper, replacing any previous one (upstream re-elects a
    /// keeper after a timeout). The keeper must be a participant.
    pub fn with_keeper(mut self, keeper: P) -> Result<Self, RoundError> {
        if !self.members.contains(&keeper) {
            return Err(RoundError::KeeperNotParticipant);
        }
        self.keeper = Some(keeper);
        Ok(self)
    }

    /// The number of participants (never zero).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Always `false`: a participant set is never empty. Present because `len` is.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether `who` is a participant.
    pub fn contains(&self, who: &P) -> bool {
        self.members.contains(who)
    }

    /// The keeper, if one was set.
    pub fn keeper(&self) -> Option<&P> {
        self.keeper.as_ref()
    }

    /// The consensus [`threshold`] for this set.
    pub fn threshold(&self) -> usize {
        threshold(self.len())
    }

    /// The participants in ascending order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &P> + ExactSizeIterator {
        self.members.iter()
    }
}

/// What every round kind offers, so generated code and helpers can drive any round the same way.
pub trait Round {
    /// The type identifying an agent.
    type Participant: Ord;
    /// What one agent submits.
    type Payload;
    /// What a `Done` outcome carries.
    type Value;
    /// Which kind this round is.
    const KIND: RoundKind;

    /// Records `payload` from `who`, or says why it is rejected (nothing is recorded then).
    fn submit(&mut self, who: Self::Participant, payload: Self::Payload) -> Result<(), RoundError>;

    /// The round's outcome as its payloads stand, or `None` while it is undecided. Once `Some`, it never
    /// changes.
    fn outcome(&self) -> Option<Outcome<Self::Value>>;

    /// The evaluation Open Autonomy runs at the end of each block (`end_block`): the outcome, once the round's
    /// block confirmations have passed. A round with confirmations (see [`Confirmations`]) keeps accepting
    /// payloads for that many blocks after reaching its threshold, and decides on everything collected; counting
    /// those blocks is the only state this changes. Call it once per block.
    fn end_block(&mut self) -> Option<Outcome<Self::Value>> {
        self.outcome()
    }

    /// The payloads accepted so far, by sender.
    fn submissions(&self) -> &BTreeMap<Self::Participant, Self::Payload>;
}

/// Participants plus the payloads they submitted: the state every round kind shares.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Collection<P: Ord, V> {
    participants: Participants<P>,
    submissions: BTreeMap<P, V>,
    confirmations: Confirmations,
}

/// Upstream's `required_block_confirmations`: how many more blocks a threshold round keeps collecting after its
/// threshold is reached, so that agents a block late (a node restarting, a late registration) still count.
///
/// Follows upstream's `end_block` to the letter: at the end of every block in which the threshold is reached the
/// count goes up by one, and the round decides once the count exceeds the requirement. With a requirement of
/// zero that is the first such block, the rule without confirmations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Confirmations {
    /// Blocks to wait after the threshold is reached.
    pub required: u32,
    /// End-of-block evaluations that found the threshold reached so far.
    pub seen: u32,
}

impl Confirmations {
    /// Counts one end of block with the threshold `reached`; says whether the round may decide now.
    fn count(&mut self, reached: bool) -> bool {
        if reached {
            self.seen = self.seen.saturating_add(1);
        }
        reached && self.seen > self.required
    }

    /// The outcome `decided` (if the threshold is reached), once the required blocks have passed: counts this
    /// end of block.
    fn confirm<O>(&mut self, decided: Option<O>) -> Option<O> {
        let reached = decided.is_some();
        decided.filter(|_| self.count(reached))
    }

    /// Whether the required blocks have passed (upstream's condition on its other outcomes).
    fn passed(&self) -> bool {
        self.seen > self.required
    }
}

// The canonical encodings below feed the app hash: a round in progress is part of the replicated state,
// so two replicas agree on it byte for byte. Both collections are ordered, so the encoding is unique.
impl<P: Ord + BorshSerialize> BorshSerialize for Participants<P> {
    fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
        self.members.serialize(writer)?;
        self.keeper.serialize(writer)
    }
}

impl<P: Ord + BorshSerialize, V: BorshSerialize> BorshSerialize for Collection<P, V> {
    fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
        self.participants.serialize(writer)?;
        self.submissions.serialize(writer)?;
        // Only a round that waits for confirmations encodes its count, so a round without them encodes (and
        // hashes) as it always did: a node replaying its store computes the hashes it committed.
        if self.confirmations.required > 0 {
            self.confirmations.required.serialize(writer)?;
            self.confirmations.seen.serialize(writer)?;
        }
        Ok(())
    }
}

/// Every kind is its collection, so it encodes as its collection.
macro_rules! encode_as_collection {
    ($($kind:ident<$($param:ident),*>),* $(,)?) => {$(
        impl<$($param: Ord + BorshSerialize),*> BorshSerialize for $kind<$($param),*> {
            fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
                self.collection.serialize(writer)
            }
        }
    )*};
}

encode_as_collection!(
    CollectSameUntilAll<P, T>,
    CollectDifferentUntilAll<P, T>,
    CollectSameUntilThreshold<P, T>,
    CollectDifferentUntilThreshold<P, T>,
    CollectNonEmptyUntilThreshold<P, T>,
    OnlyKeeperSends<P, T>,
    Voting<P>,
    Custom<P, T>,
);

impl<P: Ord + Clone, V> Collection<P, V> {
    fn new(participants: &Participants<P>) -> Self {
        Self {
            participants: participants.clone(),
            submissions: BTreeMap::new(),
            confirmations: Confirmations::default(),
        }
    }

    /// The checks every kind makes before its own: membership and one payload per sender.
    fn admit(&self, who: &P) -> Result<(), RoundError> {
        if !self.participants.contains(who) {
            Err(RoundError::NotAParticipant)
        } else if self.submissions.contains_key(who) {
            Err(RoundError::AlreadySubmitted)
        } else {
            Ok(())
        }
    }

    /// Participants that have not submitted yet.
    fn remaining(&self) -> usize {
        self.participants
            .len()
            .saturating_sub(self.submissions.len())
    }

    fn is_complete(&self) -> bool {
        self.remaining() == 0
    }
}

/// The state of a threshold vote over keys of type `K`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tally<K> {
    /// `K` has at least `threshold` votes.
    Reached(K),
    /// No key can reach the threshold any more.
    NoMajority,
    /// Still undecided.
    Open,
}

/// Counts `votes` and decides: a key with at least `threshold` votes wins; otherwise, if even the
/// best key plus every vote still missing stays below `threshold`, there is no majority.
///
/// Keys are visited in ascending order, so should two keys ever both qualify the smaller wins.
/// (With the consensus threshold, which exceeds half the participants, two cannot.)
fn tally<K: Ord>(
    votes: impl IntoIterator<Item = K>,
    remaining: usize,
    threshold: usize,
) -> Tally<K> {
    let mut counts: BTreeMap<K, usize> = BTreeMap::new();
    for vote in votes {
        let count = counts.entry(vote).or_insert(0);
        *count = count.saturating_add(1);
    }
    let mut best = 0;
    for (key, count) in counts {
        if count >= threshold {
            return Tally::Reached(key);
        }
        best = best.max(count);
    }
    if best.saturating_add(remaining) < threshold {
        Tally::NoMajority
    } else {
        Tally::Open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_matches_formula() {
        for n in 0..2000usize {
            let exact = (2 * n as u128 + 1).div_ceil(3);
            assert_eq!(threshold(n) as u128, exact, "n = {n}");
        }
        assert_eq!(threshold(0), 1);
        assert_eq!(threshold(4), 3);
        assert_eq!(threshold(7), 5);
        // No overflow at the top of the range: ⌈(2·MAX+1)/3⌉ fits in usize.
        assert!(threshold(usize::MAX) > usize::MAX / 3 * 2);
    }

    #[test]
    fn threshold_is_more_than_half() {
        // Why at most one value can ever win a threshold vote.
        for n in 1..500usize {
            assert!(2 * threshold(n) > n, "n = {n}");
        }
    }

    #[test]
    fn participants_deduplicate_and_reject_empty() {
        let p = Participants::new(["b", "a", "b"]).unwrap();
        assert_eq!(p.len(), 2);
        assert!(!p.is_empty());
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(p.threshold(), 2);
        assert_eq!(
            Participants::<u8>::new([]).unwrap_err(),
            RoundError::NoParticipants
        );
    }

    #[test]
    fn keeper_must_be_participant() {
        let p = Participants::new([1, 2, 3]).unwrap();
        assert_eq!(p.keeper(), None);
        assert_eq!(
            p.clone().with_keeper(9).unwrap_err(),
            RoundError::KeeperNotParticipant
        );
        let k = p.with_keeper(2).unwrap().with_keeper(3).unwrap();
        assert_eq!(k.keeper(), Some(&3));
    }

    #[test]
    fn tally_decides_reached_open_and_no_majority() {
        // 4 participants, threshold 3.
        assert_eq!(tally(["x", "x", "x"], 1, 3), Tally::Reached("x"));
        assert_eq!(tally(["x", "y"], 2, 3), Tally::Open);
        // Best is 1, one vote left: 1 + 1 < 3.
        assert_eq!(tally(["x", "y", "z"], 1, 3), Tally::NoMajority);
        // Exactly reachable is still open: 2 + 1 = 3.
        assert_eq!(tally(["x", "x", "y"], 1, 3), Tally::Open);
        assert_eq!(tally(Vec::<u8>::new(), 0, 1), Tally::NoMajority);
    }

    #[test]
    fn tally_breaks_ties_by_value_order() {
        assert_eq!(tally(["b", "a"], 0, 1), Tally::Reached("a"));
    }
}
