//! The fast path: everything the parser has only for speed, behind one seam ([`parse`]), so that the obvious path
//! (`parse/`: the whole file parsed by pest, then recovered piece by piece if it does not parse) stays obvious.
//!
//! pest keeps two tokens for every pair it makes until the parse returns, and a large spec makes several pairs
//! per line: on a spec of 100,000 states that queue would be the largest thing the check ever holds, and pest
//! spends most of a large check on the two commonest statements. So a file holding a long machine body is
//! parsed in pieces instead:
//!
//! - [`plan`]: one skim of the lexer finds the long bodies and where each may be cut into runs of statements
//!   (collecting the file's comments and its nesting on the way);
//! - [`chunk`]: the pieces are parsed by the grammar's own rules, the runs of a body on several threads, each
//!   piece turned into tree nodes before pest's tokens for it are dropped;
//! - [`simple`]: in the runs, `(A, EVENT) -> B;` and `state A;` are read from the lexer's tokens, not by pest.
//!
//! Nothing here decides what the language is: the pieces parse exactly when the whole file does, into the same
//! tree, as the tests (`tests.rs`) hold on the shipped specs, edited specs and generated machines.

mod chunk;
mod plan;
mod simple;
#[cfg(test)]
mod tests;

use crate::ast::File;
use crate::parse::MAX_NESTING;
use fsmc_base::source::FileId;

/// A machine body at least this long is parsed in pieces, in runs of statements about this long: long enough
/// that starting a parse costs nothing next to it, short enough that pest's tokens for it stay a few MiB.
pub(crate) const RUN: usize = 64 * 1024;

/// What the fast path made of a file.
pub(crate) enum Fast {
    /// The file parsed: its tree, comments included.
    Parsed(File),
    /// A piece did not parse: parsing the whole file stops at this offset.
    FailsAt(usize),
    /// Not a file for the fast path (no long body, nesting past [`MAX_NESTING`], brackets, strings or comments
    /// that do not close), or a piece failed where only parsing the whole file tells what the error is.
    Declined,
}

/// Parses `text` in pieces if it holds a machine body of at least `run` bytes, cut into runs of about `run`
/// bytes parsed on up to `threads()` threads (the tests cut small files too).
pub(crate) fn parse(file: FileId, text: &str, run: usize, threads: impl FnOnce() -> usize) -> Fast {
    let Some(plan) = plan::plan(text, run) else {
        return Fast::Declined;
    };
    // The obvious path reports nesting past the limit (the skim counted it as that path's check does).
    if plan.deepest > MAX_NESTING {
        return Fast::Declined;
    }
    match chunk::parse(file, text, &plan, threads()) {
        Ok(tree) => Fast::Parsed(tree),
        Err(Some(at)) => Fast::FailsAt(at),
        Err(None) => Fast::Declined,
    }
}
