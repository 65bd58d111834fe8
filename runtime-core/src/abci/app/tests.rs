//! The driver on a small app written out by hand the way generated code is: register, observe, agree on an
//! estimate, elect a keeper, let it send, reset.

use super::*;
use crate::abci::rounds::{
    CollectDifferentUntilThreshold, CollectSameUntilAll, CollectSameUntilThreshold, DecodeRound,
    OnlyKeeperSends, Outcome, OutcomeKind, Participants, Round as _, RoundError,
};
use borsh::{BorshDeserialize, BorshSerialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum State {
    Register,
    Observe,
    Agree,
    Elect,
    Send,
    Reset,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    Done,
    None,
    NoMajority,
    Fail,
    Timeout,
    KeeperTimeout,
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Data {
    observations: Option<BTreeMap<AgentId, u64>>,
    /// Cross-period.
    estimate: Option<u64>,
    sent: Option<u64>,
}

impl BorshSerialize for Data {
    fn serialize<W: borsh::io::Write>(&self, w: &mut W) -> borsh::io::Result<()> {
        self.observations.serialize(w)?;
        self.estimate.serialize(w)?;
        self.sent.serialize(w)
    }
}

impl BorshDeserialize for Data {
    fn deserialize_reader<R: borsh::io::Read>(r: &mut R) -> borsh::io::Result<Self> {
        Ok(Data {
            observations: BorshDeserialize::deserialize_reader(r)?,
            estimate: BorshDeserialize::deserialize_reader(r)?,
            sent: BorshDeserialize::deserialize_reader(r)?,
        })
    }
}

#[derive(Clone, Debug)]
pub(super) enum TestRound {
    Register(CollectSameUntilAll<AgentId, String>),
    Observe(CollectDifferentUntilThreshold<AgentId, u64>),
    Agree(CollectSameUntilThreshold<AgentId, u64>),
    Elect(CollectSameUntilThreshold<AgentId, AgentId>),
    Send(OnlyKeeperSends<AgentId, u64>),
    Reset(CollectSameUntilThreshold<AgentId, u64>),
}

impl BorshSerialize for TestRound {
    fn serialize<W: borsh::io::Write>(&self, w: &mut W) -> borsh::io::Result<()> {
        // A tag first, as generated code writes: the round decodes by it.
        match self {
            TestRound::Register(r) => (0u8, r).serialize(w),
            TestRound::Observe(r) => (1u8, r).serialize(w),
            TestRound::Agree(r) => (2u8, r).serialize(w),
            TestRound::Elect(r) => (3u8, r).serialize(w),
            TestRound::Send(r) => (4u8, r).serialize(w),
            TestRound::Reset(r) => (5u8, r).serialize(w),
        }
    }
}

impl BorshDeserialize for TestRound {
    fn deserialize_reader<R: borsh::io::Read>(r: &mut R) -> borsh::io::Result<Self> {
        Ok(match u8::deserialize_reader(r)? {
            0 => TestRound::Register(DecodeRound::decode_round(r, 0)?),
            1 => TestRound::Observe(DecodeRound::decode_round(r, 0)?),
            2 => TestRound::Agree(DecodeRound::decode_round(r, 0)?),
            3 => TestRound::Elect(DecodeRound::decode_round(r, 0)?),
            4 => TestRound::Send(DecodeRound::decode_round(r, 0)?),
            5 => TestRound::Reset(DecodeRound::decode_round(r, 0)?),
            _ => return Err(borsh::io::ErrorKind::InvalidData.into()),
        })
    }
}

fn bad<T: borsh::BorshDeserialize>(payload: &[u8]) -> Result<T, Rejection> {
    decode(payload).ok_or(Rejection::BadPayload)
}

/// The event `state` ends with for a decided `outcome`, as generated code maps it; `None` when the state has no
/// transition for it (the outcome then decides nothing).
fn decided<V>(state: State, outcome: Option<Outcome<V>>) -> Option<(Event, Outcome<V>)> {
    let outcome = outcome?;
    let event = outcome_event(state, outcome.kind())?;
    Some((event, outcome))
}

fn plain(event: Event, o: OutcomeKind) -> Decision<Event> {
    Decision {
        event,
        outcome: Some(o),
        keeper: None,
    }
}

impl AppRound<TestApp> for TestRound {
    fn deliver(
        &mut self,
        sender: &AgentId,
        payload: &[u8],
        keepers: &KeeperPool<'_>,
    ) -> Result<(), Rejection> {
        let who = sender.clone();
        match self {
            TestRound::Register(r) => r.submit(who, bad(payload)?)?,
            TestRound::Observe(r) => r.submit(who, bad(payload)?)?,
            // `NONE` is handled: the wire type is the optional payload.
            TestRound::Agree(r) => r.submit(who, bad(payload)?)?,
            TestRound::Elect(r) => {
                let candidate: AgentId = bad(payload)?;
                keepers.check(&candidate)?;
                r.submit(who, Some(candidate))?
            }
            TestRound::Send(r) => r.submit(who, bad(payload)?)?,
            TestRound::Reset(r) => r.submit(who, Some(bad(payload)?))?,
        }
        Ok(())
    }

    fn end_block(&mut self, data: &mut Data, _: &BlockEnd<'_, TestApp>) -> Option<Decision<Event>> {
        Some(match self {
            TestRound::Register(r) => {
                let (e, o) = decided(State::Register, r.end_block())?;
                plain(e, o.kind())
            }
            TestRound::Observe(r) => match decided(State::Observe, r.end_block())? {
                (e, Outcome::Done(v)) => {
                    data.observations = Some(v);
                    plain(e, OutcomeKind::Done)
                }
                (e, o) => plain(e, o.kind()),
            },
            TestRound::Agree(r) => match decided(State::Agree, r.end_block())? {
                (e, Outcome::Done(v)) => {
                    data.estimate = Some(v);
                    plain(e, OutcomeKind::Done)
                }
                (e, o) => plain(e, o.kind()),
            },
            TestRound::Elect(r) => match decided(State::Elect, r.end_block())? {
                (event, Outcome::Done(v)) => Decision {
                    event,
                    outcome: Some(OutcomeKind::Done),
                    keeper: Some(v),
                },
                (e, o) => plain(e, o.kind()),
            },
            TestRound::Send(r) => match decided(State::Send, r.end_block())? {
                (e, Outcome::Done(v)) => {
                    data.sent = Some(v);
                    plain(e, OutcomeKind::Done)
                }
                (e, o) => plain(e, o.kind()),
            },
            TestRound::Reset(r) => {
                let (e, o) = decided(State::Reset, r.end_block())?;
                plain(e, o.kind())
            }
        })
    }

    fn senders(&self) -> Vec<AgentId> {
        match self {
            TestRound::Register(r) => r.submissions().keys().cloned().collect(),
            TestRound::Observe(r) => r.submissions().keys().cloned().collect(),
            TestRound::Agree(r) => r.submissions().keys().cloned().collect(),
            TestRound::Elect(r) => r.submissions().keys().cloned().collect(),
            TestRound::Send(r) => r.submissions().keys().cloned().collect(),
            TestRound::Reset(r) => r.submissions().keys().cloned().collect(),
        }
    }
}

/// What each agent does; the test sets the fields to make it misbehave.
#[derive(Clone, Debug, Default)]
pub(super) struct Agent {
    pub observation: u64,
    /// In the keeper round: `None` reports failure.
    pub send: Option<u64>,
}

impl Agent {
    /// The payload for the round `ctx` is in, as generated behaviours compute it: synchronously here.
    pub(super) fn payload(&self, ctx: &Context<TestApp>) -> Result<Vec<u8>, EncodeError> {
        match ctx.state() {
            State::Register => encode(&"v1".to_string()),
            State::Observe => encode(&self.observation),
            State::Agree => {
                let obs = ctx.data().observations.as_ref();
                let mut v: Vec<u64> = obs
                    .map(|o| o.values().copied().collect())
                    .unwrap_or_default();
                v.sort_unstable();
                encode(&v.get(v.len() / 2).copied())
            }
            State::Elect => encode(
                &ctx.next_keeper(&ctx.round_count().to_le_bytes())
                    .unwrap_or_default(),
            ),
            State::Send => encode(&self.send),
            State::Reset => encode(&ctx.period()),
        }
    }
}

impl Drive<Agent> for TestApp {
    fn act(agent: &Arc<Agent>, ctx: Context<TestApp>) -> Option<Pending> {
        let agent = Arc::clone(agent);
        Some(Box::pin(async move { Ok(agent.payload(&ctx)?) }))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TestApp;

const SECOND: Duration = Duration::from_secs(1);

impl AppSpec for TestApp {
    type State = State;
    type Event = Event;
    type Data = Data;
    type Round = TestRound;
    type Logic = NoRounds;
    const NAME: &'static str = "TestApp";
    const START: State = State::Register;
    const FINGERPRINT: [u8; 32] = [7; 32];

    fn state_name(state: State) -> &'static str {
        match state {
            State::Register => "Register",
            State::Observe => "Observe",
            State::Agree => "Agree",
            State::Elect => "Elect",
            State::Send => "Send",
            State::Reset => "Reset",
        }
    }

    fn state_named(name: &str) -> Option<State> {
        [
            State::Register,
            State::Observe,
            State::Agree,
            State::Elect,
            State::Send,
            State::Reset,
        ]
        .into_iter()
        .find(|s| Self::state_name(*s) == name)
    }

    fn next(state: State, event: Event) -> Option<State> {
        use Event as E;
        use State as S;
        Some(match (state, event) {
            (S::Register, E::Done) => S::Observe,
            (S::Observe, E::Done) => S::Agree,
            (S::Observe, E::Timeout) => S::Observe,
            (S::Agree, E::Done) => S::Elect,
            (S::Agree, E::None | E::NoMajority) => S::Observe,
            (S::Elect, E::Done) => S::Send,
            (S::Elect, E::NoMajority) => S::Elect,
            (S::Send, E::Done) => S::Reset,
            (S::Send, E::Fail | E::KeeperTimeout) => S::Elect,
            (S::Reset, E::Done) => S::Observe,
            (S::Reset, E::NoMajority) => S::Reset,
            _ => return None,
        })
    }

    fn is_final(_: State) -> bool {
        false
    }

    fn rules(state: State) -> Rules<Event> {
        let (role, reset, timeout) = match state {
            State::Register => (Role::Registration, false, None),
            State::Observe => (Role::Collect, false, Some((Event::Timeout, 10 * SECOND))),
            State::Elect => (Role::KeeperElection, false, None),
            State::Send => (
                Role::Keeper,
                false,
                Some((Event::KeeperTimeout, 20 * SECOND)),
            ),
            State::Reset => (Role::Collect, true, None),
            State::Agree => (Role::Collect, false, None),
        };
        Rules {
            role,
            reset,
            timeout,
        }
    }

    fn start_round(state: State, eligible: &Participants<AgentId>) -> Option<TestRound> {
        Some(match state {
            State::Register => TestRound::Register(CollectSameUntilAll::new(eligible)),
            State::Observe => TestRound::Observe(CollectDifferentUntilThreshold::new(eligible)),
            State::Agree => TestRound::Agree(CollectSameUntilThreshold::new(eligible)),
            State::Elect => TestRound::Elect(CollectSameUntilThreshold::new(eligible)),
            State::Send => TestRound::Send(OnlyKeeperSends::new(eligible)),
            State::Reset => TestRound::Reset(CollectSameUntilThreshold::new(eligible)),
        })
    }

    fn carry(data: &Data) -> Data {
        Data {
            estimate: data.estimate,
            ..Data::default()
        }
    }
}

/// The event `state` emits for `outcome`, if it has a transition for it (generated code's `outcome_event`).
fn outcome_event(state: State, outcome: OutcomeKind) -> Option<Event> {
    let event = match outcome {
        OutcomeKind::Done => Event::Done,
        OutcomeKind::None => Event::None,
        OutcomeKind::NoMajority => Event::NoMajority,
        OutcomeKind::Fail => Event::Fail,
        OutcomeKind::Negative => return None,
    };
    TestApp::next(state, event).map(|_| event)
}

const AGENTS: [&str; 4] = ["a", "b", "c", "d"];

pub(super) fn agent(i: usize) -> AgentId {
    AGENTS[i].to_string()
}

pub(super) fn new_app() -> App<TestApp> {
    App::new(Genesis::new(AGENTS, 1_000)).unwrap()
}

pub(super) fn tx(sender: &str, round: u64, payload: Vec<u8>) -> Tx {
    Tx {
        sender: sender.to_string(),
        data: Submission { round, payload }.encode(),
    }
}

/// A block at `app`'s next height, `dt_ms` after its last block, holding `txs`.
pub(super) fn block(app: &App<TestApp>, dt_ms: u64, txs: Vec<Tx>) -> Block {
    Block {
        height: app.height() + 1,
        time_ms: app.time_ms() + dt_ms,
        txs,
    }
}

/// Every agent's payload for the current round, from `agents`, in agent order.
pub(super) fn everyone(app: &App<TestApp>, agents: &mut [Agent]) -> Vec<Tx> {
    let mut txs = Vec::new();
    for (i, a) in agents.iter_mut().enumerate() {
        if !app.expects(&agent(i)) {
            continue;
        }
        let ctx = app.context(&agent(i)).unwrap();
        let payload = a.payload(&ctx).unwrap();
        txs.push(Tx {
            sender: agent(i),
            data: app.submission(payload),
        });
    }
    txs
}

pub(super) fn honest() -> Vec<Agent> {
    (0..4)
        .map(|i| Agent {
            observation: 100 + i as u64,
            send: Some(7),
        })
        .collect()
}

/// Runs blocks in which every agent submits until the app leaves `state`.
fn run_round(app: &mut App<TestApp>, agents: &mut [Agent]) -> BlockReport<TestApp> {
    let txs = everyone(app, agents);
    let b = block(app, 1_000, txs);
    app.deliver_block(&b).unwrap()
}

#[test]
fn one_period_end_to_end() {
    let mut app = new_app();
    let mut agents = honest();
    let first = app.app_hash();
    let trail: Vec<(State, Event)> = (0..6)
        .flat_map(|_| run_round(&mut app, &mut agents).steps)
        .map(|s| (s.from, s.event))
        .collect();
    assert_eq!(
        trail,
        [
            (State::Register, Event::Done),
            (State::Observe, Event::Done),
            (State::Agree, Event::Done),
            (State::Elect, Event::Done),
            (State::Send, Event::Done),
            (State::Reset, Event::Done),
        ]
    );
    assert_ne!(app.app_hash(), first);
    assert_eq!(app.period(), 1);
    assert_eq!(app.participants().len(), 4);
    // Only the cross-period estimate survives the reset: the median (upper) of 100..=103.
    assert_eq!(app.data().estimate, Some(102));
    assert_eq!(app.data().observations, None);
    assert_eq!(app.periods().get(0).unwrap().sent, Some(7));
    assert_eq!(app.keeper(), None, "a new period forgets the keeper");
    assert_eq!(app.round_count(), 6);
}

#[test]
fn registration_makes_the_senders_participants() {
    let mut app = new_app();
    // Only three of four register: a collect-same-until-all round waits for all of them.
    let txs: Vec<Tx> = (0..3)
        .map(|i| tx(AGENTS[i], 0, encode(&"v1".to_string()).unwrap()))
        .collect();
    let r = app.deliver_block(&block(&app, 1_000, txs)).unwrap();
    assert!(r.steps.is_empty());
    let late = tx("d", 0, encode(&"v1".to_string()).unwrap());
    let r = app.deliver_block(&block(&app, 1_000, vec![late])).unwrap();
    assert_eq!(r.steps.len(), 1);
    assert_eq!(app.participants().len(), 4);
}

#[test]
fn the_whole_block_is_judged_at_its_end() {
    let mut app = new_app();
    let mut agents = honest();
    run_round(&mut app, &mut agents); // registered
    run_round(&mut app, &mut agents); // observed
    assert_eq!(app.state(), State::Agree);
    // Three `None`s would already settle the round on `NONE`; the block also holds a fourth payload, and
    // judged at its end the outcome is the same `NONE` (threshold 3 reached by `None`).
    let rc = app.round_count();
    let none = encode(&None::<u64>).unwrap();
    let five = encode(&Some(5u64)).unwrap();
    let txs = vec![
        tx("a", rc, five.clone()),
        tx("b", rc, five.clone()),
        tx("c", rc, none.clone()),
        tx("d", rc, five.clone()),
    ];
    let r = app.deliver_block(&block(&app, 1_000, txs)).unwrap();
    // Judged after the second payload nothing is decided; at the end of the block 5 has three votes.
    assert_eq!(r.steps[0].cause, Cause::Decided(OutcomeKind::Done));
    assert_eq!(app.data().estimate, Some(5));
}

#[test]
fn timeouts_count_block_time_from_the_round_start() {
    let mut app = new_app();
    let mut agents = honest();
    run_round(&mut app, &mut agents);
    assert_eq!(app.state(), State::Observe);
    let started = app.round_started_ms();
    // Empty blocks up to just before the deadline change nothing...
    let r = app
        .deliver_block(&Block {
            height: app.height() + 1,
            time_ms: started + 9_999,
            txs: vec![],
        })
        .unwrap();
    assert!(r.steps.is_empty());
    // ...and the first block at the deadline fires the timeout, even with no transactions.
    let r = app
        .deliver_block(&Block {
            height: app.height() + 1,
            time_ms: started + 10_000,
            txs: vec![],
        })
        .unwrap();
    assert_eq!(r.steps.len(), 1);
    assert_eq!(r.steps[0].cause, Cause::Timeout);
    assert_eq!(r.steps[0].event, Event::Timeout);
    assert_eq!(app.round_started_ms(), started + 10_000);
}

#[test]
fn payloads_in_the_timeout_block_are_for_the_old_round() {
    let mut app = new_app();
    let mut agents = honest();
    run_round(&mut app, &mut agents);
    let late = everyone(&app, &mut agents);
    let r = app.deliver_block(&block(&app, 10_000, late)).unwrap();
    // The timeout opened a new round first, so the payloads addressed to the old one are all rejected.
    assert_eq!(r.accepted, 0);
    assert_eq!(r.rejected.len(), 4);
    assert!(matches!(r.rejected[0].reason, Rejection::WrongRound { .. }));
}

#[test]
fn every_misfit_is_rejected_and_changes_nothing() {
    let mut app = new_app();
    let mut agents = honest();
    run_round(&mut app, &mut agents);
    let rc = app.round_count();
    let ok = encode(&5u64).unwrap();
    let txs = vec![
        Tx {
            sender: "a".into(),
            data: vec![0xff, 0x01],
        },
        tx("a", rc + 1, ok.clone()),
        tx("a", rc, vec![1, 2, 3]),
        tx("stranger", rc, ok.clone()),
        tx("a", rc, ok.clone()),
        tx("a", rc, encode(&6u64).unwrap()),
    ];
    let r = app.deliver_block(&block(&app, 1_000, txs)).unwrap();
    let reasons: Vec<Rejection> = r.rejected.iter().map(|x| x.reason.clone()).collect();
    assert_eq!(
        reasons,
        [
            Rejection::Undecodable,
            Rejection::WrongRound {
                expected: rc,
                got: rc + 1
            },
            Rejection::BadPayload,
            Rejection::Round(RoundError::NotAParticipant),
            Rejection::Round(RoundError::AlreadySubmitted),
        ]
    );
    assert_eq!(r.accepted, 1);
    assert_eq!(r.rejected[0].index, 0);
}

#[test]
fn a_failed_keeper_is_not_elected_again_in_the_period() {
    let mut app = new_app();
    let mut agents = honest();
    for _ in 0..4 {
        run_round(&mut app, &mut agents);
    }
    assert_eq!(app.state(), State::Send);
    let keeper = app.keeper().cloned().unwrap();
    let k = AGENTS.iter().position(|a| *a == keeper).unwrap();
    // Only the keeper may send.
    let other = (k + 1) % 4;
    let rc = app.round_count();
    let r = app
        .deliver_block(&block(
            &app,
            1_000,
            vec![tx(AGENTS[other], rc, encode(&Some(1u64)).unwrap())],
        ))
        .unwrap();
    assert_eq!(
        r.rejected[0].reason,
        Rejection::Round(RoundError::NotKeeper)
    );
    // The keeper reports failure: elect again, without it.
    agents[k].send = None;
    let r = run_round(&mut app, &mut agents);
    assert_eq!(r.steps[0].event, Event::Fail);
    assert!(app.failed_keepers().contains(&keeper));
    // An election payload naming the failed keeper is refused.
    let rc = app.round_count();
    let r = app
        .deliver_block(&block(
            &app,
            1_000,
            vec![tx("a", rc, encode(&keeper).unwrap())],
        ))
        .unwrap();
    assert_eq!(r.rejected[0].reason, Rejection::IneligibleKeeper);
    // The honest behaviours propose the next keeper in the agreed order; the rest of the agents vote too.
    let txs: Vec<Tx> = everyone(&app, &mut agents)
        .into_iter()
        .filter(|t| t.sender != "a")
        .collect();
    let r = app.deliver_block(&block(&app, 1_000, txs)).unwrap();
    assert_eq!(r.steps[0].event, Event::Done);
    let second = app.keeper().cloned().unwrap();
    assert_ne!(second, keeper);
    // The second keeper never sends: after the keeper timeout it is out as well.
    let r = app.deliver_block(&block(&app, 20_000, vec![])).unwrap();
    assert_eq!(r.steps[0].event, Event::KeeperTimeout);
    assert_eq!(app.failed_keepers().len(), 2);
    let r = run_round(&mut app, &mut agents);
    assert_eq!(r.steps[0].event, Event::Done);
    let third = app.keeper().cloned().unwrap();
    assert!(third != keeper && third != second);
    // It sends: the period completes, and the next period may elect anyone again.
    agents[k].send = Some(7);
    run_round(&mut app, &mut agents);
    run_round(&mut app, &mut agents);
    assert_eq!(app.period(), 1);
    assert!(app.failed_keepers().is_empty());
}

#[test]
fn when_every_participant_failed_the_slate_is_wiped() {
    let mut app = new_app();
    let mut agents = honest();
    for a in &mut agents {
        a.send = None;
    }
    for _ in 0..4 {
        run_round(&mut app, &mut agents);
    }
    for _ in 0..3 {
        assert_eq!(app.state(), State::Send);
        run_round(&mut app, &mut agents); // fail
        run_round(&mut app, &mut agents); // elect the next
    }
    assert_eq!(app.failed_keepers().len(), 3);
    run_round(&mut app, &mut agents); // the fourth fails too
    assert!(app.failed_keepers().is_empty());
    run_round(&mut app, &mut agents);
    assert_eq!(app.state(), State::Send, "an election still succeeds");
}

#[test]
fn replicas_fed_the_same_blocks_agree() {
    let mut a = new_app();
    let mut b = new_app();
    let mut agents = honest();
    for _ in 0..20 {
        let txs = everyone(&a, &mut agents);
        let blk = block(&a, 1_500, txs);
        let ra = a.deliver_block(&blk).unwrap();
        let rb = b.deliver_block(&blk).unwrap();
        assert_eq!(ra.app_hash, rb.app_hash);
    }
    assert!(a.period() >= 2);
    // A replica that saw one different block diverges, and stays diverged: the hash chains.
    let mut c = a.clone();
    let blk = block(&a, 1_000, vec![]);
    a.deliver_block(&blk).unwrap();
    c.deliver_block(&Block {
        time_ms: blk.time_ms + 1,
        ..blk.clone()
    })
    .unwrap();
    assert_ne!(a.app_hash(), c.app_hash());
    let next = block(&a, 1_000, vec![]);
    a.deliver_block(&next).unwrap();
    c.deliver_block(&Block {
        time_ms: next.time_ms + 1,
        ..next
    })
    .unwrap();
    assert_ne!(a.app_hash(), c.app_hash());
}

#[test]
fn history_is_pruned_and_state_stays_bounded() {
    let mut app = new_app();
    let mut agents = honest();
    let mut sizes = Vec::new();
    while app.period() < 60 {
        run_round(&mut app, &mut agents);
        if app.state() == State::Observe && app.period() > 0 && app.period().is_multiple_of(20) {
            sizes.push(app.encoded_size());
        }
    }
    assert_eq!(app.periods().retained(), 3);
    assert!(sizes.windows(2).all(|w| w[0] == w[1]), "{sizes:?}");
}

#[test]
fn the_engine_must_feed_blocks_in_order() {
    let mut app = new_app();
    let err = app
        .deliver_block(&Block {
            height: 2,
            time_ms: 2_000,
            txs: vec![],
        })
        .unwrap_err();
    assert_eq!(
        err,
        AppError::HeightGap {
            expected: 1,
            got: 2
        }
    );
    let err = app
        .deliver_block(&Block {
            height: 1,
            time_ms: 999,
            txs: vec![],
        })
        .unwrap_err();
    assert_eq!(
        err,
        AppError::TimeWentBack {
            last_ms: 1_000,
            got_ms: 999
        }
    );
    assert_eq!(app.height(), 0, "a refused block changes nothing");
    assert!(App::<TestApp>::new(Genesis::new(Vec::<String>::new(), 0)).is_err());
}
