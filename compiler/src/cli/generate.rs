//! `fsmc gen`: Rust from a spec.

use super::Common;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct GenArgs {
    /// The spec to generate from.
    spec: PathBuf,
    #[command(flatten)]
    common: Common,
}

pub(crate) fn run(args: GenArgs, _out: &mut dyn Write, err: &mut dyn Write, _tty: bool) -> i32 {
    let _ = (&args.spec, &args.common);
    super::usage_error(err, "`fsmc gen` is not available yet")
}

