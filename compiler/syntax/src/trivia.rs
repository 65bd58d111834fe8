//! Trivia: the comments of a file, which the grammar skips and the tree does not hold.
//!
//! They are found by a scan of their own after parsing (or, in a large file, by the scan that cuts it into pieces,
//! which lexes the same way: `parser/chunk.rs`) rather than by the grammar: pest would otherwise build a
//! pair for every comment and try the comment rules at every token, and on a large spec that is most of the
//! parse's time. The scan lexes only what can hide a comment marker (strings, and comments themselves), so it
//! runs at the speed of a byte search, and it never fails: it reads a broken file as the recovery's lexer does
//! (a string ends at its line's end, an unclosed block comment at the file's end).

use crate::ast::{Comment, CommentKind};
use fsmc_base::source::{FileId, Span};

/// Every comment of `text`, in order.
pub fn comments(file: FileId, text: &str) -> Vec<Comment> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Outside strings and comments only `"` and `/` can start one: jump from one to the next.
    while let Some(off) = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|&c| c == b'/' || c == b'"'))
    {
        i += off;
        if b[i] == b'"' {
            i += 1;
            while let Some(&c) = b.get(i) {
                match c {
                    // An escape takes the next byte, whatever it is (as the grammar's `"\\" ~ ANY` does).
                    b'\\' => i += 2,
                    b'"' => {
                        i += 1;
                        break;
                    }
                    b'\n' => break,
                    _ => i += 1,
                }
            }
            continue;
        }
        let start = i;
        match b.get(i + 1) {
            Some(b'/') => {
                let (kind, end) = line_comment(b, i);
                out.push(comment(file, kind, start, end));
                i = end;
            }
            Some(b'*') => {
                let mut depth = 0usize;
                loop {
                    match (b.get(i), b.get(i + 1)) {
                        (Some(b'/'), Some(b'*')) => {
                            depth += 1;
                            i += 2;
                        }
                        (Some(b'*'), Some(b'/')) => {
                            depth -= 1;
                            i += 2;
                            if depth == 0 {
                                break;
                            }
                        }
                        (Some(_), _) => i += 1,
                        (None, _) => break,
                    }
                }
                out.push(comment(file, CommentKind::Block, start, i.min(b.len())));
            }
            _ => i += 1,
        }
    }
    out
}

/// The kind and end (its line's end) of the `//` comment at `i`.
pub(crate) fn line_comment(b: &[u8], i: usize) -> (CommentKind, usize) {
    let end = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|&c| c == b'\n'))
        .map_or(b.len(), |n| i + n);
    // `///` then anything but a fourth `/` is a doc comment (the grammar's `doc`).
    let doc = b.get(i + 2) == Some(&b'/') && b.get(i + 3) != Some(&b'/');
    let kind = if doc {
        CommentKind::Doc
    } else {
        CommentKind::Line
    };
    (kind, end)
}

fn comment(file: FileId, kind: CommentKind, start: usize, end: usize) -> Comment {
    Comment {
        kind,
        span: Span::new(file, start, end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Vec<(CommentKind, &str)> {
        comments(FileId(0), text)
            .into_iter()
            .map(|c| (c.kind, &text[c.span.range()]))
            .collect()
    }

    #[test]
    fn finds_every_kind_and_skips_strings() {
        use CommentKind::*;
        let text = "// a\n/// b\n//// c\n//! d\nx \"// not\\\" /* not\" /* e /* f */ g */ y; // h";
        assert_eq!(
            scan(text),
            [
                (Line, "// a"),
                (Doc, "/// b"),
                (Line, "//// c"),
                (Line, "//! d"),
                (Block, "/* e /* f */ g */"),
                (Line, "// h"),
            ]
        );
    }

    #[test]
    fn broken_text_is_read_as_the_recovery_reads_it() {
        use CommentKind::*;
        // A string ends at its line's end; an unclosed block comment runs to the end of the file.
        assert_eq!(
            scan("\"open\n// c\n/* x"),
            [(Line, "// c"), (Block, "/* x")]
        );
        assert_eq!(scan("\"a\\"), []);
        assert_eq!(scan("///"), [(Doc, "///")]);
        assert_eq!(scan("/"), []);
    }
}
