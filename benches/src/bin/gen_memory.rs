//! Memory `fsmc gen` takes per round of an `abci` machine: the generated code of synthetic specs of two sizes,
//! each stage (check; generate and format, written as `gen` writes it, to a sink) with the process's peak
//! resident memory while it ran, and the growth per round between the two sizes.
//!
//! `cargo run -p fsmc-benches --release --bin gen_memory -- [SMALL] [LARGE]` (rounds; default 2,000 and 8,000).
//! The bar: at most 10 KiB per round for the whole of `gen`.

use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use std::path::Path;

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Resets the high-water mark of resident memory to the current size (Linux ≥ 4.0).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak memory (KiB) of each stage of `gen` on a spec of `rounds` rounds: check, then generate and format.
fn stages(rounds: usize) -> [u64; 2] {
    let text = Synth::generate(rounds, DEFAULT_SEED).write(Format::Fsm);
    let opts = fsmc_driver::Options::default();
    reset_peak();
    let compiled = fsmc_driver::compile_str(Format::Fsm.file_name(), &text, Path::new("."), &opts);
    let checked = compiled
        .checked
        .as_ref()
        .expect("the synthetic spec checks clean");
    let check = status_kib("VmHWM:");
    reset_peak();
    let mut written = Counted(0);
    fsmc_model::codegen::write_generated("synth.fsm", checked, &mut written)
        .expect("the generated code is Rust");
    let generate = status_kib("VmHWM:");
    assert!(written.0 > 0);
    [check, generate]
}

/// A writer that only counts what it is given, as a file would take it.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// With one size, measures it and prints its stages' peaks; with two (or none), runs itself once per size, so
/// that neither run starts with what the other left resident, and prints the growth per round.
fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if let [rounds] = sizes[..] {
        let peaks = stages(rounds);
        println!("{} {}", peaks[0], peaks[1]);
        return;
    }
    let (small, large) = match sizes[..] {
        [a, b, ..] => (a, b),
        _ => (2_000, 8_000),
    };
    let run = |rounds: usize| -> Vec<u64> {
        let exe = std::env::current_exe().expect("this program's path");
        let out = std::process::Command::new(exe)
            .arg(rounds.to_string())
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|v| v.parse().ok())
            .collect()
    };
    let (a, b) = (run(small), run(large));
    println!("stage      {small:>8} rounds {large:>8} rounds   per round");
    for (i, name) in ["check", "gen"].iter().enumerate() {
        let per = b[i].saturating_sub(a[i]) as f64 / (large - small) as f64;
        println!(
            "{name:<10} {:>10} KiB {:>10} KiB   {per:>6.1} KiB",
            a[i], b[i]
        );
    }
}
