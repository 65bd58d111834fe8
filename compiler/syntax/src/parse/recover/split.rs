//! The recovery's reading of the lexer's tokens: a cursor with lookahead, and where an attribute, an item's head
//! and a statement end, matching delimiters as it goes.

use super::Range;
use crate::lex::{self, Bracket, Kind, Lexer, Token};

/// The tokens of the file with one token of lookahead; cloning it looks further.
#[derive(Clone)]
pub(super) struct Cursor<'t> {
    pub(super) text: &'t str,
    pub(super) lexer: Lexer<'t>,
    pub(super) cur: Option<Token>,
    /// Tokens at or past this offset are not seen (the end of a state's body).
    pub(super) limit: usize,
}

impl<'t> Cursor<'t> {
    pub(super) fn new(text: &'t str, start: usize, limit: usize) -> Cursor<'t> {
        let mut lexer = Lexer::new(text, start);
        let cur = lexer.next().filter(|t| t.start < limit);
        Cursor {
            text,
            lexer,
            cur,
            limit,
        }
    }

    pub(super) fn bump(&mut self) {
        self.cur = self.lexer.next().filter(|t| t.start < self.limit);
    }

    /// The token `n` places after the current one.
    pub(super) fn ahead(&self, n: usize) -> Option<Token> {
        let mut l = self.lexer.clone();
        let mut t = None;
        for _ in 0..n {
            t = l.next();
        }
        t.filter(|t| t.start < self.limit)
    }

    pub(super) fn is(&self, punct: &str) -> bool {
        self.cur.is_some_and(|t| t.is(self.text, punct))
    }

    /// Whether an item (`machine Name {`, `machine Name:`, `app Name {`, `#![`, or doc comments and `#[…]`
    /// attributes before one of those) starts at the current token. Used inside bodies to notice a missing `}`;
    /// an attribute inside a body that no machine or app follows is a mistake of its own, reported where it is.
    pub(super) fn starts_item(&self) -> bool {
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
    pub(super) fn starts_member(&self) -> bool {
        self.cur
            .is_some_and(|t| t.kind == Kind::Doc || begins_member(t, self.text))
    }
}

/// Whether a token is how a member of a machine or app begins (a transition's `(`, a declaration's keyword), and
/// so never an item of its own.
pub(super) fn begins_member(t: Token, text: &str) -> bool {
    t.is(text, "(")
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
            ))
}

/// Consumes an attribute `#[…]` or `#![…]` (on one line) and returns where it ends.
pub(super) fn attribute(cur: &mut Cursor<'_>) -> usize {
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

/// The head of an item, from the token after its keyword (which ends at `from`) up to its `{`, consumed: where it
/// ends, its `{`, and whether a body follows (its `{`, or members on the next lines when the `{` is missing).
pub(super) fn item_head(cur: &mut Cursor<'_>, from: usize) -> (usize, Option<Token>, bool) {
    let text = cur.text;
    let mut end = from;
    while let Some(t) = cur.cur {
        if t.is(text, "{") {
            cur.bump();
            return (end, Some(t), true);
        }
        if t.is(text, ";") || t.is(text, "}") || t.kind == Kind::OpenComment {
            break;
        }
        if t.line_first && cur.starts_item() {
            break;
        }
        // `machine Door` and then members on the next lines: the `{` is missing, the body is there.
        if t.line_first && cur.starts_member() {
            return (end, None, true);
        }
        end = t.end;
        cur.bump();
    }
    (end, None, false)
}

/// One statement from the cursor: up to its `;` (outside brackets, and not the `;` of an array type `[T; N]`), up
/// to the `}` of a body it opens, or up to the body's `}`, the next item or the end of the file when it has no `;`.
pub(super) fn statement(cur: &mut Cursor<'_>) -> Range {
    let text = cur.text;
    let Some(first) = cur.cur else { return (0, 0) };
    let start = first.start;
    let mut end = first.end;
    // Open `{`, `(` and `[` inside the statement (the file's nesting was bounded before recovery started). A `<`
    // need not be: only an open `{` keeps a `;` from ending the statement, and only an open `[` makes it the `;`
    // of an array type.
    let mut open: Vec<Bracket> = Vec::new();
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
        match t.bracket(text) {
            Some((Bracket::Angle, _)) => {}
            Some((b, true)) => open.push(b),
            Some((Bracket::Brace, false)) => {
                let Some(brace) = open.iter().rposition(|&b| b == Bracket::Brace) else {
                    // The body's own `}`: the statement ends before it, without its `;`.
                    break;
                };
                open.truncate(brace);
                end = t.end;
                cur.bump();
                if !open.contains(&Bracket::Brace) {
                    // A state's body closed: that ends the statement.
                    break;
                }
                continue;
            }
            Some((b, false)) if open.last() == Some(&b) => {
                open.pop();
            }
            None if t.is(text, ";") && !open.contains(&Bracket::Brace) => {
                // `[u8; 32]`: the `;` of an array type.
                let array = open.last() == Some(&Bracket::Square)
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
        end = t.end;
        cur.bump();
    }
    (start, end)
}

/// The statements between two offsets (a body's inside), without reporting anything.
pub(super) fn split_statements(text: &str, from: usize, to: usize) -> Vec<Range> {
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
pub(super) fn state_body_open(text: &str, a: usize, b: usize) -> Option<Token> {
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
