//! The `fsmc` command line. `run` takes the arguments and two writers and returns the exit code, so tests
//! call it in-process: 0 clean, 1 spec errors, 2 usage or IO errors.

use clap::{Args, Parser, Subcommand, ValueEnum};
use fsmc_base::diag::{Code, Diagnostic, Level, LintLevels, render};
use fsmc_driver::loader::LoadOptions;
use fsmc_driver::{Compilation, Options};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

mod coverage;
mod diff;
mod explain;
mod export;
mod fmt;
mod generate;
mod new;
mod verify;
mod write;

#[derive(Parser, Debug)]
#[command(
    name = "fsmc",
    version,
    about = "Check finite-state-machine specs and generate Rust from them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check specs: every file given, and every `*.fsm` and `*fsm_specification.yaml` under the directories given.
    Check(CheckArgs),
    /// Compare two specs (or a spec with its version at a git revision): every change, classified by what it
    /// breaks — consensus, replay, code, interop, cosmetic. Exit 1 when a change of a class not allowed is found.
    Diff(diff::DiffArgs),
    /// Generate Rust from a spec (what `include_fsm!` expands to), formatted, with an `@generated` header.
    Gen(generate::GenArgs),
    /// Write a machine or composed app in another format (`oa-yaml`: Open Autonomy's canonical form).
    Export(export::ExportArgs),
    /// Draw a machine or composed app (`dot`, `mermaid`, `svg`, `html`).
    Graph(export::GraphArgs),
    /// Translate an Open Autonomy `fsm_specification.yaml` into `.fsm` source.
    Import(export::ImportArgs),
    /// Format `.fsm` files in the canonical layout (`--check`: only report, with a diff, what would change).
    Fmt(fmt::FmtArgs),
    /// Create a crate for a new machine (`--plain`, the default) or Open Autonomy app (`--app`): the spec, its
    /// behaviour and a simulation test, ready for `cargo test`.
    New(new::NewArgs),
    /// Prove an app never hangs, or show the blocks that make it hang: explore it against every block
    /// schedule an adversary with at most `--faults` faulty agents can choose.
    Verify(verify::VerifyArgs),
    /// Run the language server on standard input and output (for editors).
    Lsp,
    /// Report spec coverage: merge the snapshots of runs with the runtime's `coverage` feature, map each
    /// transition to its spec line, print a summary and optionally write LCOV.
    Coverage(coverage::CoverageArgs),
    /// Explain a diagnostic code, with a failing example and its fix, or list them all.
    Explain {
        /// A code (`E0104`) or its name (`unknown_state`), in any case; omit to list every code.
        code: Option<String>,
    },
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Spec files or directories (default: the current directory).
    paths: Vec<PathBuf>,
    /// The old name of `--message-format`, refused with a pointer to the new one.
    #[arg(long = "format", hide = true, value_name = "FORMAT")]
    old_format: Option<String>,
    #[command(flatten)]
    common: Common,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
}

/// The options every command that compiles a spec shares. The diagnostics' format is `--message-format`
/// everywhere (as in cargo): `--format` names what `export` and `graph` write.
#[derive(Args, Debug, Clone)]
pub(crate) struct Common {
    #[command(flatten)]
    pub(crate) output: Output,
    /// A directory searched for imports (repeatable).
    #[arg(short = 'I', long = "search-path", value_name = "DIR")]
    search_paths: Vec<PathBuf>,
    /// Allow a lint (code or name; repeatable).
    #[arg(short = 'A', long = "allow", value_name = "LINT")]
    allow: Vec<String>,
    /// Warn on a lint (repeatable).
    #[arg(short = 'W', long = "warn", value_name = "LINT")]
    warn: Vec<String>,
    /// Make a lint an error (repeatable).
    #[arg(short = 'D', long = "deny", value_name = "LINT")]
    deny: Vec<String>,
}

/// How reports are printed: every command that reports on specs (`diff` too) takes these.
#[derive(Args, Debug, Clone)]
pub(crate) struct Output {
    /// How to print diagnostics: `human`, `json` (one object per line) or `github` (workflow annotations).
    #[arg(long = "message-format", value_enum, default_value_t = Format::Human)]
    pub(crate) message_format: Format,
    /// Colour: `auto` colours only a terminal and respects NO_COLOR.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

impl Output {
    pub(crate) fn color(&self, tty: bool) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Human,
    Json,
    Github,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Runs the command line. `stdout_is_tty` decides colour under `--color auto`.
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stdout_is_tty: bool,
) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            let _ = if e.use_stderr() {
                err.write_all(text.as_bytes())
            } else {
                out.write_all(text.as_bytes())
            };
            return code;
        }
    };
    let mut tracked = Tracked {
        inner: out,
        error: None,
    };
    let out = &mut tracked;
    let code = match cli.command {
        Command::Check(args) => check(args, out, err, stdout_is_tty),
        Command::Diff(args) => diff::run(args, out, err, stdout_is_tty),
        Command::Gen(args) => generate::run(args, out, err, stdout_is_tty),
        Command::Export(args) => export::export(args, out, err, stdout_is_tty),
        Command::Graph(args) => export::graph(args, out, err, stdout_is_tty),
        Command::Import(args) => export::import(args, out, err, stdout_is_tty),
        Command::Fmt(args) => fmt::run(args, out, err, stdout_is_tty),
        Command::New(args) => new::run(args, out, err),
        Command::Verify(args) => verify::run(args, out, err, stdout_is_tty),
        Command::Coverage(args) => coverage::run(args, out, err, stdout_is_tty),
        Command::Lsp => crate::lsp::run_stdio(err),
        Command::Explain { code } => explain::run(code.as_deref(), out, err),
    };
    // Output that could not be written (a full disk, a closed pipe) is a failure, whatever the command found.
    let flushed = out.flush();
    match (tracked.error.take(), flushed) {
        (Some(e), _) | (None, Err(e)) => {
            let _ = writeln!(err, "error: cannot write the output: {e}");
            2
        }
        (None, Ok(())) => code,
    }
}

/// Standard output that remembers its first write error: commands write with `let _ =`, and the error decides
/// the exit code once they are done.
struct Tracked<'a> {
    inner: &'a mut dyn Write,
    error: Option<std::io::Error>,
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.inner.write(buf) {
            Ok(n) => Ok(n),
            Err(e) => {
                let kind = e.kind();
                self.error.get_or_insert(e);
                Err(kind.into())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

pub(crate) fn usage_error(err: &mut dyn Write, message: &str) -> i32 {
    // Messages quote what the user typed (paths, lint names): nothing from there reaches the terminal raw.
    let _ = writeln!(err, "error: {}", render::inert(message));
    2
}

impl Common {
    pub(crate) fn options(&self, err: &mut dyn Write) -> Result<Options, i32> {
        let mut lints = LintLevels::default();
        for (names, level) in [
            (&self.allow, Level::Allow),
            (&self.warn, Level::Warn),
            (&self.deny, Level::Deny),
        ] {
            for name in names {
                match Code::lookup(name) {
                    Some(code) if code.is_lint() => lints.set(code, level),
                    Some(code) => {
                        return Err(usage_error(
                            err,
                            &format!("{} ({}) is an error, not a lint", code.id(), code.name()),
                        ));
                    }
                    None => {
                        return Err(usage_error(
                            err,
                            &format!("unknown lint `{name}` (see `fsmc explain`)"),
                        ));
                    }
                }
            }
        }
        for p in &self.search_paths {
            if !p.is_dir() {
                return Err(usage_error(
                    err,
                    &format!("search path `{}` is not a directory", p.display()),
                ));
            }
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        let load = LoadOptions {
            search_paths: self.search_paths.clone(),
            roots: Vec::new(),
            display_base: Some(cwd.clone()),
        };
        Ok(Options { load, lints })
    }

    pub(crate) fn color(&self, tty: bool) -> bool {
        self.output.color(tty)
    }

    pub(crate) fn render(&self, c: &Compilation, format: Format, tty: bool) -> String {
        match format {
            Format::Human => render::human(&c.sources, &c.diagnostics, self.color(tty)),
            Format::Json => render::json(&c.sources, &c.diagnostics),
            Format::Github => render::github(&c.sources, &c.diagnostics),
        }
    }
}

pub use fsmc_driver::loader::collect_specs;

fn check(args: CheckArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    if let Some(f) = &args.old_format {
        return usage_error(
            err,
            &format!(
                "`--format` names what `export` and `graph` write; for diagnostics use `--message-format {f}`"
            ),
        );
    }
    let mut opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if args.deny_warnings {
        for code in Code::ALL.iter().filter(|c| c.is_lint()) {
            // Plain machines' levels: there an unused event is a warning that `-D warnings` denies too.
            if opts.lints.level_in(*code, true) == Some(Level::Warn) {
                opts.lints.set(*code, Level::Deny);
            }
        }
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    let files = match spec_files(&paths) {
        Ok(files) => files,
        Err(message) => return usage_error(err, &message),
    };
    // Every file is checked in one compilation, so a file that several others import is read and checked
    // once: the work stays linear in the files. The directories given (and the directories of the files given)
    // are where imports may resolve, unless search paths widen that.
    if opts.load.roots.is_empty() {
        opts.load.roots = paths.iter().map(|p| root_of(p)).collect();
    }
    let (mut compilation, unreadable_files) = fsmc_driver::compile_all(&files, &opts);
    let mut status = 0;
    for (f, e) in &unreadable_files {
        report_unreadable(f, &e.message, args.common.output.message_format, out, err);
        status = 2;
    }
    let _ = out.write_all(
        args.common
            .render(&compilation, args.common.output.message_format, tty)
            .as_bytes(),
    );
    let all = std::mem::take(&mut compilation.diagnostics);
    let counted = Counted::of(&compilation);
    // The command ends here: taking a large spec's trees and model apart, allocation by allocation, would only
    // delay the exit (a tenth of a 100,000-state check), and the process's end returns the memory at once.
    std::mem::forget(compilation);
    if all.iter().any(Diagnostic::is_error) && status == 0 {
        status = 1;
    }
    if args.common.output.message_format == Format::Human {
        let _ = writeln!(
            err,
            "{}",
            summary_line(&counted, &all, unreadable_files.len())
        );
    }
    status
}

/// The spec files `paths` name: a file as given, a directory's specs (`*.fsm`, `*fsm_specification.yaml`).
/// A directory that cannot be read or holds no spec is a usage error.
fn spec_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = files.len();
            collect_specs(p, &mut files)
                .map_err(|e| format!("cannot read directory `{}`: {e}", p.display()))?;
            if files.len() == before {
                return Err(format!(
                    "no specs (`*.fsm`, `*fsm_specification.yaml`) found in `{}`",
                    p.display()
                ));
            }
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Where imports of the specs a path names may resolve: the directory, or a file's directory.
fn root_of(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.to_path_buf()
    } else {
        fsmc_driver::loader::absolute(p)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }
}

/// A file that could not be read, named as the user wrote it (or as the directory walk found it), not as the
/// loader resolved it.
fn report_unreadable(
    f: &Path,
    message: &str,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) {
    let io = Diagnostic::new(Code::Io, format!("{}: {message}", f.display()));
    match format {
        Format::Human => {
            let _ = writeln!(
                err,
                "error[{}]: {}",
                Code::Io.id(),
                render::inert(&io.message)
            );
        }
        Format::Json => {
            let _ = out.write_all(render::json(&Default::default(), &[io]).as_bytes());
        }
        Format::Github => {
            let _ = out.write_all(render::github(&Default::default(), &[io]).as_bytes());
        }
    }
}

/// What a check covered: the files read (those given and those they import), and the machines and apps they
/// define. Counted from the model, so a file that imports another counts both, each once.
struct Counted {
    files: usize,
    machines: usize,
    apps: usize,
}

impl Counted {
    fn of(c: &fsmc_driver::Compilation) -> Counted {
        let spec = c.checked.as_ref().map(|k| k.spec()).or(c.spec.as_ref());
        Counted {
            files: c.files_read.len(),
            machines: spec.map_or(0, |s| s.machines.len()),
            apps: spec.map_or(0, |s| s.apps.len()),
        }
    }
}

/// `1 file`, `3 machines`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `fsmc: checked 3 files, 5 machines, 1 app: 2 errors; 1 could not be read`.
fn summary_line(counted: &Counted, all: &[Diagnostic], unreadable: usize) -> String {
    let checked = counted.files;
    let mut line = format!(
        "fsmc: checked {}, {}",
        count(checked, "file"),
        count(counted.machines, "machine")
    );
    if counted.apps > 0 {
        line.push_str(&format!(", {}", count(counted.apps, "app")));
    }
    if checked > 0 {
        line.push_str(": ");
        line.push_str(&if all.is_empty() {
            "ok".to_string()
        } else {
            render::summary(all)
        });
    }
    if unreadable > 0 {
        line.push_str(&format!("; {unreadable} could not be read"));
    }
    line
}
