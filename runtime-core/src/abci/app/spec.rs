//! The contract between generated code and the app driver: what the spec says about each round, and the
//! [`Context`] a behaviour sees.
//!
//! `AppSpec` is visible, because code that runs any app (an engine adapter, a simulation) names it as a bound;
//! `Context` is what users' behaviours read. The members of `AppSpec` only the driver calls, and every other
//! item here, are hidden from the documentation: generated code implements and fills them in, users never do.

use borsh::BorshSerialize;
use std::collections::BTreeSet;
use std::fmt::{self, Debug, Display, Formatter};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::block::{AgentId, EncodeError};
use crate::abci::data::Periods;
use crate::abci::rounds::{OutcomeKind, Participants, RoundError, threshold};

/// An app's spec: what the generated code of an `abci` machine or composed app (its `Spec`, a unit struct)
/// tells the driver ([`super::App`]).
///
/// Everything here is a fact of the spec (transitions, timeouts, round kinds, which key a round writes),
/// so the driver's logic is written once, here, and every app gets the same semantics. Generated code
/// implements it; code that runs any app names it as a bound (`App<S: AppSpec>`). The implementing
/// type is a marker; its derives let reports and replicas derive theirs.
pub trait AppSpec: Copy + Eq + Debug + Sized + 'static {
    /// The generated `State` enum.
    type State: Copy + Eq + Ord + Debug + Display + 'static;
    /// The generated `Event` enum.
    type Event: Copy + Eq + Debug + Display + 'static;
    /// The generated synchronized data.
    type Data: Clone + Default + Debug + BorshSerialize;
    /// The generated round in progress: one variant per non-final round, typed by kind and payload.
    type Round: AppRound<Self>;
    /// The behaviour the user implements: `dyn Behaviour` of the generated trait.
    type Agent: ?Sized;

    /// The machine's or app's name.
    const NAME: &'static str;
    /// The state an app starts in.
    const START: Self::State;

    /// The spec's name of `state`.
    fn state_name(state: Self::State) -> &'static str;
    /// The transition function.
    fn next(state: Self::State, event: Self::Event) -> Option<Self::State>;
    /// Whether `state` is final: the app stops there.
    fn is_final(state: Self::State) -> bool;
    /// What the driver does around the round of `state`.
    #[doc(hidden)]
    fn rules(state: Self::State) -> Rules<Self::Event>;
    /// The event `state` emits for `outcome`, if it has a transition for it.
    #[doc(hidden)]
    fn outcome_event(state: Self::State, outcome: OutcomeKind) -> Option<Self::Event>;
    /// A fresh round for `state` among `eligible`; `None` for a final state.
    #[doc(hidden)]
    fn start_round(state: Self::State, eligible: &Participants<AgentId>) -> Option<Self::Round>;
    /// The data a new period starts with: the cross-period keys.
    #[doc(hidden)]
    fn carry(data: &Self::Data) -> Self::Data;
    /// Runs `agent`'s behaviour for the current round and encodes the payload it returns.
    #[doc(hidden)]
    fn act(agent: &mut Self::Agent, ctx: &Context<'_, Self>) -> Result<Vec<u8>, EncodeError>;
}

/// The round of one state, as generated: typed payloads in, a decision and data writes out.
#[doc(hidden)]
pub trait AppRound<S: AppSpec>: Clone + Debug + BorshSerialize {
    /// Decodes `payload` as this round's payload type and records it from `sender`, or says why not. A
    /// rejected payload changes nothing.
    fn deliver(
        &mut self,
        sender: &AgentId,
        payload: &[u8],
        keepers: &KeeperPool<'_>,
    ) -> Result<(), Rejection>;

    /// The end-of-block evaluation. When the round has decided an outcome that `handled` accepts, writes a
    /// `Done` value into `data` as the spec's `writes` says and returns the decision; otherwise changes
    /// nothing.
    fn end_block(
        &self,
        data: &mut S::Data,
        handled: &dyn Fn(OutcomeKind) -> bool,
    ) -> Option<Decision>;

    /// The agents whose payloads the round accepted, in order.
    fn senders(&self) -> Vec<AgentId>;
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

/// A round's decided outcome, with the keeper it elected (for an election).
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Decision {
    /// The outcome.
    pub outcome: OutcomeKind,
    /// For a keeper election that is done: the elected keeper.
    pub keeper: Option<AgentId>,
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

/// The replicated state a behaviour runs against, from the point of view of one agent.
///
/// Everything here is the same on every replica at the same height, except [`Context::me`]: a behaviour
/// whose payload must agree with the others' (a collect-same round, a vote) computes it from these, not
/// from local clocks or randomness.
pub struct Context<'a, S: AppSpec> {
    me: &'a AgentId,
    state: S::State,
    periods: &'a Periods<S::Data>,
    round_count: u64,
    participants: &'a BTreeSet<AgentId>,
    eligible: &'a BTreeSet<AgentId>,
    keeper: Option<&'a AgentId>,
    failed_keepers: &'a BTreeSet<AgentId>,
}

/// What a [`Context`] shows of a replica, as the replica hands it over (the replica builds contexts; a context
/// reads no replica).
pub(crate) struct View<'a, S: AppSpec> {
    pub state: S::State,
    pub periods: &'a Periods<S::Data>,
    pub round_count: u64,
    pub participants: &'a BTreeSet<AgentId>,
    pub eligible: &'a BTreeSet<AgentId>,
    pub keeper: Option<&'a AgentId>,
    pub failed_keepers: &'a BTreeSet<AgentId>,
}

impl<'a, S: AppSpec> Context<'a, S> {
    pub(crate) fn new(view: View<'a, S>, me: &'a AgentId) -> Self {
        Context {
            me,
            state: view.state,
            periods: view.periods,
            round_count: view.round_count,
            participants: view.participants,
            eligible: view.eligible,
            keeper: view.keeper,
            failed_keepers: view.failed_keepers,
        }
    }

    /// The agent this behaviour runs for.
    pub fn me(&self) -> &'a AgentId {
        self.me
    }

    /// The current state (the round the payload is for).
    pub fn state(&self) -> S::State {
        self.state
    }

    /// The current period's synchronized data.
    pub fn data(&self) -> &'a S::Data {
        self.periods.current()
    }

    /// Every kept period's data, oldest first, ending with the current one.
    pub fn history(&self) -> &'a Periods<S::Data> {
        self.periods
    }

    /// The current period.
    pub fn period(&self) -> u64 {
        self.periods.period()
    }

    /// The current round's number: the same on every replica, a fine seed for agreed pseudo-randomness.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// The participants.
    pub fn participants(&self) -> &'a BTreeSet<AgentId> {
        self.participants
    }

    /// The consensus threshold of the current round: ⌈(2N+1)/3⌉ of the agents it takes payloads from.
    pub fn threshold(&self) -> usize {
        threshold(self.eligible.len())
    }

    /// The keeper elected in this period, if any.
    pub fn keeper(&self) -> Option<&'a AgentId> {
        self.keeper
    }

    /// Whether this agent is the keeper.
    pub fn is_keeper(&self) -> bool {
        self.keeper() == Some(self.me)
    }

    /// The keepers that failed in this period.
    pub fn failed_keepers(&self) -> &'a BTreeSet<AgentId> {
        self.failed_keepers
    }

    /// The keeper to propose in a keeper election, from randomness the agents agreed on.
    ///
    /// The participants are put in an order drawn from `seed` (by the SHA-256 of the seed and the
    /// agent); the first that may be elected wins, or, when a keeper was already elected in this period,
    /// the first after it, so a failed keeper's successor is the next in the same order (as upstream
    /// rotates). Agents that failed as keeper in this period are skipped: the app would reject them.
    /// Every replica computes the same answer from the same seed.
    pub fn next_keeper(&self, seed: &[u8]) -> Option<AgentId> {
        let mut order: Vec<([u8; 32], &AgentId)> = self
            .participants()
            .iter()
            .map(|p| {
                let mut h = Sha256::new();
                h.update(seed);
                h.update(p.as_bytes());
                (h.finalize().into(), p)
            })
            .collect();
        order.sort();
        let start = self
            .keeper()
            .and_then(|k| order.iter().position(|(_, p)| *p == k))
            .map_or(0, |i| i.saturating_add(1));
        let failed = self.failed_keepers();
        order
            .iter()
            .cycle()
            .skip(start)
            .take(order.len())
            .map(|(_, p)| *p)
            .find(|p| !failed.contains(*p))
            .cloned()
    }
}
