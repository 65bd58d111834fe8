//! Compiling a spec and verifying it, for the tests.

use fsmc_verify::{Config, Report, verify};
use std::path::Path;

/// Four agents, one of them faulty: the environment the shipped apps are verified in.
pub const FOUR_ONE: Config = Config {
    agents: 4,
    faults: 1,
    max_states: 2_000_000,
};

/// The reports of every app and `abci` machine of `path`, which must pass `fsmc check`.
pub fn verify_file(path: &Path, config: &Config) -> Vec<Report> {
    let c = fsmc_driver::compile(path, &fsmc_driver::Options::default())
        .unwrap_or_else(|e| panic!("{}: {}", e.path, e.message));
    let checked = c.checked.unwrap_or_else(|| {
        panic!(
            "{}: does not pass `fsmc check`:\n{}",
            path.display(),
            fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
        )
    });
    verify(&checked, config)
}

/// The codes every report of `path` found, in order.
pub fn codes(path: &Path, config: &Config) -> Vec<&'static str> {
    verify_file(path, config)
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.code.id()))
        .collect()
}

/// The `.fsm` files directly in `dir`, sorted.
pub fn specs_in(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "fsm"))
        .collect();
    out.sort();
    out
}
