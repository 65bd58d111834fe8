//! What `fsmc gen` and `include_fsm!` cost as specs grow: the macro's pipeline (load → parse → resolve → check
//! → generate tokens) and `fsmc gen`'s (the same, then formatting), on synthetic specs of about 1k, 10k and
//! 100k transitions. Both must stay linear in the transitions: a 100k-transition machine has 25,000 states and
//! 1,000 events, 25 million cells for a dense table, so its `next` is generated sparse.
//!
//! `cargo bench -p fsmc-benches --bench gen` (≈ 2 min).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn generation(c: &mut Criterion) {
    let opts = fsmc_driver::Options::default();
    // About four transitions per state.
    for states in [250usize, 2_500, 25_000] {
        let synth = Synth::generate(states, DEFAULT_SEED);
        let text = synth.write(Format::Fsm);
        let transitions = synth.transitions.len() as u64;
        let mut group = c.benchmark_group(format!("gen/{transitions}"));
        group.throughput(Throughput::Elements(transitions));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(if states >= 25_000 { 15 } else { 4 }));
        let compile =
            || fsmc_driver::compile_str(Format::Fsm.file_name(), &text, Path::new("."), &opts);
        assert!(
            compile().checked.is_some(),
            "the synthetic spec checks clean"
        );
        group.bench_function(BenchmarkId::from_parameter("macro"), |b| {
            b.iter(|| {
                let c = compile();
                let checked = c.checked.as_ref().expect("checks clean");
                black_box(fsmc_model::codegen::generate(checked))
            })
        });
        group.bench_function(BenchmarkId::from_parameter("gen"), |b| {
            b.iter(|| {
                let c = compile();
                let checked = c.checked.as_ref().expect("checks clean");
                black_box(
                    fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
                        .expect("Rust"),
                )
            })
        });
        group.finish();
    }
}

criterion_group!(benches, generation);
criterion_main!(benches);
