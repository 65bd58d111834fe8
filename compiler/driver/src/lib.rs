//! fsmc's compiler as a library: load → parse → resolve → check, in one call ([`compile`]), for the tool, the
//! macro and anyone embedding fsmc.
//!
//! The stages live in their own packages (`fsmc-syntax` parses, `fsmc-model` models, checks and generates);
//! this one joins them: [`loader`] reads the entry file and its imports (the only IO of the pipeline),
//! [`yaml`] reads Open Autonomy's `fsm_specification.yaml` (feature `yaml`), and [`resolve`] lowers either
//! front end into the model.

pub mod loader;
pub mod resolve;
pub mod yaml;

// The checks' unit tests compile specs from text, which takes the whole pipeline: they live with it.
#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod genie_tests;

use crate::loader::{EntryError, LoadOptions, Loaded, Overlay};
use crate::resolve::Unit;
use fsmc_base::diag::{Code, Diagnostic, LintLevels};
use fsmc_base::source::{FileId, SourceMap};
use fsmc_model::check::{self, Report};
use fsmc_model::spec::Checked;
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
    pub spec: Option<fsmc_model::spec::Spec>,
    pub files_read: Vec<PathBuf>,
    /// The syntax tree of every file read, in the order read (the entry first). A file with syntax errors has a
    /// partial tree: what parsed. Tools (an editor's outline, a language server) can use them when nothing else
    /// was produced.
    pub units: Vec<Unit>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles the spec at `entry` and everything it imports.
pub fn compile(entry: &Path, opts: &Options) -> Result<Compilation, EntryError> {
    fsmc_base::diag::reset_suggestion_budget();
    let loaded = loader::load(entry, &opts.load)?;
    Ok(finish(loaded, opts))
}

/// [`compile`], reading the files `overlay` holds from memory (an editor's unsaved buffers) rather than from disk.
pub fn compile_overlaid(
    entry: &Path,
    opts: &Options,
    overlay: &Overlay,
) -> Result<Compilation, EntryError> {
    fsmc_base::diag::reset_suggestion_budget();
    let loaded = loader::load_overlaid(entry, &opts.load, overlay)?;
    Ok(finish(loaded, opts))
}

/// [`compile_all`], reading the files `overlay` holds from memory rather than from disk.
pub fn compile_all_overlaid(
    entries: &[PathBuf],
    opts: &Options,
    overlay: &Overlay,
) -> (Compilation, Vec<(PathBuf, EntryError)>) {
    fsmc_base::diag::reset_suggestion_budget();
    let (loaded, errors) = loader::load_all_overlaid(entries, &opts.load, overlay);
    (finish(loaded, opts), errors)
}

/// Compiles a spec given as text; imports resolve against `base_dir`.
pub fn compile_str(name: &str, text: &str, base_dir: &Path, opts: &Options) -> Compilation {
    fsmc_base::diag::reset_suggestion_budget();
    finish(loader::load_str(name, text, base_dir, &opts.load), opts)
}

/// Compiles several specs as one compilation (what `fsmc check` does with a directory): every file is read,
/// resolved and checked once however many of the others import it, so the work is linear in the files. Entries
/// that cannot be read are returned with their errors.
pub fn compile_all(
    entries: &[PathBuf],
    opts: &Options,
) -> (Compilation, Vec<(PathBuf, EntryError)>) {
    fsmc_base::diag::reset_suggestion_budget();
    let (loaded, errors) = loader::load_all(entries, &opts.load);
    (finish(loaded, opts), errors)
}

fn finish(loaded: Loaded, opts: &Options) -> Compilation {
    let Loaded {
        sources,
        units,
        entry,
        entries,
        diagnostics: mut diags,
        files_read,
        templates,
    } = loaded;
    let mut units = units;
    let Some(_) = entry else {
        return Compilation {
            sources,
            diagnostics: fsmc_base::diag::finish(diags),
            checked: None,
            spec: None,
            files_read,
            units,
        };
    };
    // A file with syntax errors has a partial tree. Resolving and checking it would report its missing pieces
    // again as unknown names, unreachable states and so on, so it takes part empty, as a file that does not
    // parse at all always did; its partial tree is put back for the callers afterwards.
    let broken = files_with_syntax_errors(&diags);
    let mut partial = Vec::new();
    for (i, unit) in units.iter_mut().enumerate() {
        if broken.contains(&unit.file) {
            let empty = crate::resolve::Syntax::Fsm(Default::default());
            partial.push((i, std::mem::replace(&mut unit.syntax, empty)));
        }
    }
    let (mut spec, resolve_diags) = crate::resolve::resolve_entries(&units, &entries, &opts.lints);
    spec.templates = templates;
    for (i, syntax) in partial {
        units[i].syntax = syntax;
    }
    diags.extend(resolve_diags);
    let Report {
        checked,
        diagnostics,
        unchecked,
    } = check::check(spec);
    diags.extend(diagnostics);
    let diagnostics = fsmc_base::diag::finish(diags);
    // Errors found before checking (syntax, imports, names) also withhold the checked model.
    let (checked, spec) = match checked {
        Some(c) if diagnostics.iter().any(Diagnostic::is_error) => (None, Some(c.into_spec())),
        Some(c) => (Some(c), None),
        None => (None, unchecked),
    };
    Compilation {
        sources,
        diagnostics,
        checked,
        spec,
        files_read,
        units,
    }
}

/// The files with a syntax error among `diags`, sorted.
fn files_with_syntax_errors(diags: &[Diagnostic]) -> Vec<FileId> {
    let mut files: Vec<FileId> = diags
        .iter()
        .filter(|d| d.code == Code::Syntax && d.is_error())
        .filter_map(|d| d.primary.as_ref().map(|l| l.span.file))
        .collect();
    files.sort_unstable();
    files.dedup();
    files
}
