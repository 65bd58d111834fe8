//! Tests from the spec at corpus scale: generating the tests of every Open Autonomy spec of the corpus (found
//! through `FSMC_CORPUS`) that checks clean, one test per transition and as tours, as tokens (what
//! `include_fsm!(…, tests)` adds) and formatted (what `fsmc gen --tests` adds). Every spec is compiled once,
//! outside the measurement: what is measured is the test generator alone.
//!
//! `cargo bench -p fsmc-benches --bench testgen`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fsmc_model::codegen::tests::{TestOptions, generate};
use fsmc_model::spec::Checked;
use std::hint::black_box;
use std::time::Duration;

/// Every corpus spec that checks clean.
fn corpus() -> Vec<Checked> {
    let Some(dir) = fsmc_testkit::corpus::for_test("testgen bench") else {
        return Vec::new();
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.sort();
    let opts = fsmc_driver::Options::default();
    paths
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with("fsm_specification.yaml"))
        .filter_map(|p| fsmc_driver::compile(&p, &opts).ok()?.checked)
        .collect()
}

fn bench(c: &mut Criterion) {
    let specs = corpus();
    if specs.is_empty() {
        return;
    }
    let transitions: usize = specs
        .iter()
        .flat_map(|c| c.spec().machines.iter())
        .map(|m| m.transitions.len())
        .sum();
    println!("testgen: {} specs, {transitions} transitions", specs.len());
    let mut g = c.benchmark_group("testgen/corpus");
    g.throughput(Throughput::Elements(transitions as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    for (name, opts) in [
        ("per_transition", TestOptions::default()),
        ("tour", TestOptions { tour: true }),
    ] {
        g.bench_function(format!("{name}/tokens"), |b| {
            b.iter(|| {
                for checked in &specs {
                    black_box(generate(checked, opts));
                }
            })
        });
        g.bench_function(format!("{name}/formatted"), |b| {
            b.iter(|| {
                for checked in &specs {
                    black_box(fsmc_model::codegen::format(generate(checked, opts)).expect("Rust"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
