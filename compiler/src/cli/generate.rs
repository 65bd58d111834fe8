//! `fsmc gen`: the Rust a spec generates (what `include_fsm!` expands to), formatted, for checked-in code.

use super::{Common, Format};
use crate::codegen;
use crate::driver;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

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
    /// How to print diagnostics (on standard error).
    #[arg(long = "message-format", value_enum, default_value_t = Format::Human)]
    message_format: Format,
    #[command(flatten)]
    common: Common,
}

/// The file `fsmc gen` writes: the `@generated` header, the spec's path, the formatted code.
pub fn generated_file(spec_display: &str, checked: &crate::model::Checked) -> String {
    format!(
        "{}// Spec: {spec_display}\n\n{}",
        codegen::HEADER,
        codegen::format(codegen::generate(checked))
    )
}

pub(crate) fn run(args: GenArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    let opts = match args.common.options(err) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let compilation = match driver::compile(&args.spec, &opts) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(err, "error[E0002]: {}: {}", e.path, e.message);
            return 2;
        }
    };
    let _ = err.write_all(
        args.common
            .render(&compilation, args.message_format, tty)
            .as_bytes(),
    );
    // Nothing is written for a spec with errors.
    let Some(checked) = &compilation.checked else {
        return 1;
    };
    let spec_display = compilation
        .sources
        .get(crate::source::FileId(0))
        .map_or(String::new(), |f| f.name.clone());
    let text = generated_file(&spec_display, checked);
    let Some(path) = &args.output else {
        let _ = out.write_all(text.as_bytes());
        return 0;
    };
    let current = std::fs::read_to_string(path).ok();
    if args.check {
        if current.as_deref() == Some(text.as_str()) {
            return 0;
        }
        let _ = writeln!(
            err,
            "error: `{}` is stale: run `fsmc gen {} -o {}`",
            path.display(),
            args.spec.display(),
            path.display()
        );
        return 1;
    }
    if current.as_deref() == Some(text.as_str()) {
        return 0;
    }
    match std::fs::write(path, &text) {
        Ok(()) => 0,
        Err(e) => super::usage_error(err, &format!("cannot write `{}`: {e}", path.display())),
    }
}
