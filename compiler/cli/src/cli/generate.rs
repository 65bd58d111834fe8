//! `fsmc gen`: the Rust a spec generates (what `include_fsm!` expands to), formatted, for checked-in code.

use super::Common;
use fsmc_model::codegen::{self, WriteError};

use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub(crate) struct GenArgs {
    /// The spec to generate from.
    spec: PathBuf,
    /// Write to this file (only when its content changes) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Do not write: fail (exit 1) if FILE is not what the spec generates.
    #[arg(long, requires = "output")]
    check: bool,
    /// Also generate tests from the spec: one per transition, each with the inputs that make it happen.
    #[arg(long)]
    tests: bool,
    /// With `--tests`: one test that takes every transition along a short tour instead.
    #[arg(long, requires = "tests")]
    tour: bool,
    #[command(flatten)]
    common: Common,
}

pub(crate) fn run(args: GenArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let compilation = match fsmc_driver::compile(&args.spec, &opts) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "error[E0002]: {}",
                fsmc_base::diag::render::inert(&format!("{}: {}", e.path, e.message))
            );
            return 2;
        }
    };
    let _ = err.write_all(
        args.common
            .render(&compilation, args.common.output.message_format, tty)
            .as_bytes(),
    );
    // Nothing is written for a spec with errors.
    let Some(checked) = &compilation.checked else {
        return 1;
    };
    // The header names the spec relative to the file written, or by its file name on standard output: the
    // generated text must not depend on the directory the command runs in.
    let spec_path = fsmc_driver::loader::normalize(&fsmc_driver::loader::absolute(&args.spec));
    let spec_display = match &args.output {
        Some(path) => {
            let dir = fsmc_driver::loader::normalize(&fsmc_driver::loader::absolute(path));
            relative(dir.parent().unwrap_or(Path::new("/")), &spec_path)
        }
        None => spec_path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
    };
    let tests = args
        .tests
        .then_some(codegen::tests::TestOptions { tour: args.tour });
    let internal = |err: &mut dyn Write, e: &str| {
        let _ = writeln!(
            err,
            "error: internal error: {e}; the output is incomplete (please report this with the spec)"
        );
        2
    };
    let Some(path) = &args.output else {
        return match emit(&spec_display, checked, tests, out) {
            Ok(()) | Err(WriteError::Io(_)) => 0,
            Err(WriteError::Internal(e)) => internal(err, &e),
        };
    };
    // `-o` names a file to replace: a device, a FIFO or a directory is refused before anything is read from or
    // written to it.
    let same = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return super::usage_error(
                err,
                &format!(
                    "`{}` is not a regular file: `-o` writes a file (omit it to write to standard output)",
                    path.display()
                ),
            );
        }
        // The code is compared with the file as it is generated, and never held whole: a large machine's is
        // many times the size of its spec. The first difference stops the comparison.
        Ok(_) => match std::fs::File::open(path) {
            Ok(file) => {
                let mut same = Same(std::io::BufReader::new(file));
                match emit(&spec_display, checked, tests, &mut same) {
                    Ok(()) => same.at_end(),
                    Err(WriteError::Io(_)) => false,
                    Err(WriteError::Internal(e)) => return internal(err, &e),
                }
            }
            Err(_) => false,
        },
        Err(_) => false,
    };
    if args.check {
        if same {
            return 0;
        }
        let (path, spec) = (path.display().to_string(), args.spec.display().to_string());
        let (path, spec) = (
            fsmc_base::diag::render::inert(&path),
            fsmc_base::diag::render::inert(&spec),
        );
        let _ = writeln!(
            err,
            "error: `{path}` is stale: run `fsmc gen {spec} -o {path}`"
        );
        return 1;
    }
    if same {
        return 0;
    }
    let mut failure = None;
    let written = super::write::write_with(path, |file| {
        let mut file = std::io::BufWriter::new(file);
        match emit(&spec_display, checked, tests, &mut file) {
            Ok(()) => file.flush(),
            Err(WriteError::Io(e)) => Err(e),
            Err(WriteError::Internal(e)) => {
                failure = Some(e);
                Err(std::io::Error::other("internal error"))
            }
        }
    });
    match (written, failure) {
        (_, Some(e)) => internal(err, &e),
        (Ok(()), None) => 0,
        (Err(e), None) => {
            super::usage_error(err, &format!("cannot write `{}`: {e}", path.display()))
        }
    }
}

/// A writer that compares what is written with what a reader holds, failing at the first difference.
struct Same<R>(R);

impl<R: std::io::BufRead> Same<R> {
    /// Whether the reader holds nothing more.
    fn at_end(&mut self) -> bool {
        self.0.fill_buf().is_ok_and(|rest| rest.is_empty())
    }
}

impl<R: std::io::BufRead> Write for Same<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut held = vec![0; buf.len()];
        match self.0.read_exact(&mut held) {
            Ok(()) if held == buf => Ok(buf.len()),
            _ => Err(std::io::Error::other("differs")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `path` relative to the directory `base` (both absolute and normalized), with `/` separators.
pub(super) fn relative(base: &Path, path: &Path) -> String {
    let (b, p): (Vec<_>, Vec<_>) = (base.components().collect(), path.components().collect());
    let common = b.iter().zip(&p).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Writes what `fsmc gen` writes: the generated code as it is made or, with `--tests`, the code and its tests (a
/// test file is held whole: its tests are a few per transition, far smaller than a large machine's code).
fn emit(
    spec_display: &str,
    checked: &fsmc_model::spec::Checked,
    tests: Option<codegen::tests::TestOptions>,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    match tests {
        None => codegen::write_generated(spec_display, checked, out),
        Some(opts) => {
            let text = codegen::generated_file_with_tests(spec_display, checked, opts)
                .map_err(WriteError::Internal)?;
            out.write_all(text.as_bytes()).map_err(WriteError::Io)
        }
    }
}
