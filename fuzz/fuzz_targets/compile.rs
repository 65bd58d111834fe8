//! Fuzzes the whole pipeline on arbitrary bytes: load (as `.fsm` and as YAML) → resolve → check → render the
//! diagnostics → generate and format code for a clean spec.
//!
//! Imports resolve against an empty directory created for the run, so fuzzed imports never read real files.
#![no_main]

use fsmc_base::diag::render;
use fsmc_driver::{Options, compile_str};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn base() -> &'static PathBuf {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("fsmc-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for name in ["fuzz.fsm", "fuzz_fsm_specification.yaml"] {
        let c = compile_str(name, &text, base(), &Options::default());
        let _ = render::human(&c.sources, &c.diagnostics, false);
        let _ = render::json(&c.sources, &c.diagnostics);
        if let Some(checked) = &c.checked {
            let _ = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked));
        }
    }
});
