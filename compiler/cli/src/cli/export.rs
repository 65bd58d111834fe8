//! `fsmc export`, `fsmc graph` and `fsmc import`: compile a spec, pick one machine or app, write it in
//! another format to standard output (or `-o FILE`, written only when everything succeeded).
//!
//! `--format` names the output format here, so diagnostics (printed to standard error) take their format
//! from `--message-format` instead.

use super::{Common, usage_error};
use crate::export::{self, Target};
use clap::{Args, ValueEnum};
use fsmc_base::diag::Code;
use fsmc_driver::Compilation;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What every one of these commands accepts besides its format.
#[derive(Args, Debug)]
pub(crate) struct Shared {
    /// The machine or app of the spec to use (default: the spec's only one).
    #[arg(short = 'm', long = "machine", value_name = "NAME")]
    machine: Option<String>,
    /// Write to this file instead of standard output (only when there are no errors).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// The spec to export.
    spec: PathBuf,
    /// The output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::OaYaml)]
    format: ExportFormat,
    #[command(flatten)]
    shared: Shared,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ExportFormat {
    /// Open Autonomy's `fsm_specification.yaml`, in upstream's canonical form.
    OaYaml,
    /// `.fsm` source.
    Fsm,
}

#[derive(Args, Debug)]
pub(crate) struct GraphArgs {
    /// The spec to draw.
    spec: PathBuf,
    /// The drawing's format.
    #[arg(long, value_enum)]
    format: GraphFormat,
    /// Which way transitions flow: `tb` top to bottom, `lr` left to right (every format).
    #[arg(long, value_enum, default_value_t = GraphDirection::Tb)]
    direction: GraphDirection,
    #[command(flatten)]
    shared: Shared,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum GraphDirection {
    /// Top to bottom.
    Tb,
    /// Left to right.
    Lr,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum GraphFormat {
    /// Graphviz DOT.
    Dot,
    /// Mermaid `stateDiagram-v2`.
    Mermaid,
    /// SVG, laid out without Graphviz.
    Svg,
    /// A self-contained interactive HTML page.
    Html,
}

#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    /// The Open Autonomy spec (`fsm_specification.yaml`) to translate.
    spec: PathBuf,
    #[command(flatten)]
    shared: Shared,
}

pub(crate) fn export(args: ExportArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    run(
        &args.spec,
        &args.shared,
        out,
        err,
        tty,
        |target| match args.format {
            ExportFormat::OaYaml => export::yaml::write_machine(target.machine),
            ExportFormat::Fsm => export::fsm::write(target.machine, &[]),
        },
    )
}

pub(crate) fn graph(args: GraphArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    run(&args.spec, &args.shared, out, err, tty, |target| {
        let direction = match args.direction {
            GraphDirection::Tb => export::Direction::TopToBottom,
            GraphDirection::Lr => export::Direction::LeftToRight,
        };
        match args.format {
            GraphFormat::Dot => Ok(export::dot::write(target, direction)),
            GraphFormat::Mermaid => Ok(export::mermaid::write(target, direction)),
            GraphFormat::Svg => export::svg::write(target, direction),
            GraphFormat::Html => export::html::write(target, direction),
        }
    })
}

pub(crate) fn import(args: ImportArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let file = args.spec.file_name().map_or_else(
        || args.spec.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    // The name goes into a comment of the written source, which may go to a terminal.
    let header = [format!(
        "Imported from `{}` by `fsmc import`.",
        fsmc_base::diag::render::inert(&file)
    )];
    run(&args.spec, &args.shared, out, err, tty, |target| {
        export::fsm::write(target.machine, &header)
    })
}

/// Compiles `spec`, prints its diagnostics, selects the target and writes what `produce` makes of it.
/// Exit codes: 0 written, 1 spec errors (or a machine the format cannot express), 2 usage or IO errors.
fn run(
    spec: &Path,
    shared: &Shared,
    out: &mut dyn Write,
    err: &mut dyn Write,
    _tty: bool,
    produce: impl Fn(&Target<'_>) -> Result<String, String>,
) -> i32 {
    let common = &shared.common;
    let opts = match common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let compilation: Compilation = match fsmc_driver::compile(spec, &opts) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "error[{}]: {}",
                Code::Io.id(),
                fsmc_base::diag::render::inert(&format!("{}: {}", e.path, e.message))
            );
            return 2;
        }
    };
    if !compilation.diagnostics.is_empty() {
        // Diagnostics go to standard error, whose terminal-ness we do not know: colour only when asked to.
        let _ = err.write_all(
            common
                .render(&compilation, common.output.message_format, false)
                .as_bytes(),
        );
    }
    let Some(checked) = &compilation.checked else {
        let _ = writeln!(
            err,
            "error: `{}` has errors; nothing was written",
            fsmc_base::diag::render::inert(&spec.display().to_string())
        );
        return 1;
    };
    let target = match export::select(checked, shared.machine.as_deref()) {
        Ok(t) => t,
        Err(message) => return usage_error(err, &message),
    };
    let text = match produce(&target) {
        Ok(text) => text,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return 1;
        }
    };
    match &shared.output {
        Some(path) => match super::write::write_atomically(path, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => usage_error(err, &format!("cannot write `{}`: {e}", path.display())),
        },
        None => match out.write_all(text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => usage_error(err, &format!("cannot write the output: {e}")),
        },
    }
}
