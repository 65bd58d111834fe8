//! The loader: the only part of the library that reads files. It reads the entry spec and, transitively, every
//! file it imports (`.fsm` or Open Autonomy YAML), refusing absolute paths and paths that leave the allowed
//! roots, reporting missing files and import cycles, and remembering every file read (the macro turns that list
//! into `include_str!`s so that editing any of them rebuilds the crate).

use crate::resolve::{Syntax, Unit};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, SourceMap, Span};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Files larger than this are refused: the largest real specs are a few hundred kilobytes, and a 100k-state
/// synthetic spec is about 20 MiB.
pub const MAX_FILE_SIZE: u64 = 32 * 1024 * 1024;

/// Where imports may come from.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Directories searched, in order, for an import not found next to the importing file.
    pub search_paths: Vec<PathBuf>,
    /// Directories files may be read from (besides the search paths). Empty means "the entry file's directory".
    pub roots: Vec<PathBuf>,
    /// Paths are shown relative to this directory when possible.
    pub display_base: Option<PathBuf>,
}

/// Files held in memory that stand in for the files on disk: an editor's unsaved buffers, which the language
/// server compiles as they are. A path in the overlay is read from it, whether or not the file exists on disk;
/// every other rule (roots, cycles, the size limit) applies as to a file on disk. Keys are absolute, normalized
/// paths.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    files: BTreeMap<PathBuf, String>,
}

/// The overlay of a compilation that has none.
static NO_OVERLAY: Overlay = Overlay {
    files: BTreeMap::new(),
};

impl Overlay {
    /// Holds `text` for the file at `path` (made absolute and normalized).
    pub fn insert(&mut self, path: &Path, text: String) {
        self.files.insert(normalize(&absolute(path)), text);
    }

    pub fn remove(&mut self, path: &Path) -> Option<String> {
        self.files.remove(&normalize(&absolute(path)))
    }

    pub fn get(&self, path: &Path) -> Option<&str> {
        self.files
            .get(&normalize(&absolute(path)))
            .map(String::as_str)
    }

    /// The paths held, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.keys().map(PathBuf::as_path)
    }
}

/// Everything read for one compilation.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    pub units: Vec<Unit>,
    /// Index of the entry unit in `units`, if the entry file could be read.
    pub entry: Option<usize>,
    /// Every entry unit (one for `load`, one per readable entry for `load_all`).
    pub entries: Vec<usize>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read, as absolute paths, in the order read.
    pub files_read: Vec<PathBuf>,
    /// The template files Genie states name (`template "path";`), read relative to the spec that names them:
    /// the text, or why it could not be read, keyed by the span of the path as written.
    pub templates: BTreeMap<Span, Result<String, String>>,
}

/// Why the entry file itself could not be used: a usage problem (exit code 2), not a spec error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    pub path: String,
    pub message: String,
}

/// Loads `entry` and everything it imports.
pub fn load(entry: &Path, opts: &LoadOptions) -> Result<Loaded, EntryError> {
    load_overlaid(entry, opts, &NO_OVERLAY)
}

/// [`load`], reading the files `overlay` holds from it rather than from disk.
pub fn load_overlaid(
    entry: &Path,
    opts: &LoadOptions,
    overlay: &Overlay,
) -> Result<Loaded, EntryError> {
    let entry_abs = absolute(entry);
    let mut l = Loader::new(opts, entry_abs.parent().unwrap_or(Path::new("/")), overlay);
    let text = l.read(&entry_abs).map_err(|message| EntryError {
        path: l.display(&entry_abs),
        message,
    })?;
    let index = l.add(&entry_abs, text);
    l.out.entry = Some(index);
    l.out.entries.push(index);
    l.follow_imports();
    Ok(l.out)
}

/// Loads several entry specs and everything they import, each file once (checking a directory: reading every
/// file once keeps a long import chain linear). An entry that cannot be read is returned with its error; the
/// others still load.
pub fn load_all(entries: &[PathBuf], opts: &LoadOptions) -> (Loaded, Vec<(PathBuf, EntryError)>) {
    load_all_overlaid(entries, opts, &NO_OVERLAY)
}

/// [`load_all`], reading the files `overlay` holds from it rather than from disk.
pub fn load_all_overlaid(
    entries: &[PathBuf],
    opts: &LoadOptions,
    overlay: &Overlay,
) -> (Loaded, Vec<(PathBuf, EntryError)>) {
    let default_root = entries
        .first()
        .map(|e| absolute(e))
        .and_then(|e| e.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let mut l = Loader::new(opts, &default_root, overlay);
    let mut errors = Vec::new();
    for entry in entries {
        let abs = normalize(&absolute(entry));
        if let Some(&index) = l.by_path.get(&abs) {
            // Already read as another entry's import.
            if !l.out.entries.contains(&index) {
                l.out.entries.push(index);
            }
            continue;
        }
        match l.read(&abs) {
            Ok(text) => {
                let index = l.add(&abs, text);
                l.out.entries.push(index);
                l.follow_imports();
            }
            Err(message) => errors.push((
                entry.clone(),
                EntryError {
                    path: l.display(&abs),
                    message,
                },
            )),
        }
    }
    l.out.entry = l.out.entries.first().copied();
    (l.out, errors)
}

/// Loads a spec given as text (the `fsm!` macro's inline form), resolving its imports against `base_dir`.
pub fn load_str(name: &str, text: &str, base_dir: &Path, opts: &LoadOptions) -> Loaded {
    let mut l = Loader::new(opts, base_dir, &NO_OVERLAY);
    let virtual_path = absolute(base_dir).join(name);
    let index = l.add_virtual(&virtual_path, name.to_string(), text.to_string());
    l.out.entry = Some(index);
    l.out.entries.push(index);
    l.follow_imports();
    l.out
}

struct Loader<'a> {
    opts: &'a LoadOptions,
    overlay: &'a Overlay,
    roots: Vec<PathBuf>,
    /// The roots with symbolic links resolved: a file must be inside one of these once its own links are
    /// resolved, so a link inside a root cannot lead outside it.
    real_roots: Vec<PathBuf>,
    out: Loaded,
    by_path: BTreeMap<PathBuf, usize>,
    /// Files being loaded, innermost last: an import of one of these is a cycle.
    stack: Vec<PathBuf>,
    /// The imports still to follow of each file in `stack` (same order).
    pending: Vec<Pending>,
}

/// A file being loaded: the imports it has left to follow, and where those it followed led.
struct Pending {
    index: usize,
    dir: PathBuf,
    imports: std::vec::IntoIter<(String, Span)>,
    resolved: Vec<Option<usize>>,
}

impl<'a> Loader<'a> {
    /// A loader whose roots are the configured ones (or `default_root` when none are), plus the search paths.
    fn new(opts: &'a LoadOptions, default_root: &Path, overlay: &'a Overlay) -> Loader<'a> {
        let mut roots: Vec<PathBuf> = opts.roots.iter().map(|r| absolute(r)).collect();
        if roots.is_empty() {
            roots.push(absolute(default_root));
        }
        roots.extend(opts.search_paths.iter().map(|p| absolute(p)));
        let real_roots = roots
            .iter()
            .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| normalize(r)))
            .collect();
        Loader {
            opts,
            overlay,
            roots,
            real_roots,
            out: Loaded::default(),
            by_path: BTreeMap::new(),
            stack: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl Loader<'_> {
    /// A file's text: from the overlay when it holds the file (as it is: an empty buffer is an empty spec), else
    /// from disk.
    fn read(&self, path: &Path) -> Result<String, String> {
        match self.overlay.files.get(path) {
            Some(text) if text.len() as u64 > MAX_FILE_SIZE => Err(format!(
                "file is larger than {} MiB",
                MAX_FILE_SIZE / 1024 / 1024
            )),
            Some(text) => Ok(text.clone()),
            None => read_text(path),
        }
    }

    fn exists(&self, path: &Path) -> bool {
        self.overlay.files.contains_key(path) || path.exists()
    }

    fn display(&self, path: &Path) -> String {
        let base = self.opts.display_base.as_deref().map(absolute);
        let shown = base
            .as_deref()
            .and_then(|b| path.strip_prefix(b).ok())
            .unwrap_or(path);
        shown.to_string_lossy().replace('\\', "/")
    }

    fn add(&mut self, path: &Path, text: String) -> usize {
        self.out.files_read.push(path.to_path_buf());
        let display = self.display(path);
        self.add_virtual(path, display, text)
    }

    fn add_virtual(&mut self, path: &Path, display: String, text: String) -> usize {
        let file = self.out.sources.add(display, text);
        let index = self.out.units.len();
        self.by_path.insert(path.to_path_buf(), index);
        // Parsed where it is stored: a copy of a large spec would be the biggest allocation of the check.
        let text = self.out.sources.get(file).map_or("", |f| f.text.as_str());
        let is_yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        );
        let (syntax, diags) = if is_yaml {
            read_yaml(file, text)
        } else {
            let (ast, diags) = fsmc_syntax::parse(file, text);
            (ast.map(Syntax::Fsm), diags)
        };
        // A spec that was read despite errors lost the entries those errors are about; a repeated YAML key
        // loses nothing (YAML's meaning, the last one, is kept).
        let lossy = syntax.is_some()
            && diags
                .iter()
                .any(|d| d.is_error() && d.code != Code::YamlDuplicateKey);
        self.out.diagnostics.extend(diags);
        // A file that does not parse still takes part, empty, so that importers resolve what they can.
        let syntax = syntax.unwrap_or(Syntax::Fsm(Default::default()));
        self.out.units.push(Unit {
            file,
            syntax,
            imports: Vec::new(),
            lossy,
        });
        self.read_templates(index, path.parent().unwrap_or(Path::new("")));
        let imports: Vec<(String, Span)> = match &self.out.units[index].syntax {
            Syntax::Fsm(f) => f
                .imports
                .iter()
                .map(|i| (i.path.clone(), i.path_span))
                .collect(),
            Syntax::Oa(_) => Vec::new(),
        };
        self.stack.push(path.to_path_buf());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.pending.push(Pending {
            index,
            dir,
            resolved: Vec::with_capacity(imports.len()),
            imports: imports.into_iter(),
        });
        index
    }

    /// Follows the imports of the files added, depth first, in the order written. An explicit stack rather than
    /// recursion: an import chain of any length cannot overflow the thread's stack.
    fn follow_imports(&mut self) {
        while let Some(top) = self.pending.last_mut() {
            let Some((import, span)) = top.imports.next() else {
                if let Some(done) = self.pending.pop() {
                    self.stack.pop();
                    self.out.units[done.index].imports = done.resolved;
                }
                continue;
            };
            let dir = top.dir.clone();
            let at = self.pending.len() - 1;
            // Reading a new file pushes it onto `pending`: its imports are followed before this file's next one.
            let unit = self.import(&dir, &import, span);
            if let Some(asker) = self.pending.get_mut(at) {
                asker.resolved.push(unit);
            }
        }
    }

    fn import(&mut self, dir: &Path, import: &str, span: Span) -> Option<usize> {
        let rel = Path::new(import);
        if rel.is_absolute()
            || import.starts_with('/')
            || import.starts_with('\\')
            || rel.components().any(|c| matches!(c, Component::Prefix(_)))
        {
            self.out.diagnostics.push(
                Diagnostic::new(Code::ImportOutsideRoots, format!("import path `{import}` is absolute"))
                    .at(span, "absolute paths are not allowed")
                    .help("write the path relative to this file, or add its directory as a search path (`-I DIR`)"),
            );
            return None;
        }
        let mut candidates = vec![normalize(&dir.join(rel))];
        candidates.extend(
            self.opts
                .search_paths
                .iter()
                .map(|p| normalize(&absolute(p).join(rel))),
        );
        let mut outside = None;
        for c in candidates {
            if !self.roots.iter().any(|r| c.starts_with(normalize(r))) {
                outside.get_or_insert(c);
                continue;
            }
            // Anything that exists is taken (a FIFO or device is then refused with a reason when read).
            if !self.exists(&c) {
                continue;
            }
            // The text check above is on the path as written; a symbolic link inside a root may still point
            // outside it, so the real path must be inside a real root too — checked before anything is read.
            let real = std::fs::canonicalize(&c).unwrap_or_else(|_| c.clone());
            if !self.real_roots.iter().any(|r| real.starts_with(r)) {
                outside.get_or_insert(c);
                continue;
            }
            if let Some(pos) = self.stack.iter().position(|p| *p == c) {
                let cycle: Vec<String> = self.stack[pos..]
                    .iter()
                    .chain(std::iter::once(&c))
                    .map(|p| self.display(p))
                    .collect();
                self.out.diagnostics.push(
                    Diagnostic::new(
                        Code::ImportCycle,
                        format!("import cycle: {}", cycle.join(" → ")),
                    )
                    .at(span, "this import closes the cycle")
                    .help("move what both files need into a third file that neither imports"),
                );
                return None;
            }
            if let Some(&u) = self.by_path.get(&c) {
                return Some(u);
            }
            return match self.read(&c) {
                Ok(text) => Some(self.add(&c, text)),
                Err(message) => {
                    let mut d =
                        Diagnostic::new(Code::Io, format!("cannot import `{import}`: {message}"))
                            .at(span, "imported here");
                    if message.contains("UTF-8") {
                        d = d.help("specs are UTF-8 text: re-save the file as UTF-8");
                    }
                    self.out.diagnostics.push(d);
                    None
                }
            };
        }
        if outside.is_some() {
            self.out.diagnostics.push(
                Diagnostic::new(Code::ImportOutsideRoots, format!("import path `{import}` leaves the allowed directories"))
                    .at(span, "resolves outside the spec's roots")
                    .help("add the directory that holds it as a search path (`-I DIR`, or `search = [...]` in the macro)"),
            );
        } else {
            // Shown relative to the display base; the base itself would be an empty string, so it is `.`.
            let shown = |p: String| {
                if p.is_empty() {
                    "`.`".to_string()
                } else {
                    format!("`{p}`")
                }
            };
            let mut searched = vec![format!(
                "{} (beside the importing file)",
                shown(self.display(dir))
            )];
            searched.extend(
                self.opts
                    .search_paths
                    .iter()
                    .map(|p| shown(self.display(&absolute(p)))),
            );
            self.out.diagnostics.push(
                Diagnostic::new(
                    Code::ImportNotFound,
                    format!("cannot find imported file `{import}`"),
                )
                .at(span, "not found")
                .help(format!("searched: {}", searched.join(", "))),
            );
        }
        None
    }
}

impl Loader<'_> {
    /// Reads the templates the Genie machines of unit `index` name, relative to `dir` (the spec's directory).
    /// The property is recognised by its shape here (`template "…";` on a state of a `genie` machine); whether
    /// it is well placed is the resolver's business.
    fn read_templates(&mut self, index: usize, dir: &Path) {
        let Some(Syntax::Fsm(file)) = self.out.units.get(index).map(|u| &u.syntax) else {
            return;
        };
        let mut wanted = Vec::new();
        for m in &file.machines {
            if m.profile.as_ref().is_none_or(|p| p.text != "genie") {
                continue;
            }
            for st in &m.states {
                for p in &st.properties {
                    if let (true, fsmc_syntax::ast::PropValue::Text(t)) =
                        (p.name.text == "template", &p.value)
                    {
                        wanted.push(t.clone());
                    }
                }
            }
        }
        for t in wanted {
            let read = self.read_template(dir, &t.text);
            self.out.templates.insert(t.span, read);
        }
    }

    /// A template's text, or why it cannot be used: the path is relative to the spec, must stay inside the
    /// allowed roots (as imports must), and the file must be UTF-8 text.
    fn read_template(&mut self, dir: &Path, written: &str) -> Result<String, String> {
        let rel = Path::new(written);
        if written.is_empty() {
            return Err("the path is empty".into());
        }
        if rel.is_absolute()
            || written.starts_with(['/', '\\'])
            || rel.components().any(|c| matches!(c, Component::Prefix(_)))
        {
            return Err("the path is absolute: write it relative to the spec".into());
        }
        let path = normalize(&dir.join(rel));
        let inside =
            |roots: &[PathBuf], p: &Path| roots.iter().any(|r| p.starts_with(normalize(r)));
        if !inside(&self.roots, &path) {
            return Err("the path leaves the allowed directories".into());
        }
        if !self.exists(&path) {
            return Err(format!("`{}` does not exist", self.display(&path)));
        }
        // As for imports: a symbolic link inside a root must not lead outside it.
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !inside(&self.real_roots, &real) {
            return Err("the path leaves the allowed directories".into());
        }
        let text = match self.overlay.files.get(&path) {
            Some(text) if text.len() as u64 > MAX_FILE_SIZE => Err(format!(
                "file is larger than {} MiB",
                MAX_FILE_SIZE / 1024 / 1024
            )),
            Some(text) => Ok(text.clone()),
            None => read_regular(&path, MAX_FILE_SIZE).and_then(|bytes| {
                String::from_utf8(bytes).map_err(|e| {
                    format!(
                        "is not UTF-8 text (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    )
                })
            }),
        }
        .map_err(|why| format!("`{}`: {why}", self.display(&path)))?;
        // Read files are build inputs: the macro makes editing a template rebuild the crate, as for a spec.
        if !self.out.files_read.contains(&path) {
            self.out.files_read.push(path);
        }
        Ok(text)
    }
}

/// Every spec under `path`, sorted; a directory holding a `.fsmcignore` file is skipped (it holds specs that
/// are meant to fail, such as `specs/invalid/`), unless it is named on the command line. Symbolic links are
/// followed, but every directory and every file is visited once, by its real path: links that loop back, or two
/// links to one file, cannot make the walk endless or count a spec twice.
/// Whether this build reads Open Autonomy YAML (the `yaml` feature); without it a YAML file is refused with a
/// diagnostic that names the feature.
pub const READS_YAML: bool = cfg!(feature = "yaml");

/// An Open Autonomy YAML (or JSON) spec, read into its syntax.
#[cfg(feature = "yaml")]
fn read_yaml(file: FileId, text: &str) -> (Option<Syntax>, Vec<Diagnostic>) {
    let (spec, diags) = crate::yaml::parse(file, text);
    (spec.map(Syntax::Oa), diags)
}

/// A build without the YAML reader (the macro's, unless asked for) refuses the file and names the feature that
/// reads it, rather than reporting it as a broken `.fsm` file.
#[cfg(not(feature = "yaml"))]
fn read_yaml(file: FileId, text: &str) -> (Option<Syntax>, Vec<Diagnostic>) {
    let d = Diagnostic::new(
        Code::Io,
        "cannot read Open Autonomy YAML: this build of fsmc has no YAML reader",
    )
    .at(Span::new(file, 0, text.len().min(1)), "a YAML spec")
    .help("to import YAML specs through `include_fsm!`, enable fsmc-runtime's `yaml` feature: `fsmc-runtime = { version = \"…\", features = [\"yaml\"] }`");
    (None, vec![d])
}

pub fn collect_specs(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    walk(path, out, &mut seen)
}

fn walk(
    path: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::BTreeSet<PathBuf>,
) -> std::io::Result<()> {
    if !seen.insert(std::fs::canonicalize(path)?) {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            if !p.join(".fsmcignore").exists() {
                walk(&p, out, seen)?;
            }
        } else if is_spec_name(name) {
            // A dangling link has no real path: keep it, so that reading it reports why it is unusable.
            let real = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
            if seen.insert(real) {
                out.push(p);
            }
        }
    }
    Ok(())
}

fn is_spec_name(name: &str) -> bool {
    name.ends_with(".fsm")
        || name.ends_with("fsm_specification.yaml")
        || name.ends_with("fsm_composition_specification.yaml")
}

/// Reads a spec file as text, or says in one line why it cannot be used.
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_regular(path, MAX_FILE_SIZE)?;
    if bytes.contains(&0) {
        return Err("is a binary file, not a spec".into());
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    if text.trim().is_empty() {
        return Err("file is empty".into());
    }
    Ok(text)
}

/// Reads a regular file of at most `max` bytes. Anything else — a directory, a device such as `/dev/zero`, a
/// FIFO, a socket, directly or through a symbolic link — is refused before it is opened, so reading can
/// neither block nor grow without bound; and the read itself stops after `max` bytes, in case the file grew.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| io_message(&e))?;
    if meta.is_dir() {
        return Err("is a directory".into());
    }
    if !meta.is_file() {
        return Err("is not a regular file (a device, a FIFO or a socket)".into());
    }
    let too_large = || format!("file is larger than {} MiB", max / 1024 / 1024);
    if meta.len() > max {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(|e| io_message(&e))?;
    // Sized for the file as it was when asked (one byte more shows that it grew): a large spec is read in one
    // piece rather than in a buffer doubled and copied a dozen times.
    let mut bytes = Vec::with_capacity((meta.len() as usize).saturating_add(1));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_message(&e))?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// An absolute path without touching the file system (no symlink resolution: roots are compared lexically).
pub fn absolute(p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    normalize(&joined)
}

/// Removes `.` and resolves `..` lexically.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
    }

    #[test]
    fn only_regular_files_are_read_and_never_past_the_limit() {
        // A device never ends: it is refused before it is opened.
        let err = read_regular(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let dir = std::env::temp_dir().join(format!("fsmc-loader-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.fsm");
        std::fs::write(&big, vec![b'x'; 2048]).unwrap();
        assert!(
            read_regular(&big, 1024)
                .unwrap_err()
                .contains("larger than")
        );
        assert_eq!(read_regular(&big, 4096).unwrap().len(), 2048);
        assert_eq!(read_regular(&dir, 4096).unwrap_err(), "is a directory");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_imported_file_that_is_not_utf8_says_how_to_fix_it() {
        let dir = std::env::temp_dir().join(format!("fsmc-loader-latin1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("latin1.fsm"), b"// caf\xe9\nmachine M { }\n").unwrap();
        let loaded = load_str(
            "main.fsm",
            "import \"latin1.fsm\";",
            &dir,
            &LoadOptions::default(),
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let d = &loaded.diagnostics[0];
        assert_eq!(d.code, Code::Io);
        assert_eq!(
            d.help.as_deref(),
            Some("specs are UTF-8 text: re-save the file as UTF-8")
        );
    }

    #[test]
    fn an_overlay_stands_in_for_the_disk() {
        let dir = std::env::temp_dir().join(format!("fsmc-loader-overlay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("main.fsm"), "import \"a.fsm\";").unwrap();
        std::fs::write(dir.join("a.fsm"), "machine OnDisk {}").unwrap();
        let mut overlay = Overlay::default();
        // An edited buffer of a file on disk, and one that exists only in memory.
        overlay.insert(
            &dir.join("main.fsm"),
            "import \"a.fsm\"; import \"b.fsm\";".into(),
        );
        overlay.insert(&dir.join("./a.fsm"), "machine InMemory {}".into());
        overlay.insert(&dir.join("b.fsm"), String::new());
        let loaded =
            load_overlaid(&dir.join("main.fsm"), &LoadOptions::default(), &overlay).unwrap();
        let texts: Vec<&str> = loaded
            .sources
            .files()
            .map(|(_, f)| f.text.as_str())
            .collect();
        assert_eq!(
            texts,
            [
                "import \"a.fsm\"; import \"b.fsm\";",
                "machine InMemory {}",
                ""
            ]
        );
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert_eq!(overlay.get(&dir.join("a.fsm")), Some("machine InMemory {}"));
        // Without the overlay, the disk.
        let loaded = load(&dir.join("main.fsm"), &LoadOptions::default()).unwrap();
        assert_eq!(loaded.sources.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // Reads YAML: the `yaml` feature, which `cargo test --workspace` turns on through the tool.
    #[cfg(feature = "yaml")]
    #[test]
    fn a_yaml_spec_read_with_skipped_entries_is_lossy() {
        let yaml = "alphabet_in: [DONE]\ndefault_start_state: ARound\nfinal_states: [BRound]\nlabel: XAbciApp\n\
                    start_states: [ARound]\nstates: [ARound, BRound]\ntransition_func:\n  ARound, DONE: BRound\n";
        let loaded = load_str(
            "x_fsm_specification.yaml",
            yaml,
            Path::new("."),
            &LoadOptions::default(),
        );
        assert!(loaded.units[0].lossy);
        let clean = yaml.replace("ARound, DONE", "(ARound, DONE)");
        let loaded = load_str(
            "x_fsm_specification.yaml",
            &clean,
            Path::new("."),
            &LoadOptions::default(),
        );
        assert!(!loaded.units[0].lossy);
    }
}
