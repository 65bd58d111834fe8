//! The fast path for a large file: parsed in pieces, on more than one thread, and with less of pest's memory.
//!
//! pest keeps two tokens for every pair it makes until the parse returns, and a large spec makes several pairs
//! per line: on a spec of 100,000 states that queue would be the largest thing the check ever holds. So a file
//! holding a long machine body is parsed as `file` cut into pieces instead, each piece turned into tree nodes
//! before its tokens are dropped:
//!
//! - the text up to the first long body's `{` (the entry rule `upto_body`),
//! - the body, in runs of statements of about [`RUN`] bytes (`fast_member*`, which is `member*` with the
//!   commonest statements written for speed, and those read byte by byte where they are simplest: [`simple`]),
//! - the text from the body's `}` to the next long body's `{` (`between_bodies`), or to the end (`after_body`).
//!
//! The body is cut only where one of its statements ends: right after a `;` or a `}` that is outside strings,
//! comments and brackets, as a scan that lexes strings and comments as the grammar does ([`plan`]) finds them. In
//! a file that parses, every such `;` or `}` ends a member, and a member is parsed the same whatever follows its
//! end; so the pieces parse exactly when the whole file does, into the same pairs. The runs of a body are
//! independent, so they are shared among threads and their members joined in file order.
//!
//! A file one of whose pieces does not parse is recovered by the caller as before ([`recover`](crate::parse::recover)),
//! from where parsing the whole file stops: the first piece that fails tells where that is ([`failure`]), so
//! that a large file with a mistake is not parsed whole either.

use crate::grammar::{FsmParser, Rule};
use crate::parse::build::{Builder, Origin, empty_machine};
use super::simple::{self, Simple};
use crate::ast::{Comment, CommentKind, File, Machine};
use fsmc_base::source::{FileId, Span};
use pest::Parser as _;

/// A machine body at least this long is parsed in pieces, in runs of statements about this long: long enough
/// that starting a parse costs nothing next to it, short enough that pest's tokens for it stay a few MiB.
pub(crate) const RUN: usize = 64 * 1024;

/// Where a file is cut: its long machine bodies, and where each body is cut into runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub bodies: Vec<Body>,
    /// The ends of the runs of all bodies but each body's last (which ends at its `}`), in order.
    pub cuts: Vec<usize>,
    /// How deeply the file nests, counted as [`too_deep`](crate::parse::too_deep) counts, so that a file this scan found
    /// shallow need not be scanned again for that.
    pub deepest: usize,
    /// The file's comments, which the scan lexes anyway, as
    /// [`trivia::comments`](crate::trivia::comments) finds them in a file the scan can plan (its strings
    /// all end on their line, its block comments all close): kind, start and end.
    pub comments: Vec<(CommentKind, usize, usize)>,
}

/// One long machine body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Body {
    /// Just after its `{`.
    pub open: usize,
    /// At its `}`.
    pub close: usize,
    /// Its runs' ends in [`Plan::cuts`].
    pub cuts: std::ops::Range<usize>,
}

/// Why the pieces made no tree: where parsing the whole file stops, when the pieces tell (see [`failure`]); `None`
/// when the whole file must be parsed to know.
pub(crate) type Failed = Option<usize>;

/// Parses `text` in pieces as `plan` cuts it, with the runs of a body shared among up to `threads` threads; its
/// comments are the ones the plan found.
pub(crate) fn parse(file: FileId, text: &str, plan: &Plan, threads: usize) -> Result<File, Failed> {
    let mut tree = pieces(file, text, plan, threads)?;
    tree.comments = plan
        .comments
        .iter()
        .map(|&(kind, start, end)| Comment {
            kind,
            span: Span::new(file, start, end),
        })
        .collect();
    Ok(tree)
}

/// The tree of the pieces, without comments.
fn pieces(file: FileId, text: &str, plan: &Plan, threads: usize) -> Result<File, Failed> {
    let mut p = Pieces {
        file,
        text,
        out: File::default(),
        open: None,
    };
    let mut from = 0;
    for (k, body) in plan.bodies.iter().enumerate() {
        let rule = if k == 0 {
            Rule::upto_body
        } else {
            Rule::between_bodies
        };
        p.top(rule, from, body.open)?;
        let bounds: Vec<usize> = std::iter::once(body.open)
            .chain(
                plan.cuts
                    .get(body.cuts.clone())
                    .ok_or(None)?
                    .iter()
                    .copied(),
            )
            .chain([body.close])
            .collect();
        let (m, _, _) = p.open.as_mut().ok_or(None)?;
        if let Err(i) = runs(file, text, &bounds, m, threads) {
            // The run as `member*` rather than `fast_member*`: what pest reports then is what it would report
            // for the whole file.
            let (start, end) = (bounds[i], bounds[i + 1]);
            let e = text
                .get(start..end)
                .and_then(|run| FsmParser::parse(Rule::only_members, run).err());
            return Err(e.and_then(|e| failure(&e, start, end)));
        }
        from = body.close;
    }
    p.top(Rule::after_body, from, text.len())?;
    Ok(p.out)
}

/// Where parsing the whole file stops, from `e`, the error of the first piece (`start..end` of the file) that
/// does not parse with the grammar's own rules, if that can be told.
///
/// It can when pest's furthest attempt in the piece is before the piece's end. The pieces before it parsed, so
/// the whole file's parse reaches the piece as they left it, and parses the piece's statements up to the one
/// that fails as the piece's parse did; that one fails the same way, for nothing of it reached the end of the
/// piece, where the two parses differ. What the whole file's parse tries after it (the `}` of the body, the end
/// of the file) is tried where the statement starts, not further. So the furthest attempt, which is where pest
/// reports the error, is the same.
fn failure(e: &pest::error::Error<Rule>, start: usize, end: usize) -> Failed {
    if let pest::error::ErrorVariant::CustomError { .. } = e.variant {
        return None;
    }
    let at = start
        + match e.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((p, _)) => p,
        };
    (at < end).then_some(at)
}

/// Each thread gets at least this many runs: for a shorter body, starting threads and joining what they built
/// would cost about what they save.
const RUNS_PER_THREAD: usize = 4;

/// How many runs a thread may parse ahead of the one that joins them: enough to keep it busy, few enough that
/// the members waiting to be joined stay small next to the tree.
const AHEAD: usize = 4;

/// Stack for a parsing thread: the main thread's usual size. Nesting is bounded before parsing (see
/// [`MAX_NESTING`](crate::parse::MAX_NESTING)), so pest never needs more; it is reserved, not used.
const STACK: usize = 8 << 20;

/// Parses the runs of a body (the text between consecutive `bounds`) into `m`, dealt round to up to `threads`
/// threads: this one builds its runs into `m` directly, the others send theirs back to be joined in order. So
/// the tree does not depend on how many threads there were, and memory on how far ahead they ran. The error is
/// the index of the first run that does not parse.
fn runs(
    file: FileId,
    text: &str,
    bounds: &[usize],
    m: &mut Machine,
    threads: usize,
) -> Result<(), usize> {
    let count = bounds.len().saturating_sub(1);
    let threads = threads.min(count / RUNS_PER_THREAD).max(1);
    if threads == 1 {
        return (0..count)
            .try_for_each(|i| members(file, text, bounds[i], bounds[i + 1], m).ok_or(i));
    }
    let run = |i: usize| {
        let mut part = empty_machine(Span::default());
        members(file, text, bounds[i], bounds[i + 1], &mut part).map(|()| part)
    };
    std::thread::scope(|scope| {
        // Thread `t` (from 1) parses runs t, t + threads, …; `None` where it could not be started.
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let (send, receive) = std::sync::mpsc::sync_channel(AHEAD);
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(scope, move || {
                        for i in (t..count).step_by(threads) {
                            let part = run(i);
                            let failed = part.is_none();
                            // The receiver is gone when this thread's runs are no longer wanted.
                            if send.send(part).is_err() || failed {
                                break;
                            }
                        }
                    })
                    .ok()
                    .map(|_| receive)
            })
            .collect();
        for i in 0..count {
            let part = match i % threads {
                0 => {
                    members(file, text, bounds[i], bounds[i + 1], m).ok_or(i)?;
                    continue;
                }
                // Returning drops the receivers, which stops the other threads.
                t => match &others[t - 1] {
                    Some(receive) => receive.recv().ok().flatten(),
                    None => run(i),
                }
                .ok_or(i)?,
            };
            m.events.extend(part.events);
            m.keys.extend(part.keys);
            m.states.extend(part.states);
            m.transitions.extend(part.transitions);
            m.properties.extend(part.properties);
        }
        Ok(())
    })
}

/// Parses the run `text[start..end]` into `m`: the commonest statements byte by byte ([`simple`]), the others
/// one by one with pest's `one_member`, which skips comments and whitespace as `fast_member*` would between
/// them. So the run makes the tree `fast_member*` makes of it, and fails where it fails.
fn members(file: FileId, text: &str, start: usize, end: usize, m: &mut Machine) -> Option<()> {
    let b = text.as_bytes();
    let mut i = start;
    // Members name nothing of the machine; `named` only says so to `machine_part`.
    let mut named = true;
    loop {
        i = simple::skip_blank(b, i, end);
        if i >= end {
            return Some(());
        }
        if let Some((member, next)) = simple::member(file, text, i, end) {
            match member {
                Simple::Transition(t) => m.transitions.push(t),
                Simple::State(s) => m.states.push(s),
            }
            i = next;
            continue;
        }
        let root = FsmParser::parse(Rule::one_member, text.get(i..end)?)
            .ok()?
            .next()?;
        let next = i + root.as_span().end();
        let b = Builder::new(file, Origin::at(i));
        for pair in root.into_inner() {
            b.machine_part(pair, m, &mut named);
        }
        // A member is never empty, and the end of the run ends the loop: this cannot stand still.
        if next <= i {
            return None;
        }
        i = next;
    }
}

/// What the pieces outside the long bodies build into: the file's items, and the machine whose long body is
/// being parsed.
struct Pieces<'t> {
    file: FileId,
    text: &'t str,
    out: File,
    /// The machine whose long body is being parsed: what is built of it so far, where it starts, and whether its
    /// name was seen (see [`Builder::machine_part`]).
    open: Option<(Machine, usize, bool)>,
}

impl Pieces<'_> {
    /// A piece outside the long bodies: the `}` ending the last one, whole items, and the head of the next one.
    fn top(&mut self, rule: Rule, start: usize, end: usize) -> Result<(), Failed> {
        let root = FsmParser::parse(rule, self.text.get(start..end).ok_or(None)?)
            .map_err(|e| failure(&e, start, end))?
            .next()
            .ok_or(None)?;
        let b = Builder::new(self.file, Origin::at(start));
        for pair in root.into_inner() {
            match pair.as_rule() {
                Rule::inner_attr => self.out.lints.extend(b.lint_attr(pair)),
                Rule::import => self.out.imports.push(b.import(pair)),
                Rule::machine => self.out.machines.push(b.machine(pair)),
                Rule::app => self.out.apps.push(b.app(pair)),
                Rule::rbrace => {
                    let (mut m, start, _) = self.open.take().ok_or(None)?;
                    // As the `machine` pair of the whole file would span: from its first doc comment, attribute
                    // or keyword to its `}`.
                    m.span = Span::new(self.file, start, b.span(&pair).end as usize);
                    self.out.machines.push(m);
                }
                Rule::EOI => {}
                // The head of the next long body: doc comments, attributes, keyword, name, profile, `{`.
                _ => {
                    let (m, _, named) = self.open.get_or_insert_with(|| {
                        let span = b.span(&pair);
                        (empty_machine(span), span.start as usize, false)
                    });
                    b.machine_part(pair, m, named);
                }
            }
        }
        Ok(())
    }
}

/// Finds the bodies of `text` of at least `run` bytes (the `{ … }` of machines) and cuts each into runs of
/// statements of at least `run` bytes. `None` when there is no such body, or when the text is not balanced the way
/// a file that parses is (a `}` or `)` with nothing open, a block comment or string never closed).
pub(crate) fn plan(text: &str, run: usize) -> Option<Plan> {
    let b = text.as_bytes();
    let mut plan = Plan::default();
    // Open `{`, `(` and `[` (a file that parses has no `;` inside `(…)` and only `[T; N]`'s inside `[…]`).
    let (mut braces, mut parens, mut brackets) = (0usize, 0usize, 0usize);
    // Nesting as `too_deep` counts it: every opening bracket (`<` too) and block comment in one count, which a
    // closing one lowers if it can (so the `>` of `->` lowers it as well).
    let mut depth = 0usize;
    // Outside bodies: whether the item being read has shown its first word (`machine`, `app`, `import`) yet, and
    // whether that word is `machine` (only a machine's body is cut: the pieces' rules expect one).
    let (mut item_named, mut machine) = (false, false);
    // The open body: just after its `{`, its first cut in `plan.cuts`, and its last cut (or its `{`).
    let (mut open, mut first_cut, mut last_cut) = (0, 0, 0);
    let mut i = 0;
    loop {
        let special = if braces == 0 {
            &TOP_SPECIAL
        } else {
            &BODY_SPECIAL
        };
        i = next_special(b, i, special);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                // A comment or doc comment, up to the end of its line.
                let (kind, end) = crate::trivia::line_comment(b, i);
                plan.comments.push((kind, i, end));
                i = end;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (end, nesting) = block_comment_end(b, i)?;
                plan.deepest = plan.deepest.max(depth + nesting);
                plan.comments.push((CommentKind::Block, i, end));
                i = end;
                continue;
            }
            b'"' => {
                i = string_end(b, i)?;
                continue;
            }
            // A word outside bodies (only there are letters special).
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let end = b[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                    .map_or(b.len(), |n| i + n);
                if !item_named && parens == 0 && brackets == 0 {
                    item_named = true;
                    machine = &b[i..end] == b"machine";
                }
                i = end;
                continue;
            }
            b'<' => {
                depth += 1;
                plan.deepest = plan.deepest.max(depth);
            }
            b'>' => depth = depth.saturating_sub(1),
            b'{' => {
                braces += 1;
                depth += 1;
                plan.deepest = plan.deepest.max(depth);
                if braces == 1 {
                    (open, first_cut, last_cut) = (i + 1, plan.cuts.len(), i + 1);
                }
            }
            b'}' => {
                braces = braces.checked_sub(1)?;
                depth = depth.saturating_sub(1);
                let flat = parens == 0 && brackets == 0;
                if braces == 0 {
                    if machine && flat && i - open >= run {
                        let cuts = first_cut..plan.cuts.len();
                        plan.bodies.push(Body {
                            open,
                            close: i,
                            cuts,
                        });
                    } else {
                        plan.cuts.truncate(first_cut);
                    }
                    item_named = false;
                } else if braces == 1 && flat && i + 1 - last_cut >= run {
                    // A state's body closed: its statement ends here.
                    plan.cuts.push(i + 1);
                    last_cut = i + 1;
                }
            }
            b';' if braces == 0 => item_named = false,
            b';' if braces == 1 && parens == 0 && brackets == 0 && i + 1 - last_cut >= run => {
                plan.cuts.push(i + 1);
                last_cut = i + 1;
            }
            b'(' => {
                parens += 1;
                depth += 1;
                plan.deepest = plan.deepest.max(depth);
            }
            b')' => {
                parens = parens.checked_sub(1)?;
                depth = depth.saturating_sub(1);
            }
            b'[' => {
                brackets += 1;
                depth += 1;
                plan.deepest = plan.deepest.max(depth);
            }
            b']' => {
                brackets = brackets.checked_sub(1)?;
                depth = depth.saturating_sub(1);
                // An attribute ended: the item's first word is still to come.
                if braces == 0 && brackets == 0 {
                    item_named = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (!plan.bodies.is_empty() && braces == 0).then_some(plan)
}

/// The bytes [`plan`] looks at inside bodies; it steps over all others (most of a file: names, spaces) in a tight
/// loop. Outside bodies it also reads words, to tell a machine from an app.
const BODY_SPECIAL: [bool; 256] = byte_set(b"/\"{}()[]<>;");
const TOP_SPECIAL: [bool; 256] =
    byte_set(b"/\"{}()[]<>;_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

/// A table of the bytes in `set`.
pub(crate) const fn byte_set(set: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < set.len() {
        table[set[i] as usize] = true;
        i += 1;
    }
    table
}

/// The first position at or after `i` holding a byte of `set`, or the end of `b`.
pub(crate) fn next_special(b: &[u8], i: usize, set: &[bool; 256]) -> usize {
    b.get(i..)
        .and_then(|rest| rest.iter().position(|&c| set[c as usize]))
        .map_or(b.len(), |n| i + n)
}

/// Where the block comment starting at `i` ends (they nest), as the grammar's `block_comment` reads it, and how
/// deeply it nests.
fn block_comment_end(b: &[u8], mut i: usize) -> Option<(usize, usize)> {
    let (mut depth, mut deepest) = (0usize, 0usize);
    loop {
        match (b.get(i)?, b.get(i + 1)) {
            (b'/', Some(b'*')) => {
                depth += 1;
                deepest = deepest.max(depth);
                i += 2;
            }
            (b'*', Some(b'/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some((i, deepest));
                }
            }
            _ => i += 1,
        }
    }
}

/// Where the string starting at `i` ends, as the grammar's `string` reads it: an escape takes the next character
/// (a line end included), an unescaped line end means the string is never closed.
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match b.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'\n' => return None,
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The tree of `text` parsed whole, with its comments, as text (the tree types do not compare), or `None` when
    /// it does not parse.
    fn whole(text: &str) -> Option<String> {
        let mut tree = crate::parse::whole(FileId(0), text).ok()?;
        tree.comments = crate::trivia::comments(FileId(0), text);
        Some(format!("{tree:#?}"))
    }

    /// Parses `text` in pieces with runs of `run` bytes and checks it against the whole parse: the same tree
    /// when the whole file parses, no tree when it does not; and nesting measured as `too_deep` measures it.
    /// Returns whether it was cut at all.
    fn same_as_whole(text: &str, run: usize) -> bool {
        let plan = plan(text, run);
        if let Some(p) = &plan {
            assert!(crate::parse::too_deep(text, p.deepest).is_none(), "{text}");
            assert!(
                p.deepest == 0 || crate::parse::too_deep(text, p.deepest - 1).is_some(),
                "{text}"
            );
        }
        // One thread, and more threads than cores, share the runs differently: the tree must not show it.
        let threads = 1 + run % 5;
        let pieces = plan
            .as_ref()
            .and_then(|p| parse(FileId(0), text, p, threads).ok())
            .map(|t| format!("{t:#?}"));
        let whole = whole(text);
        match (&pieces, &whole) {
            (Some(p), Some(w)) => assert_eq!(p, w, "run {run}, text:\n{text}"),
            (Some(_), None) => {
                panic!("the pieces parse but the whole does not, run {run}:\n{text}")
            }
            // Cut where the whole parses, the pieces must parse too: otherwise a spec would take the slow path.
            (None, Some(_)) => assert!(
                plan.is_none(),
                "a file that parses failed in pieces, run {run}:\n{text}"
            ),
            (None, None) => {}
        }
        pieces.is_some()
    }

    fn shipped_specs() -> &'static [(std::path::PathBuf, String)] {
        static SPECS: std::sync::OnceLock<Vec<(std::path::PathBuf, String)>> =
            std::sync::OnceLock::new();
        SPECS.get_or_init(read_shipped_specs)
    }

    fn read_shipped_specs() -> Vec<(std::path::PathBuf, String)> {
        fn walk(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
            entries.sort_by_key(|e| e.path());
            for e in entries {
                let path = e.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|x| x == "fsm") {
                    // One spec is not UTF-8 on purpose (it tests the error for that).
                    if let Ok(text) = std::fs::read_to_string(&path) {
                        out.push((path, text));
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs"),
            &mut out,
        );
        assert!(out.len() > 50, "the shipped specs were not found");
        out
    }

    /// A spec with every construct, and `;`, `{` and `}` where they end nothing: in strings, comments, doc
    /// comments, array types, state bodies.
    const TRICKY: &str = r#"#![allow(unused_key)] // a; }
import "a;b}.fsm" as A;
/* block ; } /* nested ; } */ still; } */
/// The machine; with a `}`.
#[deny(no_path_to_final)]
machine M: abci {
    label "x \" ; } {";
    /// Doc; }
    event GO, STOP(x: [u8; 32], y: Vec<(String, [u8; 4])>) timeout 30s by seller;
    cross_period key k: std::collections::BTreeMap<String, [u8; 32]>;
    start state A: kind { reads a, b; done = GO; template "t;}.j2"; }
    //// not a doc; }
    final state B;
    state C { }
    (A, GO) -> B if ok unless bad do log, send persist raw; // trailing; }
    A -> B, C;
    /* ; */ (B, STOP) -> A;
}
machine N {
    state X;
    (X, GO) -> X;
}
app P {
    chain M, N;
    M::B -> N::X;
    label "p";
}
"#;

    #[test]
    fn cuts_only_where_a_statement_ends() {
        let text = "machine M { a \"x;y\"; /* ; } */ key k: [u8; 32]; state S { p; } // ;\n q; }";
        let p = plan(text, 1).unwrap();
        let ends: Vec<&str> = p.cuts.iter().map(|&c| &text[..c]).collect();
        assert_eq!(p.bodies.len(), 1);
        assert_eq!(
            ends.iter()
                .map(|e| e.chars().last().unwrap())
                .collect::<String>(),
            ";;};",
            "{ends:#?}"
        );
        assert!(ends[0].ends_with("\"x;y\";"));
        assert!(ends[1].ends_with("[u8; 32];"));
        assert!(ends[2].ends_with("state S { p; }"));
        assert!(ends[3].ends_with("q;"));
        // The last run ends at the body's `}`.
        assert_eq!(&text[p.bodies[0].close..], "}");
        assert_eq!(p.bodies[0].cuts, 0..4);
    }

    #[test]
    fn short_or_unbalanced_files_are_not_cut() {
        assert_eq!(plan("machine M { state A; }", RUN), None, "too short");
        for text in [
            "machine M { state A; } }",
            "machine M { state A; ",
            "machine M { label \"open; }\n }",
            "machine M { /* open; }",
            "machine M { (A, B)) -> C; }",
        ] {
            assert_eq!(plan(text, 1), None, "{text}");
        }
    }

    #[test]
    fn pieces_make_the_tree_of_the_whole() {
        for run in [1, 2, 8, 64] {
            assert!(same_as_whole(TRICKY, run), "run {run}");
        }
        assert!(!same_as_whole(TRICKY, 1000), "no body is that long");
        // Long bodies one after the other, and a long body last.
        let long = |name: &str| {
            let mut m = format!("machine {name} {{\n");
            for i in 0..200 {
                m.push_str(&format!("    state S{i};\n    (S{i}, GO) -> S{};\n", i + 1));
            }
            m.push_str("}\n");
            m
        };
        let text = format!("{TRICKY}{}{}{}", long("L1"), long("L2"), long("L3"));
        for run in [1, 100, 4096] {
            assert!(same_as_whole(&text, run));
        }
    }

    #[test]
    fn shipped_specs_parse_the_same_in_pieces() {
        let mut cut = 0;
        for (_, text) in shipped_specs() {
            for run in [1, 3, 50] {
                if same_as_whole(text, run) {
                    cut += 1;
                }
            }
        }
        assert!(cut > 100, "only {cut} specs were cut");
    }

    #[test]
    fn the_public_parse_cuts_a_large_file_and_keeps_its_tree() {
        let mut text = String::from("/// Big.\nmachine Big {\n    event GO;\n");
        let mut i = 0;
        while text.len() < 3 * RUN {
            text.push_str(&format!(
                "    state S{i} {{ reads a; }}\n    (S{i}, GO) -> S{};\n",
                i + 1
            ));
            i += 1;
        }
        text.push_str("}\napp A { chain Big; }\n");
        assert!(plan(&text, RUN).is_some_and(|p| p.cuts.len() >= 2));
        let (tree, diags) = crate::parse::parse(FileId(0), &text);
        assert!(diags.is_empty());
        let mut expected = crate::parse::whole(FileId(0), &text).unwrap();
        expected.comments = crate::trivia::comments(FileId(0), &text);
        assert_eq!(format!("{:#?}", tree.unwrap()), format!("{expected:#?}"));
        // An error in the last run: the whole file is parsed and diagnosed as before.
        let broken = text.replace("(S3, GO) -> S4;", "(S3, GO) -> S4").replacen(
            &format!("(S{}, GO)", i - 1),
            &format!("(S{}, GO", i - 1),
            1,
        );
        let (tree, diags) = crate::parse::parse(FileId(0), &broken);
        assert_eq!(diags.len(), 2, "{diags:#?}");
        assert!(tree.is_some_and(|t| t.machines.len() == 1 && t.apps.len() == 1));
    }

    #[test]
    fn a_long_body_nested_too_deeply_is_still_an_error() {
        let mut text = String::from("machine M {\n");
        while text.len() < 2 * RUN {
            text.push_str("    state S;\n");
        }
        text.push_str(&format!(
            "    key k: {}u8{};\n}}\n",
            "Vec<".repeat(70),
            ">".repeat(70)
        ));
        assert!(plan(&text, RUN).is_some_and(|p| p.deepest > crate::parse::MAX_NESTING));
        let (tree, diags) = crate::parse::parse(FileId(0), &text);
        assert!(tree.is_none());
        assert!(
            diags[0].message.contains("nesting deeper than"),
            "{diags:#?}"
        );
    }

    /// What parsing was before the fast path: whole, then recovered when it fails. The fast path must give the
    /// same tree and the same diagnostics.
    fn reference(text: &str) -> String {
        use crate::parse::*;
        use fsmc_base::diag::{Code, Diagnostic};
        let file = FileId(0);
        let out = if let Some(at) = too_deep(text, MAX_NESTING) {
            let d = Diagnostic::new(
                Code::Syntax,
                format!("nesting deeper than {MAX_NESTING} levels"),
            )
            .at(Span::new(file, at, at + 1), "nested too deeply here")
            .help("flatten the nested brackets or comments");
            (None, vec![d])
        } else {
            match whole(file, text) {
                Ok(mut tree) => {
                    tree.comments = crate::trivia::comments(file, text);
                    (Some(tree), Vec::new())
                }
                Err(e) if matches!(e.variant, pest::error::ErrorVariant::CustomError { .. }) => {
                    (None, vec![syntax_error(file, text, e)])
                }
                Err(e) => {
                    let failed_at = match e.location {
                        pest::error::InputLocation::Pos(p) => p,
                        pest::error::InputLocation::Span((s, _)) => s,
                    };
                    let (mut tree, mut diags) = recover::parse(file, text, failed_at);
                    tree.comments = crate::trivia::comments(file, text);
                    if diags.is_empty() {
                        diags.push(syntax_error(file, text, e));
                    }
                    (Some(tree), diags)
                }
            }
        };
        format!("{out:#?}")
    }

    /// The public parse, with runs of `run` bytes, against [`reference`].
    fn same_as_reference(text: &str, run: usize) {
        let out = crate::parse::parse_in_runs(FileId(0), text, run, || 1 + run % 3);
        assert_eq!(format!("{out:#?}"), reference(text), "run {run}:\n{text}");
    }

    #[test]
    fn errors_in_pieces_are_reported_as_in_the_whole() {
        // An error in a run, in the head, after the body, in a state's body, past the last run; and two.
        let errors = [
            ("(S3, GO) -> S4;", "(S3, GO) -> S4"),
            ("(S3, GO) -> S4;", "(S3 GO) -> S4;"),
            ("machine Big {", "machine Big: {"),
            ("app A { chain Big; }", "app A { chain Big }"),
            ("state S5 { reads a; }", "state S5 { reads a b; }"),
            ("state S5 { reads a; }", "stat S5 { reads a; }"),
        ];
        let mut text = String::from("/// Big.\nmachine Big {\n    event GO;\n");
        for i in 0..40 {
            text.push_str(&format!(
                "    state S{i} {{ reads a; }}\n    (S{i}, GO) -> S{};\n",
                i + 1
            ));
        }
        text.push_str("    (S40, GO) -> S0;\n}\napp A { chain Big; }\n");
        same_as_reference(&text, 64);
        // How many of the broken files the pieces told where the whole parse stops (rather than parsing whole).
        let mut told = Vec::new();
        for (from, to) in errors {
            let broken = text.replacen(from, to, 1);
            assert_ne!(broken, text);
            for run in [1, 64, 300] {
                same_as_reference(&broken, run);
                let plan = plan(&broken, run).unwrap();
                if let Err(Some(_)) = parse(FileId(0), &broken, &plan, 2) {
                    told.push((to, run));
                }
            }
        }
        assert_eq!(told.len(), errors.len() * 3, "{told:?}");
        let two = text
            .replacen(errors[0].0, errors[0].1, 1)
            .replacen("(S30, GO)", "(S30, GO", 1);
        same_as_reference(&two, 64);
    }

    /// One random edit: a byte range removed, or a piece of grammar put somewhere.
    #[derive(Clone, Debug)]
    enum Edit {
        Remove(usize, usize),
        Insert(usize, &'static str),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        const PIECES: &[&str] = &[
            ";",
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            "\"",
            "/*",
            "*/",
            "//",
            "///",
            "\n",
            " ",
            "\r",
            "\t",
            "\r\n",
            ",",
            "->",
            "start state S;",
            "state",
            "machine",
            "app",
            "(A, B) -> C;",
            "state X { p; }",
            "#",
            "#![allow(x)]",
            "\\",
        ];
        prop_oneof![
            (any::<usize>(), 0usize..40).prop_map(|(at, len)| Edit::Remove(at, len)),
            (any::<usize>(), proptest::sample::select(PIECES))
                .prop_map(|(at, p)| Edit::Insert(at, p)),
        ]
    }

    fn apply(text: &str, edits: &[Edit]) -> String {
        let mut out = text.to_string();
        for e in edits {
            // Positions are taken modulo the length, moved back to a character boundary.
            let at = |p: usize, s: &str| {
                let mut p = p % (s.len() + 1);
                while !s.is_char_boundary(p) {
                    p -= 1;
                }
                p
            };
            match *e {
                Edit::Remove(p, len) => {
                    let a = at(p, &out);
                    let b = at(a + len, &out).max(a);
                    out.replace_range(a..b, "");
                }
                Edit::Insert(p, piece) => {
                    let a = at(p, &out);
                    out.insert_str(a, piece);
                }
            }
        }
        out
    }

    /// What may separate two tokens: nothing (where that keeps them apart), whitespace, comments holding `;` and
    /// braces. `word` is true between two words, which need something.
    fn gap(word: bool) -> impl Strategy<Value = &'static str> {
        const GAPS: &[&str] = &[
            " ",
            "  ",
            "\n    ",
            "\t",
            "\r\n",
            " /* c; } */ ",
            " // c; }\n",
            "\u{FEFF}",
            "/* a /* b; */ c */",
            "\n//// not a doc; }\n",
            "\n\n",
        ];
        let gaps = proptest::sample::select(GAPS);
        if word {
            gaps.boxed()
        } else {
            prop_oneof![3 => Just(""), 2 => gaps].boxed()
        }
    }

    /// A token of a generated member; `Word` tokens need a gap between them.
    #[derive(Clone, Debug)]
    enum Tok {
        Word(String),
        Punct(&'static str),
        /// A doc comment, which runs to the end of its line.
        Doc(&'static str),
    }

    fn name() -> impl Strategy<Value = String> {
        proptest::sample::select(
            &[
                "A", "B", "Start", "state_x", "stateful", "iffy", "event", "key", "GO", "E_1",
                "_x", "do_it",
            ][..],
        )
        .prop_map(str::to_string)
    }

    fn words(ws: &[&str]) -> Vec<Tok> {
        ws.iter().map(|w| Tok::Word(w.to_string())).collect()
    }

    /// One member of a machine body, as tokens.
    fn member() -> impl Strategy<Value = Vec<Tok>> {
        use Tok::*;
        let docs = proptest::collection::vec(
            proptest::sample::select(&["/// doc", "/// doc; } {", "///"][..]).prop_map(Doc),
            0..2,
        );
        let opt = prop_oneof![
            name().prop_map(|n| vec![Word("if".into()), Word(n)]),
            name().prop_map(|n| vec![Word("unless".into()), Word(n)]),
            (name(), name()).prop_map(|(a, b)| vec![
                Word("do".into()),
                Word(a),
                Punct(","),
                Word(b)
            ]),
            name().prop_map(|n| vec![Word("persist".into()), Word(n)]),
        ];
        let transition = (name(), name(), name(), proptest::collection::vec(opt, 0..3)).prop_map(
            |(a, e, b, opts)| {
                let mut t = vec![
                    Punct("("),
                    Word(a),
                    Punct(","),
                    Word(e),
                    Punct(")"),
                    Punct("->"),
                    Word(b),
                ];
                t.extend(opts.into_iter().flatten());
                t.push(Punct(";"));
                t
            },
        );
        let direct = (name(), name(), proptest::option::of(name())).prop_map(|(a, b, c)| {
            let mut t = vec![Word(a), Punct("->"), Word(b)];
            if let Some(c) = c {
                t.extend([Punct(","), Word(c)]);
            }
            t.push(Punct(";"));
            t
        });
        let property = prop_oneof![
            name().prop_map(|n| vec![Word(n), Punct(";")]),
            (name(), name()).prop_map(|(n, v)| vec![Word(n), Punct("="), Word(v), Punct(";")]),
            name().prop_map(|n| vec![Word(n), Punct("\"t; {}.j2\""), Punct(";")]),
            name().prop_map(|n| vec![Word(n), Word("30s".into()), Punct(";")]),
            (name(), name()).prop_map(|(n, a)| vec![
                Word(n),
                Word(a),
                Punct(","),
                Word("b".into()),
                Punct(";")
            ]),
        ];
        let state = (
            proptest::sample::subsequence(&["start", "default", "final"][..], 0..=2),
            name(),
            proptest::option::of(name()),
            proptest::option::of(proptest::collection::vec(property.clone(), 0..3)),
        )
            .prop_map(|(mods, n, kind, body)| {
                let mut t = words(&mods);
                t.extend([Word("state".into()), Word(n)]);
                if let Some(k) = kind {
                    t.extend([Punct(":"), Word(k)]);
                }
                match body {
                    Some(props) => {
                        t.push(Punct("{"));
                        t.extend(props.into_iter().flatten());
                        t.push(Punct("}"));
                    }
                    None => t.push(Punct(";")),
                }
                t
            });
        let event =
            (name(), proptest::bool::ANY, proptest::bool::ANY).prop_map(|(n, fields, timeout)| {
                let mut t = vec![Word("event".into()), Word(n)];
                if fields {
                    t.extend([
                        Punct("("),
                        Word("x".into()),
                        Punct(":"),
                        Punct("["),
                        Word("u8".into()),
                        Punct(";"),
                    ]);
                    t.extend([Word("32".into()), Punct("]"), Punct(")")]);
                }
                if timeout {
                    t.extend(words(&["timeout", "1.5m"]));
                }
                t.extend([Punct(","), Word("OTHER".into()), Punct(";")]);
                t
            });
        let key = (proptest::bool::ANY, name()).prop_map(|(cross, n)| {
            let mut t = if cross {
                words(&["cross_period"])
            } else {
                Vec::new()
            };
            t.extend([
                Word("key".into()),
                Word(n),
                Punct(":"),
                Word("Vec".into()),
                Punct("<"),
            ]);
            t.extend([
                Punct("("),
                Word("u8".into()),
                Punct(","),
                Punct("["),
                Word("u8".into()),
                Punct(";"),
            ]);
            t.extend([
                Word("4".into()),
                Punct("]"),
                Punct(")"),
                Punct(">"),
                Punct(";"),
            ]);
            t
        });
        let body = prop_oneof![4 => transition, 2 => state, 1 => direct, 1 => property, 1 => event, 1 => key];
        (docs, body).prop_map(|(mut d, b)| {
            d.extend(b);
            d
        })
    }

    /// A machine of generated members, with random gaps between its tokens.
    fn machine() -> impl Strategy<Value = String> {
        proptest::collection::vec(member(), 0..12)
            .prop_flat_map(|members| {
                let toks: Vec<Tok> = members.into_iter().flatten().collect();
                let gaps: Vec<_> = toks
                    .windows(2)
                    .map(|w| gap(matches!((&w[0], &w[1]), (Tok::Word(_), Tok::Word(_)))))
                    .collect();
                (Just(toks), gaps)
            })
            .prop_map(|(toks, gaps)| {
                let mut text = String::from("machine M {\n");
                for (i, t) in toks.iter().enumerate() {
                    match t {
                        Tok::Word(w) => text.push_str(w),
                        Tok::Punct(p) => text.push_str(p),
                        Tok::Doc(d) => {
                            text.push_str(d);
                            text.push('\n');
                        }
                    }
                    text.push_str(gaps.get(i).copied().unwrap_or("\n"));
                }
                text.push_str("}\n");
                text
            })
    }

    /// 256 cases, unless `PROPTEST_CASES` asks for more; no failure files in the source tree.
    fn config() -> ProptestConfig {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256);
        ProptestConfig {
            cases,
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        /// Whatever the edits, the pieces parse exactly when the whole does, into the same tree.
        #[test]
        fn edited_specs_parse_the_same_in_pieces(
            spec in 0usize..1000,
            edits in proptest::collection::vec(edit(), 1..4),
            run in prop_oneof![Just(1usize), 1usize..200],
        ) {
            let mut texts: Vec<&str> = shipped_specs().iter().map(|(_, t)| t.as_str()).collect();
            texts.push(TRICKY);
            let text = apply(texts[spec % texts.len()], &edits);
            same_as_whole(&text, run);
            same_as_reference(&text, run);
        }

        /// Brackets, comments and strings in any order: where the scan makes a plan, its nesting is `too_deep`'s.
        #[test]
        fn bracket_soup_nests_as_too_deep_counts(
            parts in proptest::collection::vec(proptest::sample::select(&[
                "{", "}", "(", ")", "[", "]", "<", ">", "->", "/*", "*/", "//c\n", "\"s\"", "a;", " ", "\n",
                "state S;", "(A, B) -> C;",
            ][..]), 0..80),
            run in 1usize..8,
        ) {
            let text = format!("machine M {{ {} }}", parts.concat());
            same_as_whole(&text, run);
        }

        /// Valid machines with every kind of member, separated every way: the pieces make the same tree.
        #[test]
        fn generated_machines_parse_the_same_in_pieces(text in machine(), run in 1usize..64) {
            prop_assert!(whole(&text).is_some(), "not a valid machine:\n{}", text);
            same_as_whole(&text, run);
        }
    }
}
