//! One check of a large synthetic spec, timed with `Instant`, with the process's peak memory.
//!
//! `cargo run -p fsmc-benches --release --bin measure -- [--states N] [--format fsm|yaml] [--stages] [FILE]`
//!
//! Without a FILE it writes the spec of N states (default 100,000: 400k transitions) to a temporary file first,
//! so that what is measured is `fsmc_driver::compile` on a file, as `fsmc check` runs it. Peak memory is the kernel's
//! high-water mark of resident memory (VmHWM), reset after generation (via `/proc/self/clear_refs`) so it covers
//! the check alone. `--stages` also times each stage separately: parse, load (parse + bookkeeping), resolve,
//! check. The bar fsmc sets itself (checks linear in the spec): a 100k-state spec under 2 s and 1 GB.

use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str =
    "usage: measure [--states N] [--format fsm|yaml] [--seed S] [--stages] [--runs R] [FILE]";

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("measure: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// CPU time (user + system) used by this process so far, from `/proc/self/stat` (clock ticks, assumed 100 Hz).
/// Less disturbed than wall time when other processes compete for the cores.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces); utime and stime are 14, 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Resets VmHWM to the current resident size (Linux ≥ 4.0); false where that is not possible.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "n/a".to_string(),
        |k| format!("{:.1} MiB", k as f64 / 1024.0),
    )
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The command line.
struct Args {
    states: usize,
    format: Format,
    seed: u64,
    stages: bool,
    runs: usize,
    file: Option<PathBuf>,
}

impl Args {
    /// The arguments, or `None` when help was asked for (and printed).
    fn parse() -> Result<Option<Args>, String> {
        let mut a = Args {
            states: 100_000,
            format: Format::Fsm,
            seed: DEFAULT_SEED,
            stages: false,
            runs: 1,
            file: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |what: &str| args.next().ok_or_else(|| format!("{arg} needs {what}"));
            match arg.as_str() {
                "--states" | "-n" => {
                    let v = value("a number")?;
                    a.states = v
                        .replace('_', "")
                        .parse()
                        .map_err(|_| format!("bad number `{v}`"))?;
                }
                "--format" | "-f" => {
                    let v = value("`fsm` or `yaml`")?;
                    a.format = Format::parse(&v).ok_or_else(|| format!("unknown format `{v}`"))?;
                }
                "--seed" => {
                    let v = value("a number")?;
                    a.seed = v.parse().map_err(|_| format!("bad seed `{v}`"))?;
                }
                "--runs" => {
                    let v = value("a number")?;
                    a.runs = v
                        .parse::<usize>()
                        .map_err(|_| format!("bad number `{v}`"))?
                        .max(1);
                }
                "--stages" => a.stages = true,
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(None);
                }
                other if !other.starts_with('-') && a.file.is_none() => {
                    a.file = Some(PathBuf::from(other))
                }
                other => return Err(format!("unexpected argument `{other}`")),
            }
        }
        Ok(Some(a))
    }
}

fn run() -> Result<bool, String> {
    let Some(args) = Args::parse()? else {
        return Ok(true);
    };
    // A generated spec is removed when this function returns, whatever happens.
    let (path, _temporary) = match &args.file {
        Some(f) => (f.clone(), None),
        None => {
            let path = generate(&args)?;
            (path.clone(), Some(TempFile(path)))
        }
    };
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "file:        {} ({:.1} MiB)",
        path.display(),
        size as f64 / (1024.0 * 1024.0)
    );

    let rss_before = status_kib("VmRSS:");
    let reset = reset_peak();
    let opts = fsmc_driver::Options::default();
    let mut best = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    let mut clean = true;
    for i in 0..args.runs {
        let cpu0 = cpu_time();
        let t = Instant::now();
        let c = fsmc_driver::compile(&path, &opts)
            .map_err(|e| format!("cannot read {}: {}", e.path, e.message))?;
        let elapsed = t.elapsed();
        let cpu = cpu0.zip(cpu_time()).map(|(a, b)| b.saturating_sub(a));
        best = best.min(elapsed);
        best_cpu = best_cpu.min(cpu.unwrap_or(Duration::MAX));
        let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = c.diagnostics.len() - errors;
        clean &= errors == 0;
        println!(
            "check #{}:    {} (CPU {}; {} errors, {} warnings, checked: {})",
            i + 1,
            ms(elapsed),
            cpu.map_or_else(|| "n/a".to_string(), ms),
            errors,
            warnings,
            c.checked.is_some()
        );
        if i == 0 {
            // The peak while the compilation is still alive, before it is dropped.
            println!(
                "peak memory: {} (VmHWM{}; RSS before the check {})",
                mib(status_kib("VmHWM:")),
                if reset {
                    ", reset after generation"
                } else {
                    ", not resettable: includes generation"
                },
                mib(rss_before)
            );
        }
    }
    if args.runs > 1 {
        println!("best:        {} (CPU {})", ms(best), ms(best_cpu));
    }
    if args.stages {
        stage_times(&path, &opts);
    }
    Ok(clean)
}

/// Writes the synthetic spec the arguments describe to a temporary file, and says what it is.
fn generate(args: &Args) -> Result<PathBuf, String> {
    let t = Instant::now();
    let synth = Synth::generate(args.states, args.seed);
    let path = std::env::temp_dir().join(format!(
        "fsmc-measure-{}-{}-{}",
        std::process::id(),
        args.states,
        args.format.file_name()
    ));
    std::fs::write(&path, synth.write(args.format))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "spec:        {} states, {} events, {} transitions ({:?}, generated in {})",
        synth.states.len(),
        synth.events.len(),
        synth.transitions.len(),
        args.format,
        ms(t.elapsed())
    );
    Ok(path)
}

/// A file removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Each stage of `fsmc_driver::compile` on its own, in the order the driver runs them, with the peak resident memory
/// while it ran (the high-water mark is reset before each stage; what earlier stages left alive counts).
fn stage_times(path: &Path, opts: &fsmc_driver::Options) {
    fn stage<T>(
        rows: &mut Vec<(String, Duration, Option<u64>)>,
        name: &str,
        f: impl FnOnce() -> T,
    ) -> T {
        reset_peak();
        let t = Instant::now();
        let out = f();
        let took = t.elapsed();
        rows.push((name.to_string(), took, status_kib("VmHWM:")));
        out
    }
    let mut rows = Vec::new();
    let text = match stage(&mut rows, "read file", || {
        fsmc_driver::loader::read_text(path)
    }) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("measure: {e}");
            return;
        }
    };
    let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    {
        let mut sources = fsmc_base::source::SourceMap::default();
        let file = sources.add("spec", text.clone());
        let parsed_ok = stage(&mut rows, "parse only (syntax::parse / oa::parse)", || {
            if is_yaml {
                fsmc_driver::yaml::parse(file, &text).0.is_some()
            } else {
                fsmc_syntax::parse(file, &text).0.is_some()
            }
        });
        if !parsed_ok {
            eprintln!("measure: the spec does not parse");
        }
    }
    drop(text);
    let loaded = match stage(&mut rows, "loader::load (read + parse)", || {
        fsmc_driver::loader::load(path, &opts.load)
    }) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("measure: {}", e.message);
            return;
        }
    };
    let Some(entry) = loaded.entry else { return };
    let (spec, resolve_diags) = stage(&mut rows, "resolve::resolve", || {
        fsmc_driver::resolve::resolve(&loaded.units, entry, &opts.lints)
    });
    let report = stage(&mut rows, "check::check", || fsmc_model::check::check(spec));
    let n = stage(&mut rows, "diag::finish", || {
        let diags: Vec<_> = resolve_diags
            .into_iter()
            .chain(report.diagnostics)
            .collect();
        fsmc_base::diag::finish(diags).len()
    });
    stage(&mut rows, "drop everything", || {
        drop(report.checked);
        drop(loaded);
    });
    println!("stages ({n} diagnostics):");
    for (name, took, peak) in rows {
        println!("  {name:<40} {:>10}   peak {}", ms(took), mib(peak));
    }
}
