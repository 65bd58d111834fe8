//! `fsmc export`, `fsmc graph` and `fsmc import`.

use super::Common;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// The spec to export.
    spec: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub(crate) struct GraphArgs {
    /// The spec to draw.
    spec: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    /// The Open Autonomy spec to translate.
    spec: PathBuf,
    #[command(flatten)]
    common: Common,
}

pub(crate) fn export(args: ExportArgs, _out: &mut dyn Write, err: &mut dyn Write, _tty: bool) -> i32 {
    let _ = (&args.spec, &args.common);
    super::usage_error(err, "`fsmc export` is not available yet")
}

pub(crate) fn graph(args: GraphArgs, _out: &mut dyn Write, err: &mut dyn Write, _tty: bool) -> i32 {
    let _ = (&args.spec, &args.common);
    super::usage_error(err, "`fsmc graph` is not available yet")
}

pub(crate) fn import(args: ImportArgs, _out: &mut dyn Write, err: &mut dyn Write, _tty: bool) -> i32 {
    let _ = (&args.spec, &args.common);
    super::usage_error(err, "`fsmc import` is not available yet")
}
