//! `fsmc diff` on corpus-sized specs: the comparison of two checked specs (the `fsmc-diff` stage), and the whole
//! command's work without its IO (both specs compiled from text, then compared). The goal is at most 20 ms per
//! pair.
//!
//! The pairs: every Open Autonomy spec of the corpus (found through `FSMC_CORPUS`) against itself with one
//! transition retargeted, and the largest of them (the trader, 58 states); without the corpus, a synthetic
//! 60-state machine against another drawn with another seed (every state, transition and key differs: the
//! most findings a pair of that size gives). And the price oracle, an app of three machines, against itself with
//! a label.
//!
//! `cargo bench -p fsmc-benches --bench diff` (≈ 30 s).

use criterion::{Criterion, criterion_group, criterion_main};
use fsmc_base::diag::{Code, Level, LintLevels};
use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use fsmc_model::spec::Checked;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn options() -> fsmc_driver::Options {
    let mut lints = LintLevels::default();
    for code in Code::ALL.iter().filter(|c| c.is_lint()) {
        lints.set(*code, Level::Allow);
    }
    fsmc_driver::Options {
        lints,
        ..Default::default()
    }
}

fn compile(name: &str, text: &str, dir: &Path) -> Option<Checked> {
    fsmc_driver::compile_str(name, text, dir, &options()).checked
}

/// The spec with its first transition sent where its second one goes: a consensus-breaking change.
fn retargeted(yaml: &str) -> Option<String> {
    let mut targets = yaml
        .lines()
        .filter(|l| l.trim_start().starts_with('(') && l.contains("):"))
        .map(|l| l.rsplit(": ").next().unwrap_or(""));
    let (first, second) = (targets.next()?, targets.find(|t| !t.is_empty())?);
    let line = yaml
        .lines()
        .find(|l| l.trim_start().starts_with('(') && l.ends_with(first))?;
    let edited = format!("{}{second}", &line[..line.len() - first.len()]);
    Some(yaml.replacen(line, &edited, 1))
}

/// Every corpus spec that still checks with a transition retargeted, as (name, old text, new text).
fn corpus_pairs() -> Vec<(String, String, String)> {
    let Some(dir) = fsmc_testkit::corpus::for_test("diff bench") else {
        return Vec::new();
    };
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with("fsm_specification.yaml"))
        .filter_map(|p| {
            let old = std::fs::read_to_string(&p).ok()?;
            let new = retargeted(&old)?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, old, new))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tmp = std::env::temp_dir();
    let yaml = "fsm_specification.yaml";
    let pairs: Vec<(String, Checked, Checked, String, String)> = corpus_pairs()
        .into_iter()
        .filter_map(|(name, a, b)| {
            Some((
                name,
                compile(yaml, &a, &tmp)?,
                compile(yaml, &b, &tmp)?,
                a,
                b,
            ))
        })
        .collect();
    let mut g = c.benchmark_group("diff");
    g.measurement_time(Duration::from_secs(4));
    if let Some(largest) = pairs.iter().max_by_key(|p| {
        p.1.spec()
            .machines
            .iter()
            .map(|m| m.transitions.len())
            .sum::<usize>()
    }) {
        eprintln!(
            "diff bench: {} corpus pairs; the largest is {}",
            pairs.len(),
            largest.0
        );
        g.bench_function("stage/corpus, every pair", |b| {
            b.iter(|| {
                pairs
                    .iter()
                    .map(|p| fsmc_diff::diff(&p.1, &p.2).len())
                    .sum::<usize>()
            })
        });
        g.bench_function("stage/largest corpus pair", |b| {
            b.iter(|| fsmc_diff::diff(&largest.1, &largest.2))
        });
        g.bench_function("compile and compare/largest corpus pair", |b| {
            b.iter(|| {
                let (x, y) = (
                    compile(yaml, &largest.3, &tmp),
                    compile(yaml, &largest.4, &tmp),
                );
                fsmc_diff::diff(
                    black_box(&x.expect("checks")),
                    black_box(&y.expect("checks")),
                )
            })
        });
    } else {
        let (a, b) = (
            Synth::generate(60, DEFAULT_SEED).write(Format::Fsm),
            Synth::generate(60, DEFAULT_SEED + 1).write(Format::Fsm),
        );
        let (x, y) = (
            compile("a.fsm", &a, &tmp).expect("checks"),
            compile("b.fsm", &b, &tmp).expect("checks"),
        );
        g.bench_function("stage/synthetic 60 states", |bch| {
            bch.iter(|| fsmc_diff::diff(&x, &y))
        });
        g.bench_function("compile and compare/synthetic 60 states", |bch| {
            bch.iter(|| {
                let (x, y) = (compile("a.fsm", &a, &tmp), compile("b.fsm", &b, &tmp));
                fsmc_diff::diff(
                    black_box(&x.expect("checks")),
                    black_box(&y.expect("checks")),
                )
            })
        });
    }
    let oracle = fsmc_testkit::workspace().join("specs/oracle/oracle.fsm");
    let before = fsmc_driver::compile(&oracle, &options())
        .expect("readable")
        .checked
        .expect("checks");
    let text = std::fs::read_to_string(&oracle).expect("readable");
    let dir = oracle.parent().expect("a directory");
    let edited = text.replace(
        "ResetPauseAbciApp;",
        "ResetPauseAbciApp;\n    label \"OracleAbciApp\";",
    );
    let after = compile("oracle.fsm", &edited, dir).expect("checks");
    g.bench_function("stage/oracle app", |b| {
        b.iter(|| fsmc_diff::diff(&before, &after))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
