//! A small lexer for error recovery. It lexes as the grammar does (strings with escapes, nesting block comments,
//! `///` doc comments, `->` and `::`), so that the recovery can find item and statement boundaries, match
//! delimiters and name the token an error is at. It never fails: what it cannot make sense of is an
//! [`Kind::Other`] token, an unterminated string or comment is a token of its own kind.

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
}

/// The tokens of `text` from byte `pos` on. Cloning it is cheap: that is how the recovery looks ahead.
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

    fn byte(&self, i: usize) -> Option<u8> {
        self.text.as_bytes().get(i).copied()
    }

    fn char_len(&self, i: usize) -> usize {
        self.text
            .get(i..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    /// Skips whitespace and comments (not doc comments). Returns an unterminated block comment as a token.
    fn skip(&mut self) -> Option<Token> {
        while let Some(b) = self.byte(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.line_first = true;
                }
                // U+FEFF (a byte order mark) is whitespace to the grammar.
                0xEF if self
                    .text
                    .get(self.pos..)
                    .is_some_and(|s| s.starts_with('\u{FEFF}')) =>
                {
                    self.pos += 3
                }
                b'/' if self.byte(self.pos + 1) == Some(b'/') => {
                    let doc = self.byte(self.pos + 2) == Some(b'/')
                        && self.byte(self.pos + 3) != Some(b'/');
                    if doc {
                        return None;
                    }
                    while self.byte(self.pos).is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                b'/' if self.byte(self.pos + 1) == Some(b'*') => {
                    let start = self.pos;
                    let mut depth = 0usize;
                    loop {
                        match (self.byte(self.pos), self.byte(self.pos + 1)) {
                            (Some(b'/'), Some(b'*')) => {
                                depth += 1;
                                self.pos += 2;
                            }
                            (Some(b'*'), Some(b'/')) => {
                                depth -= 1;
                                self.pos += 2;
                                if depth == 0 {
                                    break;
                                }
                            }
                            (Some(b'\n'), _) => {
                                self.line_first = true;
                                self.pos += 1;
                            }
                            (Some(_), _) => self.pos += 1,
                            (None, _) => {
                                let t = Token {
                                    kind: Kind::OpenComment,
                                    start,
                                    end: self.text.len(),
                                    line_first: self.line_first,
                                };
                                return Some(t);
                            }
                        }
                    }
                }
                _ => return None,
            }
        }
        None
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        if let Some(comment) = self.skip() {
            self.pos = self.text.len();
            return Some(comment);
        }
        let start = self.pos;
        let b = self.byte(start)?;
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let kind = match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                while self.byte(self.pos).is_some_and(word) {
                    self.pos += 1;
                }
                Kind::Ident
            }
            b'0'..=b'9' => {
                while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
                if self.byte(self.pos) == Some(b'.')
                    && self.byte(self.pos + 1).is_some_and(|b| b.is_ascii_digit())
                {
                    self.pos += 1;
                    while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
                        self.pos += 1;
                    }
                }
                while self.byte(self.pos).is_some_and(word) {
                    self.pos += 1;
                }
                Kind::Number
            }
            b'"' => {
                self.pos += 1;
                loop {
                    match self.byte(self.pos) {
                        // An escape takes the next character whatever it is, a line end included.
                        Some(b'\\') => {
                            self.pos += 1;
                            if self.byte(self.pos).is_some() {
                                self.pos += self.char_len(self.pos);
                            }
                        }
                        Some(b'"') => {
                            self.pos += 1;
                            break Kind::Str;
                        }
                        Some(b'\n') | None => break Kind::OpenStr,
                        Some(_) => self.pos += 1,
                    }
                }
            }
            b'/' if self.byte(start + 1) == Some(b'/') => {
                while self.byte(self.pos).is_some_and(|b| b != b'\n') {
                    self.pos += 1;
                }
                // A carriage return before the line end belongs to the line end, as in the grammar's view of
                // `\r\n` (the doc text is trimmed anyway).
                Kind::Doc
            }
            b'-' if self.byte(start + 1) == Some(b'>') => {
                self.pos += 2;
                Kind::Punct
            }
            b':' if self.byte(start + 1) == Some(b':') => {
                self.pos += 2;
                Kind::Punct
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b'<' | b'>' | b';' | b',' | b':' | b'='
            | b'#' | b'!' => {
                self.pos += 1;
                Kind::Punct
            }
            _ => {
                self.pos += self.char_len(start);
                Kind::Other
            }
        };
        let line_first = std::mem::replace(&mut self.line_first, false);
        Some(Token {
            kind,
            start,
            end: self.pos,
            line_first,
        })
    }
}

/// The tokens of `text[start..end]` (lexed in the context of the whole text, so positions are file offsets).
pub fn tokens(text: &str, start: usize, end: usize) -> Vec<Token> {
    Lexer::new(text, start)
        .take_while(|t| t.start < end)
        .collect()
}

/// The first token at or after `pos`, if any.
pub fn token_at(text: &str, pos: usize) -> Option<Token> {
    Lexer::new(text, pos).next()
}

/// Where a label about the end of the file goes: right after its last character that is not whitespace.
pub fn end_of_text(text: &str) -> usize {
    text.trim_end().len()
}

/// How far the line holding `pos` is indented, in columns (a tab counts as one).
pub fn indent(text: &str, pos: usize) -> usize {
    let before = text.get(..pos).unwrap_or("");
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        Lexer::new(text, 0)
            .map(|t| (t.kind, t.text(text)))
            .collect()
    }

    #[test]
    fn lexes_like_the_grammar() {
        assert_eq!(
            kinds("(A, GO) -> B; // c\n/// doc\n/* a /* b */ c */ x::y 1.5m 30x \"a\\\"b\""),
            [
                (Kind::Punct, "("),
                (Kind::Ident, "A"),
                (Kind::Punct, ","),
                (Kind::Ident, "GO"),
                (Kind::Punct, ")"),
                (Kind::Punct, "->"),
                (Kind::Ident, "B"),
                (Kind::Punct, ";"),
                (Kind::Doc, "/// doc"),
                (Kind::Ident, "x"),
                (Kind::Punct, "::"),
                (Kind::Ident, "y"),
                (Kind::Number, "1.5m"),
                (Kind::Number, "30x"),
                (Kind::Str, "\"a\\\"b\""),
            ]
        );
        assert_eq!(kinds("//// not a doc\nx"), [(Kind::Ident, "x")]);
        assert_eq!(
            kinds("\"open\nx"),
            [(Kind::OpenStr, "\"open"), (Kind::Ident, "x")]
        );
        assert_eq!(
            kinds("x /* /* */"),
            [(Kind::Ident, "x"), (Kind::OpenComment, "/* /* */")]
        );
        assert_eq!(kinds("é"), [(Kind::Other, "é")]);
    }

    #[test]
    fn knows_the_first_token_of_a_line() {
        let text = "a b\n  c /* \n */ d";
        let firsts: Vec<bool> = Lexer::new(text, 0).map(|t| t.line_first).collect();
        assert_eq!(firsts, [true, false, true, true]);
        assert_eq!(indent(text, 6), 2);
    }
}
