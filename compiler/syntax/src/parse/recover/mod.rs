//! Error recovery: after pest rejects a file, find every syntax error in it and keep everything else.
//!
//! A light pass over the tokens ([`lex`]) splits the file into items (`import`, `machine`, `app`, inner
//! attributes) and each body into statements (up to a `;`, or a balanced `{…}` for a state with a body), matching
//! delimiters as it goes. Each piece is then parsed by pest on its own with an entry rule of the grammar
//! (`only_members`, …). Runs of statements are parsed in one call and only a failing one is split off, so the
//! pass stays linear in the size of the file: every byte is parsed about twice. A statement that fails is
//! reported ([`diagnose`]) and left out of the tree, unless one checked edit (a missing `;`, a misspelt keyword)
//! makes it parse.

mod items;
mod pieces;
mod split;

use super::build::Edit;
use super::diagnose::{self, Ctx, describe_found};
use crate::ast::File;
use crate::lex::{self, Kind, Token};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use pieces::FileSink;
use split::{Cursor, attribute, begins_member};

/// Past this many syntax errors in one file the rest is still parsed, but no longer diagnosed: a file that is
/// not a spec at all (a binary, another language) would otherwise bury the first, useful errors.
const MAX_ERRORS: usize = 100;

/// A byte range of the file.
type Range = (usize, usize);

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
        let member = begins_member(t, text);
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
}

/// Whether the current token may start a top-level item (used to end a run of unexpected tokens).
fn top_level_start(cur: &Cursor<'_>) -> bool {
    cur.cur.is_some_and(|t| {
        t.kind == Kind::Doc
            || t.is(cur.text, "#")
            || (t.kind == Kind::Ident && matches!(t.text(cur.text), "machine" | "app" | "import"))
    })
}
