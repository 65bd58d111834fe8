//! What `include_fsm!` costs per expansion, on the trader spec (the largest of the corpus): the full
//! pipeline the macro runs (load → parse → resolve → check → `codegen::generate`), and separately formatting
//! the tokens into source text (what `fsmc gen` adds; the macro hands tokens to rustc unformatted).
//!
//! `cargo bench -p fsmc-benches --bench expansion`

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const TRADER: &str = "trader__packages__valory__skills__trader_abci__fsm_specification.yaml";

fn expansion(c: &mut Criterion) {
    let spec = std::env::var_os("FSMC_BENCH_SPEC")
        .map(PathBuf::from)
        .or_else(|| fsmc_testkit::corpus::for_test("expansion").map(|c| c.join(TRADER)))
        .unwrap_or_default();
    if !spec.is_file() {
        eprintln!("expansion: {} not found; skipped", spec.display());
        return;
    }
    let opts = fsmc_driver::Options::default();
    let mut group = c.benchmark_group("expansion");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("check", |b| {
        b.iter(|| {
            let c = fsmc_driver::compile(black_box(&spec), &opts).expect("readable");
            black_box(c.checked.is_some())
        });
    });
    group.bench_function("check+generate", |b| {
        b.iter(|| {
            let c = fsmc_driver::compile(black_box(&spec), &opts).expect("readable");
            let checked = c.checked.as_ref().expect("the spec checks");
            black_box(fsmc_model::codegen::generate(checked))
        });
    });
    let compilation = fsmc_driver::compile(&spec, &opts).expect("readable");
    let tokens =
        fsmc_model::codegen::generate(compilation.checked.as_ref().expect("the spec checks"));
    group.bench_function("tokens_to_string", |b| {
        b.iter(|| black_box(black_box(&tokens).to_string()))
    });
    group.bench_function("format", |b| {
        b.iter(|| black_box(fsmc_model::codegen::format(black_box(&tokens).clone())).is_ok())
    });
    group.finish();
}

criterion_group!(benches, expansion);
criterion_main!(benches);
