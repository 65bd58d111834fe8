//! The formatter: `.fsm` text in one canonical layout, every comment kept where it was written.
//!
//! It works on the file's tokens and its comments (the trivia the parser collects), never on the tree: it only
//! moves line breaks and spaces, so the formatted file holds the same tokens in the same order and resolves to
//! the same model, and formatting it again changes nothing (both are tested over the shipped specs and generated
//! ones). Only a file that parses is formatted: a partial tree says nothing about the text it left out.
//!
//! The layout:
//!
//! * one statement per line (a member, a property, an import, an attribute, an item's head up to its `{`),
//!   indented four spaces per block; a block's `}` on a line of its own; an empty block is `{}`;
//! * one space between tokens, except none before `,` `;` `:` `)` `]` `>` `::`, none after `(` `[` `<` `::`
//!   `#` `!`, none before `<`, and none before the `(` of fields or an attribute (`Cfp(query: String)`,
//!   `#[allow(x)]`);
//! * blank lines as written, at most one, never right after `{` or before `}`; one after every top-level item,
//!   and between the file's attributes, its imports and its items (before the comments leading the next group);
//! * a state's body written on one line stays on it when it holds no comment and fits;
//! * a statement longer than [`WIDTH`] is broken after the commas of its list (`event A, B, …;`, `reads a, …;`,
//!   `chain …;`, `do a, b`, `A -> B, C`), or when it has none, after the commas of its fields; continuation
//!   lines are indented four more spaces. Nothing else is broken: a long transition stays on its line;
//! * comments stay where they are: one on its own line stays on its own line (at the indentation of what
//!   follows), one after code stays after it on that line, and a `//` comment inside a statement ends the line
//!   there. Comment text is kept as written, less trailing whitespace; a block comment's further lines are kept
//!   byte for byte.
//!
//! `export::fsm` (what `fsmc import` writes) produces its text in any layout and passes it through here, so this
//! module is the one place that decides how `.fsm` text is laid out.

#[cfg(test)]
mod tests;

use fsmc_base::diag::Diagnostic;
use fsmc_base::source::FileId;
use fsmc_syntax::ast::CommentKind;
use fsmc_syntax::lex::{Kind, Lexer};

/// Lines are kept within this many characters where a statement can be broken.
pub const WIDTH: usize = 100;

/// How far each block is indented.
const INDENT: usize = 4;

/// Formats a `.fsm` file. Fails with the file's syntax errors when it does not parse.
pub fn format(file: FileId, text: &str) -> Result<String, Vec<Diagnostic>> {
    let (tree, diags) = fsmc_syntax::parse(file, text);
    let errors: Vec<Diagnostic> = diags.into_iter().filter(Diagnostic::is_error).collect();
    match tree {
        Some(tree) if errors.is_empty() => Ok(layout(&atoms(text, &tree.comments))),
        _ => Err(errors),
    }
}

/// [`format`] for text that is known to parse (generated text): its syntax errors as one message.
pub fn format_str(text: &str) -> Result<String, String> {
    format(FileId(0), text).map_err(|diags| {
        let first = diags.first().map_or("", |d| d.message.as_str());
        format!("internal error: generated `.fsm` text does not parse: {first}")
    })
}

/// What the layout sees: a token or a comment, with the line breaks written before it.
#[derive(Clone, Copy, Debug)]
struct Atom<'t> {
    kind: AtomKind,
    text: &'t str,
    /// Line breaks between the previous atom and this one.
    breaks: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomKind {
    Ident,
    Punct,
    /// Strings, numbers and durations.
    Literal,
    Doc,
    Line,
    Block,
}

impl Atom<'_> {
    fn is(&self, punct: &str) -> bool {
        self.kind == AtomKind::Punct && self.text == punct
    }

    fn is_comment(&self) -> bool {
        matches!(self.kind, AtomKind::Line | AtomKind::Block)
    }
}

/// The file's tokens (doc comments among them) and its other comments, merged in order.
fn atoms<'t>(text: &'t str, comments: &[fsmc_syntax::ast::Comment]) -> Vec<Atom<'t>> {
    let mut spans: Vec<(usize, usize, AtomKind)> = Vec::new();
    let mut comments = comments
        .iter()
        .filter(|c| c.kind != CommentKind::Doc)
        .peekable();
    for t in Lexer::new(text, 0) {
        while let Some(c) = comments.next_if(|c| (c.span.start as usize) < t.start) {
            spans.push((
                c.span.start as usize,
                c.span.end as usize,
                comment_kind(c.kind),
            ));
        }
        let kind = match t.kind {
            Kind::Ident => AtomKind::Ident,
            Kind::Punct => AtomKind::Punct,
            Kind::Doc => AtomKind::Doc,
            // A file that parses has no open strings or comments, nor stray characters.
            Kind::Number | Kind::Str | Kind::OpenStr | Kind::Other => AtomKind::Literal,
            Kind::OpenComment => AtomKind::Block,
        };
        spans.push((t.start, t.end, kind));
    }
    spans.extend(comments.map(|c| {
        (
            c.span.start as usize,
            c.span.end as usize,
            comment_kind(c.kind),
        )
    }));
    let mut out = Vec::with_capacity(spans.len());
    let mut prev_end = 0;
    for (start, end, kind) in spans {
        let gap = text.get(prev_end..start).unwrap_or("");
        out.push(Atom {
            kind,
            text: text.get(start..end).unwrap_or(""),
            breaks: gap.matches('\n').count(),
        });
        prev_end = end;
    }
    out
}

fn comment_kind(kind: CommentKind) -> AtomKind {
    match kind {
        CommentKind::Line => AtomKind::Line,
        CommentKind::Block => AtomKind::Block,
        CommentKind::Doc => AtomKind::Doc,
    }
}

/// The formatted text being built, line by line.
#[derive(Default)]
struct Out {
    lines: Vec<String>,
    /// A blank line is owed before the next line (written only if one follows).
    blank: bool,
}

impl Out {
    fn line(&mut self, indent: usize, text: &str) {
        if self.blank && !self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.blank = false;
        self.lines.push(format!("{}{text}", " ".repeat(indent)));
    }

    /// Appends to the last line (a trailing comment, the `}` of an empty block).
    fn append(&mut self, sep: &str, text: &str) {
        match self.lines.last_mut() {
            Some(last) => {
                last.push_str(sep);
                last.push_str(text);
            }
            None => self.line(0, text),
        }
    }

    fn finish(self) -> String {
        let mut s = self.lines.join("\n");
        if !s.is_empty() {
            s.push('\n');
        }
        s
    }
}

fn layout(atoms: &[Atom<'_>]) -> String {
    let mut out = Out::default();
    let mut depth = 0usize;
    // Right after a `{`: no blank line before what follows.
    let mut opened = true;
    // A top-level item just closed: a blank line before whatever follows.
    let mut item_closed = false;
    // The group of the last top-level statement: a blank line separates the file's attributes, its imports
    // and its items.
    let mut group: Option<Group> = None;
    let mut i = 0;
    while let Some(a) = atoms.get(i) {
        let indent = depth * INDENT;
        // A comment after code on the same line stays there.
        if a.is_comment() && a.breaks == 0 && !out.lines.is_empty() {
            out.append(" ", &comment_text(a));
            i += 1;
            continue;
        }
        if (a.breaks >= 2 && !opened) || item_closed {
            out.blank = true;
        }
        if depth == 0 {
            // Decided at the first atom of a statement or of the comments before it, once.
            let next = group_at(atoms, i);
            if next.is_some() && group.is_some() && group != next {
                out.blank = true;
            }
            group = next.or(group);
        }
        item_closed = false;
        opened = false;
        match a.kind {
            AtomKind::Doc | AtomKind::Line => {
                out.line(indent, a.text.trim_end());
                i += 1;
            }
            AtomKind::Block => {
                out.line(indent, &comment_text(a));
                i += 1;
            }
            _ if a.is("}") => {
                out.blank = false;
                depth = depth.saturating_sub(1);
                out.line(depth * INDENT, "}");
                item_closed = depth == 0;
                i += 1;
            }
            _ => {
                let end = statement_end(atoms, i);
                let stmt = &atoms[i..end];
                for (k, line) in statement_lines(stmt, indent).into_iter().enumerate() {
                    let extra = if k == 0 { 0 } else { INDENT };
                    out.line(indent + extra, &line);
                }
                i = end;
                if stmt.last().is_some_and(|t| t.is("{")) {
                    if atoms.get(i).is_some_and(|t| t.is("}")) {
                        // `{}`: an empty block stays on the head's line.
                        out.append("", "}");
                        item_closed = depth == 0;
                        i += 1;
                    } else if let Some((body, close)) =
                        one_line_body(atoms, i, depth, out.lines.last().map_or(0, |l| width(l)))
                    {
                        out.append(" ", &body);
                        i = close + 1;
                    } else {
                        depth += 1;
                        opened = true;
                    }
                }
            }
        }
    }
    out.finish()
}

/// What a top-level statement is, for the blank lines between kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    /// `#![…]`
    FileAttribute,
    Import,
    /// A machine or an app, with the `#[…]` attributes before it.
    Item,
}

/// The group of the first statement at or after `i` (past the comments before it).
fn group_at(atoms: &[Atom<'_>], i: usize) -> Option<Group> {
    let k = i + atoms
        .get(i..)?
        .iter()
        .position(|a| !a.is_comment() && a.kind != AtomKind::Doc)?;
    let a = &atoms[k];
    Some(
        if a.is("#") && atoms.get(k + 1).is_some_and(|b| b.is("!")) {
            Group::FileAttribute
        } else if a.kind == AtomKind::Ident && a.text == "import" {
            Group::Import
        } else {
            Group::Item
        },
    )
}

/// A state's body written on one line stays on it (`final state Done { ensures price; }`) when it holds no
/// comment and the line fits: the body from `start` (after the `{`) to its `}`, and the index of the `}`.
/// Machine and app bodies are always one member per line.
fn one_line_body(
    atoms: &[Atom<'_>],
    start: usize,
    depth: usize,
    head_width: usize,
) -> Option<(String, usize)> {
    if depth == 0 {
        return None;
    }
    let close = start + atoms.get(start..)?.iter().position(|a| a.is("}"))?;
    let inside = &atoms[start..close];
    let on_one_line = inside
        .iter()
        .chain(std::iter::once(&atoms[close]))
        .all(|a| a.breaks == 0 && !a.is_comment() && a.kind != AtomKind::Doc);
    if !on_one_line {
        return None;
    }
    let mut parts = Vec::new();
    let mut k = 0;
    while k < inside.len() {
        let end = statement_end(inside, k);
        let lines = statement_lines(&inside[k..end], 0);
        let [line] = lines.as_slice() else {
            return None;
        };
        parts.push(line.clone());
        k = end.max(k + 1);
    }
    parts.push("}".to_string());
    let body = parts.join(" ");
    (head_width + 1 + width(&body) <= WIDTH).then_some((body, close))
}

/// A comment's text: trailing whitespace removed from each of its lines.
fn comment_text(a: &Atom<'_>) -> String {
    a.text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the statement starting at `start` ends (exclusive): after its `;` or its `{`, or, for an attribute,
/// after the `]` that closes it. A doc comment or a `}` also ends it (neither occurs inside a statement of a file
/// that parses).
fn statement_end(atoms: &[Atom<'_>], start: usize) -> usize {
    let attribute = atoms.get(start).is_some_and(|a| a.is("#"));
    let mut nesting = 0usize;
    let mut i = start;
    while let Some(a) = atoms.get(i) {
        if i > start && (a.kind == AtomKind::Doc || a.is("}")) {
            return i;
        }
        i += 1;
        if a.kind != AtomKind::Punct {
            continue;
        }
        match a.text {
            "(" | "[" | "<" => nesting += 1,
            ")" | ">" => nesting = nesting.saturating_sub(1),
            "]" => {
                nesting = nesting.saturating_sub(1);
                if attribute && nesting == 0 {
                    return i;
                }
            }
            ";" | "{" if nesting == 0 => return i,
            _ => {}
        }
    }
    i
}

/// Whether a space goes between two neighbours in a statement.
fn spaced(prev: &Atom<'_>, next: &Atom<'_>) -> bool {
    if prev.is_comment() || next.is_comment() {
        return true;
    }
    if next.kind == AtomKind::Punct
        && matches!(next.text, "," | ";" | ":" | ")" | "]" | ">" | "::" | "<")
    {
        return false;
    }
    if prev.kind == AtomKind::Punct && matches!(prev.text, "(" | "[" | "<" | "::" | "#" | "!") {
        return false;
    }
    // Fields `Cfp(query: String)` and an attribute's lints `allow(x)`; a transition's `(` starts its statement.
    // A group of agents, `traders[]`. A property's `not (…)`, `and (…)`, `or (…)` are words before a bracket.
    !((next.is("(") || next.is("["))
        && prev.kind == AtomKind::Ident
        && !matches!(prev.text, "not" | "and" | "or"))
}

/// The lines of one statement (without indentation; the first at the block's indentation, the others four
/// spaces further).
fn statement_lines(stmt: &[Atom<'_>], indent: usize) -> Vec<String> {
    let breaks = break_points(stmt);
    // The statement cut where it may or must break: after each comma of its list, around its comments.
    let mut pieces: Vec<Piece> = Vec::new();
    let mut cur = String::new();
    // The piece being built must begin a line (it starts with a comment written on a line of its own).
    let mut starts_line = false;
    let mut forced = false;
    for (k, a) in stmt.iter().enumerate() {
        // A comment written on a line of its own stays at the start of a line: it begins a piece, which runs on
        // to the next break point as any other (so that the text it is followed by on its line, once formatted,
        // stays there when formatted again).
        let own_line = a.is_comment() && k > 0 && a.breaks > 0;
        if own_line {
            if !cur.is_empty() {
                let mut p = Piece::new(std::mem::take(&mut cur));
                p.starts_line = starts_line;
                pieces.push(p);
            }
            starts_line = true;
            forced = true;
        } else if k > 0 && !cur.is_empty() && spaced(&stmt[k - 1], a) {
            cur.push(' ');
        }
        if a.is_comment() {
            cur.push_str(&comment_text(a));
        } else {
            cur.push_str(a.text);
        }
        // A `//` comment ends its line; so does a block comment that did.
        let ends_line = a.kind == AtomKind::Line
            || (a.kind == AtomKind::Block && stmt.get(k + 1).is_some_and(|n| n.breaks > 0));
        if ends_line || breaks.contains(&k) {
            let mut p = Piece::new(std::mem::take(&mut cur));
            p.starts_line = std::mem::take(&mut starts_line);
            p.ends_line = ends_line;
            forced |= ends_line;
            pieces.push(p);
        }
    }
    if !cur.is_empty() {
        let mut p = Piece::new(cur);
        p.starts_line = starts_line;
        pieces.push(p);
    }
    let one_line = pieces.iter().map(|p| width(&p.text) + 1).sum::<usize>();
    if !forced && indent + one_line.saturating_sub(1) <= WIDTH {
        let joined: Vec<&str> = pieces.iter().map(|p| p.text.as_str()).collect();
        return vec![joined.join(" ")];
    }
    // Fill each line greedily.
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for p in pieces {
        let at = if lines.is_empty() {
            indent
        } else {
            indent + INDENT
        };
        if !line.is_empty() && (p.starts_line || at + width(&line) + 1 + width(&p.text) > WIDTH) {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&p.text);
        if p.ends_line {
            lines.push(std::mem::take(&mut line));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A run of a statement that is never split.
struct Piece {
    text: String,
    /// It must begin a line (a comment written on a line of its own).
    starts_line: bool,
    /// It must end its line (a `//` comment).
    ends_line: bool,
}

impl Piece {
    fn new(text: String) -> Piece {
        Piece {
            text,
            starts_line: false,
            ends_line: false,
        }
    }
}

/// The places after which a long statement may break: the commas outside any bracket, and before a dialogue's
/// `sender do` or `receiver do`; when there are none, the commas directly inside the `(…)` of fields or an
/// attribute (a `(` right after a name). Never inside a type's `<…>`, a tuple or a transition's `(State, EVENT)`.
fn break_points(stmt: &[Atom<'_>]) -> Vec<usize> {
    // For each comma: whether it is outside brackets, and whether it is directly inside a list's `(`.
    let mut open: Vec<bool> = Vec::new();
    let mut top = Vec::new();
    let mut inner = Vec::new();
    for (k, a) in stmt.iter().enumerate() {
        let side = a.kind == AtomKind::Ident
            && fsmc_vocab::ACTION_SIDES.contains(&a.text)
            && stmt.get(k + 1).is_some_and(|n| n.text == "do");
        if side && open.is_empty() && k > 0 {
            top.push(k - 1);
        }
        if a.kind != AtomKind::Punct {
            continue;
        }
        match a.text {
            "(" => {
                let list = k > 0 && stmt[k - 1].kind == AtomKind::Ident;
                open.push(list);
            }
            "[" | "<" => open.push(false),
            ")" | "]" | ">" => {
                open.pop();
            }
            "," if open.is_empty() => top.push(k),
            "," if open.len() == 1 && open[0] => inner.push(k),
            "," if open.len() == 2 && open[1] && stmt.first().is_some_and(|a| a.is("#")) => {
                inner.push(k)
            }
            _ => {}
        }
    }
    if top.is_empty() { inner } else { top }
}

/// Width in characters.
fn width(s: &str) -> usize {
    s.chars().count()
}
