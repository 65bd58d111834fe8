//! The `fsmc` command line. `run` takes the arguments and two writers and returns the exit code, so tests
//! call it in-process: 0 clean, 1 spec errors, 2 usage or IO errors.

use crate::diag::{Code, Diagnostic, Level, LintLevels, render};
use crate::driver::{self, Compilation, Options};
use crate::loader::LoadOptions;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

mod export;
mod generate;

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
    /// Generate Rust from a spec (what `include_fsm!` expands to), formatted, with an `@generated` header.
    Gen(generate::GenArgs),
    /// Write a machine or composed app in another format (`oa-yaml`: Open Autonomy's canonical form).
    Export(export::ExportArgs),
    /// Draw a machine or composed app (`dot`, `mermaid`, `svg`, `html`).
    Graph(export::GraphArgs),
    /// Translate an Open Autonomy `fsm_specification.yaml` into `.fsm` source.
    Import(export::ImportArgs),
    /// Explain a diagnostic code, or list them all.
    Explain {
        /// A code (`E0104`) or lint name (`unused_key`); omit to list every code.
        code: Option<String>,
    },
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Spec files or directories (default: the current directory).
    paths: Vec<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    common: Common,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
}

/// The options every command that compiles a spec shares (the diagnostics' format is per command: `check`
/// calls it `--format`, the commands whose `--format` names their output call it `--message-format`).
#[derive(Args, Debug, Clone)]
pub(crate) struct Common {
    /// Colour: `auto` colours only a terminal and respects NO_COLOR.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
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
    match cli.command {
        Command::Check(args) => check(args, out, err, stdout_is_tty),
        Command::Gen(args) => generate::run(args, out, err, stdout_is_tty),
        Command::Export(args) => export::export(args, out, err, stdout_is_tty),
        Command::Graph(args) => export::graph(args, out, err, stdout_is_tty),
        Command::Import(args) => export::import(args, out, err, stdout_is_tty),
        Command::Explain { code } => explain(code.as_deref(), out, err),
    }
}

pub(crate) fn usage_error(err: &mut dyn Write, message: &str) -> i32 {
    let _ = writeln!(err, "error: {message}");
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
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    pub(crate) fn render(&self, c: &Compilation, format: Format, tty: bool) -> String {
        match format {
            Format::Human => render::human(&c.sources, &c.diagnostics, self.color(tty)),
            Format::Json => render::json(&c.sources, &c.diagnostics),
            Format::Github => render::github(&c.sources, &c.diagnostics),
        }
    }
}

/// Every spec under `path`, sorted; a directory holding a `.fsmcignore` file is skipped (it holds specs that
/// are meant to fail, such as `specs/invalid/`), unless it is named on the command line.
pub fn collect_specs(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
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
                collect_specs(&p, out)?;
            }
        } else if is_spec_name(name) {
            out.push(p);
        }
    }
    Ok(())
}

fn is_spec_name(name: &str) -> bool {
    name.ends_with(".fsm")
        || name.ends_with("fsm_specification.yaml")
        || name.ends_with("fsm_composition_specification.yaml")
}

fn check(args: CheckArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let mut opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if args.deny_warnings {
        for code in Code::ALL.iter().filter(|c| c.is_lint()) {
            if opts.lints.level(*code) == Some(Level::Warn) {
                opts.lints.set(*code, Level::Deny);
            }
        }
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    let mut files = Vec::new();
    for p in &paths {
        if p.is_dir() {
            let before = files.len();
            if let Err(e) = collect_specs(p, &mut files) {
                return usage_error(
                    err,
                    &format!("cannot read directory `{}`: {e}", p.display()),
                );
            }
            if files.len() == before {
                return usage_error(
                    err,
                    &format!(
                        "no specs (`*.fsm`, `*fsm_specification.yaml`) found in `{}`",
                        p.display()
                    ),
                );
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut status = 0;
    let mut all: Vec<Diagnostic> = Vec::new();
    let mut printed = std::collections::BTreeSet::new();
    for f in &files {
        let compilation = match driver::compile(f, &opts) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(err, "error[{}]: {}: {}", Code::Io.id(), e.path, e.message);
                status = 2;
                continue;
            }
        };
        // A file imported by several specs is checked with each; report each finding once.
        let fresh: Vec<Diagnostic> = compilation
            .diagnostics
            .iter()
            .filter(|d| {
                let file = d
                    .primary
                    .as_ref()
                    .and_then(|p| compilation.sources.get(p.span.file))
                    .map(|f| f.name.clone());
                printed.insert((
                    file,
                    d.primary.as_ref().map(|p| (p.span.start, p.span.end)),
                    d.code,
                    d.message.clone(),
                ))
            })
            .cloned()
            .collect();
        let shown = Compilation {
            diagnostics: fresh.clone(),
            ..compilation
        };
        let _ = out.write_all(args.common.render(&shown, args.format, tty).as_bytes());
        all.extend(fresh);
    }
    if all.iter().any(Diagnostic::is_error) && status == 0 {
        status = 1;
    }
    if args.format == Format::Human {
        let verdict = if all.is_empty() {
            "ok".to_string()
        } else {
            render::summary(&all)
        };
        let _ = writeln!(
            err,
            "fsmc: checked {} spec{}: {verdict}",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
    }
    status
}

fn explain(code: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match code {
        None => {
            for c in Code::ALL {
                let level = match c.default_level() {
                    None => "error",
                    Some(Level::Deny) => "lint, deny",
                    Some(Level::Warn) => "lint, warn",
                    Some(Level::Allow) => "lint, allow",
                };
                let _ = writeln!(
                    out,
                    "{}  {:<32} {:<12} {}",
                    c.id(),
                    c.name(),
                    level,
                    c.summary()
                );
            }
            0
        }
        Some(name) => match Code::lookup(name) {
            Some(c) => {
                let _ = writeln!(out, "{} ({}): {}", c.id(), c.name(), c.summary());
                match c.default_level() {
                    None => {
                        let _ = writeln!(out, "An error: it cannot be allowed.");
                    }
                    Some(l) => {
                        let _ = writeln!(
                            out,
                            "A lint, {l:?} by default: change it with `#![allow({})]` in a spec or `-A {}`.",
                            c.name(),
                            c.id()
                        );
                    }
                }
                0
            }
            None => usage_error(err, &format!("unknown code `{name}`")),
        },
    }
}
