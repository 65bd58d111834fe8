//! `fsmc fmt`: rewrite `.fsm` files in the canonical layout ([`crate::fmt`]), or with `--check` say which
//! would change (a unified diff each) without writing; `--stdin` formats standard input to standard output
//! (for editors that pipe a buffer through a command).

use super::write::write_atomically;
use super::{Common, Format, collect_specs, usage_error};
use clap::Args;
use fsmc_base::diag::render;
use fsmc_base::source::SourceMap;
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct FmtArgs {
    /// `.fsm` files or directories (default: the current directory; `.fsmcignore` directories are skipped).
    paths: Vec<PathBuf>,
    /// Do not write: print a diff for each file that would change, and exit 1 if any would.
    #[arg(long)]
    check: bool,
    /// Format standard input and write the result to standard output.
    #[arg(long, conflicts_with_all = ["paths", "check"])]
    stdin: bool,
    #[command(flatten)]
    common: Common,
}

pub(crate) fn run(args: FmtArgs, out: &mut dyn Write, err: &mut dyn Write, tty: bool) -> i32 {
    if args.stdin {
        let mut text = String::new();
        if let Err(e) = std::io::stdin()
            .take(fsmc_driver::loader::MAX_FILE_SIZE)
            .read_to_string(&mut text)
        {
            return usage_error(err, &format!("cannot read standard input: {e}"));
        }
        return match format_one("<stdin>", &text, &args.common, out, err, tty) {
            Some(formatted) => {
                let _ = out.write_all(formatted.as_bytes());
                0
            }
            None => 1,
        };
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for p in &paths {
        if p.is_dir() {
            if let Err(e) = collect_specs(p, &mut files) {
                return usage_error(
                    err,
                    &format!("cannot read directory `{}`: {e}", p.display()),
                );
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut status = 0;
    // Directories hold Open Autonomy YAML too; only `.fsm` files are formatted. One named on the command line
    // that is not `.fsm` is refused by name rather than read as `.fsm` and reported as a syntax error.
    files.retain(|f| {
        let fsm = f.extension().is_some_and(|e| e == "fsm");
        if !fsm && paths.contains(f) {
            let _ = writeln!(
                err,
                "error: `{}` is not a `.fsm` file; `fsmc fmt` formats only `.fsm` files",
                render::inert(&f.display().to_string())
            );
            status = 2;
        }
        fsm
    });
    let mut changed = 0usize;
    for file in &files {
        let shown = file.display().to_string();
        let text = match fsmc_driver::loader::read_text(file) {
            Ok(t) => t,
            Err(message) => {
                let _ = writeln!(
                    err,
                    "error[E0002]: {}",
                    render::inert(&format!("{shown}: {message}"))
                );
                status = 2;
                continue;
            }
        };
        let Some(formatted) = format_one(&shown, &text, &args.common, out, err, tty) else {
            status = status.max(1);
            continue;
        };
        if formatted == text {
            continue;
        }
        changed += 1;
        if args.check {
            let _ = out.write_all(diff(&shown, &text, &formatted).as_bytes());
            status = status.max(1);
        } else if let Err(e) = write_atomically(file, formatted.as_bytes()) {
            let _ = writeln!(err, "error: cannot write `{}`: {e}", render::inert(&shown));
            status = 2;
        }
    }
    if args.common.output.message_format == Format::Human && args.check && changed > 0 {
        let _ = writeln!(
            err,
            "fsmc fmt: {changed} of {} file{} would be reformatted",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
    }
    status
}

/// The formatted text, or `None` after printing the file's syntax errors.
fn format_one(
    shown: &str,
    text: &str,
    common: &Common,
    out: &mut dyn Write,
    err: &mut dyn Write,
    tty: bool,
) -> Option<String> {
    let mut sources = SourceMap::new();
    let file = sources.add(shown, text);
    match crate::fmt::format(file, text) {
        Ok(formatted) => Some(formatted),
        Err(diags) => {
            let rendered = match common.output.message_format {
                // Diagnostics go to standard error here: standard output is the formatted text or the diff.
                Format::Human => {
                    let _ = err
                        .write_all(render::human(&sources, &diags, common.color(tty)).as_bytes());
                    let _ = writeln!(
                        err,
                        "fsmc fmt: `{}` has syntax errors; not formatted",
                        render::inert(shown)
                    );
                    return None;
                }
                Format::Json => render::json(&sources, &diags),
                Format::Github => render::github(&sources, &diags),
            };
            let _ = out.write_all(rendered.as_bytes());
            None
        }
    }
}

/// A unified diff of two texts, three lines of context, as `diff -u` writes it.
pub(crate) fn diff(name: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = line_diff(&a, &b);
    let mut out = format!("--- {name}\n+++ {name} (formatted)\n");
    // Group the edits into hunks with three lines of context around each change.
    const CONTEXT: usize = 3;
    let changes: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut k = 0;
    while k < changes.len() {
        let first = changes[k];
        let mut last = first;
        while k + 1 < changes.len() && changes[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changes[k];
        }
        k += 1;
        let lo = first.saturating_sub(CONTEXT);
        let hi = (last + CONTEXT + 1).min(ops.len());
        let (mut a_start, mut b_start) = (None, None);
        let (mut a_len, mut b_len) = (0, 0);
        let mut body = String::new();
        for op in &ops[lo..hi] {
            match *op {
                Op::Same(i, j) => {
                    a_start.get_or_insert(i);
                    b_start.get_or_insert(j);
                    a_len += 1;
                    b_len += 1;
                    body.push_str(&format!(" {}\n", a[i]));
                }
                Op::Del(i, j) => {
                    a_start.get_or_insert(i);
                    b_start.get_or_insert(j);
                    a_len += 1;
                    body.push_str(&format!("-{}\n", a[i]));
                }
                Op::Add(i, j) => {
                    a_start.get_or_insert(i);
                    b_start.get_or_insert(j);
                    b_len += 1;
                    body.push_str(&format!("+{}\n", b[j]));
                }
            }
        }
        // `diff -u` numbers an empty side by the line before it.
        let at = |start: Option<usize>, len: usize| match (start, len) {
            (Some(s), 0) => s,
            (Some(s), _) => s + 1,
            (None, _) => 0,
        };
        out.push_str(&format!(
            "@@ -{},{a_len} +{},{b_len} @@\n{body}",
            at(a_start, a_len),
            at(b_start, b_len)
        ));
    }
    render::inert(&out).into_owned()
}

/// One step of a line diff: a line of both (indices in each), a line only the old text has (with the position
/// in the new text it goes before), a line only the new one has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Del(usize, usize),
    Add(usize, usize),
}

/// The edits from `a` to `b`: the common prefix and suffix are matched first, the middle by a longest common
/// subsequence when it is small enough, else replaced whole (a diff is for reading; past a few thousand lines
/// of change, the exact alignment does not help anyone).
fn line_diff(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Same(i, i)).collect();
    const MAX_CELLS: usize = 4_000_000;
    if am.len().saturating_mul(bm.len()) <= MAX_CELLS {
        // lcs[i][j]: the longest common subsequence of am[i..] and bm[j..].
        let w = bm.len() + 1;
        let mut lcs = vec![0u32; (am.len() + 1) * w];
        for i in (0..am.len()).rev() {
            for j in (0..bm.len()).rev() {
                lcs[i * w + j] = if am[i] == bm[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < am.len() || j < bm.len() {
            if i < am.len() && j < bm.len() && am[i] == bm[j] {
                ops.push(Op::Same(prefix + i, prefix + j));
                i += 1;
                j += 1;
            } else if i < am.len() && (j == bm.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
            {
                ops.push(Op::Del(prefix + i, prefix + j));
                i += 1;
            } else {
                ops.push(Op::Add(prefix + i, prefix + j));
                j += 1;
            }
        }
    } else {
        ops.extend((0..am.len()).map(|i| Op::Del(prefix + i, prefix)));
        ops.extend((0..bm.len()).map(|j| Op::Add(prefix + am.len(), prefix + j)));
    }
    ops.extend((0..suffix).map(|k| Op::Same(a.len() - suffix + k, b.len() - suffix + k)));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_read_like_diff_u() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        assert_eq!(
            diff("x.fsm", old, new),
            "--- x.fsm\n+++ x.fsm (formatted)\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
        );
        let d = diff("x", "a\n", "a\nb\n");
        assert!(d.ends_with("@@ -1,1 +1,2 @@\n a\n+b\n"), "{d}");
    }
}
