//! `fsmc verify`: explore an app against every block schedule an adversary with at most F faulty agents can
//! choose; report hangs, livelocks and broken invariants with the blocks that cause them.

use super::{Common, Format};
use fsmc_base::diag::{Diagnostic, render};
use fsmc_verify::Config;

use clap::Args;
use std::io::Write;
use std::path::PathBuf;

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
    let reports = fsmc_verify::verify(checked, &config);
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
            "nothing to verify: the file defines no app and no `abci` machine"
        );
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

/// One line per app: what was explored, the worst-case period, and whether the search finished.
fn summary(r: &fsmc_verify::Report, config: &Config) -> String {
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
    let verdict = match r.diagnostics.len() {
        0 => "no violation".to_string(),
        1 => "1 violation".to_string(),
        n => format!("{n} violations"),
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
