//! Replicated apps: how many blocks per second one replica of the oracle app applies, and how many the
//! simulated four-agent network produces and applies (every replica applying every block, running its
//! behaviours and submitting, plus the simulation's own bookkeeping).
//!
//! `cargo bench -p fsmc-benches --bench replication`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fsmc_examples::oracle::{self, oracle_abci_app};
use fsmc_runtime::app::{Block, Genesis};
use fsmc_sim::{Config, Network};
use std::hint::black_box;
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

criterion_group!(benches, replica, network);
criterion_main!(benches);
