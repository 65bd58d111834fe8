//! The front door of the library: load → parse → resolve → check, in one call, for the CLI and the macro.

use crate::check::{self, Report};
use crate::diag::{Diagnostic, LintLevels};
use crate::loader::{self, EntryError, LoadOptions, Loaded};
use crate::model::Checked;
use crate::source::SourceMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub load: LoadOptions,
    /// Lint levels from the command line; they override the spec's attributes.
    pub lints: LintLevels,
}

/// The outcome of compiling one spec.
#[derive(Debug)]
pub struct Compilation {
    pub sources: SourceMap,
    /// Sorted, deduplicated; lint levels applied.
    pub diagnostics: Vec<Diagnostic>,
    /// Present when there were no errors.
    pub checked: Option<Checked>,
    /// The resolved model when checking found errors (absent when the entry file could not be parsed).
    pub spec: Option<crate::model::Spec>,
    pub files_read: Vec<PathBuf>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles the spec at `entry` and everything it imports.
pub fn compile(entry: &Path, opts: &Options) -> Result<Compilation, EntryError> {
    crate::diag::reset_suggestion_budget();
    let loaded = loader::load(entry, &opts.load)?;
    Ok(finish(loaded, opts))
}

/// Compiles a spec given as text; imports resolve against `base_dir`.
pub fn compile_str(name: &str, text: &str, base_dir: &Path, opts: &Options) -> Compilation {
    crate::diag::reset_suggestion_budget();
    finish(loader::load_str(name, text, base_dir, &opts.load), opts)
}

fn finish(loaded: Loaded, opts: &Options) -> Compilation {
    let Loaded {
        sources,
        units,
        entry,
        diagnostics: mut diags,
        files_read,
    } = loaded;
    let Some(entry) = entry else {
        return Compilation {
            sources,
            diagnostics: crate::diag::finish(diags),
            checked: None,
            spec: None,
            files_read,
        };
    };
    let (spec, resolve_diags) = crate::resolve::resolve(&units, entry, &opts.lints);
    diags.extend(resolve_diags);
    let Report {
        checked,
        diagnostics,
        unchecked,
    } = check::check(spec);
    diags.extend(diagnostics);
    let diagnostics = crate::diag::finish(diags);
    // Errors found before checking (syntax, imports, names) also withhold the checked model.
    let (checked, spec) = match checked {
        Some(c) if diagnostics.iter().any(Diagnostic::is_error) => (None, Some(c.spec)),
        Some(c) => (Some(c), None),
        None => (None, unchecked),
    };
    Compilation {
        sources,
        diagnostics,
        checked,
        spec,
        files_read,
    }
}
