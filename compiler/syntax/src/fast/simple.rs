//! The two commonest statements of a long body, read from the lexer's tokens: `(A, EVENT) -> B;` and `state A;`.
//!
//! A large spec is almost nothing but these two lines, and pest spends most of a large check on them: it tries
//! whitespace (and comments) between every two tokens and guards every rule it enters. So the runs of a long body
//! ([`chunk`](super::chunk)) read them here first, and hand every other statement to pest (`one_member`).
//!
//! What is read here is exactly what the grammar's `transition` and `state_decl` match without doc comments,
//! options or a body, and makes the same tree nodes: `(` name `,` name `)` `->` name `;`, and any of `start`,
//! `default`, `final`, then `state` name, an optional `:` kind, and `;`; with whatever the grammar skips between
//! tokens (the lexer skips the same). A statement it declines is parsed by pest from the same place, so declining
//! is always safe; the tests in `fast/tests.rs` hold the pieces' trees, these statements included, equal to the
//! whole file's.

use crate::ast::{State, ThinVec, Transition};
use crate::lex::{Kind, Lexer, Token};
use fsmc_base::source::{FileId, Name, Span};

/// One statement read here.
pub(crate) enum Simple {
    Transition(Transition),
    State(State),
}

/// Reads the statement at the next token of `tokens` if it is one of the two, and moves `tokens` past it; leaves
/// `tokens` where it was otherwise.
pub(crate) fn member<'t>(file: FileId, text: &'t str, tokens: &mut Lexer<'t>) -> Option<Simple> {
    let mut r = Reader {
        file,
        text,
        b: text.as_bytes(),
        tokens: tokens.clone(),
    };
    let first = r.tokens.token()?;
    let read = if r.is(first, b'(') {
        r.transition(first).map(Simple::Transition)
    } else {
        r.state(first).map(Simple::State)
    }?;
    *tokens = r.tokens;
    Some(read)
}

struct Reader<'t> {
    file: FileId,
    text: &'t str,
    b: &'t [u8],
    tokens: Lexer<'t>,
}

impl Reader<'_> {
    /// Whether `t` is the punctuation mark `mark` (`:` is one byte, not the `::` the lexer makes of two).
    #[inline(always)]
    fn is(&self, t: Token, mark: u8) -> bool {
        t.kind == Kind::Punct && self.b[t.start] == mark && t.end == t.start + 1
    }

    /// The punctuation mark `mark` next.
    #[inline(always)]
    fn punct(&mut self, mark: u8) -> Option<Token> {
        self.tokens.token().filter(|&t| self.is(t, mark))
    }

    /// A name next (the grammar's `ident`: an ASCII letter or `_`, then ASCII letters, digits and `_`).
    #[inline(always)]
    fn name(&mut self) -> Option<Token> {
        self.tokens.token().filter(|t| t.kind == Kind::Ident)
    }

    /// The name `t` is, for the tree. Names are made only once the statement has been read, so that one declined
    /// makes none.
    fn to_name(&self, t: Token) -> Name {
        Name::new(
            &self.text[t.start..t.end],
            Span::new(self.file, t.start, t.end),
        )
    }

    /// The rest of a transition whose `(` is `open`.
    fn transition(&mut self, open: Token) -> Option<Transition> {
        let from = self.name()?;
        self.punct(b',')?;
        let event = self.name()?;
        self.punct(b')')?;
        // The lexer makes `->` one token, the only one starting with `-`.
        self.tokens
            .token()
            .filter(|t| t.kind == Kind::Punct && self.b[t.start] == b'-')?;
        let to = self.name()?;
        let semi = self.punct(b';')?;
        Some(Transition {
            docs: ThinVec::new(),
            from: self.to_name(from),
            event: Some(self.to_name(event)),
            to: self.to_name(to),
            guards: ThinVec::new(),
            actions: ThinVec::new(),
            persist: None,
            span: Span::new(self.file, open.start, semi.end),
        })
    }

    /// A state declaration whose first token is `first`.
    fn state(&mut self, first: Token) -> Option<State> {
        // Any of `start`, `default` and `final`, then `state`. A keyword is a whole word, as the grammar's
        // `!ident_char` after it makes it.
        let mut word = first;
        let mut modifiers = 0;
        loop {
            if word.kind != Kind::Ident {
                return None;
            }
            match &self.b[word.start..word.end] {
                b"state" => break,
                b"start" | b"default" | b"final" => modifiers += 1,
                _ => return None,
            }
            word = self.tokens.token()?;
        }
        let name = self.name()?;
        let mut end = self.tokens.token()?;
        let kind = if self.is(end, b':') {
            let kind = self.name()?;
            end = self.tokens.token()?;
            Some(kind)
        } else {
            None
        };
        if !self.is(end, b';') {
            return None;
        }
        // The modifiers again, now that they are known to be the statement's first tokens.
        let modifiers = Lexer::new(self.text, first.start)
            .take(modifiers)
            .map(|t| self.to_name(t))
            .collect();
        Some(State {
            docs: Vec::new(),
            modifiers,
            name: self.to_name(name),
            kind: kind.map(|k| self.to_name(k)),
            properties: Vec::new(),
            span: Span::new(self.file, first.start, end.end),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `text` from its start: what was read, shown with its spans, and where it ends.
    fn read(text: &str) -> Option<(String, usize)> {
        let m = member(FileId(3), text, &mut Lexer::new(text, 0))?;
        Some(match m {
            Simple::Transition(t) => (
                format!(
                    "{}@{:?} {}@{:?} {}@{:?} {:?}",
                    t.from,
                    t.from.span.range(),
                    t.event.as_ref().unwrap(),
                    t.event.as_ref().unwrap().span.range(),
                    t.to,
                    t.to.span.range(),
                    t.span.range()
                ),
                t.span.end as usize,
            ),
            Simple::State(s) => (
                format!(
                    "{:?} {}@{:?} {:?} {:?}",
                    s.modifiers.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                    s.name,
                    s.name.span.range(),
                    s.kind.as_ref().map(|k| k.as_str()),
                    s.span.range()
                ),
                s.span.end as usize,
            ),
        })
    }

    #[test]
    fn reads_the_two_statements_with_exact_spans() {
        assert_eq!(
            read("  (A, GO) -> B; x").unwrap(),
            ("A@3..4 GO@6..8 B@13..14 2..15".to_string(), 15)
        );
        assert_eq!(
            read("(A\n,\tGO )->B ;").unwrap(),
            ("A@1..2 GO@5..7 B@11..12 0..14".to_string(), 14)
        );
        assert_eq!(
            read("default start state S0: kind;").unwrap(),
            (
                "[\"default\", \"start\"] S0@20..22 Some(\"kind\") 0..29".to_string(),
                29
            )
        );
        // Windows line ends are whitespace like any other.
        assert_eq!(
            read("\r\n(A,\r\nGO) -> B\r\n;").unwrap(),
            ("A@3..4 GO@7..9 B@14..15 2..18".to_string(), 18)
        );
        assert_eq!(
            read("state state;").unwrap(),
            ("[] state@6..11 None 0..12".to_string(), 12)
        );
    }

    /// Comments and byte order marks are whitespace to the grammar, and so to the lexer the reader reads: the
    /// statement is read through them, with the spans pest gives it.
    #[test]
    fn reads_through_what_the_grammar_skips() {
        assert_eq!(
            read("(A, GO) -> B // c\n;").unwrap(),
            ("A@1..2 GO@4..6 B@11..12 0..19".to_string(), 19)
        );
        assert_eq!(
            read("(A, /* c */ GO) -> B;").unwrap(),
            ("A@1..2 GO@12..14 B@19..20 0..21".to_string(), 21)
        );
        assert_eq!(
            read("\u{FEFF}(A, GO) -> B;").unwrap(),
            ("A@4..5 GO@7..9 B@14..15 3..16".to_string(), 16)
        );
        assert_eq!(
            read("(A, GO) -> B\u{FEFF};").unwrap(),
            ("A@1..2 GO@4..6 B@11..12 0..16".to_string(), 16)
        );
    }

    /// Anything else is pest's: options, doc comments, bodies, keywords run into names, characters the grammar
    /// does not skip.
    #[test]
    fn declines_everything_else() {
        for text in [
            "(A, GO) -> B if ok;",
            "/// doc\n(A, GO) -> B;",
            "(A, /// doc\nGO) -> B;",
            "(A, GO) - > B;",
            "(A, 1GO) -> B;",
            "(A, GO) -> B",
            "A -> B;",
            "stateS;",
            "startstate S;",
            "state S { p; }",
            "state S: ;",
            "final S;",
            "event GO;",
            "state S\u{c};",
            "(A, GO) -> B /* open",
        ] {
            assert!(read(text).is_none(), "{text:?}");
        }
    }
}
