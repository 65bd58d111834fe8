//! Replicated apps: how many blocks per second one replica of the oracle app applies; one replica of an app
//! with custom rounds, alone and as a node running asynchronous behaviours; and how many blocks the simulated
//! four-agent network produces and applies (every replica applying every block, running its behaviours and
//! submitting, plus the simulation's own bookkeeping).
//!
//! `cargo bench -p fsmc-benches --bench replication`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fsmc_examples::oracle::{self, oracle_abci_app};
use fsmc_runtime::app::{Abstain, AppHash, Block, ConsensusLayer, Genesis, Node};
use fsmc_sim::{Config, Network};
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// A chain recorded from a simulated run: the blocks of `periods` periods and the genesis they start from.
fn recorded(periods: u64) -> (Genesis, Vec<Block>) {
    let mut config = Config::new(1);
    config.trace = false;
    let mut net = Network::new(config, oracle::agents(4)).expect("the network starts");
    let done = oracle::run_periods(&mut net, periods, u64::MAX / 2).expect("the run succeeds");
    assert!(done, "the oracle completes {periods} periods");
    let genesis = net.app(0).expect("replica 0 is up").genesis().clone();
    (genesis, net.chain().to_vec())
}

fn replica(c: &mut Criterion) {
    let (genesis, chain) = recorded(50);
    let mut group = c.benchmark_group("replication");
    group.throughput(Throughput::Elements(chain.len() as u64));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("one_replica_applies_oracle_blocks", |b| {
        b.iter(|| {
            let mut app = oracle_abci_app::App::new(genesis.clone()).expect("genesis is valid");
            for block in &chain {
                black_box(app.deliver_block(block).expect("the block applies"));
            }
            app.app_hash()
        })
    });
    group.finish();
}

// An app with custom rounds (decided by the app's own `Rounds`) and asynchronous behaviours (each waits once, as a
// behaviour awaiting an HTTP call does, before it returns its payload).
fsmc_runtime::fsm!(
    r#"
    machine BidAbciApp: abci {
        event DONE;
        event RETRY;
        event NO_MAJORITY;
        event ROUND_TIMEOUT timeout 30s;
        key best: u64;
        key total: u64;
        cross_period key agreed: u64;
        start default state RegisterRound: collect_same_until_all { payload "String"; registration; }
        state BidRound: custom { payload "u64"; writes best, total; }
        state AgreeRound: custom { payload "u64"; reads best; writes agreed; }
        state ResetRound: collect_same_until_threshold { payload "u64"; reset; }
        (RegisterRound, DONE) -> BidRound;
        (BidRound, DONE) -> AgreeRound;
        (BidRound, ROUND_TIMEOUT) -> BidRound;
        (AgreeRound, DONE) -> ResetRound;
        (AgreeRound, RETRY) -> BidRound;
        (AgreeRound, ROUND_TIMEOUT) -> BidRound;
        (ResetRound, DONE) -> BidRound;
        (ResetRound, NO_MAJORITY) -> ResetRound;
        (ResetRound, ROUND_TIMEOUT) -> ResetRound;
    }
"#
);

/// A future that is pending once (waking its task at once), then ready: a behaviour's wait on I/O, in small.
struct WaitOnce(bool);

impl std::future::Future for WaitOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A bidder: bids its own number, agrees on the best bid it sees, each after one wait.
struct Bidder(u64);

impl bid_abci_app::Behaviour for Bidder {
    async fn register_round(&self, _: bid_abci_app::Context) -> Result<String, Abstain> {
        WaitOnce(false).await;
        Ok("bid".into())
    }
    async fn bid_round(&self, ctx: bid_abci_app::Context) -> Result<u64, Abstain> {
        WaitOnce(false).await;
        Ok(self.0 + ctx.period())
    }
    async fn agree_round(&self, ctx: bid_abci_app::Context) -> Result<u64, Abstain> {
        WaitOnce(false).await;
        ctx.data().best.ok_or_else(|| Abstain::new("no best bid"))
    }
    async fn reset_round(&self, ctx: bid_abci_app::Context) -> Result<u64, Abstain> {
        Ok(ctx.period())
    }
}

/// The custom rounds: the best of a threshold of bids; the bid a threshold agrees on.
struct Auction;

impl bid_abci_app::Rounds for Auction {
    fn bid_round(
        &self,
        round: &bid_abci_app::Deciding<'_, u64>,
    ) -> Option<(bid_abci_app::BidRoundOutcome, bid_abci_app::BidRoundWrites)> {
        if !round.threshold_reached() {
            return None;
        }
        let best = round.payloads().values().copied().max().unwrap_or(0);
        let total = round.payloads().values().sum();
        Some((
            bid_abci_app::BidRoundOutcome::Done,
            bid_abci_app::BidRoundWrites { best, total },
        ))
    }

    fn agree_round(
        &self,
        round: &bid_abci_app::Deciding<'_, u64>,
    ) -> Option<(
        bid_abci_app::AgreeRoundOutcome,
        bid_abci_app::AgreeRoundWrites,
    )> {
        let agreed = *round.agreed()?;
        let outcome = if Some(agreed) == round.data().best {
            bid_abci_app::AgreeRoundOutcome::Done
        } else {
            bid_abci_app::AgreeRoundOutcome::Retry
        };
        Some((outcome, bid_abci_app::AgreeRoundWrites { agreed }))
    }
}

/// A chain of the auction app recorded from a simulated run of four bidders.
fn auction_chain(periods: u64) -> (Genesis, Vec<Block>) {
    let mut config = Config::new(1);
    config.trace = false;
    let agents = (0..4)
        .map(|i| (format!("agent-{i}"), Arc::new(Bidder(i * 10))))
        .collect();
    let mut net =
        Network::<bid_abci_app::Spec, Bidder>::with_rounds(config, agents, Arc::new(Auction))
            .expect("the network starts");
    net.run_until(u64::MAX / 2, |n| {
        n.app(0).is_some_and(|a| a.period() >= periods)
    })
    .expect("the run succeeds");
    let genesis = net.app(0).expect("replica 0 is up").genesis().clone();
    (genesis, net.chain().to_vec())
}

/// Feeds a node recorded blocks, one a step, and drops what it submits.
struct Replay<'a> {
    blocks: std::slice::Iter<'a, Block>,
    /// Whether this step's block is still to be handed out.
    ready: bool,
    submitted: usize,
}

impl ConsensusLayer for Replay<'_> {
    type Error = std::convert::Infallible;
    fn submit(&mut self, _tx: Vec<u8>) -> Result<(), Self::Error> {
        self.submitted += 1;
        Ok(())
    }
    fn next_block(&mut self) -> Result<Option<Block>, Self::Error> {
        if !std::mem::take(&mut self.ready) {
            return Ok(None);
        }
        Ok(self.blocks.next().cloned())
    }
    fn commit(&mut self, _height: u64, _app_hash: AppHash) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// One replica of the auction app applying its blocks (its custom rounds decided by `Auction` at every block
/// end); and one node, that replica plus a bidder whose asynchronous work starts, waits and submits in every
/// round, stepped once per block as an engine steps it.
fn custom_rounds(c: &mut Criterion) {
    let (genesis, chain) = auction_chain(200);
    let mut group = c.benchmark_group("replication");
    group.throughput(Throughput::Elements(chain.len() as u64));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("one_replica_applies_custom_round_blocks", |b| {
        b.iter(|| {
            let mut app = bid_abci_app::App::with_rounds(genesis.clone(), Arc::new(Auction))
                .expect("genesis is valid");
            for block in &chain {
                black_box(app.deliver_block(block).expect("the block applies"));
            }
            app.app_hash()
        })
    });
    group.bench_function("one_node_applies_blocks_and_runs_async_behaviours", |b| {
        b.iter(|| {
            let app = bid_abci_app::App::with_rounds(genesis.clone(), Arc::new(Auction))
                .expect("genesis is valid");
            let me = genesis.agents.first().cloned().unwrap_or_default();
            let mut node = Node::new(app, me, Arc::new(Bidder(0)));
            let mut engine = Replay {
                blocks: chain.iter(),
                ready: false,
                submitted: 0,
            };
            for _ in 0..chain.len() {
                engine.ready = true;
                black_box(node.step(&mut engine).expect("the node steps"));
            }
            assert!(engine.submitted > chain.len() / 8, "the behaviour submits");
            node.app().app_hash()
        })
    });
    group.finish();
}

fn network(c: &mut Criterion) {
    let periods = 20;
    let blocks = recorded(periods).1.len() as u64;
    let mut group = c.benchmark_group("replication");
    group.throughput(Throughput::Elements(blocks));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("simulated_network_of_four", |b| {
        b.iter(|| {
            let mut config = Config::new(1);
            config.trace = false;
            let mut net = Network::new(config, oracle::agents(4)).expect("the network starts");
            oracle::run_periods(&mut net, periods, u64::MAX / 2).expect("the run succeeds");
            black_box(net.chain().len())
        })
    });
    group.finish();
}

criterion_group!(benches, replica, custom_rounds, network);
criterion_main!(benches);
