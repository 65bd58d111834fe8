//! The lexer of the `.fsm` language: what a name, a number, a string, a comment (line, doc, nested block) and a
//! punctuation mark are, written once (`lexeme`) and read by every scan of the text that is not pest's.
//!
//! It lexes as the grammar (`grammar/fsm.pest`) does: a string takes any character after a `\` (a line end
//! included) and ends at its line's end if it is not closed; `///` then anything but a fourth `/` is a doc
//! comment, `////…` and `//!…` are ordinary ones; block comments nest; whitespace is a space, a tab, a line end
//! (`\n`, `\r`) or U+FEFF (a byte order mark). It never fails: what it cannot make sense of is a
//! [`Kind::Other`] token, and an unterminated string or block comment is a token of its own kind.
//!
//! It is read in two ways:
//!
//! - [`Lexer`] yields every token, skipping whitespace and ordinary comments: the error recovery, the diagnostics,
//!   the fast path's reader of the commonest statements, the formatter and the language server read it.
//! - `Skim` yields only the lexemes that start at bytes a scan asks for (brackets, say), comments and strings
//!   always among them, and steps over every other byte in a tight loop: collecting comments, bounding nesting
//!   and cutting a large file into pieces read it, at about the speed of a byte search.
//!
//! On a large spec the lexer runs over every byte, and a call per token would cost about what the token does: so
//! its dispatch and the two readers' steps are `#[inline(always)]`.

use crate::ast::CommentKind;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// A digit, then digits, one `.digits` and identifier characters: `30`, `30s`, `1.5m`, but also `30x`, `1A`.
    Number,
    /// A string with its closing quote.
    Str,
    /// A string whose line (or the file) ends before its closing quote; the token ends there.
    OpenStr,
    /// `/// …`, up to the end of the line.
    Doc,
    /// A block comment never closed: the token runs from its `/*` to the end of the file.
    OpenComment,
    /// `->`, `::` or one of `{ } ( ) [ ] < > ; , : = # !`.
    Punct,
    /// Any other character.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    /// No other token comes before it on its line.
    pub line_first: bool,
}

impl Token {
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or("")
    }

    pub fn is(&self, text: &str, punct: &str) -> bool {
        self.kind == Kind::Punct && self.text(text) == punct
    }

    pub fn is_word(&self, text: &str, word: &str) -> bool {
        self.kind == Kind::Ident && self.text(text) == word
    }

    /// The bracket this token is, and whether it opens.
    pub(crate) fn bracket(&self, text: &str) -> Option<(Bracket, bool)> {
        match (self.kind, text.as_bytes().get(self.start..self.end)) {
            (Kind::Punct, Some(&[mark])) => Bracket::of(mark),
            _ => None,
        }
    }
}

/// A pair of brackets: `( )`, `[ ]`, `{ }` or `< >`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bracket {
    Paren,
    Square,
    Brace,
    Angle,
}

impl Bracket {
    /// The bracket the byte `mark` is, and whether it opens.
    #[inline(always)]
    pub fn of(mark: u8) -> Option<(Bracket, bool)> {
        Some(match mark {
            b'(' => (Bracket::Paren, true),
            b')' => (Bracket::Paren, false),
            b'[' => (Bracket::Square, true),
            b']' => (Bracket::Square, false),
            b'{' => (Bracket::Brace, true),
            b'}' => (Bracket::Brace, false),
            b'<' => (Bracket::Angle, true),
            b'>' => (Bracket::Angle, false),
            _ => return None,
        })
    }

    pub fn open(self) -> &'static str {
        match self {
            Bracket::Paren => "(",
            Bracket::Square => "[",
            Bracket::Brace => "{",
            Bracket::Angle => "<",
        }
    }

    pub fn close(self) -> &'static str {
        match self {
            Bracket::Paren => ")",
            Bracket::Square => "]",
            Bracket::Brace => "}",
            Bracket::Angle => ">",
        }
    }
}

/// What starts at a byte that is not whitespace: a token, or a comment the grammar skips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// A token; never [`Kind::OpenComment`], which is a [`Lexeme::Block`] that is not closed.
    Token(Kind),
    /// `// …` up to its line's end (`////…` and `//!…` too).
    Line,
    /// `/* … */`, nesting `depth` levels deep at its innermost (1 when nothing is nested in it); `closed` is false
    /// when the text ends inside it.
    Block { closed: bool, depth: usize },
}

impl Lexeme {
    /// The kind of comment this is, if it is one (a doc comment is a token of the grammar and a comment both).
    pub fn comment(self) -> Option<CommentKind> {
        match self {
            Lexeme::Token(Kind::Doc) => Some(CommentKind::Doc),
            Lexeme::Line => Some(CommentKind::Line),
            Lexeme::Block { .. } => Some(CommentKind::Block),
            Lexeme::Token(_) => None,
        }
    }
}

/// What a byte can start, for the lexer's dispatch: one look in a table, rather than a chain of comparisons, is
/// most of what lexing the commonest tokens costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// ` `, `\t`, `\r`: whitespace.
    Blank,
    /// `\n`: whitespace that starts a line.
    LineEnd,
    /// The first byte of U+FEFF (whitespace), or of another character.
    Ef,
    Word,
    Digit,
    Quote,
    Slash,
    /// A mark that is a token on its own: `{ } ( ) [ ] < > ; , = # !`.
    Mark,
    /// `-`, a token with the `>` of `->`, or another character.
    Dash,
    /// `:`, or `::` with the next.
    Colon,
    Other,
}

const CLASS: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = match b {
            b' ' | b'\t' | b'\r' => Class::Blank,
            b'\n' => Class::LineEnd,
            0xEF => Class::Ef,
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => Class::Word,
            b'0'..=b'9' => Class::Digit,
            b'"' => Class::Quote,
            b'/' => Class::Slash,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b'<' | b'>' | b';' | b',' | b'=' | b'#'
            | b'!' => Class::Mark,
            b'-' => Class::Dash,
            b':' => Class::Colon,
            _ => Class::Other,
        };
        c += 1;
    }
    table
};

/// The lexeme starting at `b[i]`, which is not whitespace, and where it ends.
#[inline(always)]
pub(crate) fn lexeme(b: &[u8], i: usize) -> (Lexeme, usize) {
    lexeme_of(CLASS[b[i] as usize], b, i)
}

/// [`lexeme`], with the class of `b[i]` looked up already.
#[inline(always)]
fn lexeme_of(class: Class, b: &[u8], i: usize) -> (Lexeme, usize) {
    let next = b.get(i + 1).copied();
    let kind = match class {
        Class::Word => return (Lexeme::Token(Kind::Ident), word_end(b, i + 1)),
        Class::Mark => return (Lexeme::Token(Kind::Punct), i + 1),
        Class::Digit => return (Lexeme::Token(Kind::Number), number_end(b, i)),
        Class::Quote => {
            let (end, closed) = string(b, i);
            let kind = if closed { Kind::Str } else { Kind::OpenStr };
            return (Lexeme::Token(kind), end);
        }
        Class::Slash if next == Some(b'/') => return line_comment(b, i),
        Class::Slash if next == Some(b'*') => {
            let c = block_comment(b, i, usize::MAX);
            let lexeme = Lexeme::Block {
                closed: c.closed,
                depth: c.depth,
            };
            return (lexeme, c.end);
        }
        Class::Dash if next == Some(b'>') => return (Lexeme::Token(Kind::Punct), i + 2),
        Class::Colon if next == Some(b':') => return (Lexeme::Token(Kind::Punct), i + 2),
        Class::Colon => Kind::Punct,
        Class::Blank | Class::LineEnd | Class::Ef | Class::Slash | Class::Dash | Class::Other => {
            Kind::Other
        }
    };
    (Lexeme::Token(kind), i + char_len(b[i]))
}

/// The length of the UTF-8 character whose first byte is `lead`.
fn char_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Where the identifier characters from `i` end.
#[inline(always)]
fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(CLASS[b[i] as usize], Class::Word | Class::Digit) {
        i += 1;
    }
    i
}

/// Where the number starting at `i` ends: digits, one `.digits`, then identifier characters (`30s`, `1.5m`).
fn number_end(b: &[u8], i: usize) -> usize {
    let digits_end = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut end = digits_end(i);
    if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits_end(end + 1);
    }
    word_end(b, end)
}

/// The `//` comment at `i`, up to its line's end: a doc comment when `///` is followed by anything but a fourth
/// `/` (the grammar's `doc`), an ordinary one otherwise.
fn line_comment(b: &[u8], i: usize) -> (Lexeme, usize) {
    let doc = b.get(i + 2) == Some(&b'/') && b.get(i + 3) != Some(&b'/');
    let lexeme = if doc {
        Lexeme::Token(Kind::Doc)
    } else {
        Lexeme::Line
    };
    (lexeme, line_end(b, i))
}

/// Where the line holding `i` ends: at its `\n` (a `\r` before it stays on the line), or the end of the text.
fn line_end(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .and_then(|rest| rest.iter().position(|&c| c == b'\n'))
        .map_or(b.len(), |n| i + n)
}

/// The string starting at `b[i]` (a `"`): where it ends, and whether it is closed. An escape takes the next
/// character, whatever it is (the grammar's `"\\" ~ ANY`); an unescaped line end ends a string never closed,
/// before the line end.
fn string(b: &[u8], mut i: usize) -> (usize, bool) {
    i += 1;
    loop {
        match b.get(i) {
            // Stepping over the escape's first byte is enough: the rest of a longer character is never `"`, `\`
            // or a line end.
            Some(b'\\') => i = (i + 2).min(b.len()),
            Some(b'"') => return (i + 1, true),
            Some(b'\n') | None => return (i, false),
            Some(_) => i += 1,
        }
    }
}

/// What a string token means: its quotes removed and its escapes resolved (`\n` and `\t`, and any other
/// character after a `\` as itself: `\"`, `\\`).
pub fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A block comment, as [`block_comment`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockComment {
    /// Just after its last `*/`, or the end of the text.
    pub end: usize,
    pub closed: bool,
    /// How deeply it nests at its innermost: 1 when nothing is nested in it.
    pub depth: usize,
    /// Where its nesting first goes past the limit asked for: the `*` of that `/*`.
    pub past_limit: Option<usize>,
}

/// The block comment starting at `b[i]` (a `/*`). Block comments nest: inside one, only `/*` and `*/` mean
/// anything (a `"` or `//` there is comment text).
pub(crate) fn block_comment(b: &[u8], mut i: usize, limit: usize) -> BlockComment {
    let (mut level, mut depth, mut past_limit) = (0usize, 0usize, None);
    // Only `/` and `*` mean anything here: jump from one to the next.
    while let Some(n) = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|&c| c == b'/' || c == b'*'))
    {
        i += n;
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'*')) => {
                level += 1;
                depth = depth.max(level);
                if level > limit && past_limit.is_none() {
                    past_limit = Some(i + 1);
                }
                i += 2;
            }
            (b'*', Some(b'/')) => {
                level -= 1;
                i += 2;
                if level == 0 {
                    return BlockComment {
                        end: i,
                        closed: true,
                        depth,
                        past_limit,
                    };
                }
            }
            _ => i += 1,
        }
    }
    BlockComment {
        end: b.len(),
        closed: false,
        depth,
        past_limit,
    }
}

const BOM: &str = "\u{FEFF}";

/// `text` (the tokens of one construct, such as a Rust type) as the grammar reads it: every comment and byte
/// order mark between its tokens becomes one space, the rest stays as written. What is pasted into Rust must
/// not keep them: Rust reads `/** … */`, `/*! … */` and `//!` as doc comments where the grammar reads comments,
/// and does not take U+FEFF as whitespace.
pub fn without_trivia(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['/', '\u{FEFF}']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let gap = |out: &mut String, gap: &str| {
        if gap.bytes().all(|c| c.is_ascii_whitespace()) {
            out.push_str(gap);
        } else {
            out.push(' ');
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for t in Lexer::new(text, 0) {
        gap(&mut out, &text[at..t.start]);
        out.push_str(t.text(text));
        at = t.end;
    }
    gap(&mut out, &text[at..]);
    std::borrow::Cow::Owned(out)
}

/// The tokens of `text` from byte `pos` on. Cloning it is cheap: that is how a reader looks ahead.
#[derive(Clone, Debug)]
pub struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    line_first: bool,
}

impl<'t> Lexer<'t> {
    /// Lexes from `pos`, which must be where a token may start (outside strings and comments).
    pub fn new(text: &'t str, pos: usize) -> Lexer<'t> {
        // Only the whitespace right before `pos` is looked at, so making lexers at many places stays linear.
        let before = text
            .get(..pos)
            .unwrap_or("")
            .trim_end_matches([' ', '\t', '\r']);
        let line_first = before.is_empty() || before.ends_with('\n');
        Lexer {
            text,
            pos: pos.min(text.len()),
            line_first,
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.token()
    }
}

impl Lexer<'_> {
    /// The next token: [`Iterator::next`], inlined where a reader of tokens is most of what a large file costs.
    #[inline(always)]
    pub(crate) fn token(&mut self) -> Option<Token> {
        let b = self.text.as_bytes();
        // In locals, not in `self`, while the loop runs.
        let (mut i, mut line_first) = (self.pos, self.line_first);
        let token = loop {
            let Some(&c) = b.get(i) else {
                break None;
            };
            match CLASS[c as usize] {
                Class::Blank => i += 1,
                Class::LineEnd => {
                    i += 1;
                    line_first = true;
                }
                Class::Ef if b[i..].starts_with(BOM.as_bytes()) => i += BOM.len(),
                class => {
                    let start = i;
                    let (lexeme, end) = lexeme_of(class, b, start);
                    i = end;
                    let kind = match lexeme {
                        Lexeme::Token(kind) => kind,
                        Lexeme::Line => continue,
                        Lexeme::Block { closed, .. } => {
                            line_first |= b[start..end].contains(&b'\n');
                            if closed {
                                continue;
                            }
                            // It runs to the end of the text: the last token.
                            Kind::OpenComment
                        }
                    };
                    let token = Token {
                        kind,
                        start,
                        end,
                        line_first,
                    };
                    line_first = false;
                    break Some(token);
                }
            }
        };
        (self.pos, self.line_first) = (i, line_first);
        token
    }
}

/// The bytes at which a [`Skim`] reads a lexeme: `/` and `"` always (a comment or a string may hide any other
/// byte), and the ASCII bytes a scan names.
pub(crate) struct Starts([bool; 256]);

impl Starts {
    pub const fn of(bytes: &[u8]) -> Starts {
        let mut table = [false; 256];
        table[b'/' as usize] = true;
        table[b'"' as usize] = true;
        let mut i = 0;
        while i < bytes.len() {
            // A byte past ASCII may be inside a character.
            assert!(bytes[i].is_ascii());
            table[bytes[i] as usize] = true;
            i += 1;
        }
        Starts(table)
    }
}

/// One lexeme a [`Skim`] read: `text[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lexed {
    pub lexeme: Lexeme,
    pub start: usize,
    pub end: usize,
}

/// The lexemes of a text that start at the bytes a scan asks for ([`Starts`]), outside strings and comments,
/// with every string and comment. Other bytes are stepped over unread, so a byte of a set in the middle of a
/// longer token is read where it is: the `>` of `->` is a `>`, the `s` of `30s` a name.
pub(crate) struct Skim<'t> {
    b: &'t [u8],
    pos: usize,
}

impl<'t> Skim<'t> {
    pub fn new(text: &'t str) -> Skim<'t> {
        Skim {
            b: text.as_bytes(),
            pos: 0,
        }
    }

    /// The next lexeme starting at a byte of `starts`; the set may change from one call to the next.
    #[inline(always)]
    pub fn next(&mut self, starts: &Starts) -> Option<Lexed> {
        let start = self.pos
            + self
                .b
                .get(self.pos..)?
                .iter()
                .position(|&c| starts.0[c as usize])?;
        let (lexeme, end) = lexeme(self.b, start);
        self.pos = end;
        Some(Lexed { lexeme, start, end })
    }
}

/// The tokens of `text[start..end]` (lexed in the context of the whole text, so positions are file offsets).
pub(crate) fn tokens(text: &str, start: usize, end: usize) -> Vec<Token> {
    Lexer::new(text, start)
        .take_while(|t| t.start < end)
        .collect()
}

/// The first token at or after `pos`, if any.
pub(crate) fn token_at(text: &str, pos: usize) -> Option<Token> {
    Lexer::new(text, pos).next()
}

/// Where a label about the end of the file goes: right after its last character that is not whitespace.
pub(crate) fn end_of_text(text: &str) -> usize {
    text.trim_end().len()
}

/// How far the line holding `pos` is indented, in columns (a tab counts as one).
pub(crate) fn indent(text: &str, pos: usize) -> usize {
    let before = text.get(..pos).unwrap_or("");
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

#[cfg(test)]
mod tests;
