//! Check time on synthetic specs: load (parse) → resolve → check, as `fsmc check` runs it, for 1k, 10k and 100k
//! states (about 4, 40 and 400 thousand transitions), written as `.fsm` and as Open Autonomy YAML.
//!
//! `cargo bench -p fsmc-benches --bench check` (a criterion filter selects some: `-- 'check/1000/'`).
//! Ten samples each; with checks that are linear, a couple of minutes on two cores. The whole-process comparison
//! (`fsmc check` against upstream's checker) is `benches/vs_upstream.sh`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

fn compile(format: Format, text: &str, opts: &fsmc_driver::Options) -> fsmc_driver::Compilation {
    fsmc_driver::compile_str(format.file_name(), text, Path::new("."), opts)
}

fn check(c: &mut Criterion) {
    let opts = fsmc_driver::Options::default();
    for states in [1_000usize, 10_000, 100_000] {
        let synth = Synth::generate(states, DEFAULT_SEED);
        let mut group = c.benchmark_group(format!("check/{states}"));
        group.throughput(Throughput::Elements(synth.transitions.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(if states >= 100_000 { 10 } else { 3 }));
        for format in [Format::Fsm, Format::Yaml] {
            let text = synth.write(format);
            let id = BenchmarkId::from_parameter(match format {
                Format::Fsm => "fsm",
                Format::Yaml => "yaml",
            });
            let mut validated = false;
            group.bench_with_input(id, &text, |b, text| {
                // Once, outside the measurement (and only when not filtered out): the spec must check clean,
                // or the numbers mean nothing.
                if !validated {
                    let t = Instant::now();
                    let first = compile(format, text, &opts);
                    let took = t.elapsed();
                    assert!(
                        first.checked.is_some() && first.diagnostics.is_empty(),
                        "{states} states, {format:?}: {:?}",
                        first.diagnostics
                    );
                    if took > Duration::from_secs(20) {
                        eprintln!(
                            "check/{states}/{format:?}: one check took {took:.1?}; ten samples will take a while"
                        );
                    }
                    validated = true;
                }
                // What a check costs: the result is dropped outside the measurement, as `fsmc check` never frees
                // it (it exits); freeing a 100k-state tree and model adds about 20 ms.
                b.iter_with_large_drop(|| compile(format, black_box(text), &opts));
            });
        }
        group.finish();
    }
}

criterion_group!(benches, check);
criterion_main!(benches);
