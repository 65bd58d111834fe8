//! `fsmc coverage`: merges the snapshots runs with the runtime's `coverage` feature wrote (`*.fsmcov`, one line
//! per transition: machine, source, event, target, ordinal, count) and maps each transition of the spec's
//! machines and apps to its line of the spec: a summary table of transitions and of `(round, outcome)` pairs
//! taken, the transitions no run took, and with `--lcov` an LCOV file (a line's count is the least of its
//! transitions', and each transition is a branch of its line) that genhtml and editors show.

use super::Common;
use crate::cli::usage_error;
use clap::Args;
use fsmc_base::source::SourceMap;
use fsmc_model::spec::{Checked, Item, Machine};
use fsmc_vocab::Profile;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub(crate) struct CoverageArgs {
    /// The spec the runs ran (its entry file's machines and apps are reported).
    spec: PathBuf,
    /// Snapshot files (`*.fsmcov`), or directories holding them (`$FSMC_COVERAGE_DIR` of the runs).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Also write the coverage as LCOV to this file.
    #[arg(long, value_name = "FILE")]
    lcov: Option<PathBuf>,
    /// Fail (exit 1) when fewer than this percentage of the transitions were taken.
    #[arg(long, value_name = "PERCENT")]
    fail_under: Option<f64>,
    #[command(flatten)]
    common: Common,
}

/// A transition as the runtime names it: machine, source, event, target, ordinal.
type Key = (String, String, String, String, u32);

/// Sums the counts of every snapshot among `runs` (files, or the `*.fsmcov` files of directories).
fn merge(runs: &[PathBuf]) -> Result<BTreeMap<Key, u64>, String> {
    let mut files = Vec::new();
    for run in runs {
        if run.is_dir() {
            let entries = std::fs::read_dir(run).map_err(|e| format!("{}: {e}", run.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "fsmcov"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(run.clone());
        }
    }
    let mut counts = BTreeMap::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (i, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split('\t').collect();
            let bad = || format!("{}:{}: not a coverage line", file.display(), i + 1);
            let [machine, from, event, to, n, count] = fields.as_slice() else {
                return Err(bad());
            };
            let (n, count): (u32, u64) = (
                n.parse().map_err(|_| bad())?,
                count.parse().map_err(|_| bad())?,
            );
            let key = (
                machine.to_string(),
                from.to_string(),
                event.to_string(),
                to.to_string(),
                n,
            );
            let total: &mut u64 = counts.entry(key).or_default();
            *total = total.saturating_add(count);
        }
    }
    Ok(counts)
}

/// One transition of the spec with what the runs counted.
struct Taken {
    machine: String,
    /// `(from, event) -> to`, as the spec writes it.
    label: String,
    /// File and 1-based line.
    file: String,
    line: usize,
    count: u64,
    /// For an `abci` round: the outcome (or `timeout`) the transition is.
    outcome: Option<String>,
}

/// Every transition of the entry file's machines and apps with its count.
fn tally(checked: &Checked, sources: &SourceMap, counts: &BTreeMap<Key, u64>) -> Vec<Taken> {
    let spec = checked.spec();
    let mut out = Vec::new();
    for item in &spec.entry_items {
        let m = match *item {
            Item::Machine(id) => spec.machine(id),
            Item::App(a) => &checked.composed()[a].machine,
        };
        tally_machine(m, sources, counts, &mut out);
    }
    out
}

fn tally_machine(
    m: &Machine,
    sources: &SourceMap,
    counts: &BTreeMap<Key, u64>,
    out: &mut Vec<Taken>,
) {
    let mut seen: Vec<(&str, &str, &str)> = Vec::new();
    for t in &m.transitions {
        let from = m.state(t.from).name.text.as_str();
        let event = t.event.map_or("-", |e| m.event(e).name.text.as_str());
        let to = m.state(t.to).name.text.as_str();
        let n = seen.iter().filter(|k| **k == (from, event, to)).count();
        seen.push((from, event, to));
        let key = (
            m.name.text.to_string(),
            from.into(),
            event.into(),
            to.into(),
            n as u32,
        );
        let (file, line) = sources.get(t.span.file).map_or((String::new(), 0), |f| {
            (f.name.clone(), f.line_col(t.span.start as usize).0)
        });
        let outcome = (m.profile == Profile::Abci && !m.state(t.from).is_final)
            .then(|| outcome_of(m, t))
            .flatten();
        out.push(Taken {
            machine: m.name.text.to_string(),
            label: format!("({from}, {event}) -> {to}"),
            file,
            line,
            count: counts.get(&key).copied().unwrap_or(0),
            outcome,
        });
    }
}

/// The outcome of its round a transition is (`done`, `no_majority`, … or `timeout`), if it is one.
fn outcome_of(m: &Machine, t: &fsmc_model::spec::Transition) -> Option<String> {
    let e = t.event?;
    if m.event(e).timeout.is_some() {
        return Some("timeout".into());
    }
    let kind = m.state(t.from).round_kind();
    kind.outcomes()
        .iter()
        .find(|(o, _)| m.outcome_event(t.from, *o) == Some(e))
        .map(|(o, _)| o.name().to_string())
        .or_else(|| (kind == fsmc_vocab::abci::RoundKind::Custom).then(|| "custom".to_string()))
}

fn percent(hit: usize, all: usize) -> f64 {
    if all == 0 {
        100.0
    } else {
        hit as f64 * 100.0 / all as f64
    }
}

/// The summary table and the transitions no run took.
fn summary(taken: &[Taken]) -> String {
    let mut machines: Vec<&str> = taken.iter().map(|t| t.machine.as_str()).collect();
    machines.dedup();
    let mut text = format!(
        "{:<32} {:>20} {:>20}\n",
        "machine", "transitions", "(round, outcome)"
    );
    for name in &machines {
        let of: Vec<&Taken> = taken.iter().filter(|t| t.machine == *name).collect();
        let hit = of.iter().filter(|t| t.count > 0).count();
        let rounds: Vec<&&Taken> = of.iter().filter(|t| t.outcome.is_some()).collect();
        let rounds_hit = rounds.iter().filter(|t| t.count > 0).count();
        let cell = |h: usize, a: usize| format!("{h}/{a} {:5.1} %", percent(h, a));
        let round_cell = if rounds.is_empty() {
            "-".to_string()
        } else {
            cell(rounds_hit, rounds.len())
        };
        text.push_str(&format!(
            "{name:<32} {:>20} {round_cell:>20}\n",
            cell(hit, of.len())
        ));
    }
    for t in taken.iter().filter(|t| t.count == 0) {
        let outcome = t
            .outcome
            .as_deref()
            .map_or(String::new(), |o| format!(" [{o}]"));
        text.push_str(&format!(
            "not taken: {}:{}: {} {}{outcome}\n",
            t.file, t.line, t.machine, t.label
        ));
    }
    text
}

/// LCOV: per file, a line's count is the least of its transitions' (a line is covered when all are), and each
/// transition is a branch of its line.
fn lcov(taken: &[Taken]) -> String {
    let mut files: BTreeMap<&str, BTreeMap<usize, Vec<u64>>> = BTreeMap::new();
    for t in taken.iter().filter(|t| !t.file.is_empty()) {
        files
            .entry(&t.file)
            .or_default()
            .entry(t.line)
            .or_default()
            .push(t.count);
    }
    let mut out = String::from("TN:fsmc\n");
    for (file, lines) in files {
        out.push_str(&format!("SF:{file}\n"));
        let (mut branches, mut branches_hit) = (0, 0);
        for (line, counts) in &lines {
            for (k, c) in counts.iter().enumerate() {
                out.push_str(&format!("BRDA:{line},0,{k},{c}\n"));
                branches += 1;
                branches_hit += usize::from(*c > 0);
            }
        }
        out.push_str(&format!("BRF:{branches}\nBRH:{branches_hit}\n"));
        for (line, counts) in &lines {
            out.push_str(&format!(
                "DA:{line},{}\n",
                counts.iter().min().copied().unwrap_or(0)
            ));
        }
        let hit = lines.values().filter(|c| c.iter().all(|c| *c > 0)).count();
        out.push_str(&format!("LF:{}\nLH:{hit}\nend_of_record\n", lines.len()));
    }
    out
}

pub(crate) fn run(args: CoverageArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let compilation = match fsmc_driver::compile(&args.spec, &opts) {
        Ok(c) => c,
        Err(e) => return usage_error(err, &format!("{}: {}", e.path, e.message)),
    };
    let _ = err.write_all(
        args.common
            .render(&compilation, args.common.output.message_format, tty)
            .as_bytes(),
    );
    let Some(checked) = &compilation.checked else {
        return 1;
    };
    let counts = match merge(&args.runs) {
        Ok(c) => c,
        Err(e) => return usage_error(err, &fsmc_base::diag::render::inert(&e)),
    };
    let taken = tally(checked, &compilation.sources, &counts);
    let _ = out.write_all(fsmc_base::diag::render::inert(&summary(&taken)).as_bytes());
    if let Some(path) = &args.lcov
        && let Err(e) = super::write::write_atomically(path, lcov(&taken).as_bytes())
    {
        return usage_error(
            err,
            &format!("cannot write `{}`: {e}", Path::new(path).display()),
        );
    }
    let hit = taken.iter().filter(|t| t.count > 0).count();
    match args.fail_under {
        Some(min) if percent(hit, taken.len()) < min => 1,
        _ => 0,
    }
}
