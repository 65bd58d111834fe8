//! Dispatch speed: one million events replayed through four encodings of the same machine (the largest Open
//! Autonomy spec of the shared corpus, 58 states, 77 events, 283 transitions):
//!
//! * `generated`: fsmc's generated `State::next` (what `include_fsm!` expands to);
//! * `hand_written`: a plain `match (state, event) { … _ => Err(()) }`;
//! * `smlang`: smlang 0.8's `statemachine!`;
//! * `rust_fsm`: rust-fsm 0.8's `state_machine!`.
//!
//! Two streams, both seeded random walks over the machine's own tables (see `fsmc_benches::walk`): every event
//! valid, and 10% invalid (the state stays where it is). Criterion reports time per million events, so the time
//! shown in µs is also ns per event (and the throughput line gives events per second).
//!
//! `cargo bench -p fsmc-benches --bench dispatch`

mod encodings;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use encodings::{Event, hand_written, rust_fsm_encoding, smlang_encoding};
use fsmc_benches::walk;
use std::hint::black_box;
use std::time::Duration;

const EVENTS: usize = 1_000_000;
const SEED: u64 = 0xD15_7A7C4;

fn dispatch(c: &mut Criterion) {
    for (name, invalid_per_mille) in [("valid", 0), ("invalid10", 100)] {
        let stream = walk::trader(EVENTS, invalid_per_mille, SEED);
        let generated = stream.map(Event::ALL);
        let hand = stream.map(&hand_written::EVENTS);
        let sm = stream.map(&smlang_encoding::EVENTS);
        let rf = stream.map(&rust_fsm_encoding::EVENTS);

        let mut group = c.benchmark_group(format!("dispatch/{name}"));
        group.throughput(Throughput::Elements(stream.len() as u64));
        group.sample_size(20);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(3));
        group.bench_function("generated", |b| {
            b.iter(|| {
                encodings::run_generated(black_box(&generated), |s| {
                    black_box(s);
                })
            })
        });
        group.bench_function("hand_written", |b| {
            b.iter(|| {
                encodings::run_hand_written(black_box(&hand), |s| {
                    black_box(s);
                })
            })
        });
        group.bench_function("smlang", |b| {
            b.iter(|| {
                encodings::run_smlang(black_box(&sm), |s| {
                    black_box(s);
                })
            })
        });
        group.bench_function("rust_fsm", |b| {
            b.iter(|| {
                encodings::run_rust_fsm(black_box(&rf), |s| {
                    black_box(s);
                })
            })
        });
        group.finish();
    }
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
