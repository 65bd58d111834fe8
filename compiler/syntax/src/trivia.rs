//! Trivia: the comments of a file, which the grammar skips and the tree does not hold.
//!
//! They are collected by a skim of the lexer (`lex::Skim`) after parsing (or, in a large file, by the skim that cuts
//! it into pieces, `fast/plan.rs`) rather than by the grammar: pest would otherwise build a pair for every
//! comment and try the comment rules at every token, and on a large spec that is most of the parse's time. The
//! skim reads only what can hide a comment marker (strings, and comments themselves), so it runs at the speed of
//! a byte search, and it never fails: it reads a broken file as the recovery does (a string ends at its line's
//! end, an unclosed block comment at the file's end).

use crate::ast::Comment;
use crate::lex::{Skim, Starts};
use fsmc_base::source::{FileId, Span};

/// Every comment of `text`, in order.
pub fn comments(file: FileId, text: &str) -> Vec<Comment> {
    // Comments and strings are all a skim reads, whatever it is asked for.
    const NOTHING_ELSE: Starts = Starts::of(b"");
    let mut skim = Skim::new(text);
    let mut out = Vec::new();
    while let Some(l) = skim.next(&NOTHING_ELSE) {
        if let Some(kind) = l.lexeme.comment() {
            out.push(Comment {
                kind,
                span: Span::new(file, l.start, l.end),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::CommentKind;

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
