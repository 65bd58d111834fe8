//! One replica of an app: a deterministic function of the blocks it is fed.

use borsh::{BorshDeserialize, BorshSerialize};
use std::collections::BTreeSet;
use std::fmt::{self, Debug, Display, Formatter};
use std::sync::Arc;

use super::block::{AgentId, AppHash, Block, CountWriter, EncodeError, HashWriter, Submission, Tx};
use super::context::{Context, Snapshot};
use super::spec::{AppRound, AppSpec, BlockEnd, KeeperPool, NoRounds, Rejection, Role};
use crate::abci::data::Periods;
use crate::abci::rounds::{OutcomeKind, Participants};

/// What every replica of an app agrees on before the first block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Genesis {
    /// Every agent of the service (upstream's `all_participants`). Registration rounds take payloads from
    /// them; until the first registration decides, they are the participants.
    pub agents: BTreeSet<AgentId>,
    /// The time the app starts at, in milliseconds: the first round's timeouts count from it.
    pub time_ms: u64,
    /// How many periods of synchronized data are kept, the current one included (at least 1).
    pub history_depth: usize,
}

impl Genesis {
    /// A genesis for `agents` at `time_ms`, keeping the current and the two previous periods.
    pub fn new(agents: impl IntoIterator<Item = impl Into<AgentId>>, time_ms: u64) -> Genesis {
        Genesis {
            agents: agents.into_iter().map(Into::into).collect(),
            time_ms,
            history_depth: 3,
        }
    }
}

/// Why a replica could not take a block. These are faults of whoever feeds the replica (the consensus
/// engine), never of a transaction: transactions are rejected one by one, and the block still applies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppError {
    /// The genesis names no agent.
    NoAgents,
    /// A block's height is not the next one.
    HeightGap {
        /// The height the replica expected.
        expected: u64,
        /// The height it was given.
        got: u64,
    },
    /// A block's time is before the previous block's.
    TimeWentBack {
        /// The previous block's time.
        last_ms: u64,
        /// The new block's time.
        got_ms: u64,
    },
    /// The state could not be encoded for hashing (a value the encoding refuses, such as a NaN float).
    Encode(EncodeError),
    /// A snapshot could not be restored: it does not decode, is of another genesis, or its state does not
    /// hash to the app hash recorded with it.
    Snapshot(String),
}

impl Display for AppError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoAgents => f.write_str("the genesis names no agent"),
            Self::HeightGap { expected, got } => {
                write!(f, "expected block {expected}, got block {got}")
            }
            Self::TimeWentBack { last_ms, got_ms } => write!(
                f,
                "block time {got_ms} ms is before the previous block's {last_ms} ms"
            ),
            Self::Encode(e) => Display::fmt(e, f),
            Self::Snapshot(why) => write!(f, "the snapshot cannot be restored: {why}"),
        }
    }
}

impl std::error::Error for AppError {}

/// Why the app left a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    /// The round decided at the end of the block.
    Decided(OutcomeKind),
    /// The app's own code decided a custom round at the end of the block.
    Custom,
    /// The block's time passed the round's timeout.
    Timeout,
}

/// One transition the app made while applying a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppStep<S: AppSpec> {
    /// The state left.
    pub from: S::State,
    /// The event.
    pub event: S::Event,
    /// The state entered.
    pub to: S::State,
    /// Why.
    pub cause: Cause,
    /// The period the state was left in.
    pub period: u64,
}

/// A transaction that did not apply, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// Its index in the block.
    pub index: usize,
    /// Its sender.
    pub sender: AgentId,
    /// Why it was rejected.
    pub reason: Rejection,
}

/// The version of [`App::snapshot`]'s encoding.
const SNAPSHOT_VERSION: u8 = 1;

/// The fixed part of a snapshot: version, previous hash, height, time, state, round number, round start, the
/// round's blocks; then genesis agents, participants, keeper, failed keepers.
type SnapshotHead = (
    (u8, AppHash, u64, u64, String, u64, u64, u64),
    (
        BTreeSet<AgentId>,
        BTreeSet<AgentId>,
        Option<AgentId>,
        BTreeSet<AgentId>,
    ),
);

/// What applying one block did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockReport<S: AppSpec> {
    /// The block's height.
    pub height: u64,
    /// The block's time.
    pub time_ms: u64,
    /// The transitions, in order: a timeout at the start of the block, a decision at its end.
    pub steps: Vec<AppStep<S>>,
    /// How many transactions applied.
    pub accepted: usize,
    /// The transactions that did not.
    pub rejected: Vec<Rejected>,
    /// The app hash after the block.
    pub app_hash: AppHash,
}

/// One replica of an app: its state, current round, synchronized data with periods, participants and
/// keeper. It changes only through [`App::deliver_block`], as a deterministic function of the blocks: no
/// clock but the block time, no randomness, only ordered collections. Replicas fed the same blocks have the
/// same [`App::app_hash`] after every block, on any machine.
#[derive(Clone)]
pub struct App<S: AppSpec> {
    genesis: Genesis,
    logic: Arc<S::Logic>,
    height: u64,
    time_ms: u64,
    state: S::State,
    round: Option<S::Round>,
    round_count: u64,
    round_started_ms: u64,
    /// Blocks that ended while the current round was open.
    round_blocks: u64,
    periods: Periods<S::Data>,
    participants: BTreeSet<AgentId>,
    keeper: Option<AgentId>,
    failed_keepers: BTreeSet<AgentId>,
    /// The states entered in this period, for behaviours (derived from the blocks, so not hashed).
    visited: Vec<S::State>,
    /// The hash before the last block: the hash chains it, so a restored replica needs it to check its own.
    previous: AppHash,
    hash: AppHash,
}

impl<S: AppSpec> Debug for App<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("App")
            .field("name", &S::NAME)
            .field("height", &self.height)
            .field("state", &self.state)
            .field("round_count", &self.round_count)
            .field("period", &self.periods.period())
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

impl<S: AppSpec<Logic = NoRounds>> App<S> {
    /// A replica at genesis, in the app's start state with its first round open (an app without custom
    /// rounds; one with them starts with [`App::with_rounds`]).
    pub fn new(genesis: Genesis) -> Result<Self, AppError> {
        App::with_rounds(genesis, Arc::new(NoRounds))
    }
}

impl<S: AppSpec> App<S> {
    /// A replica at genesis whose custom rounds `logic` decides (the user's implementation of the generated
    /// `Rounds` trait, the same on every replica).
    pub fn with_rounds(genesis: Genesis, logic: Arc<S::Logic>) -> Result<Self, AppError> {
        if genesis.agents.is_empty() {
            return Err(AppError::NoAgents);
        }
        let mut app = App {
            logic,
            height: 0,
            time_ms: genesis.time_ms,
            state: S::START,
            round: None,
            round_count: 0,
            round_started_ms: genesis.time_ms,
            round_blocks: 0,
            periods: Periods::new(S::Data::default()),
            participants: genesis.agents.clone(),
            keeper: None,
            failed_keepers: BTreeSet::new(),
            visited: vec![S::START],
            previous: AppHash::GENESIS,
            hash: AppHash::GENESIS,
            genesis,
        };
        app.round = app.open_round(S::START);
        app.hash = app.compute_hash()?;
        Ok(app)
    }

    /// The app's own logic for its custom rounds.
    pub fn logic(&self) -> &Arc<S::Logic> {
        &self.logic
    }

    /// Applies the next block: first the round's timeout if the block's time has passed it, then each
    /// transaction in order (a transaction that does not fit is rejected and recorded, never applied), then
    /// the end-of-block evaluation of the round, exactly as Open Autonomy's `begin_block`, `deliver_tx` and
    /// `end_block` do. Returns what happened and the new app hash.
    pub fn deliver_block(&mut self, block: &Block) -> Result<BlockReport<S>, AppError> {
        let expected = self.height.saturating_add(1);
        if block.height != expected {
            return Err(AppError::HeightGap {
                expected,
                got: block.height,
            });
        }
        if block.time_ms < self.time_ms {
            return Err(AppError::TimeWentBack {
                last_ms: self.time_ms,
                got_ms: block.time_ms,
            });
        }
        self.height = block.height;
        self.time_ms = block.time_ms;
        let mut report = BlockReport {
            height: block.height,
            time_ms: block.time_ms,
            steps: Vec::new(),
            accepted: 0,
            rejected: Vec::new(),
            app_hash: self.hash,
        };

        // A timeout counts from the block the round started in. At most one fires per block: the next
        // round's deadline lies after this block's time for any positive duration.
        if self.round.is_some()
            && let Some((event, duration)) = S::rules(self.state).timeout
        {
            let deadline = self
                .round_started_ms
                .saturating_add(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX));
            if block.time_ms >= deadline {
                if S::rules(self.state).role == Role::Keeper {
                    self.keeper_failed();
                }
                self.fire(event, Cause::Timeout, &mut report);
            }
        }

        for (index, tx) in block.txs.iter().enumerate() {
            match self.deliver_tx(tx) {
                Ok(()) => report.accepted = report.accepted.saturating_add(1),
                Err(reason) => report.rejected.push(Rejected {
                    index,
                    sender: tx.sender.clone(),
                    reason,
                }),
            }
        }

        self.end_block(&mut report);
        self.previous = self.hash;
        self.hash = self.compute_hash()?;
        report.app_hash = self.hash;
        Ok(report)
    }

    fn deliver_tx(&mut self, tx: &Tx) -> Result<(), Rejection> {
        let submission = Submission::decode(&tx.data).ok_or(Rejection::Undecodable)?;
        let round = self.round.as_mut().ok_or(Rejection::Finished)?;
        if submission.round != self.round_count {
            return Err(Rejection::WrongRound {
                expected: self.round_count,
                got: submission.round,
            });
        }
        let pool = KeeperPool {
            participants: &self.participants,
            failed: &self.failed_keepers,
        };
        round.deliver(&tx.sender, &submission.payload, &pool)
    }

    fn end_block(&mut self, report: &mut BlockReport<S>) {
        let eligible = match S::rules(self.state).role {
            Role::Registration => &self.genesis.agents,
            _ => &self.participants,
        };
        let Some(round) = &mut self.round else {
            return;
        };
        self.round_blocks = self.round_blocks.saturating_add(1);
        let end = BlockEnd {
            logic: &*self.logic,
            period: self.periods.period(),
            participants: &self.participants,
            eligible,
            time_ms: self.time_ms,
            round_started_ms: self.round_started_ms,
            blocks: self.round_blocks,
        };
        let Some(decision) = round.end_block(self.periods.current_mut(), &end) else {
            return;
        };
        let rules = S::rules(self.state);
        let done = decision.outcome == Some(OutcomeKind::Done);
        match rules.role {
            Role::Registration if done => {
                self.participants = round.senders().into_iter().collect();
                // The new participants may all have failed as keeper already: no election could then
                // succeed before the next period.
                self.wipe_failed_keepers();
            }
            Role::KeeperElection if done => self.keeper = decision.keeper,
            Role::Keeper if decision.outcome == Some(OutcomeKind::Fail) => self.keeper_failed(),
            _ => {}
        }
        if rules.reset && done {
            self.periods.start_new_period(S::carry);
            self.periods.prune(self.genesis.history_depth);
            self.keeper = None;
            self.failed_keepers.clear();
            self.visited.clear();
        }
        let cause = match decision.outcome {
            Some(outcome) => Cause::Decided(outcome),
            None => Cause::Custom,
        };
        self.fire(decision.event, cause, report);
    }

    /// The keeper did not deliver: it may not be elected again in this period. Once every participant
    /// has failed, the slate is wiped, so an election can still succeed (upstream stops the app instead).
    fn keeper_failed(&mut self) {
        if let Some(keeper) = self.keeper.clone() {
            self.failed_keepers.insert(keeper);
        }
        self.wipe_failed_keepers();
    }

    /// Once every participant has failed as keeper, none could be elected: the slate is wiped.
    fn wipe_failed_keepers(&mut self) {
        if self
            .participants
            .iter()
            .all(|p| self.failed_keepers.contains(p))
        {
            self.failed_keepers.clear();
        }
    }

    fn fire(&mut self, event: S::Event, cause: Cause, report: &mut BlockReport<S>) {
        let from = self.state;
        let Some(to) = S::next(from, event) else {
            return;
        };
        report.steps.push(AppStep {
            from,
            event,
            to,
            cause,
            period: self.periods.period(),
        });
        self.state = to;
        self.visited.push(to);
        self.round_count = self.round_count.saturating_add(1);
        self.round_started_ms = self.time_ms;
        self.round_blocks = 0;
        self.round = self.open_round(to);
    }

    fn open_round(&self, state: S::State) -> Option<S::Round> {
        if S::is_final(state) {
            return None;
        }
        let rules = S::rules(state);
        let members = match rules.role {
            Role::Registration => &self.genesis.agents,
            _ => &self.participants,
        };
        let mut eligible = Participants::new(members.iter().cloned()).ok()?;
        if rules.role == Role::Keeper
            && let Some(keeper) = &self.keeper
        {
            // A keeper that is no longer a participant cannot send: the round then waits for its timeout.
            eligible = eligible
                .clone()
                .with_keeper(keeper.clone())
                .unwrap_or(eligible);
        }
        S::start_round(state, &eligible)
    }

    fn encode_state<W: borsh::io::Write>(&self, w: &mut W) -> borsh::io::Result<()> {
        self.hash.serialize(w)?;
        self.height.serialize(w)?;
        self.time_ms.serialize(w)?;
        S::state_name(self.state).serialize(w)?;
        self.round_count.serialize(w)?;
        self.round_started_ms.serialize(w)?;
        self.round_blocks.serialize(w)?;
        self.periods.period().serialize(w)?;
        self.genesis.agents.serialize(w)?;
        self.participants.serialize(w)?;
        self.keeper.serialize(w)?;
        self.failed_keepers.serialize(w)?;
        self.periods.current().serialize(w)?;
        self.round.serialize(w)
    }

    /// The hash chains the previous one, so it covers the whole history, and encodes the rest canonically.
    fn compute_hash(&self) -> Result<AppHash, AppError> {
        let mut w = HashWriter::new();
        self.encode_state(&mut w)
            .map_err(|e| AppError::Encode(EncodeError(e.to_string())))?;
        Ok(w.finish())
    }

    /// The replica's whole state in one encoding (the hashed state, every kept period and the states visited
    /// in this period), for [`App::restore`]: a node stores it every so many heights and starts from the latest
    /// one instead of replaying every block, or hands it to a node that catches up.
    pub fn snapshot(&self) -> Result<Vec<u8>, AppError> {
        let mut bytes = Vec::new();
        let visited: Vec<&str> = self.visited.iter().map(|s| S::state_name(*s)).collect();
        let written = (
            SNAPSHOT_VERSION,
            self.previous,
            self.height,
            self.time_ms,
            S::state_name(self.state),
            self.round_count,
            self.round_started_ms,
            self.round_blocks,
            &self.genesis.agents,
            &self.participants,
            &self.keeper,
            &self.failed_keepers,
        )
            .serialize(&mut bytes)
            .and_then(|()| (&self.periods, visited, &self.round).serialize(&mut bytes));
        written.map_err(|e| AppError::Encode(EncodeError(e.to_string())))?;
        Ok(bytes)
    }

    /// The replica a [`App::snapshot`] was taken of, for `genesis` and `logic` (the same on every replica),
    /// checked: the snapshot must decode whole, be of `genesis`' agents, and its state must hash to `expected`,
    /// the app hash recorded with it (a node's own store, or a quorum's certificate for a peer's snapshot).
    pub fn restore(
        genesis: Genesis,
        logic: Arc<S::Logic>,
        bytes: &[u8],
        expected: AppHash,
    ) -> Result<Self, AppError> {
        let bad = |e: borsh::io::Error| AppError::Snapshot(format!("it does not decode: {e}"));
        let mut reader = bytes;
        let head = <SnapshotHead>::deserialize_reader(&mut reader).map_err(bad)?;
        let (
            version,
            previous,
            height,
            time_ms,
            state,
            round_count,
            round_started_ms,
            round_blocks,
        ) = head.0;
        let (agents, participants, keeper, failed_keepers) = head.1;
        if version != SNAPSHOT_VERSION {
            return Err(AppError::Snapshot(format!("unknown version {version}")));
        }
        if agents != genesis.agents {
            return Err(AppError::Snapshot(
                "it is of another genesis' agents".into(),
            ));
        }
        let tail =
            <(Periods<S::Data>, Vec<String>, Option<S::Round>)>::deserialize_reader(&mut reader)
                .map_err(bad)?;
        if !reader.is_empty() {
            return Err(AppError::Snapshot(format!(
                "{} bytes follow it",
                reader.len()
            )));
        }
        let (periods, visited_names, round) = tail;
        let named = |name: &str| {
            S::state_named(name)
                .ok_or_else(|| AppError::Snapshot(format!("no state is named {name}")))
        };
        let visited = visited_names
            .iter()
            .map(|n| named(n))
            .collect::<Result<Vec<_>, _>>()?;
        let mut app = App {
            genesis,
            logic,
            height,
            time_ms,
            state: named(&state)?,
            round,
            round_count,
            round_started_ms,
            round_blocks,
            periods,
            participants,
            keeper,
            failed_keepers,
            visited,
            previous,
            hash: previous,
        };
        let hash = app.compute_hash()?;
        if hash != expected {
            return Err(AppError::Snapshot(format!(
                "its state hashes to {hash}, not to the recorded {expected}"
            )));
        }
        app.hash = hash;
        Ok(app)
    }

    /// The app hash after the last block (at genesis, the hash of the genesis state).
    pub fn app_hash(&self) -> AppHash {
        self.hash
    }

    /// The height of the last block applied (0 at genesis).
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The time of the last block applied (the genesis time before the first).
    pub fn time_ms(&self) -> u64 {
        self.time_ms
    }

    /// The current state.
    pub fn state(&self) -> S::State {
        self.state
    }

    /// Whether the app has reached a final state.
    pub fn is_finished(&self) -> bool {
        self.round.is_none()
    }

    /// The number of the current round: how many rounds started before it.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// The time the current round started at.
    pub fn round_started_ms(&self) -> u64 {
        self.round_started_ms
    }

    /// The round in progress (`None` in a final state).
    pub fn round(&self) -> Option<&S::Round> {
        self.round.as_ref()
    }

    /// The current period (0 until the first reset round is done).
    pub fn period(&self) -> u64 {
        self.periods.period()
    }

    /// The current period's synchronized data.
    pub fn data(&self) -> &S::Data {
        self.periods.current()
    }

    /// The synchronized data of every period still kept.
    pub fn periods(&self) -> &Periods<S::Data> {
        &self.periods
    }

    /// The genesis this replica started from.
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// The participants: the agents the last registration collected (every agent before that).
    pub fn participants(&self) -> &BTreeSet<AgentId> {
        &self.participants
    }

    /// The keeper elected in this period, if any.
    pub fn keeper(&self) -> Option<&AgentId> {
        self.keeper.as_ref()
    }

    /// The keepers that failed in this period; none of them can be elected again before the next.
    pub fn failed_keepers(&self) -> &BTreeSet<AgentId> {
        &self.failed_keepers
    }

    /// The agents the current round takes payloads from.
    pub fn eligible(&self) -> &BTreeSet<AgentId> {
        match S::rules(self.state).role {
            Role::Registration => &self.genesis.agents,
            _ => &self.participants,
        }
    }

    /// The size in bytes of the replicated state's canonical encoding: what memory it takes grows with this.
    pub fn encoded_size(&self) -> usize {
        let mut w = CountWriter(0);
        let kept = self.periods.history().try_for_each(|d| d.serialize(&mut w));
        match kept.and_then(|()| self.encode_state(&mut w)) {
            Ok(()) => w.0,
            Err(_) => usize::MAX,
        }
    }

    /// Whether `me` is expected to submit a payload in the current round: a participant (every agent in a
    /// registration round), or the keeper alone in a keeper round.
    pub fn expects(&self, me: &AgentId) -> bool {
        if self.round.is_none() {
            return false;
        }
        match S::rules(self.state).role {
            Role::Keeper => self.keeper.as_ref() == Some(me) && self.participants.contains(me),
            _ => self.eligible().contains(me),
        }
    }

    /// What `me`'s behaviour sees now: a snapshot of this replica; `None` in a final state.
    pub fn context(&self, me: &AgentId) -> Option<Context<S>> {
        self.round.as_ref()?;
        let snapshot = Snapshot {
            state: self.state,
            periods: self.periods.clone(),
            round_count: self.round_count,
            participants: self.participants.clone(),
            eligible: self.eligible().clone(),
            keeper: self.keeper.clone(),
            failed_keepers: self.failed_keepers.clone(),
            time_ms: self.time_ms,
            round_started_ms: self.round_started_ms,
            visited: self.visited.clone(),
        };
        Some(Context::new(snapshot, me.clone()))
    }

    /// The transaction that submits `payload` (encoded) to the current round.
    pub fn submission(&self, payload: Vec<u8>) -> Vec<u8> {
        Submission {
            round: self.round_count,
            payload,
        }
        .encode()
    }
}
