//! A large file parsed in pieces, as the plan ([`plan`](super::plan)) cuts it, each piece turned into tree nodes
//! before pest's tokens for it are dropped, and the runs of a body shared among threads:
//!
//! - the text up to the first long body's `{` (the entry rule `upto_body`),
//! - the body, in runs of statements (`member*`): the commonest statements read from the lexer's tokens
//!   ([`simple`]), each other one parsed by pest (`one_member`),
//! - the text from the body's `}` to the next long body's `{` (`between_bodies`), or to the end (`after_body`).
//!
//! The runs of a body are independent, so they are shared among threads and their members joined in file order.
//! When a piece does not parse, the first piece that fails tells where parsing the whole file stops
//! ([`failure`]), so that a large file with a mistake is not parsed whole either.

use super::plan::Plan;
use super::simple::{self, Simple};
use crate::ast::{Comment, File, Machine};
use crate::grammar::{FsmParser, Rule};
use crate::lex::Lexer;
use crate::parse::build::{Builder, Origin, empty_machine};
use fsmc_base::source::{FileId, Span};
use pest::Parser as _;

/// Why the pieces made no tree: where parsing the whole file stops, when the pieces tell (see [`failure`]); `None`
/// when the whole file must be parsed to know.
pub(super) type Failed = Option<usize>;

/// Parses `text` in pieces as `plan` cuts it, with the runs of a body shared among up to `threads` threads; its
/// comments are the ones the plan found.
pub(super) fn parse(file: FileId, text: &str, plan: &Plan, threads: usize) -> Result<File, Failed> {
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
            // The run parsed again whole, as `member*` (`only_members`): what pest reports then is what it would
            // report for the whole file.
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
            m.claims.extend(part.claims);
        }
        Ok(())
    })
}

/// Parses the run `text[start..end]` into `m`: the commonest statements from the lexer's tokens ([`simple`]), each
/// other one with pest's `one_member`. Both skip what the grammar skips between statements, so the run makes the
/// tree `member*` makes of it, and fails where it fails.
fn members(file: FileId, text: &str, start: usize, end: usize, m: &mut Machine) -> Option<()> {
    // The run alone: neither the reader nor pest reads past its end.
    let run = text.get(..end)?;
    // Members name nothing of the machine; `named` only says so to `machine_part`.
    let mut named = true;
    let mut tokens = Lexer::new(run, start);
    loop {
        while let Some(member) = simple::member(file, run, &mut tokens) {
            match member {
                Simple::Transition(t) => m.transitions.push(t),
                Simple::State(s) => m.states.push(s),
            }
        }
        // A statement the reader declined starts at the next token; without one, the run is over.
        let Some(next) = tokens.clone().next() else {
            return Some(());
        };
        let i = next.start;
        let root = FsmParser::parse(Rule::one_member, &run[i..]).ok()?.next()?;
        let after = i + root.as_span().end();
        let b = Builder::new(file, Origin::at(i));
        for pair in root.into_inner() {
            b.machine_part(pair, m, &mut named);
        }
        // A member is never empty: this cannot stand still.
        if after <= i {
            return None;
        }
        tokens = Lexer::new(run, after);
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
