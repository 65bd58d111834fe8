//! The price oracle, replicated on four agents over the simulated network, under faults: every replica
//! computes the same (height, app hash) sequence, and the app makes progress whenever a threshold of agents
//! is up and honest.

use fsmc_examples::oracle::{self, Agent, agent_id, is_submit};
use fsmc_runtime::app::Abstain;
use fsmc_runtime::app::{AppHash, Cause};
use fsmc_runtime::rounds::OutcomeKind;
use fsmc_sim::{Config, Fault, Network, Transition};
use oracle::oracle_abci_app::{Behaviour, Context, Spec, State};
use std::sync::Arc;

/// Generous: a period takes about ten blocks of one second.
const LIMIT_MS: u64 = 3_600_000;

fn steps<B>(net: &Network<Spec, B>, replica: usize) -> Vec<Transition> {
    net.trace()
        .iter()
        .filter_map(|h| h.replicas.get(replica).cloned().flatten())
        .flat_map(|a| a.steps)
        .collect()
}

fn log<B>(net: &Network<Spec, B>, i: usize) -> Vec<(u64, AppHash)> {
    net.log(i).to_vec()
}

/// The two logs agree wherever both have an entry (one replica may be a block behind); the first
/// difference is reported, not the whole logs.
fn same_prefix(a: &[(u64, AppHash)], b: &[(u64, AppHash)], what: &str) -> usize {
    let n = a.len().min(b.len());
    if let Some(i) = (0..n).find(|&i| a[i] != b[i]) {
        panic!("{what}: logs differ at index {i}: {:?} vs {:?}", a[i], b[i]);
    }
    n
}

#[test]
fn replicas_agree_on_every_height_over_many_seeds() {
    for seed in 0..24 {
        let mut net = oracle::network(seed, 4).unwrap();
        assert!(
            oracle::run_periods(&mut net, 3, LIMIT_MS).unwrap(),
            "seed {seed}"
        );
        net.agreement().unwrap();
        // Every replica committed every height, with the same hash.
        let first = log(&net, 0);
        assert!(first.len() >= 20, "seed {seed}: {} heights", first.len());
        for i in 1..4 {
            let n = same_prefix(&first, &log(&net, i), &format!("seed {seed}, replica {i}"));
            assert!(n + 2 >= first.len(), "seed {seed}: replica {i} fell behind");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let run = |seed| {
        let mut net = oracle::network(seed, 4).unwrap();
        oracle::run_periods(&mut net, 2, LIMIT_MS).unwrap();
        log(&net, 2)
    };
    assert!(run(5) == run(5), "one seed, one run");
    assert!(run(5) != run(6), "another seed, another run");
}

#[test]
fn blocks_hold_several_payloads_and_rounds_judge_them_together() {
    let mut net = oracle::network(1, 4).unwrap();
    oracle::run_periods(&mut net, 2, LIMIT_MS).unwrap();
    assert!(net.trace().iter().any(|h| h.txs >= 4));
    // The observation round takes a threshold of payloads, but every payload of the deciding block counts.
    let app = net.app(0).unwrap();
    let past = app.periods().get(0).unwrap();
    assert!(past.observations.as_ref().unwrap().len() >= 3);
}

#[test]
fn one_crashed_agent_does_not_stop_the_service() {
    for seed in 0..8 {
        let mut net = oracle::network(seed, 4).unwrap();
        assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
        let down = (seed % 4) as usize;
        net.crash(down);
        assert!(
            oracle::run_periods(&mut net, 4, LIMIT_MS).unwrap(),
            "seed {seed}: the three others complete periods"
        );
        net.agreement().unwrap();
        // The observation round waits for a threshold, not for everyone: it never timed out.
        let live = (down + 1) % 4;
        assert!(
            !steps(&net, live)
                .iter()
                .any(|s| s.from == "CollectObservationRound" && s.cause == Cause::Timeout),
            "seed {seed}"
        );
    }
}

#[test]
fn with_two_crashed_nothing_is_decided_and_rounds_time_out() {
    for seed in 0..6 {
        let mut net = oracle::network(seed, 4).unwrap();
        assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
        net.crash(2);
        net.crash(3);
        // Payloads the two sent before crashing may still settle the round in progress.
        net.run_for(5_000).unwrap();
        let before = steps(&net, 0).len();
        let data_before = net.app(0).unwrap().data().clone();
        let period = net.app(0).unwrap().period();
        net.run_for(600_000).unwrap();
        net.agreement().unwrap();
        let after: Vec<Transition> = steps(&net, 0).into_iter().skip(before).collect();
        assert!(
            !after.is_empty(),
            "seed {seed}: rounds end by their timeouts"
        );
        for s in &after {
            assert!(
                matches!(
                    s.cause,
                    Cause::Timeout | Cause::Decided(OutcomeKind::NoMajority)
                ),
                "seed {seed}: {s:?} decided with two of four agents"
            );
        }
        let app = net.app(0).unwrap();
        assert_eq!(app.period(), period, "no period completes");
        assert_eq!(app.data().estimate, data_before.estimate);
        assert_eq!(
            app.data().last_reported_price,
            data_before.last_reported_price
        );
        same_prefix(&log(&net, 0), &log(&net, 1), &format!("seed {seed}"));
    }
}

#[test]
fn a_silent_keeper_is_replaced_after_the_keeper_timeout() {
    let silent = agent_id(0);
    let mut replaced = 0;
    for seed in 0..12 {
        let mut net = oracle::network(seed, 4).unwrap();
        net.set_fault(0, Fault::SilentIn(is_submit));
        // Run until agent 0 has been elected keeper and failed to send in time.
        let failed = net
            .run_until(LIMIT_MS, |n| {
                n.app(1)
                    .is_some_and(|a| a.failed_keepers().contains(&silent))
            })
            .unwrap();
        if !failed {
            continue;
        }
        let last = steps(&net, 1).pop().unwrap();
        assert_eq!(
            (last.from, last.event.as_str(), last.cause),
            ("SubmitPriceRound", "KEEPER_TIMEOUT", Cause::Timeout)
        );
        // The next keeper is another agent, and it settles the report.
        let settled = net
            .run_until(LIMIT_MS, |n| {
                n.app(1)
                    .is_some_and(|a| a.state() == State::ValidatePriceRound)
            })
            .unwrap();
        assert!(settled, "seed {seed}");
        let app = net.app(1).unwrap();
        assert_ne!(app.keeper(), Some(&silent), "seed {seed}");
        assert!(app.failed_keepers().contains(&silent));
        net.agreement().unwrap();
        replaced += 1;
    }
    assert!(
        replaced >= 6,
        "agent 0 was elected and replaced in {replaced} runs"
    );
}

#[test]
fn a_keeper_whose_chain_client_fails_is_not_elected_again_in_the_period() {
    let mut agents = oracle::agents(4);
    agents[2].1 = Arc::new(Agent::new(2).chain_down());
    let mut net = Network::new(Config::new(3), agents).unwrap();
    assert!(oracle::run_periods(&mut net, 6, LIMIT_MS).unwrap());
    let trail = steps(&net, 0);
    let failed = trail
        .iter()
        .filter(|s| s.event == "SUBMISSION_FAILED")
        .count();
    assert!(failed >= 1, "agent 2 was elected at least once");
    // Within a period a failed keeper is never elected twice: at most one failure per period.
    let mut per_period = std::collections::BTreeMap::new();
    let mut period = 0;
    for s in &trail {
        if s.from == "ResetAndPauseRound" && s.event == "DONE" {
            period += 1;
        }
        if s.event == "SUBMISSION_FAILED" {
            *per_period.entry(period).or_insert(0) += 1;
        }
    }
    assert!(per_period.values().all(|&n| n == 1), "{per_period:?}");
    net.agreement().unwrap();
}

#[test]
fn a_restarted_agent_catches_up_to_the_same_hash() {
    for seed in 0..6 {
        let mut net = oracle::network(seed, 4).unwrap();
        assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
        net.crash(1);
        net.run_for(45_000).unwrap();
        let behind = net.log(1).len();
        assert!(behind < net.chain().len(), "it missed blocks while down");
        net.restart(1, Arc::new(Agent::new(1))).unwrap();
        assert!(oracle::run_periods(&mut net, 3, LIMIT_MS).unwrap());
        net.agreement().unwrap();
        let n = same_prefix(&log(&net, 1), &log(&net, 0), &format!("seed {seed}"));
        assert!(n > behind, "seed {seed}: it caught up");
    }
}

#[test]
fn a_partitioned_agent_syncs_when_the_partition_heals() {
    let mut net = oracle::network(11, 4).unwrap();
    assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
    net.isolate(&[3]);
    net.run_for(60_000).unwrap();
    let stalled = net.app(3).unwrap().height();
    assert!(stalled < net.chain().len() as u64);
    net.heal();
    assert!(oracle::run_periods(&mut net, 4, LIMIT_MS).unwrap());
    net.agreement().unwrap();
    assert_eq!(
        net.app(3).unwrap().app_hash(),
        net.app(0).unwrap().app_hash()
    );
}

/// An agent of the fault tests: an honest one, or one that lies in every round (other prices, other
/// estimates, itself or a failed keeper as keeper, votes against).
enum Tested {
    Honest(Agent),
    Liar,
}

impl Behaviour for Tested {
    async fn registration_startup_round(&self, ctx: Context) -> Result<String, Abstain> {
        match self {
            Tested::Honest(a) => a.registration_startup_round(ctx).await,
            Tested::Liar => Ok("BTC/USD".into()),
        }
    }
    async fn registration_round(&self, ctx: Context) -> Result<String, Abstain> {
        match self {
            Tested::Honest(a) => a.registration_round(ctx).await,
            Tested::Liar => Ok("BTC/USD".into()),
        }
    }
    async fn collect_observation_round(&self, ctx: Context) -> Result<u64, Abstain> {
        match self {
            Tested::Honest(a) => a.collect_observation_round(ctx).await,
            Tested::Liar => Ok(1),
        }
    }
    async fn estimate_consensus_round(&self, ctx: Context) -> Result<Option<u64>, Abstain> {
        match self {
            Tested::Honest(a) => a.estimate_consensus_round(ctx).await,
            Tested::Liar => Ok(Some(u64::MAX)),
        }
    }
    async fn tx_hash_round(&self, ctx: Context) -> Result<Option<String>, Abstain> {
        match self {
            Tested::Honest(a) => a.tx_hash_round(ctx).await,
            Tested::Liar => Ok(Some("0xforged".into())),
        }
    }
    async fn randomness_round(&self, ctx: Context) -> Result<[u8; 32], Abstain> {
        match self {
            Tested::Honest(a) => a.randomness_round(ctx).await,
            Tested::Liar => Ok([0xee; 32]),
        }
    }
    async fn select_keeper_round(&self, ctx: Context) -> Result<String, Abstain> {
        match self {
            Tested::Honest(a) => a.select_keeper_round(ctx).await,
            // Proposes a failed keeper when there is one (the app must refuse it), else itself.
            Tested::Liar => Ok(ctx
                .failed_keepers()
                .iter()
                .next()
                .cloned()
                .unwrap_or_else(|| ctx.me().clone())),
        }
    }
    async fn submit_price_round(&self, ctx: Context) -> Result<Option<(String, u64)>, Abstain> {
        match self {
            Tested::Honest(a) => a.submit_price_round(ctx).await,
            Tested::Liar => Ok(Some(("0xforged-settled".into(), 1))),
        }
    }
    async fn validate_price_round(&self, ctx: Context) -> Result<Option<bool>, Abstain> {
        match self {
            Tested::Honest(a) => a.validate_price_round(ctx).await,
            Tested::Liar => Ok(Some(false)),
        }
    }
    async fn reset_and_pause_round(&self, ctx: Context) -> Result<u64, Abstain> {
        match self {
            Tested::Honest(a) => a.reset_and_pause_round(ctx).await,
            Tested::Liar => Ok(u64::MAX),
        }
    }
}

#[test]
fn a_byzantine_agent_cannot_split_the_honest_ones() {
    for seed in 0..10 {
        let agents = (0..4)
            .map(|i| (agent_id(i), Arc::new(Tested::Honest(Agent::new(i)))))
            .collect();
        let mut net = Network::new(Config::new(seed), agents).unwrap();
        let byzantine = (seed % 4) as usize;
        // It registers honestly (registration waits for every agent), then lies.
        assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
        net.set_fault(byzantine, Fault::Byzantine(Arc::new(Tested::Liar)));
        assert!(
            oracle::run_periods(&mut net, 4, LIMIT_MS).unwrap(),
            "seed {seed}: the honest three keep completing periods"
        );
        net.agreement().unwrap();
        let honest = (byzantine + 1) % 4;
        let app = net.app(honest).unwrap();
        // Its lies never became the agreed values.
        for period in app.periods().history() {
            assert_ne!(period.estimate, Some(u64::MAX));
            assert_ne!(period.tx_hash.as_deref(), Some("0xforged"));
        }
        // Its malformed transactions were rejected by every replica alike.
        let rejected: usize = net
            .trace()
            .iter()
            .filter_map(|h| h.replicas[honest].as_ref())
            .map(|a| a.rejected)
            .sum();
        assert!(rejected > 0, "seed {seed}");
    }
}

#[test]
fn a_thousand_periods_keep_each_replica_bounded() {
    let mut config = Config::new(99);
    config.trace = false;
    let mut net = Network::new(config, oracle::agents(4)).unwrap();
    let mut sizes = Vec::new();
    for target in [100, 1_000] {
        assert!(oracle::run_periods(&mut net, target, 100 * LIMIT_MS).unwrap());
        let app = net.app(0).unwrap();
        assert_eq!(app.periods().retained(), 3, "history is pruned");
        sizes.push(app.encoded_size());
    }
    net.agreement().unwrap();
    // Pruned history, one round in progress: the state a replica holds does not grow with the periods.
    assert!(
        sizes[1] <= sizes[0] + 64,
        "state grew from {} to {} bytes",
        sizes[0],
        sizes[1]
    );
}

#[test]
fn the_rules_come_from_the_spec() {
    use fsmc_runtime::app::{AppSpec, Role};
    use std::time::Duration;
    let rules = Spec::rules(State::CollectObservationRound);
    assert_eq!(
        rules.timeout.map(|(e, d)| (e.name(), d)),
        Some(("ROUND_TIMEOUT", Duration::from_secs(30)))
    );
    assert_eq!(
        Spec::rules(State::SelectKeeperRound).role,
        Role::KeeperElection
    );
    assert_eq!(Spec::rules(State::SubmitPriceRound).role, Role::Keeper);
    assert_eq!(
        Spec::rules(State::RegistrationStartupRound).role,
        Role::Registration
    );
    assert!(Spec::rules(State::ResetAndPauseRound).reset);
    // RandomnessRound has no transition on `NONE`: it cannot end on a `None` majority.
    assert_eq!(
        State::RandomnessRound.outcome_event(OutcomeKind::None),
        None
    );
}
