//! Where the Open Autonomy corpus of real specs is, for the tests and benchmarks that run over it.
//!
//! The corpus is data the repository does not hold. One setting finds it: the environment variable [`ENV`]
//! (`FSMC_CORPUS`) names the directory that holds `open-autonomy/`; relative paths count from the workspace
//! root. When the variable is set the corpus must be there (CI sets it, so a missing corpus fails there instead
//! of passing unchecked). When it is not set, the tests that need it say they skipped and pass, so a fresh
//! clone's `cargo test` works.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable naming the corpus directory.
pub const ENV: &str = "FSMC_CORPUS";

/// The corpus's `open-autonomy` directory given the value of [`ENV`] (if set) and the workspace root:
/// `Ok(None)` when the variable is unset or empty; an error when it names a directory without `open-autonomy/`.
pub fn locate(setting: Option<OsString>, workspace: &Path) -> Result<Option<PathBuf>, String> {
    let Some(setting) = setting.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let dir = workspace.join(setting).join("open-autonomy");
    match dir.canonicalize() {
        Ok(found) if found.is_dir() => Ok(Some(found)),
        _ => Err(format!(
            "{ENV} is set, but {} does not exist",
            dir.display()
        )),
    }
}

/// The corpus for a test: its `open-autonomy` directory, or `None` after printing that `test` skipped.
///
/// # Panics
///
/// When [`ENV`] names a directory without the corpus: a test that was asked to run must not pass unrun.
pub fn for_test(test: &str) -> Option<PathBuf> {
    match locate(std::env::var_os(ENV), &crate::workspace()) {
        Ok(Some(dir)) => Some(dir),
        Ok(None) => {
            eprintln!(
                "{test}: skipped, no Open Autonomy corpus (set {ENV} to the directory holding open-autonomy/)"
            );
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_or_empty_skips() {
        let ws = crate::scratch("corpus-absent");
        assert_eq!(locate(None, ws.path()), Ok(None));
        assert_eq!(locate(Some(OsString::new()), ws.path()), Ok(None));
    }

    #[test]
    fn set_must_exist() {
        let root = crate::scratch("corpus-set");
        let root = root.path();
        let err = locate(Some("nowhere".into()), root).unwrap_err();
        assert!(err.contains("FSMC_CORPUS is set"), "{err}");
        std::fs::create_dir_all(root.join("data/open-autonomy")).unwrap();
        assert!(locate(Some("data".into()), root).unwrap().is_some());
        // An absolute path is taken as it is.
        let abs = root.join("data").into_os_string();
        assert!(
            locate(Some(abs), Path::new("/elsewhere"))
                .unwrap()
                .is_some()
        );
    }
}
