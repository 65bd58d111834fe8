//! `fsmc gen`: the Rust a spec generates (what `include_fsm!` expands to), formatted, for checked-in code.

use super::Common;
use fsmc_model::codegen;

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
    let generated = if args.tests {
        let opts = codegen::tests::TestOptions { tour: args.tour };
        codegen::generated_file_with_tests(&spec_display, checked, opts)
    } else {
        codegen::generated_file(&spec_display, checked)
    };
    let text = match generated {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(
                err,
                "error: internal error: {e}; nothing was written (please report this with the spec)"
            );
            return 2;
        }
    };
    let Some(path) = &args.output else {
        let _ = out.write_all(text.as_bytes());
        return 0;
    };
    // `-o` names a file to replace: a device, a FIFO or a directory is refused before anything is read from or
    // written to it. Only as many bytes as the new text (plus one) are read to compare.
    let current = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return super::usage_error(
                err,
                &format!(
                    "`{}` is not a regular file: `-o` writes a file (omit it to write to standard output)",
                    path.display()
                ),
            );
        }
        Ok(_) => fsmc_driver::loader::read_regular(path, text.len() as u64 + 1).ok(),
        Err(_) => None,
    };
    let same = current.as_deref() == Some(text.as_bytes());
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
    match super::write::write_atomically(path, text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => super::usage_error(err, &format!("cannot write `{}`: {e}", path.display())),
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
