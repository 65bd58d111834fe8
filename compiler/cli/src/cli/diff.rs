//! `fsmc diff OLD [NEW]`: two specs compared as the compiler understands them, each change classified by what it
//! breaks (`fsmc_diff`), printed as `fsmc check` prints diagnostics, with an exit status that gates CI: 0 when
//! every change is cosmetic or of a class `--allow` names, 1 otherwise, 2 when the specs cannot be compared.
//!
//! Either side may be read from a git revision (`--git REV`, `--git REV..REV2`): the files under the spec's
//! directory (and the search paths) as of that revision stand in for the disk, so its imports and templates are
//! that revision's too. Lints are allowed on both sides: they judge style, not what a spec means.

use super::{Format, Output, usage_error};
use clap::Args;
use fsmc_base::diag::render::{self, Entry};
use fsmc_base::diag::{Code, Label, Level, LintLevels, Severity};
use fsmc_base::source::{FileId, SourceMap, Span};
use fsmc_diff::{Class, Finding};
use fsmc_driver::loader::{LoadOptions, MAX_FILE_SIZE, Overlay, absolute, normalize};
use fsmc_driver::{Compilation, Options};
use fsmc_model::spec::{Checked, Item};
use fsmc_vocab::Profile;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old spec (`.fsm` or Open Autonomy YAML).
    old: PathBuf,
    /// The new spec (default: OLD's path, in the working tree, or as of `--git`'s second revision).
    new: Option<PathBuf>,
    /// Read OLD as of git revision REV; `REV..REV2` reads NEW as of REV2 as well.
    #[arg(long, value_name = "REV")]
    git: Option<String>,
    /// Let changes of a class pass (`consensus-breaking`, `replay-breaking`, `code-breaking`, `interop`;
    /// repeatable): they are reported as warnings. Cosmetic changes always pass.
    #[arg(long = "allow", value_name = "CLASS")]
    allow: Vec<String>,
    #[command(flatten)]
    output: Output,
    /// A directory searched for imports (repeatable).
    #[arg(short = 'I', long = "search-path", value_name = "DIR")]
    search_paths: Vec<PathBuf>,
}

/// Where one side's spec is read from.
enum Source {
    File(PathBuf),
    Git { rev: String, path: PathBuf },
}

pub(crate) fn run(args: DiffArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let mut allowed = vec![Class::Cosmetic];
    for name in &args.allow {
        match Class::parse(name) {
            Some(c) => allowed.push(c),
            None => {
                return usage_error(
                    err,
                    &format!(
                        "unknown class `{name}`: one of {}",
                        Class::ALL
                            .iter()
                            .map(|c| c.id())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
    }
    let (old, new) = match sources(&args) {
        Ok(s) => s,
        Err(message) => return usage_error(err, &message),
    };
    let mut sides = Vec::new();
    for source in [&old, &new] {
        match compile(source, &args.search_paths) {
            Ok(c) => sides.push(c),
            Err(message) => return usage_error(err, &message),
        }
    }
    for c in &sides {
        if c.checked.is_none() {
            let _ = out.write_all(diagnostics(c, &args.output, tty).as_bytes());
            let name = c.sources.get(FileId(0)).map_or("?", |f| f.name.as_str());
            return usage_error(
                err,
                &format!("cannot compare: `{name}` has errors (`fsmc check` shows them)"),
            );
        }
    }
    let (Some(a), Some(b)) = (&sides[0].checked, &sides[1].checked) else {
        return 2;
    };
    let findings = fsmc_diff::diff(a, b);
    let (map, offset) = merged(&sides[0].sources, &sides[1].sources);
    let failing = |f: &Finding| !allowed.contains(&f.class);
    let text = report(&findings, &map, offset, &failing, &args.output, tty);
    let _ = out.write_all(text.as_bytes());
    if args.output.message_format == Format::Human {
        let _ = err.write_all(summary(&findings, a, b).as_bytes());
    }
    i32::from(findings.iter().any(failing))
}

/// The two sides: files as given, or revisions of them.
fn sources(args: &DiffArgs) -> Result<(Source, Source), String> {
    let new_path = args.new.clone().unwrap_or_else(|| args.old.clone());
    match &args.git {
        None if args.new.is_none() => Err(
            "give the new spec too, or `--git REV` to compare the spec with its version at REV"
                .into(),
        ),
        None => Ok((Source::File(args.old.clone()), Source::File(new_path))),
        Some(revs) => {
            let (a, b) = match revs.split_once("..") {
                Some((a, b)) => (a.to_string(), Some(b.to_string())),
                None => (revs.clone(), None),
            };
            if a.is_empty() || b.as_ref().is_some_and(String::is_empty) {
                return Err(format!(
                    "`--git {revs}`: name a revision, or two as `REV..REV2`"
                ));
            }
            let old = Source::Git {
                rev: a,
                path: args.old.clone(),
            };
            let new = match b {
                Some(rev) => Source::Git {
                    rev,
                    path: new_path,
                },
                None => Source::File(new_path),
            };
            Ok((old, new))
        }
    }
}

/// Every lint allowed: a diff compares what specs mean.
fn options(search_paths: Vec<PathBuf>, roots: Vec<PathBuf>) -> Options {
    let mut lints = LintLevels::default();
    for code in Code::ALL.iter().filter(|c| c.is_lint()) {
        lints.set(*code, Level::Allow);
    }
    Options {
        load: LoadOptions {
            search_paths,
            roots,
            display_base: Some(std::env::current_dir().unwrap_or_default()),
        },
        lints,
    }
}

fn compile(source: &Source, search_paths: &[PathBuf]) -> Result<Compilation, String> {
    for p in search_paths {
        if !p.is_dir() {
            return Err(format!("search path `{}` is not a directory", p.display()));
        }
    }
    match source {
        Source::File(path) => {
            fsmc_driver::compile(path, &options(search_paths.to_vec(), Vec::new()))
                .map_err(|e| format!("{}: {}", e.path, e.message))
        }
        Source::Git { rev, path } => {
            let tree = Tree::read(rev, path, search_paths)?;
            let opts = options(tree.search_paths.clone(), tree.roots.clone());
            fsmc_driver::compile_overlaid(&tree.entry, &opts, &tree.overlay)
                .map_err(|e| format!("{}: {}", e.path, e.message))
        }
    }
}

/// A spec's files as of a revision, held in memory under a directory that does not exist (`REV:` beside the
/// current directory, so they show as `REV:/path/from/the/top`).
struct Tree {
    entry: PathBuf,
    roots: Vec<PathBuf>,
    search_paths: Vec<PathBuf>,
    overlay: Overlay,
}

impl Tree {
    fn read(rev: &str, path: &Path, search_paths: &[PathBuf]) -> Result<Tree, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
        // The repository is the one the spec is in (its nearest directory that exists: the spec itself may be
        // gone from the working tree).
        let abs = normalize(&absolute(path));
        let near = abs.ancestors().skip(1).find(|d| d.is_dir()).unwrap_or(&cwd);
        // One git process finds the repository's top and checks the revision: it prints the top even when the
        // revision does not resolve, and nothing when there is no repository.
        let found = git_output(
            near,
            &[
                "rev-parse",
                "--show-toplevel",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
        )?;
        let stdout = text(found.stdout);
        let top = match (stdout.lines().next(), found.status.success()) {
            (Some(top), true) => PathBuf::from(top),
            (Some(top), false) => {
                return Err(format!(
                    "`{rev}` is not a revision of the repository at `{top}`"
                ));
            }
            (None, _) => {
                return Err(format!(
                    "git rev-parse: {}",
                    String::from_utf8_lossy(&found.stderr).trim()
                ));
            }
        };
        // A path as the repository names it: relative to its top.
        let in_repo = |p: &Path| -> Result<PathBuf, String> {
            let abs = normalize(&absolute(p));
            let top_real = std::fs::canonicalize(&top).unwrap_or_else(|_| top.clone());
            abs.strip_prefix(&top)
                .or_else(|_| abs.strip_prefix(&top_real))
                .map(Path::to_path_buf)
                .map_err(|_| {
                    format!(
                        "`{}` is not inside the repository at `{}`",
                        p.display(),
                        top.display()
                    )
                })
        };
        let virtual_root = cwd.join(format!("{rev}:"));
        let entry = in_repo(path)?;
        let dir = entry.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut dirs = vec![dir.clone()];
        for p in search_paths {
            dirs.push(in_repo(p)?);
        }
        let mut overlay = Overlay::default();
        for (name, text) in blobs(&top, rev, &dirs)? {
            overlay.insert(&virtual_root.join(name), text);
        }
        let entry_virtual = virtual_root.join(&entry);
        if overlay.get(&entry_virtual).is_none() {
            return Err(format!("`{}` does not exist in `{rev}`", entry.display()));
        }
        Ok(Tree {
            entry: entry_virtual,
            roots: vec![virtual_root.join(&dir)],
            search_paths: dirs[1..].iter().map(|d| virtual_root.join(d)).collect(),
            overlay,
        })
    }
}

fn git_output(dir: &Path, args: &[&str]) -> Result<std::process::Output, String> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = git_output(dir, args)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The text files under `dirs` (relative to the repository's top) as of `rev`, by path from the top. Files the
/// loader would refuse (too large, not UTF-8) are left out, so they read as missing.
fn blobs(top: &Path, rev: &str, dirs: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, String> {
    let mut args = vec!["ls-tree", "-r", "-l", "-z", rev, "--"];
    let specs: Vec<String> = dirs
        .iter()
        .map(|d| {
            let d = d.to_string_lossy().replace('\\', "/");
            if d.is_empty() { ".".to_string() } else { d }
        })
        .collect();
    args.extend(specs.iter().map(String::as_str));
    let listing = git(top, &args)?;
    let mut wanted = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, name)) = record.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = meta.split_whitespace().collect();
        if let [_, "blob", object, size] = fields.as_slice()
            && size.parse::<u64>().is_ok_and(|s| s <= MAX_FILE_SIZE)
        {
            wanted.push((name.to_string(), object.to_string()));
        }
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let request: String = wanted.iter().map(|(_, o)| format!("{o}\n")).collect();
    // The request is written from another thread: git answers as it reads, and a large answer would otherwise
    // fill the pipe while this thread is still writing.
    let mut stdin = child.stdin.take().ok_or("cannot write to git")?;
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("git cat-file: {e}"))?;
    let _ = writer.join();
    let mut rest: &[u8] = &output.stdout;
    let mut out = Vec::new();
    for (name, _) in wanted {
        let header_end = rest
            .iter()
            .position(|b| *b == b'\n')
            .ok_or("git cat-file: short answer")?;
        let header = String::from_utf8_lossy(&rest[..header_end]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("git cat-file: unexpected answer `{header}`"))?;
        let body = rest
            .get(header_end + 1..header_end + 1 + size)
            .ok_or("git cat-file: short answer")?;
        if let Ok(text) = std::str::from_utf8(body) {
            out.push((PathBuf::from(name), text.to_string()));
        }
        rest = rest.get(header_end + 2 + size..).unwrap_or(&[]);
    }
    Ok(out)
}

/// One side's diagnostics, rendered as `fsmc check` would.
fn diagnostics(c: &Compilation, output: &Output, tty: bool) -> String {
    match output.message_format {
        Format::Human => render::human(&c.sources, &c.diagnostics, output.color(tty)),
        Format::Json => render::json(&c.sources, &c.diagnostics),
        Format::Github => render::github(&c.sources, &c.diagnostics),
    }
}

/// The old side's files, then the new side's: a new file's id is its own plus the offset returned.
fn merged(old: &SourceMap, new: &SourceMap) -> (SourceMap, u32) {
    let mut map = SourceMap::new();
    for (_, f) in old.files() {
        map.add(f.name.clone(), f.text.clone());
    }
    let offset = u32::try_from(old.files().count()).unwrap_or(u32::MAX);
    for (_, f) in new.files() {
        map.add(f.name.clone(), f.text.clone());
    }
    (map, offset)
}

/// The findings as `fsmc check` prints diagnostics: each with its class in brackets, an error if it fails the
/// diff and a warning if it passes, pointing first at the new spec and then at the old one.
fn report(
    findings: &[Finding],
    map: &SourceMap,
    offset: u32,
    failing: &dyn Fn(&Finding) -> bool,
    output: &Output,
    tty: bool,
) -> String {
    let shift = |s: Span| Span {
        file: FileId(s.file.0.saturating_add(offset)),
        ..s
    };
    let items: std::collections::BTreeSet<&str> =
        findings.iter().map(|f| f.item.as_str()).collect();
    let labels: Vec<(String, Option<Label>, Vec<Label>)> = findings
        .iter()
        .map(|f| {
            let message = if items.len() > 1 {
                format!("`{}`: {}", f.item, f.message)
            } else {
                f.message.clone()
            };
            let new = f.new.as_ref().map(|n| Label {
                span: shift(n.span),
                message: n.label.clone(),
            });
            let old = f.old.as_ref().map(|n| Label {
                span: n.span,
                message: n.label.clone(),
            });
            match new {
                Some(new) => (message, Some(new), old.into_iter().collect()),
                None => (message, old, Vec::new()),
            }
        })
        .collect();
    let entries: Vec<Entry<'_>> = findings
        .iter()
        .zip(&labels)
        .map(|(f, (message, primary, secondary))| Entry {
            severity: if failing(f) {
                Severity::Error
            } else {
                Severity::Warning
            },
            id: f.class.id(),
            name: f.rule.name(),
            message,
            primary: primary.as_ref(),
            secondary,
            help: None,
            notes: &f.notes,
        })
        .collect();
    match output.message_format {
        Format::Human => render::human_entries(map, &entries, output.color(tty)),
        Format::Json => render::json_entries(map, &entries),
        Format::Github => render::github_entries(map, &entries),
    }
}

/// `fsmc: 3 changes (…): consensus-breaking`, then each `abci` item's fingerprint, old and new.
fn summary(findings: &[Finding], old: &Checked, new: &Checked) -> String {
    let mut s = String::from("fsmc: ");
    match fsmc_diff::verdict(findings) {
        None => s.push_str("no change in what the specs mean"),
        Some(verdict) => {
            let counts: Vec<String> = Class::ALL
                .iter()
                .rev()
                .filter_map(|c| {
                    let n = findings.iter().filter(|f| f.class == *c).count();
                    (n > 0).then(|| format!("{n} {c}"))
                })
                .collect();
            let n = findings.len();
            s.push_str(&format!(
                "{n} change{} ({}): {verdict}",
                if n == 1 { "" } else { "s" },
                counts.join(", ")
            ));
        }
    }
    s.push('\n');
    let (a, b) = (fingerprints(old), fingerprints(new));
    for (name, fb) in &b {
        let line = match a.iter().find(|(n, _)| n == name) {
            Some((_, fa)) if fa == fb => {
                format!("fingerprint of `{name}`: {} (unchanged)", fb.short(8))
            }
            Some((_, fa)) => format!("fingerprint of `{name}`: {} → {}", fa.short(8), fb.short(8)),
            None => format!("fingerprint of `{name}`: {}", fb.short(8)),
        };
        s.push_str(&format!("fsmc: {}\n", render::inert(&line)));
    }
    s
}

/// The fingerprint of each `abci` entry item, by name.
fn fingerprints(c: &Checked) -> Vec<(String, fsmc_model::fingerprint::Fingerprint)> {
    let spec = c.spec();
    spec.entry_items
        .iter()
        .map(|item| match *item {
            Item::Machine(id) => (spec.machine(id).name.text.to_string(), spec.machine(id)),
            Item::App(a) => (spec.apps[a].name.text.to_string(), &c.composed()[a].machine),
        })
        .filter(|(_, m)| m.profile == Profile::Abci)
        .map(|(name, m)| (name, fsmc_model::fingerprint::fingerprint(m)))
        .collect()
}
