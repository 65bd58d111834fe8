//! `fsmc verify`: explore an app against every block schedule an adversary with at most F faulty agents can
//! choose; report hangs, livelocks and broken invariants with the blocks that cause them.

use super::{Common, Format};
use fsmc_base::diag::{Diagnostic, render};
use fsmc_verify::Config;

use clap::Args;
use fsmc_driver::loader;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// The spec to verify: every app of the file, and every `abci` machine it defines.
    spec: PathBuf,
    /// How many agents run the service.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=32))]
    agents: u8,
    /// How many of them may be faulty (crashed, silent or Byzantine) at once.
    #[arg(long, default_value_t = 1)]
    faults: u8,
    /// Stop after this many distinct states (a bound on time and memory).
    #[arg(long, default_value_t = 2_000_000)]
    max_states: usize,
    /// Write the first counterexample found as a Rust test to this file: it feeds the blocks to the generated
    /// app's `deliver_block` and fails while the spec has the bug. The spec is named relative to the crate
    /// (the nearest `Cargo.toml` above the file), as `include_fsm!` wants it.
    #[arg(long, value_name = "PATH")]
    emit_test: Option<PathBuf>,
    /// How to print the findings (the same as `--message-format`).
    #[arg(long = "format", value_enum, value_name = "FORMAT")]
    format: Option<Format>,
    #[command(flatten)]
    common: Common,
}

pub(crate) fn run(args: VerifyArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    if args.faults >= args.agents {
        return super::usage_error(
            err,
            &format!(
                "--faults {} leaves no honest agent among --agents {}",
                args.faults, args.agents
            ),
        );
    }
    let opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let format = args.format.unwrap_or(args.common.output.message_format);
    let mut compilation = match fsmc_driver::compile(&args.spec, &opts) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "error[E0002]: {}",
                render::inert(&format!("{}: {}", e.path, e.message))
            );
            return 2;
        }
    };
    let Some(checked) = &compilation.checked else {
        let _ = out.write_all(args.common.render(&compilation, format, tty).as_bytes());
        return 1;
    };
    let config = Config {
        agents: args.agents,
        faults: args.faults,
        max_states: args.max_states,
    };
    let reports = fsmc_verify::verify_with_progress(checked, &config, &mut |app, states| {
        let _ = writeln!(err, "{app}: {states} states so far");
    });
    let mut found: Vec<Diagnostic> = std::mem::take(&mut compilation.diagnostics);
    let mut truncated = false;
    for r in &reports {
        found.extend(r.diagnostics.iter().cloned());
        truncated |= r.truncated;
        let _ = writeln!(err, "{}", summary(r, &config));
    }
    if reports.is_empty() {
        let _ = writeln!(
            err,
            "nothing to verify: the file defines no app, no `abci` machine, no dialogue and no machine that declares properties"
        );
    }
    if let Some(path) = &args.emit_test
        && let Err(message) = emit(path, &args.spec, checked, &reports, &config, err)
    {
        return super::usage_error(err, &message);
    }
    compilation.diagnostics = found;
    let _ = out.write_all(args.common.render(&compilation, format, tty).as_bytes());
    if compilation.diagnostics.iter().any(Diagnostic::is_error) {
        1
    } else if truncated {
        2
    } else {
        0
    }
}

/// Writes the first counterexample of `reports` as a test to `path`.
fn emit(
    path: &Path,
    spec: &Path,
    checked: &fsmc_model::spec::Checked,
    reports: &[fsmc_verify::Report],
    config: &Config,
    err: &mut dyn Write,
) -> Result<(), String> {
    let Some((r, cex)) = reports
        .iter()
        .find_map(|r| r.counterexample.as_ref().map(|c| (r, c)))
    else {
        let _ = writeln!(err, "no counterexample: no test written");
        return Ok(());
    };
    let machine = machine_named(checked, &r.name).ok_or("the verified app is not in the spec")?;
    let absolute = |p: &Path| loader::normalize(&loader::absolute(p));
    let out = absolute(path);
    let dir = out.parent().unwrap_or(Path::new("/"));
    // `include_fsm!` names the spec from the crate's root: the nearest directory above with a Cargo.toml.
    let root = dir
        .ancestors()
        .find(|d| d.join("Cargo.toml").is_file())
        .unwrap_or(dir);
    let spec_path = super::generate::relative(root, &absolute(spec));
    let text = fsmc_verify::emit_test(machine, cex, config, &spec_path)?;
    std::fs::write(&out, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let _ = writeln!(
        err,
        "wrote {}: the counterexample of {} as a test",
        path.display(),
        cex.code.id()
    );
    Ok(())
}

/// The machine an app report is about: an app's composed machine, or a machine.
fn machine_named<'a>(
    checked: &'a fsmc_model::spec::Checked,
    name: &str,
) -> Option<&'a fsmc_model::spec::Machine> {
    checked
        .composed()
        .iter()
        .map(|c| &c.machine)
        .chain(&checked.spec().machines)
        .find(|m| m.name.text == name)
}

/// One line per app: what was explored, the worst-case period, and whether the search finished.
fn summary(r: &fsmc_verify::Report, config: &Config) -> String {
    let verdict = match r.diagnostics.len() {
        0 => "no violation".to_string(),
        1 => "1 violation".to_string(),
        n => format!("{n} violations"),
    };
    if r.graph {
        let cut = if r.truncated {
            format!("; stopped at --max-states {}", config.max_states)
        } else {
            String::new()
        };
        return format!(
            "{}: {} states, {} steps explored{cut}; {verdict}",
            r.name, r.states, r.steps
        );
    }
    let explored = format!(
        "{}: {} states, {} blocks explored with {} agents, at most {} faulty",
        r.name, r.states, r.steps, config.agents, config.faults
    );
    if r.truncated {
        return format!(
            "{explored}; stopped at --max-states {}: only what was explored is verified",
            config.max_states
        );
    }
    let bound = match (r.periodic, r.bound) {
        (false, _) => "no reset round or final state: periods are not checked".to_string(),
        (true, Some(b)) => format!(
            "worst-case period: {} blocks, {} of timeouts",
            b.blocks,
            duration(b.time)
        ),
        (true, None) => "worst-case period: unbounded (a cycle within a period)".to_string(),
    };
    format!("{explored}; {bound}; {verdict}")
}

fn duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
