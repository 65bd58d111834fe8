//! The two commonest statements of a long body, read byte by byte: `(A, EVENT) -> B;` and `state A;`.
//!
//! A large spec is almost nothing but these two lines, and pest spends most of a large check on them: it tries
//! whitespace (and comments) between every two tokens and guards every rule it enters. So the runs of a long body
//! ([`chunk`](super::chunk)) read them here first, and hand every other statement to pest (`one_member`).
//!
//! What is read here is exactly what the grammar's `fast_transition` and `fast_state` would match at the same
//! place, and makes the same tree nodes: `(` name `,` name `)` `->` name `;`, and any of `start`, `default`,
//! `final`, then `state` name, an optional `:` kind, and `;`; with only spaces, tabs, line feeds and carriage
//! returns between tokens (the grammar's `WHITESPACE` without comments and byte order marks, which make this
//! decline). A statement it declines is parsed by pest from the same place, so declining is always safe;
//! the tests in `chunk.rs` hold the pieces' trees, these statements included, equal to the whole file's.

use crate::ast::{State, ThinVec, Transition};
use fsmc_base::source::{FileId, Name, Span};

/// One statement read here.
pub(crate) enum Simple {
    Transition(Transition),
    State(State),
}

/// The first position at or after `i` (and before `end`) that is not a space, tab, line feed or carriage return.
pub(crate) fn skip_blank(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Reads the statement starting at `i` (a non-blank byte) of `text[..end]` if it is one of the two, with the
/// position just after its `;`.
pub(crate) fn member(file: FileId, text: &str, i: usize, end: usize) -> Option<(Simple, usize)> {
    let mut r = Reader {
        file,
        text,
        b: text.as_bytes().get(..end)?,
        i,
    };
    if r.b.get(i) == Some(&b'(') {
        return r.transition().map(|t| (Simple::Transition(t), r.i));
    }
    r.state().map(|s| (Simple::State(s), r.i))
}

struct Reader<'t> {
    file: FileId,
    text: &'t str,
    b: &'t [u8],
    i: usize,
}

impl Reader<'_> {
    fn blank(&mut self) {
        self.i = skip_blank(self.b, self.i, self.b.len());
    }

    /// `c`, after blanks.
    fn punct(&mut self, c: u8) -> Option<()> {
        self.blank();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    /// A name (the grammar's `ident`: an ASCII letter or `_`, then ASCII letters, digits and `_`), after blanks.
    fn name(&mut self) -> Option<Name> {
        self.blank();
        let start = self.i;
        let first = *self.b.get(start)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let end = self.word_end(start);
        self.i = end;
        Some(Name::new(
            self.text.get(start..end)?,
            Span::new(self.file, start, end),
        ))
    }

    /// Where the run of identifier characters from `i` ends.
    fn word_end(&self, i: usize) -> usize {
        self.b[i..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
            .map_or(self.b.len(), |n| i + n)
    }

    fn transition(&mut self) -> Option<Transition> {
        let start = self.i;
        self.i += 1;
        let from = self.name()?;
        self.punct(b',')?;
        let event = self.name()?;
        self.punct(b')')?;
        self.blank();
        if !self.b[self.i..].starts_with(b"->") {
            return None;
        }
        self.i += 2;
        let to = self.name()?;
        self.punct(b';')?;
        Some(Transition {
            docs: ThinVec::new(),
            from,
            event: Some(event),
            to,
            guards: ThinVec::new(),
            actions: ThinVec::new(),
            persist: None,
            span: Span::new(self.file, start, self.i),
        })
    }

    fn state(&mut self) -> Option<State> {
        let start = self.i;
        let mut modifiers = Vec::new();
        loop {
            // A keyword is a whole word (the grammar's `!ident_char` after it); the blanks after it are skipped
            // by the next token's reader.
            let at = self.i;
            let end = self.word_end(at);
            match &self.b[at..end] {
                b"state" => {
                    self.i = end;
                    break;
                }
                b"start" | b"default" | b"final" => {
                    modifiers.push(Name::new(
                        self.text.get(at..end)?,
                        Span::new(self.file, at, end),
                    ));
                    self.i = end;
                    self.blank();
                }
                _ => return None,
            }
        }
        let name = self.name()?;
        self.blank();
        let kind = match self.b.get(self.i) {
            Some(b':') => {
                self.i += 1;
                Some(self.name()?)
            }
            _ => None,
        };
        self.punct(b';')?;
        Some(State {
            docs: Vec::new(),
            modifiers,
            name,
            kind,
            properties: Vec::new(),
            span: Span::new(self.file, start, self.i),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<(String, usize)> {
        let i = skip_blank(text.as_bytes(), 0, text.len());
        member(FileId(3), text, i, text.len()).map(|(m, end)| {
            let shown = match m {
                Simple::Transition(t) => format!(
                    "{}@{:?} {}@{:?} {}@{:?} {:?}",
                    t.from,
                    t.from.span.range(),
                    t.event.as_ref().unwrap(),
                    t.event.as_ref().unwrap().span.range(),
                    t.to,
                    t.to.span.range(),
                    t.span.range()
                ),
                Simple::State(s) => format!(
                    "{:?} {}@{:?} {:?} {:?}",
                    s.modifiers.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                    s.name,
                    s.name.span.range(),
                    s.kind.as_ref().map(|k| k.as_str()),
                    s.span.range()
                ),
            };
            (shown, end)
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

    /// Anything else is pest's: options, doc comments, comments, bodies, other whitespace, keywords run into names.
    #[test]
    fn declines_everything_else() {
        for text in [
            "(A, GO) -> B if ok;",
            "(A, GO) -> B // c\n;",
            "(A, /* c */ GO) -> B;",
            "/// doc\n(A, GO) -> B;",
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
            "\u{FEFF}(A, GO) -> B;",
            "(A, GO) -> B\u{FEFF};",
        ] {
            assert!(read(text).is_none(), "{text:?}");
        }
    }
}
