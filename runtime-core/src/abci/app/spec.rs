//! The contract between generated code and the app driver: what the spec says about each round, and what a
//! round's end of block sees.
//!
//! `AppSpec` is visible, because code that runs any app (an engine adapter, a simulation) names it as a bound;
//! [`Deciding`] is what the user's custom rounds read, and [`NoRounds`] the logic of an app without them. The
//! members of `AppSpec` only the driver calls, and every other item here, are hidden from the documentation:
//! generated code implements and fills them in, users never do.

use borsh::{BorshDeserialize, BorshSerialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Debug, Display, Formatter};
use std::time::Duration;

use super::block::AgentId;
use crate::abci::rounds::{OutcomeKind, Participants, RoundError, threshold};

/// An app's spec: what the generated code of an `abci` machine or composed app (its `Spec`, a unit struct)
/// tells the driver ([`super::App`]).
///
/// Everything here is a fact of the spec (transitions, timeouts, round kinds, which key a round writes),
/// so the driver's logic is written once, here, and every app gets the same semantics. Generated code
/// implements it; code that runs any app names it as a bound (`App<S: AppSpec>`). The implementing
/// type is a marker; its derives let reports and replicas derive theirs.
pub trait AppSpec: Copy + Eq + Debug + Sized + Send + Sync + 'static {
    /// The generated `State` enum.
    type State: Copy + Eq + Ord + Debug + Display + Send + Sync + 'static;
    /// The generated `Event` enum.
    type Event: Copy + Eq + Debug + Display + Send + Sync + 'static;
    /// The generated synchronized data.
    type Data: Clone + Default + Debug + BorshSerialize + BorshDeserialize + Send + Sync + 'static;
    /// The generated round in progress: one variant per non-final round, typed by kind and payload.
    type Round: AppRound<Self>;
    /// The app's own decisions, for its custom rounds: `dyn Rounds` of the generated trait, or [`NoRounds`].
    type Logic: ?Sized + Send + Sync + 'static;

    /// The machine's or app's name.
    const NAME: &'static str;
    /// The state an app starts in.
    const START: Self::State;
    /// The spec fingerprint (the generated module's `FINGERPRINT`): a node compares it with the one its chain's
    /// genesis names before it applies a block, so that a build from another spec refuses to start instead of
    /// diverging later.
    const FINGERPRINT: [u8; 32];

    /// The spec's name of `state`.
    fn state_name(state: Self::State) -> &'static str;
    /// The state the spec names `name` (a replica restored from a snapshot names its states).
    fn state_named(name: &str) -> Option<Self::State>;
    /// The transition function.
    fn next(state: Self::State, event: Self::Event) -> Option<Self::State>;
    /// Whether `state` is final: the app stops there.
    fn is_final(state: Self::State) -> bool;
    /// What the driver does around the round of `state`.
    #[doc(hidden)]
    fn rules(state: Self::State) -> Rules<Self::Event>;
    /// A fresh round for `state` among `eligible`; `None` for a final state.
    #[doc(hidden)]
    fn start_round(state: Self::State, eligible: &Participants<AgentId>) -> Option<Self::Round>;
    /// The data a new period starts with: the cross-period keys.
    #[doc(hidden)]
    fn carry(data: &Self::Data) -> Self::Data;
}

/// The logic of an app without custom rounds: it has none of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoRounds;

/// The round of one state, as generated: typed payloads in, a decision and data writes out.
#[doc(hidden)]
pub trait AppRound<S: AppSpec>:
    Clone + Debug + BorshSerialize + BorshDeserialize + Send + Sync
{
    /// Decodes `payload` as this round's payload type and records it from `sender`, or says why not. A
    /// rejected payload changes nothing.
    fn deliver(
        &mut self,
        sender: &AgentId,
        payload: &[u8],
        keepers: &KeeperPool<'_>,
    ) -> Result<(), Rejection>;

    /// The end-of-block evaluation, once per block: a stock round's kind decides (counting its block
    /// confirmations), a custom round's logic decides from `end` and `data`. A decision writes into `data` as
    /// the spec's `writes` says and names the event; an outcome the state has no transition for decides
    /// nothing.
    fn end_block(
        &mut self,
        data: &mut S::Data,
        end: &BlockEnd<'_, S>,
    ) -> Option<Decision<S::Event>>;

    /// The agents whose payloads the round accepted, in order.
    fn senders(&self) -> Vec<AgentId>;
}

/// A round's decision: the event it ends with, the outcome of its kind (`None` for a custom round), and the
/// keeper it elected (for an election that is done).
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision<E> {
    /// The event the round ends with.
    pub event: E,
    /// The outcome its kind decided; `None` when the app's own code decided.
    pub outcome: Option<OutcomeKind>,
    /// For a keeper election that is done: the elected keeper.
    pub keeper: Option<AgentId>,
}

/// What a round's end of block sees besides its own payloads and the data: the app's logic and the replicated
/// state at the end of the block.
#[doc(hidden)]
pub struct BlockEnd<'a, S: AppSpec> {
    pub(crate) logic: &'a S::Logic,
    pub(crate) period: u64,
    pub(crate) participants: &'a BTreeSet<AgentId>,
    pub(crate) eligible: &'a BTreeSet<AgentId>,
    pub(crate) time_ms: u64,
    pub(crate) round_started_ms: u64,
    pub(crate) blocks: u64,
}

impl<'a, S: AppSpec> BlockEnd<'a, S> {
    /// The app's logic, whose methods decide its custom rounds.
    pub fn logic(&self) -> &'a S::Logic {
        self.logic
    }

    /// What a custom round's decision sees: its payloads, by sender, the data as it stands, and this end of
    /// block.
    pub fn deciding<'p, P>(
        &'p self,
        payloads: &'p BTreeMap<AgentId, P>,
        data: &'p S::Data,
    ) -> Deciding<'p, S, P> {
        Deciding {
            payloads,
            data,
            end: self,
        }
    }
}

/// What a custom round's decision sees at the end of a block: the payloads it collected, by sender, and the
/// replicated state. The app's custom rounds are Open Autonomy's own `end_block`s, written in Rust.
///
/// Every replica calls the decision at the end of every block while the round is open, and every replica must
/// compute the same answer: decide from what is here only. No clock (the block time is here), no randomness (a
/// seed the agents agreed on in the data is fine), no iteration over hash maps, no I/O, no state kept between
/// calls. A decision that is not ready yet (`None`) keeps the round collecting.
pub struct Deciding<'a, S: AppSpec, P> {
    payloads: &'a BTreeMap<AgentId, P>,
    data: &'a S::Data,
    end: &'a BlockEnd<'a, S>,
}

impl<'a, S: AppSpec, P> Deciding<'a, S, P> {
    /// The payloads the round accepted, by sender.
    pub fn payloads(&self) -> &'a BTreeMap<AgentId, P> {
        self.payloads
    }

    /// The agents the round takes payloads from.
    pub fn eligible(&self) -> &'a BTreeSet<AgentId> {
        self.end.eligible
    }

    /// The participants of the period (every agent until the first registration decides).
    pub fn participants(&self) -> &'a BTreeSet<AgentId> {
        self.end.participants
    }

    /// The consensus threshold of the round: ⌈(2N+1)/3⌉ of the agents it takes payloads from.
    pub fn threshold(&self) -> usize {
        threshold(self.end.eligible.len())
    }

    /// Whether a threshold of the eligible agents has sent a payload (upstream's
    /// `collection_threshold_reached`).
    pub fn threshold_reached(&self) -> bool {
        self.payloads.len() >= self.threshold()
    }

    /// The current period's synchronized data, before this round writes.
    pub fn data(&self) -> &'a S::Data {
        self.data
    }

    /// The current period.
    pub fn period(&self) -> u64 {
        self.end.period
    }

    /// The time of the block that is ending, in milliseconds: the agents' common clock.
    pub fn time_ms(&self) -> u64 {
        self.end.time_ms
    }

    /// The time of the block that opened the round.
    pub fn round_started_ms(&self) -> u64 {
        self.end.round_started_ms
    }

    /// How many blocks have ended while the round was open, this one included.
    pub fn blocks(&self) -> u64 {
        self.end.blocks
    }
}

impl<S: AppSpec, P: Ord> Deciding<'_, S, P> {
    /// The payload most agents sent and how many sent it (the smallest of equally common ones): upstream's
    /// `most_voted_payload`, with its count.
    pub fn most_common(&self) -> Option<(&P, usize)> {
        let mut counts: BTreeMap<&P, usize> = BTreeMap::new();
        for p in self.payloads.values() {
            // At most one count per agent: no overflow.
            let n = counts.entry(p).or_insert(0);
            *n = n.saturating_add(1);
        }
        counts.into_iter().fold(None, |best, (p, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((p, n)),
        })
    }

    /// The payload a threshold of the eligible agents agree on, if any.
    pub fn agreed(&self) -> Option<&P> {
        self.most_common()
            .filter(|(_, n)| *n >= self.threshold())
            .map(|(p, _)| p)
    }

    /// Whether some payload can still reach the threshold with the agents that have not sent yet (upstream's
    /// `is_majority_possible`).
    pub fn majority_possible(&self) -> bool {
        let best = self.most_common().map_or(0, |(_, n)| n);
        let remaining = self.end.eligible.len().saturating_sub(self.payloads.len());
        best.saturating_add(remaining) >= self.threshold()
    }
}

/// What the driver does around one state's round, besides deciding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Rules<E> {
    /// The round's part in the app's bookkeeping.
    pub role: Role,
    /// A `reset` round: its `DONE` starts a new period.
    pub reset: bool,
    /// The round's timeout event and its duration (a round has at most one).
    pub timeout: Option<(E, Duration)>,
}

/// A round's part in the app's bookkeeping of participants and keepers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub enum Role {
    /// An ordinary round among the participants.
    Collect,
    /// `registration;`: open to every agent of the genesis; its `DONE` makes the agents it collected the
    /// participants.
    Registration,
    /// `elects_keeper;`: agrees on a keeper, chosen among the participants that have not failed as keeper
    /// in this period.
    KeeperElection,
    /// `only_keeper_sends`: only the elected keeper sends; a `fail` outcome or a timeout marks it failed
    /// for the rest of the period.
    Keeper,
}

/// Who may be elected keeper: a participant that has not failed as keeper in this period.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct KeeperPool<'a> {
    pub(crate) participants: &'a BTreeSet<AgentId>,
    pub(crate) failed: &'a BTreeSet<AgentId>,
}

impl KeeperPool<'_> {
    /// Whether `who` may be elected.
    pub fn eligible(&self, who: &AgentId) -> bool {
        self.participants.contains(who) && !self.failed.contains(who)
    }

    /// Checks an election candidate.
    pub fn check(&self, who: &AgentId) -> Result<(), Rejection> {
        if self.eligible(who) {
            Ok(())
        } else {
            Err(Rejection::IneligibleKeeper)
        }
    }
}

/// Why a transaction was rejected. Rejection is deterministic: every replica rejects the same
/// transactions for the same reasons, and a rejected transaction changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// The bytes are not an encoded submission.
    Undecodable,
    /// The app is in a final state: no round takes payloads.
    Finished,
    /// The submission is for another round than the current one.
    WrongRound {
        /// The current round's number.
        expected: u64,
        /// The round the submission names.
        got: u64,
    },
    /// The payload is not an encoding of the round's payload type.
    BadPayload,
    /// A keeper election candidate that is not a participant, or has failed as keeper in this period.
    IneligibleKeeper,
    /// The round's own rules refused it (not a participant, a second payload, …).
    Round(RoundError),
}

impl Display for Rejection {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Undecodable => f.write_str("the transaction is not an encoded submission"),
            Self::Finished => f.write_str("the app has finished: no round takes payloads"),
            Self::WrongRound { expected, got } => {
                write!(
                    f,
                    "the payload is for round {got}, the current round is {expected}"
                )
            }
            Self::BadPayload => f.write_str("the payload is not of the round's payload type"),
            Self::IneligibleKeeper => f.write_str(
                "the candidate is not a participant, or has failed as keeper in this period",
            ),
            Self::Round(e) => Display::fmt(e, f),
        }
    }
}

impl std::error::Error for Rejection {}

impl From<RoundError> for Rejection {
    fn from(e: RoundError) -> Self {
        Rejection::Round(e)
    }
}
