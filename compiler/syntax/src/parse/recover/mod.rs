//! Error recovery: after pest rejects a file, find every syntax error in it and keep everything else.
//!
//! A light pass over the tokens ([`lex`]) splits the file into items (`import`, `machine`, `app`, inner
//! attributes) and each body into statements (up to a `;`, or a balanced `{…}` for a state with a body), matching
//! delimiters as it goes. Each piece is then parsed by pest on its own with an entry rule of the grammar
//! (`only_members`, …). Runs of statements are parsed in one call and only a failing one is split off, so the
//! pass stays linear in the size of the file: every byte is parsed about twice. A statement that fails is
//! reported ([`diagnose`]) and left out of the tree, unless one checked edit (a missing `;`, a misspelt keyword)
//! makes it parse.

use super::build::{Builder, Edit, Origin, empty_app, empty_machine, empty_state};
use super::diagnose::{self, Ctx, Failure, Fix, describe_found, profile_of};
use crate::ast::{App, File, Machine, State};
use crate::grammar::{FsmParser, Rule};
use crate::lex::{self, Kind, Lexer, Token};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use fsmc_vocab::Profile;
use pest::Parser as _;
use pest::iterators::Pair;

/// Past this many syntax errors in one file the rest is still parsed, but no longer diagnosed: a file that is
/// not a spec at all (a binary, another language) would otherwise bury the first, useful errors.
const MAX_ERRORS: usize = 100;

/// A byte range of the file.
type Range = (usize, usize);

/// The most statements parsed in one call (see [`Recover::statements`]): about as many as the fast path parses at
/// once in a large body (see [`RUN`](crate::fast::RUN)).
const MAX_RUN: usize = 1024;

/// Parses `text` piece by piece, reporting every syntax error. Returns the tree of what parsed. `failed_at` is
/// where parsing the whole file stopped: the run of statements holding it need not be parsed again to find it.
pub(crate) fn parse(file: FileId, text: &str, failed_at: usize) -> (File, Vec<Diagnostic>) {
    let mut r = Recover {
        known_failure: Some(failed_at),
        file,
        text,
        out: File::default(),
        diags: Vec::new(),
        errors: 0,
        unclosed_state: None,
    };
    r.file_items();
    (r.out, r.diags)
}

struct Recover<'t> {
    file: FileId,
    text: &'t str,
    out: File,
    diags: Vec<Diagnostic>,
    errors: usize,
    /// Where parsing the whole file stopped, until a run of statements holding it is parsed (see `statements`).
    known_failure: Option<usize>,
    /// A state body found unclosed by indentation ([`Recover::reclose`]): the offset of its `{`, and the `}` that
    /// closes the item instead, with what the item is.
    unclosed_state: Option<(usize, Span, String)>,
}

/// The tokens of the file with one token of lookahead; cloning it looks further.
#[derive(Clone)]
struct Cursor<'t> {
    text: &'t str,
    lexer: Lexer<'t>,
    cur: Option<Token>,
    /// Tokens at or past this offset are not seen (the end of a state's body).
    limit: usize,
}

impl<'t> Cursor<'t> {
    fn new(text: &'t str, start: usize, limit: usize) -> Cursor<'t> {
        let mut lexer = Lexer::new(text, start);
        let cur = lexer.next().filter(|t| t.start < limit);
        Cursor {
            text,
            lexer,
            cur,
            limit,
        }
    }

    fn bump(&mut self) {
        self.cur = self.lexer.next().filter(|t| t.start < self.limit);
    }

    /// The token `n` places after the current one.
    fn ahead(&self, n: usize) -> Option<Token> {
        let mut l = self.lexer.clone();
        let mut t = None;
        for _ in 0..n {
            t = l.next();
        }
        t.filter(|t| t.start < self.limit)
    }

    fn is(&self, punct: &str) -> bool {
        self.cur.is_some_and(|t| t.is(self.text, punct))
    }

    /// Whether an item (`machine Name {`, `machine Name:`, `app Name {`, `#![`, or doc comments and `#[…]`
    /// attributes before one of those) starts at the current token. Used inside bodies to notice a missing `}`;
    /// an attribute inside a body that no machine or app follows is a mistake of its own, reported where it is.
    fn starts_item(&self) -> bool {
        let text = self.text;
        let mut c = self.clone();
        loop {
            let Some(t) = c.cur else { return false };
            if t.kind == Kind::Doc {
                c.bump();
                continue;
            }
            if t.is(text, "#") {
                match c.ahead(1) {
                    Some(n) if n.is(text, "!") => return true,
                    Some(n) if n.is(text, "[") => {
                        attribute(&mut c);
                        continue;
                    }
                    _ => return false,
                }
            }
            let next_is = |n: usize, p: &str| c.ahead(n).is_some_and(|t| t.is(text, p));
            let named = c.ahead(1).is_some_and(|t| t.kind == Kind::Ident);
            return (t.is_word(text, "machine") && named && (next_is(2, "{") || next_is(2, ":")))
                || (t.is_word(text, "app") && named && next_is(2, "{"));
        }
    }

    /// Whether the current token can only begin a member of a machine (used to notice a head missing its `{`).
    fn starts_member(&self) -> bool {
        let Some(t) = self.cur else { return false };
        t.kind == Kind::Doc
            || t.is(self.text, "(")
            || (t.kind == Kind::Ident
                && matches!(
                    t.text(self.text),
                    "event"
                        | "key"
                        | "cross_period"
                        | "state"
                        | "start"
                        | "default"
                        | "final"
                        | "chain"
                ))
    }
}

/// How a body ended.
enum End {
    /// At its `}`.
    Closed(Token),
    /// At a token that starts the next item, or at the end of the file: the `}` is missing.
    Unclosed(Option<Token>),
    /// In an unterminated block comment (already reported).
    Comment,
}

/// What accumulates the pairs parsed for one node.
trait Sink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>);
    /// A state with a body, built from pieces by the recovery.
    fn state(&mut self, _s: State) {}
}

struct MachineSink {
    m: Machine,
    named: bool,
}

impl Sink for MachineSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.machine_part(p, &mut self.m, &mut self.named);
    }
    fn state(&mut self, s: State) {
        self.m.states.push(s);
    }
}

struct AppSink {
    a: App,
}

impl Sink for AppSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.app_part(p, &mut self.a);
    }
}

struct StateSink {
    s: State,
    named: bool,
}

impl Sink for StateSink {
    fn pair(&mut self, b: &Builder, p: Pair<'_, Rule>) {
        b.state_part(p, &mut self.s, &mut self.named);
    }
}

struct FileSink<'f> {
    out: &'f mut File,
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
fn feed(sink: &mut dyn Sink, b: &Builder, root: Pair<'_, Rule>) {
    for p in root.into_inner() {
        sink.pair(b, p);
    }
}

/// Where pest stopped, and what it expected there.
fn failure_of(e: &pest::error::Error<Rule>) -> (usize, Vec<Rule>) {
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

impl<'t> Recover<'t> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// Reports a syntax error, unless the file already has too many.
    fn report(&mut self, d: Diagnostic) {
        if self.errors < MAX_ERRORS {
            self.diags.push(d);
            self.errors += 1;
        } else {
            let at = d.primary.as_ref().map_or(Span::default(), |l| l.span);
            self.skipped(at);
        }
    }

    /// Counts an error found past the limit; the first one is reported as "too many".
    fn skipped(&mut self, at: Span) {
        if self.errors == MAX_ERRORS {
            self.diags.push(
                Diagnostic::new(
                    Code::Syntax,
                    format!("too many syntax errors; stopping after {MAX_ERRORS}"),
                )
                .at(at, "errors from here on are not reported")
                .help(
                    "fix the errors above first: one mistake early in a file can cause many later",
                ),
            );
        }
        self.errors += 1;
    }

    fn diagnosing(&self) -> bool {
        self.errors < MAX_ERRORS
    }

    // --- the file ------------------------------------------------------------------------------------------

    fn file_items(&mut self) {
        let text = self.text;
        let mut cur = Cursor::new(text, 0, text.len());
        // Doc comments and `#[…]` attributes waiting for the machine or app they belong to: (start, end).
        let mut prefix: Option<Range> = None;
        let mut seen_item = false;
        // Where the last item ended, and what it was: an unexpected token after it may mean it ended too early.
        let mut last_close: Option<(Span, String)> = None;
        while let Some(t) = cur.cur {
            let word = if t.kind == Kind::Ident {
                t.text(text)
            } else {
                ""
            };
            match t.kind {
                Kind::OpenComment => {
                    self.unterminated_comment(t);
                    break;
                }
                Kind::Doc => {
                    let p = prefix.get_or_insert((t.start, t.end));
                    p.1 = t.end;
                    cur.bump();
                    continue;
                }
                _ if t.is(text, "#") => {
                    let inner = cur.ahead(1).is_some_and(|n| n.is(text, "!"));
                    let end = attribute(&mut cur);
                    if inner {
                        if let Some(p) = prefix.take() {
                            self.orphan_prefix(p, "an inner attribute `#![…]`", None);
                        }
                        if seen_item {
                            self.report(
                                Diagnostic::new(Code::Syntax, "inner attribute after an item")
                                    .at(self.span(t.start, end), "`#![…]` must come before every import, machine and app")
                                    .help("move it to the top of the file, or write `#[…]` to apply it to the machine or app that follows"),
                            );
                        } else {
                            self.file_piece(Ctx::InnerAttr, (t.start, end));
                        }
                    } else {
                        let p = prefix.get_or_insert((t.start, end));
                        p.1 = end;
                    }
                    continue;
                }
                _ => {}
            }
            seen_item = true;
            let keyword = match word {
                "machine" | "app" | "import" => Some(word),
                // `machne Door {`: a misspelt item keyword, when what follows has the item's shape.
                _ if t.kind == Kind::Ident => {
                    let next = cur.ahead(1);
                    diagnose::keyword_like(word, &["machine", "app", "import"]).filter(|k| match *k
                    {
                        "import" => next.is_some_and(|n| n.kind == Kind::Str),
                        _ => next.is_some_and(|n| n.kind == Kind::Ident),
                    })
                }
                _ => None,
            };
            match keyword {
                Some("import") => {
                    if let Some(p) = prefix.take() {
                        let import = (
                            self.span(t.start, t.end),
                            "an import takes no doc comments or attributes",
                        );
                        self.orphan_prefix(p, "an import", Some(import));
                    }
                    self.import(&mut cur);
                    last_close = None;
                }
                Some(kw) => {
                    let start = prefix.take().map_or(t.start, |p| p.0);
                    last_close = self.item(kw, start, &mut cur);
                }
                None => {
                    if let Some(p) = prefix.take() {
                        self.orphan_prefix(p, describe_found(text, Some(t)).as_str(), None);
                    }
                    self.junk(&mut cur, last_close.take());
                }
            }
        }
        if let Some(p) = prefix {
            self.orphan_prefix(p, "the end of the file", None);
        }
    }

    /// An import or inner attribute, into the file's lists.
    fn file_piece(&mut self, ctx: Ctx, range: Range) {
        // `piece` needs all of `self`, so the pairs go to a scratch file first.
        let mut scratch = File::default();
        self.piece(ctx, range, &mut FileSink { out: &mut scratch });
        self.out.lints.extend(scratch.lints);
        self.out.imports.extend(scratch.imports);
    }

    /// How an item is named in messages: "machine `Door`", from its keyword at `start` on.
    fn describe_item(&self, kw: &str, start: usize, end: usize) -> String {
        let toks = lex::tokens(self.text, start, end);
        let name = toks
            .get(1)
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text(self.text));
        match name {
            Some(n) => format!("{kw} `{n}`"),
            None => format!("this {kw}"),
        }
    }

    /// `machine …` or `app …` (`kw` as it should be spelt; the word at the cursor may be a near miss of it).
    /// Returns where it closed and what it was, when it closed.
    fn item(&mut self, kw: &str, start: usize, cur: &mut Cursor<'t>) -> Option<(Span, String)> {
        let text = self.text;
        let kw_tok = cur.cur?;
        cur.bump();
        // The head, up to its `{`.
        let mut head_end = kw_tok.end;
        let mut lbrace = None;
        let mut has_body = false;
        while let Some(t) = cur.cur {
            if t.is(text, "{") {
                lbrace = Some(t);
                has_body = true;
                cur.bump();
                break;
            }
            if t.is(text, ";") || t.is(text, "}") || t.kind == Kind::OpenComment {
                break;
            }
            if t.line_first && cur.starts_item() {
                break;
            }
            // `machine Door` and then members on the next lines: the `{` is missing, the body is there.
            if t.line_first && cur.starts_member() {
                has_body = true;
                break;
            }
            head_end = t.end;
            cur.bump();
        }
        let head = (start, lbrace.map_or(head_end, |b| b.end));
        let what = self.describe_item(kw, kw_tok.start, head.1);
        let ctx = if kw == "machine" {
            Ctx::MachineOpen
        } else {
            Ctx::AppOpen
        };
        let profile = if kw == "machine" {
            self.profile(kw_tok.end, head.1)
        } else {
            Some(Profile::Plain)
        };

        let mut machine = MachineSink {
            m: empty_machine(self.span(start, head.1)),
            named: false,
        };
        let mut app = AppSink {
            a: empty_app(self.span(start, head.1)),
        };
        let sink: &mut dyn Sink = if kw == "machine" {
            &mut machine
        } else {
            &mut app
        };
        let written = kw_tok.text(text);
        let head_ok = if written != kw {
            self.report(
                Diagnostic::new(Code::Syntax, format!("unknown keyword `{written}`"))
                    .at(
                        self.span(kw_tok.start, kw_tok.end),
                        format!("did you mean `{kw}`?"),
                    )
                    .help(format!("write `{kw}`")),
            );
            let edit = Edit {
                at: kw_tok.start - start,
                old_len: written.len(),
                new_len: kw.len(),
            };
            let mut edited = text[start..kw_tok.start].to_string();
            edited.push_str(kw);
            edited.push_str(&text[kw_tok.end..head.1]);
            // A second mistake in the head shows once the keyword is fixed: reporting it against the respelt text
            // could point at the wrong place.
            self.parse_edited(ctx, start, &edited, edit, sink)
        } else {
            self.piece(ctx, head, sink)
        };
        if !has_body {
            // Nothing to recover but the head: `machine M;`, or a head cut short by the next item.
            if cur.is(";") {
                cur.bump();
            }
            return None;
        }
        let (mut stmts, mut end) = self.body(cur);
        if let End::Unclosed(_) = end
            && let Some((fixed, close)) = self.reclose(&stmts, start, &what)
        {
            stmts = fixed;
            end = End::Closed(close);
        }
        let members = if kw == "machine" {
            Ctx::Members(profile)
        } else {
            Ctx::AppMembers
        };
        self.statements(members, &stmts, sink);
        let last = stmts.last().map_or(head.1, |r| r.1);
        let (item_end, closed) = match end {
            End::Closed(t) => (t.end, Some((self.span(t.start, t.end), what.clone()))),
            End::Unclosed(next) => {
                self.unclosed_item(&what, lbrace, next);
                (last, None)
            }
            End::Comment => (text.len(), None),
        };
        let span = self.span(start, item_end);
        if head_ok {
            if kw == "machine" {
                machine.m.span = span;
                self.out.machines.push(machine.m);
            } else {
                app.a.span = span;
                self.out.apps.push(app.a);
            }
        }
        closed
    }

    /// An item whose `}` is missing may instead have a state whose `}` is missing: when its last statement is a
    /// state with a body whose `}` starts a line indented less than the state and no more than the item, that `}`
    /// closes the item, and the state's body is the statements indented deeper than the state. Returns the
    /// statements so re-split and the `}` that closes the item.
    fn reclose(
        &mut self,
        stmts: &[Range],
        item_start: usize,
        what: &str,
    ) -> Option<(Vec<Range>, Token)> {
        let text = self.text;
        let &(a, b) = stmts.last()?;
        let open = state_body_open(text, a, b)?;
        let close = lex::tokens(text, open.end, b).into_iter().last()?;
        let state_indent = lex::indent(text, open.start);
        let close_indent = lex::indent(text, close.start);
        if !(close.is(text, "}")
            && close.line_first
            && close_indent < state_indent
            && close_indent <= lex::indent(text, item_start))
        {
            return None;
        }
        // The body's own statements (indented deeper than the state line), then the item's.
        let inner = split_statements(text, open.end, close.start);
        let own = inner
            .iter()
            .position(|&(s, _)| {
                lex::token_at(text, s).is_some_and(|t| t.line_first)
                    && lex::indent(text, s) <= state_indent
            })
            .unwrap_or(inner.len());
        let state_end = if own > 0 { inner[own - 1].1 } else { open.end };
        let mut out = stmts[..stmts.len() - 1].to_vec();
        out.push((a, state_end));
        out.extend_from_slice(&inner[own..]);
        self.unclosed_state = Some((
            open.start,
            self.span(close.start, close.end),
            what.to_string(),
        ));
        Some((out, close))
    }

    /// The profile named in a machine's head (`machine M: abci {`), if any.
    fn profile(&self, from: usize, to: usize) -> Option<Profile> {
        let toks = lex::tokens(self.text, from, to);
        let name = toks
            .windows(2)
            .find(|w| w[0].is(self.text, ":") && w[1].kind == Kind::Ident)
            .map(|w| w[1].text(self.text));
        profile_of(name)
    }

    /// A body missing its `}`: reported at its `{`, with where it had to end.
    fn unclosed_item(&mut self, what: &str, lbrace: Option<Token>, next: Option<Token>) {
        // Without a `{` the missing `{` was reported already; one missing `}` more would only repeat it.
        let Some(open) = lbrace else { return };
        let (at, label) = match next {
            Some(t) => (
                self.span(t.start, t.start),
                format!("{} begins here", self.describe_item_at(t)),
            ),
            None => {
                let end = lex::end_of_text(self.text);
                (self.span(end, end), "the file ends here".to_string())
            }
        };
        self.unclosed_brace(open, what, at, label, "member");
    }

    /// The error for a `{` never closed, at the `{`, with where the body had to end (`at`, `label`).
    fn unclosed_brace(&mut self, open: Token, what: &str, at: Span, label: String, member: &str) {
        self.report(
            Diagnostic::new(
                Code::Syntax,
                format!("unclosed `{{`: {what} has no closing `}}`"),
            )
            .at(self.span(open.start, open.end), "this `{` is never closed")
            .with(at, label)
            .help(format!("add `}}` after the last {member} of {what}")),
        );
    }

    /// How an item starting at token `t` (perhaps with doc comments and attributes) is named: "machine `B`",
    /// "app `X`", or "the next item".
    fn describe_item_at(&self, t: Token) -> String {
        let text = self.text;
        let mut c = Cursor::new(text, t.start, text.len());
        while let Some(u) = c.cur {
            if u.kind == Kind::Doc {
                c.bump();
            } else if u.is(text, "#") {
                attribute(&mut c);
            } else {
                break;
            }
        }
        match (c.cur, c.ahead(1)) {
            (Some(k), Some(n))
                if matches!(k.text(text), "machine" | "app") && n.kind == Kind::Ident =>
            {
                format!("{} `{}`", k.text(text), n.text(text))
            }
            _ => "the next item".to_string(),
        }
    }

    /// `import …;`
    fn import(&mut self, cur: &mut Cursor<'t>) {
        let text = self.text;
        let Some(t) = cur.cur else { return };
        let start = t.start;
        let mut end = t.end;
        cur.bump();
        while let Some(u) = cur.cur {
            if (u.line_first && top_level_start(cur)) || u.kind == Kind::OpenComment {
                break;
            }
            end = u.end;
            cur.bump();
            if u.is(text, ";") {
                break;
            }
        }
        let written = t.text(text);
        if written != "import" {
            self.report(
                Diagnostic::new(Code::Syntax, format!("unknown keyword `{written}`"))
                    .at(self.span(t.start, t.end), "did you mean `import`?")
                    .help("write `import`"),
            );
            let mut edited = "import".to_string();
            edited.push_str(&text[t.end..end]);
            let edit = Edit {
                at: 0,
                old_len: written.len(),
                new_len: "import".len(),
            };
            let mut scratch = File::default();
            self.parse_edited(
                Ctx::Import,
                start,
                &edited,
                edit,
                &mut FileSink { out: &mut scratch },
            );
            self.out.imports.extend(scratch.imports);
            return;
        }
        self.file_piece(Ctx::Import, (start, end));
    }

    /// Tokens at the top level that start no item: one error for the run, up to where an item may start.
    fn junk(&mut self, cur: &mut Cursor<'t>, last_close: Option<(Span, String)>) {
        let text = self.text;
        let Some(t) = cur.cur else { return };
        cur.bump();
        if t.is(text, "}") {
            let mut d = Diagnostic::new(Code::Syntax, "unexpected closing `}`")
                .at(self.span(t.start, t.end), "unmatched `}`")
                .help("remove it, or look for a `{` missing before it");
            if let Some((span, what)) = last_close {
                d = d.with(span, format!("this `}}` already closed {what}"));
            }
            self.report(d);
            return;
        }
        while let Some(u) = cur.cur {
            if (u.line_first && top_level_start(cur)) || u.kind == Kind::OpenComment {
                break;
            }
            cur.bump();
        }
        let member = t.is(text, "(")
            || (t.kind == Kind::Ident
                && matches!(
                    t.text(text),
                    "event"
                        | "key"
                        | "cross_period"
                        | "state"
                        | "start"
                        | "default"
                        | "final"
                        | "chain"
                ));
        let found = describe_found(text, Some(t));
        let mut d = Diagnostic::new(
            Code::Syntax,
            format!("expected `machine`, `app` or `import`, found {found}"),
        )
        .at(self.span(t.start, t.end), "expected an item");
        d = if member {
            d.help("events, keys, states and transitions are declared inside a machine: `machine Name { … }`")
        } else {
            d.help(
                "a file holds imports, machines (`machine Name { … }`) and apps (`app Name { … }`)",
            )
        };
        if let Some((span, what)) = last_close {
            d = d.with(span, format!("{what} ends here"));
        }
        self.report(d);
    }

    /// Doc comments or attributes with no machine or app after them.
    fn orphan_prefix(&mut self, (start, end): Range, before: &str, next: Option<(Span, &str)>) {
        let toks = lex::tokens(self.text, start, end);
        let mut d = if toks.iter().any(|t| t.is(self.text, "#")) {
            Diagnostic::new(Code::Syntax, format!("attribute before {before}"))
                .at(self.span(start, end), "`#[…]` applies to the machine or app right after it")
                .help("put it right before a machine or an app, or write `#![…]` at the top of the file for the whole file")
        } else {
            Diagnostic::new(Code::Syntax, format!("doc comment before {before}"))
                .at(self.span(start, end), "this doc comment documents nothing")
                .help("doc comments (`///`) go right before a machine, an app, or a member; use `//` for an ordinary comment")
        };
        if let Some((span, label)) = next {
            d = d.with(span, label);
        }
        self.report(d);
    }

    fn unterminated_comment(&mut self, t: Token) {
        let end = lex::end_of_text(self.text);
        self.report(
            Diagnostic::new(Code::Syntax, "unterminated block comment")
                .at(self.span(t.start, (t.start + 2).min(end)), "this comment is never closed")
                .with(self.span(end, end), "the file ends inside the comment")
                .help("close it with `*/`; block comments nest, so each `/*` inside it needs its own `*/`"),
        );
    }

    // --- bodies and statements ------------------------------------------------------------------------------

    /// The statements of a body, up to its `}` (consumed), the start of the next item, or the end of the file.
    fn body(&mut self, cur: &mut Cursor<'t>) -> (Vec<Range>, End) {
        let text = self.text;
        let mut stmts = Vec::new();
        loop {
            let Some(t) = cur.cur else {
                return (stmts, End::Unclosed(None));
            };
            if t.kind == Kind::OpenComment {
                self.unterminated_comment(t);
                cur.bump();
                return (stmts, End::Comment);
            }
            if t.is(text, "}") {
                cur.bump();
                return (stmts, End::Closed(t));
            }
            if t.line_first && cur.starts_item() {
                return (stmts, End::Unclosed(Some(t)));
            }
            if t.is(text, ";") {
                // Stray semicolons: one error for a run of them.
                let mut end = t.end;
                cur.bump();
                while let Some(u) = cur.cur.filter(|u| u.is(text, ";")) {
                    end = u.end;
                    cur.bump();
                }
                self.report(
                    Diagnostic::new(Code::Syntax, "unexpected `;`")
                        .at(self.span(t.start, end), "nothing to end here")
                        .help("remove it: a state with a body `{ … }` needs no `;` after it, and nothing is ended by a `;` on its own"),
                );
                continue;
            }
            stmts.push(statement(cur));
        }
    }

    /// Parses statements, feeding what parses to `sink` and reporting what does not. Runs of statements are parsed
    /// in one call; after a failure, the run before the failing statement is parsed again and the failing one on
    /// its own.
    ///
    /// A run holds one statement after an error and twice as many after each run that parses: pest's error costs
    /// time in proportion to its input after the error (it looks for the end of the error's line from the end of
    /// the input), so a run is never much longer than what parsed since the last error, and the whole stays
    /// linear in the size of the body however many statements fail. Nor is a run longer than [`MAX_RUN`]
    /// statements, so that pest's tokens for it stay small however long the body.
    fn statements(&mut self, ctx: Ctx, ranges: &[Range], sink: &mut dyn Sink) {
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
    fn parse_run(
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
    fn one(
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
        if !self.diagnosing() {
            self.skipped(self.span(a, a));
            return None;
        }
        match self.diagnose(ctx, (a, b), &e) {
            Fix::None => None,
            Fix::Edit { text, edit } => {
                self.parse_edited(ctx, a, &text, edit, sink);
                None
            }
            Fix::Split { at, rest } => {
                let mut prefix = self.text.get(a..at).map(str::to_string)?;
                prefix.push(';');
                let edit = Edit {
                    at: at - a,
                    old_len: 0,
                    new_len: 1,
                };
                self.parse_edited(ctx, a, &prefix, edit, sink);
                (rest < b).then_some((rest, b))
            }
        }
    }

    fn diagnose(&mut self, ctx: Ctx, (a, b): Range, e: &pest::error::Error<Rule>) -> Fix {
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
    fn piece(&mut self, ctx: Ctx, (a, b): Range, sink: &mut dyn Sink) -> bool {
        let e = match FsmParser::parse(ctx.rule(), &self.text[a..b]) {
            Ok(mut pairs) => {
                if let Some(root) = pairs.next() {
                    feed(sink, &Builder::new(self.file, Origin::at(a)), root);
                }
                return true;
            }
            Err(e) => e,
        };
        if !self.diagnosing() {
            self.skipped(self.span(a, a));
            return false;
        }
        match self.diagnose(ctx, (a, b), &e) {
            Fix::None => false,
            Fix::Edit { text, edit } => self.parse_edited(ctx, a, &text, edit, sink),
            Fix::Split { at, .. } => {
                let Some(mut prefix) = self.text.get(a..at).map(str::to_string) else {
                    return false;
                };
                prefix.push(';');
                let edit = Edit {
                    at: at - a,
                    old_len: 0,
                    new_len: 1,
                };
                self.parse_edited(ctx, a, &prefix, edit, sink)
            }
        }
    }

    /// Parses a repaired piece (`edited`, which stands for the file's text from `base` with `edit` made) into
    /// `sink`; false when it still does not parse (the piece was reported already, and stays out of the tree).
    fn parse_edited(
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

    /// A state with a body whose statement did not parse: its head, each property and its `}` are parsed (and
    /// reported) separately, and the state is kept when its head parsed.
    fn state_with_body(
        &mut self,
        profile: Option<Profile>,
        (a, b): Range,
        open: Token,
        sink: &mut dyn Sink,
    ) {
        let text = self.text;
        // The `}` matching the body's `{`.
        let mut depth = 0usize;
        let mut close = None;
        for t in Lexer::new(text, open.start).take_while(|t| t.start < b) {
            if t.is(text, "{") {
                depth += 1;
            } else if t.is(text, "}") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    close = Some(t);
                    break;
                }
            }
        }
        let mut state = StateSink {
            s: empty_state(self.span(a, b)),
            named: false,
        };
        let head_ok = self.piece(Ctx::StateOpen(profile), (a, open.end), &mut state);
        let limit = close.map_or(b, |c| c.start);
        let mut cur = Cursor::new(text, open.end, limit);
        let (props, _) = self.body(&mut cur);
        self.statements(Ctx::Properties(profile), &props, &mut state);
        if close.is_none() {
            let name = state.s.name.text.clone();
            let what = if name.is_empty() {
                "this state".to_string()
            } else {
                format!("state `{name}`")
            };
            let next = lex::token_at(text, b);
            let (at, label) = match (self.unclosed_state.take(), next) {
                (Some((o, close, item)), _) if o == open.start => (
                    close,
                    format!("this `}}` is indented like the end of {item}, so it closes {item}"),
                ),
                (_, Some(t)) => (
                    self.span(t.start, t.start),
                    format!("expected `}}` before {}", describe_found(text, Some(t))),
                ),
                (_, None) => {
                    let end = lex::end_of_text(text);
                    (self.span(end, end), "the file ends here".to_string())
                }
            };
            self.unclosed_brace(open, &what, at, label, "property");
        }
        if head_ok {
            sink.state(state.s);
        }
    }
}

/// Whether the current token may start a top-level item (used to end a run of unexpected tokens).
fn top_level_start(cur: &Cursor<'_>) -> bool {
    cur.cur.is_some_and(|t| {
        t.kind == Kind::Doc
            || t.is(cur.text, "#")
            || (t.kind == Kind::Ident && matches!(t.text(cur.text), "machine" | "app" | "import"))
    })
}

/// Consumes an attribute `#[…]` or `#![…]` (on one line) and returns where it ends.
fn attribute(cur: &mut Cursor<'_>) -> usize {
    let text = cur.text;
    let Some(t) = cur.cur else { return 0 };
    let mut end = t.end;
    cur.bump();
    let mut depth = 0usize;
    while let Some(u) = cur.cur {
        if u.line_first || u.kind == Kind::OpenComment || u.is(text, "{") || u.is(text, ";") {
            break;
        }
        end = u.end;
        cur.bump();
        if u.is(text, "[") {
            depth += 1;
        } else if u.is(text, "]") {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                break;
            }
        }
    }
    end
}

/// One statement from the cursor: up to its `;` (outside brackets, and not the `;` of an array type `[T; N]`), up
/// to the `}` of a body it opens, or up to the body's `}`, the next item or the end of the file when it has no `;`.
fn statement(cur: &mut Cursor<'_>) -> Range {
    let text = cur.text;
    let Some(first) = cur.cur else { return (0, 0) };
    let start = first.start;
    let mut end = first.end;
    // Open `{`, `(` and `[` inside the statement (the file's nesting was bounded before recovery started).
    let mut open: Vec<u8> = Vec::new();
    // Whether the current run of doc comments and attributes was looked through already (by the body, for the
    // first token): looking again from each line of the run would be quadratic, and would find the same answer.
    let prefix = |t: &Token| t.kind == Kind::Doc || t.is(text, "#");
    let mut run_seen = prefix(&first);
    while let Some(t) = cur.cur {
        if t.start > start && t.line_first && !(prefix(&t) && run_seen) && cur.starts_item() {
            break;
        }
        if prefix(&t) {
            run_seen = true;
        } else if t.line_first {
            run_seen = false;
        }
        if t.kind == Kind::OpenComment {
            break;
        }
        if t.kind == Kind::Punct {
            match t.text(text) {
                "{" => open.push(b'{'),
                "(" => open.push(b'('),
                "[" => open.push(b'['),
                ")" | "]" => {
                    let want = if t.text(text) == ")" { b'(' } else { b'[' };
                    if open.last() == Some(&want) {
                        open.pop();
                    }
                }
                "}" => {
                    let Some(brace) = open.iter().rposition(|&c| c == b'{') else {
                        // The body's own `}`: the statement ends before it, without its `;`.
                        break;
                    };
                    open.truncate(brace);
                    end = t.end;
                    cur.bump();
                    if !open.contains(&b'{') {
                        // A state's body closed: that ends the statement.
                        break;
                    }
                    continue;
                }
                ";" if !open.contains(&b'{') => {
                    // `[u8; 32]`: the `;` of an array type.
                    let array = open.last() == Some(&b'[')
                        && cur.ahead(1).is_some_and(|n| n.kind == Kind::Number)
                        && cur.ahead(2).is_some_and(|n| n.is(text, "]"));
                    if !array {
                        end = t.end;
                        cur.bump();
                        break;
                    }
                }
                _ => {}
            }
        }
        end = t.end;
        cur.bump();
    }
    (start, end)
}

/// The statements between two offsets (a body's inside), without reporting anything.
fn split_statements(text: &str, from: usize, to: usize) -> Vec<Range> {
    let mut cur = Cursor::new(text, from, to);
    let mut out = Vec::new();
    while let Some(t) = cur.cur {
        if t.is(text, ";") || t.is(text, "}") || t.kind == Kind::OpenComment {
            cur.bump();
            continue;
        }
        out.push(statement(&mut cur));
    }
    out
}

/// The `{` of a state's body, if the statement `text[a..b]` is a state with one (`… state Name … {`).
fn state_body_open(text: &str, a: usize, b: usize) -> Option<Token> {
    let toks = lex::tokens(text, a, b);
    let mut words = toks
        .iter()
        .filter(|t| t.kind != Kind::Doc)
        .take_while(|t| t.kind == Kind::Ident);
    if !words.any(|t| t.is_word(text, "state")) {
        return None;
    }
    toks.iter().find(|t| t.is(text, "{")).copied()
}
