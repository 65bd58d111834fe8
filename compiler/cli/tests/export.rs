//! Integration tests of the exporters and of `fsmc export`, `fsmc graph` and `fsmc import`: the Open
//! Autonomy corpus (canonical YAML, import round trips), the composition golden tests, snapshots of every
//! output format, the command line, and the HTML page rendered in headless Chromium.
//!
//! The corpus lives outside the repository (see `fsmc_testkit::corpus`: `FSMC_CORPUS`); tests that need it say so
//! and skip when it is absent.

#[path = "export/chromium.rs"]
mod chromium;
#[path = "export/cli.rs"]
mod cli;
#[path = "export/compositions.rs"]
mod compositions;
#[path = "export/corpus.rs"]
mod corpus;
#[path = "export/hostile.rs"]
mod hostile;
#[path = "export/robust.rs"]
mod robust;
#[path = "export/snapshots.rs"]
mod snapshots;
#[path = "export/viewer.rs"]
mod viewer;

pub use fsmc::export::Direction::TopToBottom as TB;
use fsmc_base::diag::{Code, Level, LintLevels};
use fsmc_driver::loader::LoadOptions;
use fsmc_driver::{Compilation, Options};
use fsmc_model::spec::Checked;
use std::path::{Path, PathBuf};

/// The compiler crate's directory.
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Open Autonomy corpus (see `fsmc_testkit::corpus`), or `None` (with a note) when there is none.
pub fn corpus() -> Option<PathBuf> {
    fsmc_testkit::corpus::for_test("export tests")
}

/// Every YAML spec of the corpus (top level, `historical/`, `variants/`), sorted.
pub fn corpus_specs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in [
        dir.to_path_buf(),
        dir.join("historical"),
        dir.join("variants"),
    ] {
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        out.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml")),
        );
    }
    out.sort();
    out
}

/// Options for the corpus: historical specs break only upstream's naming rules, which are lints.
pub fn options(search_paths: &[PathBuf]) -> Options {
    let mut lints = LintLevels::default();
    lints.set(Code::StateNaming, Level::Allow);
    lints.set(Code::AppNaming, Level::Allow);
    Options {
        load: LoadOptions {
            search_paths: search_paths.to_vec(),
            roots: Vec::new(),
            display_base: None,
        },
        lints,
    }
}

/// Compiles a spec file, failing the test with the rendered diagnostics if it has errors.
pub fn compile(path: &Path, search_paths: &[PathBuf]) -> Compilation {
    let c = fsmc_driver::compile(path, &options(search_paths))
        .unwrap_or_else(|e| panic!("{}: {}", e.path, e.message));
    assert_checked(&c, &path.display().to_string());
    c
}

/// The checked model, or a test failure showing why there is none.
pub fn assert_checked<'a>(c: &'a Compilation, what: &str) -> &'a Checked {
    match &c.checked {
        Some(checked) => checked,
        None => panic!(
            "{what} has errors:\n{}",
            fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
        ),
    }
}

/// Upstream's canonical form of a YAML spec's text.
pub fn canonical(text: &str) -> String {
    let (spec, diags) = fsmc_driver::yaml::parse(fsmc_base::source::FileId(0), text);
    let spec = spec.unwrap_or_else(|| panic!("unreadable spec: {diags:?}"));
    fsmc::export::yaml::write(&spec)
}

/// The same lines in any order: how a stale upstream file (states renamed after it was written, not
/// re-sorted) relates to its canonical form.
pub fn same_lines(a: &str, b: &str) -> bool {
    fn sorted(s: &str) -> Vec<&str> {
        let mut v: Vec<&str> = s.lines().collect();
        v.sort_unstable();
        v
    }
    sorted(a) == sorted(b)
}

/// Runs the command line in-process: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(args.iter().copied(), |argv, out, err| {
        fsmc::cli::run(argv, out, err, false)
    });
    (o.code, o.stdout, o.stderr)
}
