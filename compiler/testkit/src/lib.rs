//! Test support shared by fsmc's packages: where the workspace and the Open Autonomy corpus are, scratch
//! directories that clean up after themselves, a command's output captured in memory, and a deterministic
//! generator of varied input.
//!
//! A dev-only package: nothing a user builds depends on it, and it depends on none of fsmc's packages.

pub mod corpus;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What [`scratch`] returns: the directory's path, and its removal when dropped.
pub use tempfile::TempDir;

/// The workspace root (the directory holding the top-level `Cargo.toml`, `specs/` and `compiler/`).
pub fn workspace() -> PathBuf {
    // This package is `compiler/testkit`: two levels below the root, wherever the checkout is.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root exists")
}

/// The shipped specs (`specs/`).
pub fn specs() -> PathBuf {
    workspace().join("specs")
}

/// A scratch directory, removed (with everything in it) when dropped. Tests run in parallel: every directory is
/// new and unique.
pub fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("fsmc-{name}-"))
        .tempdir()
        .expect("create a scratch directory")
}

/// Writes `contents` to `rel` under `dir`, creating the directories between, and returns the file's path.
///
/// # Panics
///
/// When the file cannot be written: a test's scratch directory is always writable.
pub fn write(dir: &Path, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the file's directory");
    }
    std::fs::write(&path, contents).expect("write a scratch file");
    path
}

/// What a command printed, and its exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs a command-line entry point in process (`run(argv, stdout, stderr)`, as `fsmc::cli::run` takes them),
/// with `fsmc` as the program name before `args`, and captures what it writes.
///
/// # Panics
///
/// When the command writes something that is not UTF-8: fsmc's output always is.
pub fn capture<A: Into<OsString>>(
    args: impl IntoIterator<Item = A>,
    run: impl FnOnce(Vec<OsString>, &mut Vec<u8>, &mut Vec<u8>) -> i32,
) -> Output {
    let argv: Vec<OsString> = std::iter::once(OsString::from("fsmc"))
        .chain(args.into_iter().map(Into::into))
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(argv, &mut out, &mut err);
    Output {
        code,
        stdout: String::from_utf8(out).expect("UTF-8 stdout"),
        stderr: String::from_utf8(err).expect("UTF-8 stderr"),
    }
}

/// A tiny deterministic generator (linear congruential, with Knuth's MMIX constants): tests and benchmarks that
/// want varied input get the same input on every run.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number, below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_directories_are_new_and_removed() {
        let a = scratch("kit");
        let b = scratch("kit");
        assert_ne!(a.path(), b.path());
        let file = write(a.path(), "deep/er/file.txt", "text");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "text");
        let root = a.path().to_path_buf();
        drop(a);
        assert!(!root.exists());
    }

    #[test]
    fn capture_passes_the_program_name_and_collects_the_output() {
        let o = capture(["check", "x.fsm"], |argv, out, err| {
            assert_eq!(argv, ["fsmc", "check", "x.fsm"]);
            out.extend_from_slice(b"out");
            err.extend_from_slice(b"err");
            3
        });
        assert_eq!(
            o,
            Output {
                code: 3,
                stdout: "out".into(),
                stderr: "err".into()
            }
        );
    }

    #[test]
    fn the_generator_repeats_itself_and_stays_below_its_bound() {
        let draws = |seed| {
            let mut rng = Lcg(seed);
            (1..50).map(|n| rng.below(n)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
        assert!(draws(7).iter().zip(1..).all(|(&x, n)| x < n));
        assert_eq!(Lcg(7).below(0), 0);
    }

    #[test]
    fn the_workspace_holds_the_specs() {
        assert!(workspace().join("Cargo.toml").is_file());
        assert!(specs().is_dir());
    }
}
