//! Where the Open Autonomy corpus of real specs is, for the tests and benchmarks that run over it.
//!
//! The corpus is data the repository does not hold. One setting finds it: the environment variable
//! [`ENV`] (`FSMC_CORPUS`) names the directory that holds `open-autonomy/`; relative paths count from the
//! workspace root. When the variable is set the corpus must be there — CI sets it, so a missing corpus fails
//! there instead of passing unchecked. When it is not set, `../shared/corpus` beside the workspace is used if it
//! exists; otherwise the tests that need it say they skipped and pass, so a fresh clone's `cargo test` works.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable naming the corpus directory.
pub const ENV: &str = "FSMC_CORPUS";

/// Where the corpus is looked for when [`ENV`] is not set, relative to the workspace root.
pub const DEFAULT: &str = "../shared/corpus";

/// The corpus's `open-autonomy` directory given the value of [`ENV`] (if set) and the workspace root:
/// `Ok(None)` when the variable is unset and there is no corpus at [`DEFAULT`]; an error when the variable names
/// a directory without `open-autonomy/`.
pub fn locate(setting: Option<OsString>, workspace: &Path) -> Result<Option<PathBuf>, String> {
    let explicit = setting.filter(|v| !v.is_empty());
    let base = match &explicit {
        Some(v) => workspace.join(v),
        None => workspace.join(DEFAULT),
    };
    let dir = base.join("open-autonomy");
    if dir.is_dir() {
        Ok(Some(crate::loader::normalize(&dir)))
    } else if explicit.is_some() {
        Err(format!(
            "{ENV} is set, but {} does not exist",
            dir.display()
        ))
    } else {
        Ok(None)
    }
}

/// The corpus for a test: its `open-autonomy` directory, or `None` after printing that `test` skipped.
///
/// # Panics
///
/// When [`ENV`] names a directory without the corpus: a test that was asked to run must not pass unrun.
pub fn for_test(workspace: &Path, test: &str) -> Option<PathBuf> {
    match locate(std::env::var_os(ENV), workspace) {
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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fsmc-corpus-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn unset_and_absent_skips() {
        let ws = scratch("absent");
        assert_eq!(locate(None, &ws.join("ws")), Ok(None));
        assert_eq!(locate(Some(OsString::new()), &ws.join("ws")), Ok(None));
    }

    #[test]
    fn unset_uses_the_default_beside_the_workspace() {
        let root = scratch("default");
        let ws = root.join("main");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(root.join("shared/corpus/open-autonomy")).unwrap();
        let found = locate(None, &ws).unwrap().unwrap();
        assert!(found.ends_with("shared/corpus/open-autonomy"), "{found:?}");
    }

    #[test]
    fn set_must_exist() {
        let root = scratch("set");
        let err = locate(Some("nowhere".into()), &root).unwrap_err();
        assert!(err.contains("FSMC_CORPUS is set"), "{err}");
        std::fs::create_dir_all(root.join("data/open-autonomy")).unwrap();
        assert!(locate(Some("data".into()), &root).unwrap().is_some());
        // An absolute path is taken as it is.
        let abs = root.join("data").into_os_string();
        assert!(
            locate(Some(abs), Path::new("/elsewhere"))
                .unwrap()
                .is_some()
        );
    }
}
