//! Writes a synthetic spec: `synth --states N [--format fsm|yaml] [--seed S] [-o FILE]`.

use fsmc_benches::synth::{DEFAULT_SEED, Format, MIN_STATES, Synth};
use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str = "usage: synth --states N [--format fsm|yaml] [--seed S] [-o FILE]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synth: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut states = None;
    let mut format = Format::Fsm;
    let mut seed = DEFAULT_SEED;
    let mut output = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--states" | "-n" => {
                let v = value("a number")?;
                states = Some(
                    v.replace('_', "")
                        .parse::<usize>()
                        .map_err(|_| format!("bad number `{v}`"))?,
                );
            }
            "--format" | "-f" => {
                let v = value("`fsm` or `yaml`")?;
                format = Format::parse(&v).ok_or_else(|| format!("unknown format `{v}`"))?;
            }
            "--seed" => {
                let v = value("a number")?;
                seed = v.parse().map_err(|_| format!("bad seed `{v}`"))?;
            }
            "-o" | "--output" => output = Some(value("a file")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    let states = states.ok_or("--states is required")?;
    if states < MIN_STATES {
        return Err(format!("--states must be at least {MIN_STATES}"));
    }
    let synth = Synth::generate(states, seed);
    let text = synth.write(format);
    match output {
        Some(path) => {
            std::fs::write(&path, text).map_err(|e| format!("cannot write `{path}`: {e}"))?
        }
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write: {e}"))?,
    }
    eprintln!(
        "synth: {} states, {} events, {} transitions, {} final states",
        synth.states.len(),
        synth.events.len(),
        synth.transitions.len(),
        synth.finals.len()
    );
    Ok(())
}
