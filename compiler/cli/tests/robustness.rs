//! Robustness: the compiler never panics, overflows its stack or hangs on any input.
//!
//! Two halves:
//!
//! * property tests (proptest) feed random text, random token soup, grammar-generated specs ([`random`]),
//!   mutated shipped specs and mutated Open Autonomy YAML ([`mutated`], with the edits of [`mutate`]) through
//!   the whole pipeline (parse → resolve → check → render diagnostics → generate → format) and check that
//!   nothing panics and that the [`Compilation`] is consistent;
//! * deterministic edge tests: 100k-deep nesting on a 256 KiB stack ([`nesting`]), files over the size cap,
//!   unusable entry files, NUL bytes and megabyte identifiers ([`files`]), thousands of machines, import cycles
//!   and long import chains ([`imports`]).
//!
//! This suite is the stable-toolchain twin of the cargo-fuzz target in `fuzz/` (see `fuzz/README.md`). Case
//! counts are sized for a debug build on two cores; raise them with `PROPTEST_CASES=N` for a longer hunt
//! (`PROPTEST_CASES=20000 cargo test --release -p fsmc --test robustness`).
//!
//! Every file this suite writes goes to a fresh scratch directory, and every spec is compiled with such a
//! directory as its base, so imports in mutated specs cannot reach the repository or anything else.

#[path = "robustness/files.rs"]
mod files;
#[path = "robustness/imports.rs"]
mod imports;
#[path = "robustness/mutate.rs"]
mod mutate;
#[path = "robustness/mutated.rs"]
mod mutated;
#[path = "robustness/nesting.rs"]
mod nesting;
#[path = "robustness/random.rs"]
mod random;

use fsmc_base::diag::{Code, render};
use fsmc_base::source::FileId;
use fsmc_driver::{Compilation, Options, compile_str};
use fsmc_testkit::{TempDir, scratch, write};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};

/// A proptest configuration with `cases` cases, unless `PROPTEST_CASES` says otherwise. No failure persistence:
/// a failure prints its minimal input, which belongs in a named regression test below, not in a seed file.
fn config(cases: u32) -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    c.failure_persistence = None;
    c
}

fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(config(cases));
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// Everything a caller may do with a compilation must work: render the diagnostics in every format, and, for a
/// clean spec, generate and format the code. Also checks that the compilation is consistent.
fn exercise(c: &Compilation) {
    let _ = render::human(&c.sources, &c.diagnostics, false);
    let _ = render::human(&c.sources, &c.diagnostics, true);
    let _ = render::json(&c.sources, &c.diagnostics);
    let _ = render::github(&c.sources, &c.diagnostics);
    let _ = render::summary(&c.diagnostics);
    for d in &c.diagnostics {
        assert!(!d.message.is_empty(), "empty diagnostic message: {d:?}");
        for label in d.primary.iter().chain(&d.secondary) {
            let file = c
                .sources
                .get(label.span.file)
                .unwrap_or_else(|| panic!("span in an unknown file: {d:?}"));
            let (s, e) = (label.span.start as usize, label.span.end as usize);
            assert!(
                s <= e
                    && e <= file.text.len()
                    && file.text.is_char_boundary(s)
                    && file.text.is_char_boundary(e),
                "span {s}..{e} is not a valid range of `{}` ({} bytes): {d:?}",
                file.name,
                file.text.len()
            );
        }
    }
    assert_eq!(
        c.checked.is_some(),
        !c.has_errors(),
        "a checked model exactly when there are no errors"
    );
    if let Some(checked) = &c.checked
        && let Err(e) = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
    {
        panic!("a clean spec generated code that is not Rust: {e}");
    }
}

/// Feeds `text` to both front ends directly and through the whole pipeline as `.fsm` and as YAML.
fn everything(text: &str, base: &Path) {
    let _ = fsmc_syntax::parse(FileId(0), text);
    let _ = fsmc_driver::yaml::parse(FileId(0), text);
    compile_text("fuzz.fsm", text, base);
    compile_text("fuzz_fsm_specification.yaml", text, base);
}

fn compile_text(name: &str, text: &str, base: &Path) -> Compilation {
    let c = compile_str(name, text, base, &Options::default());
    exercise(&c);
    c
}

/// Runs `f` on a thread with a 256 KiB stack: a recursion proportional to the input overflows it long before
/// 100k levels, so finishing proves the path is iterative or depth-limited.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("small-stack".into())
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// A shipped spec: its path relative to `specs/` and its text.
#[derive(Debug, Clone)]
struct Spec {
    rel: PathBuf,
    text: String,
}

impl Spec {
    /// Compiles `text` as this spec, in its place in `tree` (a [`spec_tree`]), so its imports find its siblings.
    fn compile_as(&self, tree: &Path, text: &str) -> Compilation {
        let base = tree.join(self.rel.parent().unwrap_or(Path::new("")));
        let name = self
            .rel
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        compile_text(name, text, &base)
    }
}

/// The shipped `.fsm` specs (recursively, excluding `specs/invalid`), sorted by path.
fn shipped_specs() -> Vec<Spec> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Spec>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            let rel = p.strip_prefix(root).expect("under root").to_path_buf();
            if p.is_dir() {
                if rel != Path::new("invalid") {
                    walk(root, &p, out);
                }
            } else if p.extension().is_some_and(|e| e == "fsm") {
                let text = std::fs::read_to_string(&p).expect("read spec");
                out.push(Spec { rel, text });
            }
        }
    }
    let root = fsmc_testkit::specs();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    assert!(!out.is_empty(), "no specs found under {}", root.display());
    out
}

/// A copy of the shipped specs in a temp dir, so a mutated spec's imports find its (unmutated) siblings, with
/// the other files the specs name (Genie templates).
fn spec_tree(specs: &[Spec]) -> TempDir {
    fn copy_others(root: &Path, dir: &Path, tree: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            let rel = p.strip_prefix(root).expect("under root");
            if p.is_dir() {
                if rel != Path::new("invalid") {
                    copy_others(root, &p, tree);
                }
            } else if p.extension().is_none_or(|e| e != "fsm") {
                let bytes = std::fs::read(&p).expect("read");
                write(tree, rel.to_str().expect("utf-8 path"), bytes);
            }
        }
    }
    let tree = scratch("robustness-specs");
    for s in specs {
        write(tree.path(), s.rel.to_str().expect("utf-8 path"), &s.text);
    }
    let root = fsmc_testkit::specs();
    copy_others(&root, &root, tree.path());
    tree
}

/// A small valid Open Autonomy spec (upstream's registration app), so the YAML tests have a seed without the
/// corpus.
const SEED_YAML: &str = include_str!("registration/fsm_specification.yaml");

/// Open Autonomy YAML to mutate: the seed, the YAML specs in `specs/invalid`, and the upstream corpus when this
/// machine has it (it is read in place, never copied into the repository).
fn yaml_seeds() -> Vec<String> {
    let mut out = vec![SEED_YAML.to_string()];
    let mut dirs = vec![fsmc_testkit::specs().join("invalid")];
    dirs.extend(fsmc_testkit::corpus::for_test("yaml mutations"));
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == "yaml" || e == "yml")
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                out.push(text);
            }
        }
    }
    out
}

fn has_code(c: &Compilation, code: Code) -> bool {
    c.diagnostics.iter().any(|d| d.code == code)
}
