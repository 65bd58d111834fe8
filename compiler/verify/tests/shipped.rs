//! The shipped specs verify clean, and the oracle's explored space is pinned.

use fsmc_testkit::workspace;
use fsmc_verify::{Config, Report, verify};

fn run(path: &str, config: &Config) -> Vec<Report> {
    let c = fsmc_driver::compile(&workspace().join(path), &fsmc_driver::Options::default())
        .unwrap_or_else(|e| panic!("{path}: {}", e.message));
    let checked = c
        .checked
        .unwrap_or_else(|| panic!("{path}: {:?}", c.diagnostics));
    verify(&checked, config)
}

const ORACLE: Config = Config {
    agents: 4,
    faults: 1,
    max_states: 1_000_000,
};

#[test]
fn oracle_debug() {
    let t = std::time::Instant::now();
    for r in run("specs/oracle/oracle.fsm", &ORACLE) {
        eprintln!(
            "{}: {} states, {} steps, bound {:?}, {} findings, {:?}",
            r.name,
            r.states,
            r.steps,
            r.bound,
            r.diagnostics.len(),
            t.elapsed()
        );
        for d in &r.diagnostics {
            eprintln!("  {} {}", d.code.id(), d.message);
            for n in &d.notes {
                eprintln!("     {n}");
            }
        }
    }
}
