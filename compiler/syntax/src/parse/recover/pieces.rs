//! Pieces parsed by pest on their own, each with the entry rule of the grammar for what it is: runs of statements
//! parsed in one call and a failing one split off, and what fails diagnosed and, where one checked edit makes it
//! parse, kept.

use super::split::state_body_open;
use super::{Range, Recover};
use crate::ast::{App, File, Machine, State};
use crate::grammar::{FsmParser, Rule};
use crate::parse::build::{Builder, Edit, Origin};
use crate::parse::diagnose::{self, Ctx, Failure, Fix};
use pest::Parser as _;
use pest::iterators::Pair;

/// The most statements parsed in one call (see [`Recover::statements`]): about as many as the fast path parses at
/// once in a large body (see [`RUN`](crate::fast::RUN)).
const MAX_RUN: usize = 1024;

/// What accumulates the pairs parsed for one node.
pub(super) trait Sink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>);
    /// A state with a body, built from pieces by the recovery.
    fn state(&mut self, _s: State) {}
}

pub(super) struct MachineSink {
    pub(super) m: Machine,
    pub(super) named: bool,
}

impl Sink for MachineSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.machine_part(p, &mut self.m, &mut self.named);
    }
    fn state(&mut self, s: State) {
        self.m.states.push(s);
    }
}

pub(super) struct AppSink {
    pub(super) a: App,
}

impl Sink for AppSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.app_part(p, &mut self.a);
    }
}

pub(super) struct StateSink {
    pub(super) s: State,
    pub(super) named: bool,
}

impl Sink for StateSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.state_part(p, &mut self.s, &mut self.named);
    }
}

pub(super) struct FileSink<'f> {
    pub(super) out: &'f mut File,
}

impl Sink for FileSink<'_> {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        match p.as_rule() {
            Rule::inner_attr => self.out.lints.extend(b.lint_attr(p)),
            Rule::import => self.out.imports.push(b.import(p)),
            _ => {}
        }
    }
}

/// The children of a parsed entry rule, to the sink.
pub(super) fn feed(sink: &mut dyn Sink, b: &Builder, root: Pair<'_, Rule>) {
    for p in root.into_inner() {
        sink.pair(b, p);
    }
}

/// Where pest stopped, and what it expected there.
pub(super) fn failure_of(e: &pest::error::Error<Rule>) -> (usize, Vec<Rule>) {
    let pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let positives = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    (pos, positives)
}

impl Recover<'_> {
    /// Parses statements, feeding what parses to `sink` and reporting what does not. Runs of statements are parsed
    /// in one call; after a failure, the run before the failing statement is parsed again and the failing one on
    /// its own.
    ///
    /// A run holds one statement after an error and twice as many after each run that parses: pest's error costs
    /// time in proportion to its input after the error (it looks for the end of the error's line from the end of
    /// the input), so a run is never much longer than what parsed since the last error, and the whole stays
    /// linear in the size of the body however many statements fail. Nor is a run longer than [`MAX_RUN`]
    /// statements, so that pest's tokens for it stay small however long the body.
    pub(super) fn statements(&mut self, ctx: Ctx, ranges: &[Range], sink: &mut dyn Sink) {
        let mut work = ranges.to_vec();
        let mut i = 0;
        let mut run = 1usize;
        while i < work.len() {
            let j = i.saturating_add(run).min(work.len());
            let (a, b) = (work[i].0, work[j - 1].1);
            // The whole file's parse already failed inside this run: parsing it again would stop at the same place.
            let known = self.known_failure.filter(|&p| a <= p && p < b);
            if known.is_some() {
                self.known_failure = None;
            }
            let (failed_at, error) = match known {
                Some(p) => (p, None),
                None => match self.parse_run(ctx, (a, b), sink) {
                    Ok(()) => {
                        i = j;
                        run = run.saturating_mul(2).min(MAX_RUN);
                        continue;
                    }
                    Err(e) => (a + failure_of(&e).0, Some(e)),
                },
            };
            // A run of one statement failed: that is the statement's own error, no need to parse it again.
            let error = error.filter(|_| j == i + 1);
            run = 1;
            // The statement holding the error: the last one starting at or before it.
            let mut s = i + work[i..j]
                .partition_point(|r| r.0 <= failed_at)
                .saturating_sub(1);
            // Not expected to fail (the run parsed up to the failing statement); if it does, go one at a time.
            if s > i
                && self
                    .parse_run(ctx, (work[i].0, work[s - 1].1), sink)
                    .is_err()
            {
                s = i;
            }
            match self.one(ctx, work[s], sink, error) {
                // A `;` was missing: what followed it is a statement of its own, tried again.
                Some(rest) => {
                    work[s] = rest;
                    i = s;
                }
                None => i = s + 1,
            }
        }
    }

    /// Parses `text[a..b]` as a run of statements into `sink`, or says why it failed.
    pub(super) fn parse_run(
        &mut self,
        ctx: Ctx,
        (a, b): Range,
        sink: &mut dyn Sink,
    ) -> Result<(), pest::error::Error<Rule>> {
        match FsmParser::parse(ctx.rule(), &self.text[a..b]) {
            Ok(mut pairs) => {
                if let Some(root) = pairs.next() {
                    feed(sink, &Builder::new(self.file, Origin::at(a)), root);
                }
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// One statement that did not parse in its run. Returns the part still to parse when it was two statements.
    /// `error` is the statement's own parse error, when that is known already.
    pub(super) fn one(
        &mut self,
        ctx: Ctx,
        (a, b): Range,
        sink: &mut dyn Sink,
        error: Option<pest::error::Error<Rule>>,
    ) -> Option<Range> {
        if let Ctx::Members(profile) = ctx
            && let Some(open) = state_body_open(self.text, a, b)
        {
            self.state_with_body(profile, (a, b), open, sink);
            return None;
        }
        let e = match error {
            Some(e) => e,
            None => match self.parse_run(ctx, (a, b), sink) {
                Ok(()) => return None,
                Err(e) => e,
            },
        };
        let (_, rest) = self.repair(ctx, (a, b), &e, sink);
        rest.filter(|&rest| rest < b).map(|rest| (rest, b))
    }

    /// Reports why `text[a..b]` did not parse (`e`) and parses the diagnosis's repair into `sink`, if it has
    /// one: an edit of the piece, or, where a `;` is missing, the part before it (the part after is returned,
    /// to be parsed as a statement of its own). Says whether the repair parsed.
    fn repair(
        &mut self,
        ctx: Ctx,
        (a, b): Range,
        e: &pest::error::Error<Rule>,
        sink: &mut dyn Sink,
    ) -> (bool, Option<usize>) {
        if !self.diagnosing() {
            self.skipped(self.span(a, a));
            return (false, None);
        }
        match self.diagnose(ctx, (a, b), e) {
            Fix::None => (false, None),
            Fix::Edit { text, edit } => (self.parse_edited(ctx, a, &text, edit, sink), None),
            Fix::Split { at, rest } => {
                let Some(before) = self.text.get(a..at) else {
                    return (false, None);
                };
                let edit = Edit {
                    at: at - a,
                    old_len: 0,
                    new_len: 1,
                };
                let parsed = self.parse_edited(ctx, a, &format!("{before};"), edit, sink);
                (parsed, Some(rest))
            }
        }
    }

    pub(super) fn diagnose(
        &mut self,
        ctx: Ctx,
        (a, b): Range,
        e: &pest::error::Error<Rule>,
    ) -> Fix {
        let (pos, positives) = failure_of(e);
        let f = Failure {
            ctx,
            start: a,
            end: b,
            pos: a + pos,
            positives,
        };
        let (d, fix) = diagnose::explain(self.text, self.file, &f);
        self.report(d);
        fix
    }

    /// One piece parsed on its own (an item's head, an import, an attribute): true when it (or its repair) parsed.
    pub(super) fn piece(&mut self, ctx: Ctx, (a, b): Range, sink: &mut dyn Sink) -> bool {
        match self.parse_run(ctx, (a, b), sink) {
            Ok(()) => true,
            Err(e) => self.repair(ctx, (a, b), &e, sink).0,
        }
    }

    /// Parses a repaired piece (`edited`, which stands for the file's text from `base` with `edit` made) into
    /// `sink`; false when it still does not parse (the piece was reported already, and stays out of the tree).
    pub(super) fn parse_edited(
        &mut self,
        ctx: Ctx,
        base: usize,
        edited: &str,
        edit: Edit,
        sink: &mut dyn Sink,
    ) -> bool {
        let Ok(mut pairs) = FsmParser::parse(ctx.rule(), edited) else {
            return false;
        };
        let origin = Origin {
            base,
            edit: Some(edit),
        };
        if let Some(root) = pairs.next() {
            feed(sink, &Builder::new(self.file, origin), root);
        }
        true
    }
}
