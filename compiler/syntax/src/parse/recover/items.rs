//! Machines, apps and states with bodies: an item's head, its body split into statements, and a missing `}`
//! found where the body must have ended.

use super::pieces::{AppSink, MachineSink, Sink, StateSink};
use super::split::{Cursor, attribute, item_head, split_statements, state_body_open, statement};
use super::{Range, Recover};
use crate::lex::{self, Kind, Lexer, Token};
use crate::parse::build::{Edit, empty_app, empty_machine, empty_state};
use crate::parse::diagnose::{Ctx, describe_found, profile_of};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Span;
use fsmc_vocab::Profile;

/// How a body ended.
pub(super) enum End {
    /// At its `}`.
    Closed(Token),
    /// At a token that starts the next item, or at the end of the file: the `}` is missing.
    Unclosed(Option<Token>),
    /// In an unterminated block comment (already reported).
    Comment,
}

impl<'t> Recover<'t> {
    /// How an item is named in messages: "machine `Door`", from its keyword at `start` on.
    pub(super) fn describe_item(&self, kw: &str, start: usize, end: usize) -> String {
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
    pub(super) fn item(
        &mut self,
        kw: &str,
        start: usize,
        cur: &mut Cursor<'t>,
    ) -> Option<(Span, String)> {
        let text = self.text;
        let kw_tok = cur.cur?;
        cur.bump();
        let (head_end, lbrace, has_body) = item_head(cur, kw_tok.end);
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
        let head_ok = self.head(ctx, kw, kw_tok, head, sink);
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

    /// Parses an item's head `text[start..end]` into `sink`, its keyword `kw_tok` respelt `kw` when it is a near
    /// miss (reported here): true when it parsed.
    pub(super) fn head(
        &mut self,
        ctx: Ctx,
        kw: &str,
        kw_tok: Token,
        (start, end): Range,
        sink: &mut dyn Sink,
    ) -> bool {
        let text = self.text;
        let written = kw_tok.text(text);
        if written == kw {
            return self.piece(ctx, (start, end), sink);
        }
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
        edited.push_str(&text[kw_tok.end..end]);
        // A second mistake in the head shows once the keyword is fixed: reporting it against the respelt text
        // could point at the wrong place.
        self.parse_edited(ctx, start, &edited, edit, sink)
    }

    /// An item whose `}` is missing may instead have a state whose `}` is missing: when its last statement is a
    /// state with a body whose `}` starts a line indented less than the state and no more than the item, that `}`
    /// closes the item, and the state's body is the statements indented deeper than the state. Returns the
    /// statements so re-split and the `}` that closes the item.
    pub(super) fn reclose(
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
    pub(super) fn profile(&self, from: usize, to: usize) -> Option<Profile> {
        let toks = lex::tokens(self.text, from, to);
        let name = toks
            .windows(2)
            .find(|w| w[0].is(self.text, ":") && w[1].kind == Kind::Ident)
            .map(|w| w[1].text(self.text));
        profile_of(name)
    }

    /// A body missing its `}`: reported at its `{`, with where it had to end.
    pub(super) fn unclosed_item(&mut self, what: &str, lbrace: Option<Token>, next: Option<Token>) {
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
    pub(super) fn unclosed_brace(
        &mut self,
        open: Token,
        what: &str,
        at: Span,
        label: String,
        member: &str,
    ) {
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
    pub(super) fn describe_item_at(&self, t: Token) -> String {
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

    /// The statements of a body, up to its `}` (consumed), the start of the next item, or the end of the file.
    pub(super) fn body(&mut self, cur: &mut Cursor<'t>) -> (Vec<Range>, End) {
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

    /// A state with a body whose statement did not parse: its head, each property and its `}` are parsed (and
    /// reported) separately, and the state is kept when its head parsed.
    pub(super) fn state_with_body(
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
