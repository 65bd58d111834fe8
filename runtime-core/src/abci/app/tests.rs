//! The driver on a small app written out by hand the way generated code is: register, observe, agree on an
//! estimate, elect a keeper, let it send, reset.

use super::*;
use crate::abci::rounds::{
    CollectDifferentUntilThreshold, CollectSameUntilAll, CollectSameUntilThreshold,
    OnlyKeeperSends, Outcome, OutcomeKind, Participants, Round as _, RoundError,
};
use borsh::BorshSerialize;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    Register,
    Observe,
    Agree,
    Elect,
    Send,
    Reset,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
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
struct Data {
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

#[derive(Clone, Debug)]
enum TestRound {
    Register(CollectSameUntilAll<AgentId, String>),
    Observe(CollectDifferentUntilThreshold<AgentId, u64>),
    Agree(CollectSameUntilThreshold<AgentId, u64>),
    Elect(CollectSameUntilThreshold<AgentId, AgentId>),
    Send(OnlyKeeperSends<AgentId, u64>),
    Reset(CollectSameUntilThreshold<AgentId, u64>),
}

impl BorshSerialize for TestRound {
    fn serialize<W: borsh::io::Write>(&self, w: &mut W) -> borsh::io::Result<()> {
        match self {
            TestRound::Register(r) => r.serialize(w),
            TestRound::Observe(r) => r.serialize(w),
            TestRound::Agree(r) => r.serialize(w),
            TestRound::Elect(r) => r.serialize(w),
            TestRound::Send(r) => r.serialize(w),
            TestRound::Reset(r) => r.serialize(w),
        }
    }
}

fn bad<T: borsh::BorshDeserialize>(payload: &[u8]) -> Result<T, Rejection> {
    decode(payload).ok_or(Rejection::BadPayload)
}

fn decided<V>(
    outcome: Option<Outcome<V>>,
    handled: &dyn Fn(OutcomeKind) -> bool,
) -> Option<Outcome<V>> {
    outcome.filter(|o| handled(o.kind()))
}

fn plain(o: OutcomeKind) -> Decision {
    Decision {
        outcome: o,
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

    fn end_block(
        &self,
        data: &mut Data,
        handled: &dyn Fn(OutcomeKind) -> bool,
    ) -> Option<Decision> {
        Some(match self {
            TestRound::Register(r) => plain(decided(r.outcome(), handled)?.kind()),
            TestRound::Observe(r) => match decided(r.outcome(), handled)? {
                Outcome::Done(v) => {
                    data.observations = Some(v);
                    plain(OutcomeKind::Done)
                }
                o => plain(o.kind()),
            },
            TestRound::Agree(r) => match decided(r.outcome(), handled)? {
                Outcome::Done(v) => {
                    data.estimate = Some(v);
                    plain(OutcomeKind::Done)
                }
                o => plain(o.kind()),
            },
            TestRound::Elect(r) => match decided(r.outcome(), handled)? {
                Outcome::Done(v) => Decision {
                    outcome: OutcomeKind::Done,
                    keeper: Some(v),
                },
                o => plain(o.kind()),
            },
            TestRound::Send(r) => match decided(r.outcome(), handled)? {
                Outcome::Done(v) => {
                    data.sent = Some(v);
                    plain(OutcomeKind::Done)
                }
                o => plain(o.kind()),
            },
            TestRound::Reset(r) => plain(decided(r.outcome(), handled)?.kind()),
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
struct Agent {
    observation: u64,
    /// In the keeper round: `None` reports failure.
    send: Option<u64>,
}

trait Behaviour {
    fn act(&mut self, ctx: &Context<'_, TestApp>) -> Result<Vec<u8>, EncodeError>;
}

impl Behaviour for Agent {
    fn act(&mut self, ctx: &Context<'_, TestApp>) -> Result<Vec<u8>, EncodeError> {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TestApp;

const SECOND: Duration = Duration::from_secs(1);

impl AppSpec for TestApp {
    type State = State;
    type Event = Event;
    type Data = Data;
    type Round = TestRound;
    type Agent = dyn Behaviour;
    const NAME: &'static str = "TestApp";
    const START: State = State::Register;

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

    fn outcome_event(state: State, outcome: OutcomeKind) -> Option<Event> {
        let event = match outcome {
            OutcomeKind::Done => Event::Done,
            OutcomeKind::None => Event::None,
            OutcomeKind::NoMajority => Event::NoMajority,
            OutcomeKind::Fail => Event::Fail,
            OutcomeKind::Negative => return None,
        };
        Self::next(state, event).map(|_| event)
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

    fn act(agent: &mut Self::Agent, ctx: &Context<'_, TestApp>) -> Result<Vec<u8>, EncodeError> {
        agent.act(ctx)
    }
}

const AGENTS: [&str; 4] = ["a", "b", "c", "d"];

fn agent(i: usize) -> AgentId {
    AGENTS[i].to_string()
}

fn new_app() -> App<TestApp> {
    App::new(Genesis::new(AGENTS, 1_000)).unwrap()
}

fn tx(sender: &str, round: u64, payload: Vec<u8>) -> Tx {
    Tx {
        sender: sender.to_string(),
        data: Submission { round, payload }.encode(),
    }
}

/// A block at `app`'s next height, `dt_ms` after its last block, holding `txs`.
fn block(app: &App<TestApp>, dt_ms: u64, txs: Vec<Tx>) -> Block {
    Block {
        height: app.height() + 1,
        time_ms: app.time_ms() + dt_ms,
        txs,
    }
}

/// Every agent's payload for the current round, from `agents`, in agent order.
fn everyone(app: &App<TestApp>, agents: &mut [Agent]) -> Vec<Tx> {
    let mut txs = Vec::new();
    for (i, a) in agents.iter_mut().enumerate() {
        if let Some(data) = app.act(&agent(i), a).unwrap() {
            txs.push(Tx {
                sender: agent(i),
                data,
            });
        }
    }
    txs
}

fn honest() -> Vec<Agent> {
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

/// An engine that hands over queued blocks and records what the node sends.
#[derive(Default)]
struct Queue {
    blocks: std::collections::VecDeque<Block>,
    submitted: Vec<Vec<u8>>,
    commits: Vec<(u64, AppHash)>,
}

impl ConsensusLayer for Queue {
    type Error = std::convert::Infallible;
    fn submit(&mut self, tx: Vec<u8>) -> Result<(), Self::Error> {
        self.submitted.push(tx);
        Ok(())
    }
    fn next_block(&mut self) -> Result<Option<Block>, Self::Error> {
        Ok(self.blocks.pop_front())
    }
    fn commit(&mut self, height: u64, app_hash: AppHash) -> Result<(), Self::Error> {
        self.commits.push((height, app_hash));
        Ok(())
    }
}

#[test]
fn a_node_commits_every_block_and_acts_once_per_round() {
    let mut node: Node<TestApp> = Node::new(new_app(), "a", Box::new(Agent::default()));
    let mut engine = Queue::default();
    node.step(&mut engine).unwrap();
    node.step(&mut engine).unwrap();
    assert_eq!(engine.submitted.len(), 1, "one payload per round");
    engine.blocks.push_back(Block {
        height: 1,
        time_ms: 2_000,
        txs: vec![],
    });
    let reports = node.step(&mut engine).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(engine.commits, [(1, node.app().app_hash())]);
    assert_eq!(engine.submitted.len(), 1, "still the same round");
    // A replayed node reaches the same hash without committing again.
    let mut again: Node<TestApp> = Node::new(new_app(), "a", Box::new(Agent::default()));
    let blocks = [Block {
        height: 1,
        time_ms: 2_000,
        txs: vec![],
    }];
    assert_eq!(again.replay(&blocks).unwrap(), node.app().app_hash());
}
