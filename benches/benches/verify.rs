//! `fsmc verify` on the shipped oracle with four agents and one fault: the whole state space, every time.
//!
//! `cargo bench -p fsmc-benches --bench verify`. Before measuring, one run prints the states explored, its time
//! and the process's peak resident memory, and fails when it takes more than 10 s or 1 GiB.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CONFIG: fsmc_verify::Config = fsmc_verify::Config {
    agents: 4,
    faults: 1,
    max_states: 10_000_000,
};

/// The process's peak resident memory in KiB (`VmHWM`), where the system reports it.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn verify(c: &mut Criterion) {
    let path = fsmc_testkit::workspace().join("specs/oracle/oracle.fsm");
    let compiled = fsmc_driver::compile(&path, &fsmc_driver::Options::default()).expect("readable");
    let checked = compiled.checked.expect("the oracle checks clean");
    let t = Instant::now();
    let reports = fsmc_verify::verify(&checked, &CONFIG);
    let took = t.elapsed();
    let peak = peak_kib();
    let r = &reports[0];
    eprintln!(
        "verify oracle: {} states, {} blocks in {took:.2?}; peak memory {} MiB",
        r.states,
        r.steps,
        peak.map_or("unknown".to_string(), |k| (k / 1024).to_string())
    );
    assert!(!r.truncated && r.diagnostics.is_empty());
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(peak.is_none_or(|k| k < 1024 * 1024), "{peak:?} KiB");

    let mut group = c.benchmark_group("verify");
    group.sample_size(10);
    group.bench_function("oracle/4-agents-1-fault", |b| {
        b.iter(|| fsmc_verify::verify(black_box(&checked), &CONFIG));
    });
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
