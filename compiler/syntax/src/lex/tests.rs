//! The lexer's rules, one by one, and the two ways of reading it.

use super::*;

fn kinds(text: &str) -> Vec<(Kind, &str)> {
    Lexer::new(text, 0)
        .map(|t| (t.kind, t.text(text)))
        .collect()
}

/// Every lexeme of `text`, comments included, as a skim asked for every byte a token may start at reads them.
fn lexemes(text: &str) -> Vec<(Lexeme, &str)> {
    const ALL: Starts = Starts::of(
        b"{}()[]<>;,:=#!-_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    );
    let mut skim = Skim::new(text);
    std::iter::from_fn(|| skim.next(&ALL))
        .map(|l| (l.lexeme, &text[l.start..l.end]))
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

#[test]
fn unquote_resolves_escapes() {
    assert_eq!(unquote(r#""a\"b\\c\n""#), "a\"b\\c\n");
}

#[test]
fn strings_take_any_character_after_a_backslash() {
    assert_eq!(
        kinds(r#""a\\" "\"" "\é" x"#),
        [
            (Kind::Str, r#""a\\""#),
            (Kind::Str, r#""\"""#),
            (Kind::Str, r#""\é""#),
            (Kind::Ident, "x"),
        ]
    );
    // An escaped line end continues the string on the next line; an unescaped one ends it, unclosed.
    assert_eq!(
        kinds("\"a\\\nb\" c"),
        [(Kind::Str, "\"a\\\nb\""), (Kind::Ident, "c")]
    );
    assert_eq!(
        kinds("\"a\r\nb"),
        [(Kind::OpenStr, "\"a\r"), (Kind::Ident, "b")]
    );
    // Comment markers inside a string are text.
    assert_eq!(
        kinds("\"// /* x\" y"),
        [(Kind::Str, "\"// /* x\""), (Kind::Ident, "y")]
    );
}

#[test]
fn block_comments_nest() {
    assert_eq!(
        lexemes("/* a /* b /* c */ */ d */ e /**/ /*/ x */"),
        [
            (
                Lexeme::Block {
                    closed: true,
                    depth: 3
                },
                "/* a /* b /* c */ */ d */"
            ),
            (Lexeme::Token(Kind::Ident), "e"),
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/**/"
            ),
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/*/ x */"
            ),
        ]
    );
    // Inside one, a string or a line comment is comment text: neither hides its `*/`.
    assert_eq!(
        lexemes("/* \" */ x /* // */ y"),
        [
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/* \" */"
            ),
            (Lexeme::Token(Kind::Ident), "x"),
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/* // */"
            ),
            (Lexeme::Token(Kind::Ident), "y"),
        ]
    );
    let c = block_comment(b"/* /* /* */ */ /* /* */ */ */", 0, 2);
    assert_eq!(
        (c.end, c.closed, c.depth, c.past_limit),
        (29, true, 3, Some(7))
    );
}

#[test]
fn doc_comments_are_tokens_and_other_comments_are_not() {
    assert_eq!(
        lexemes("/// doc\n// line\n//// line\n//! line\n///\n/* block */"),
        [
            (Lexeme::Token(Kind::Doc), "/// doc"),
            (Lexeme::Line, "// line"),
            (Lexeme::Line, "//// line"),
            (Lexeme::Line, "//! line"),
            (Lexeme::Token(Kind::Doc), "///"),
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/* block */"
            ),
        ]
    );
    let comments: Vec<_> = lexemes("/// d\n// l\n/* b */ x")
        .into_iter()
        .map(|(l, _)| l.comment())
        .collect();
    assert_eq!(
        comments,
        [
            Some(CommentKind::Doc),
            Some(CommentKind::Line),
            Some(CommentKind::Block),
            None
        ]
    );
    assert_eq!(
        kinds("/// doc\n// line\n/* b */ x"),
        [(Kind::Doc, "/// doc"), (Kind::Ident, "x")]
    );
}

#[test]
fn windows_line_ends_and_a_byte_order_mark_are_whitespace() {
    let text = "\u{FEFF}state A;\r\n/// doc\r\n(A, B) -> C;\r\n";
    assert_eq!(
        kinds(text),
        [
            (Kind::Ident, "state"),
            (Kind::Ident, "A"),
            (Kind::Punct, ";"),
            // The `\r` stays on the doc comment's line, as in the grammar (the doc text is trimmed).
            (Kind::Doc, "/// doc\r"),
            (Kind::Punct, "("),
            (Kind::Ident, "A"),
            (Kind::Punct, ","),
            (Kind::Ident, "B"),
            (Kind::Punct, ")"),
            (Kind::Punct, "->"),
            (Kind::Ident, "C"),
            (Kind::Punct, ";"),
        ]
    );
    let firsts: Vec<bool> = Lexer::new(text, 0).map(|t| t.line_first).collect();
    assert_eq!(firsts.iter().filter(|&&f| f).count(), 3, "{firsts:?}");
    // A byte order mark elsewhere than at the start is whitespace too; a form feed is not.
    assert_eq!(
        kinds("a\u{FEFF}b\u{c}"),
        [
            (Kind::Ident, "a"),
            (Kind::Ident, "b"),
            (Kind::Other, "\u{c}")
        ]
    );
}

#[test]
fn what_is_open_at_the_end_of_the_text_runs_to_it() {
    assert_eq!(
        kinds("x \"abc"),
        [(Kind::Ident, "x"), (Kind::OpenStr, "\"abc")]
    );
    assert_eq!(kinds("\"a\\"), [(Kind::OpenStr, "\"a\\")]);
    assert_eq!(
        kinds("x /* a /* b */"),
        [(Kind::Ident, "x"), (Kind::OpenComment, "/* a /* b */")]
    );
    assert_eq!(kinds("/*"), [(Kind::OpenComment, "/*")]);
    assert_eq!(kinds("x // c"), [(Kind::Ident, "x")]);
    assert_eq!(kinds("///"), [(Kind::Doc, "///")]);
    assert_eq!(kinds("/"), [(Kind::Other, "/")]);
    assert_eq!(kinds("1."), [(Kind::Number, "1"), (Kind::Other, ".")]);
    assert_eq!(
        lexemes("/* /* */"),
        [(
            Lexeme::Block {
                closed: false,
                depth: 2
            },
            "/* /* */"
        )]
    );
    // After an unclosed comment nothing is lexed.
    assert_eq!(Lexer::new("/* x", 0).nth(1), None);
}

#[test]
fn a_skim_reads_only_at_the_bytes_it_is_asked_for() {
    const BRACKETS: Starts = Starts::of(b"()<>");
    let text = "(a, \"(\") -> b /* ( */ 30s // )\n<";
    let mut skim = Skim::new(text);
    let read: Vec<(Lexeme, &str)> = std::iter::from_fn(|| skim.next(&BRACKETS))
        .map(|l| (l.lexeme, &text[l.start..l.end]))
        .collect();
    assert_eq!(
        read,
        [
            (Lexeme::Token(Kind::Punct), "("),
            (Lexeme::Token(Kind::Str), "\"(\""),
            (Lexeme::Token(Kind::Punct), ")"),
            // The `>` of `->`, read where it is.
            (Lexeme::Token(Kind::Punct), ">"),
            (
                Lexeme::Block {
                    closed: true,
                    depth: 1
                },
                "/* ( */"
            ),
            (Lexeme::Line, "// )"),
            (Lexeme::Token(Kind::Punct), "<"),
        ]
    );
}

#[test]
fn trivia_between_tokens_becomes_one_space() {
    assert_eq!(without_trivia("Vec<(String, u32)>"), "Vec<(String, u32)>");
    assert_eq!(without_trivia("Vec</** doc */u8 /*! x */>"), "Vec< u8 >");
    assert_eq!(without_trivia("u8 //! c\n"), "u8 ");
    assert_eq!(without_trivia("Vec<u8\u{FEFF}>"), "Vec<u8 >");
    assert_eq!(without_trivia("a\u{FEFF}b"), "a b");
}
