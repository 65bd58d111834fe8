//! Where a large file is cut: its long machine bodies, each cut into runs of statements.
//!
//! A body is cut only where one of its statements ends: right after a `;` or a `}` that is outside strings,
//! comments and brackets. In a file that parses, every such `;` or `}` ends a member, and a member is parsed the
//! same whatever follows its end; so the pieces parse exactly when the whole file does, into the same pairs.
//!
//! The plan is made by one skim of the lexer ([`Skim`]) over the file, which reads only strings, comments,
//! brackets, `;` and, outside bodies, words: so it costs about a byte search, and it also collects what the
//! parse needs besides (the comments, how deeply the file nests), which would otherwise take scans of their own.

use crate::ast::CommentKind;
use crate::lex::{Kind, Lexeme, Skim, Starts};
use crate::parse::Nesting;

/// Where a file is cut: its long machine bodies, and where each body is cut into runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub bodies: Vec<Body>,
    /// The ends of the runs of all bodies but each body's last (which ends at its `}`), in order.
    pub cuts: Vec<usize>,
    /// How deeply the file nests, counted as [`too_deep`](crate::parse::too_deep) counts, so that a file this
    /// skim found shallow need not be scanned again for that.
    pub deepest: usize,
    /// The file's comments, as [`trivia::comments`](crate::trivia::comments) finds them in a file the skim can
    /// plan (its strings all end on their line, its block comments all close): kind, start and end.
    pub comments: Vec<(CommentKind, usize, usize)>,
}

/// One long machine body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Body {
    /// Just after its `{`.
    pub open: usize,
    /// At its `}`.
    pub close: usize,
    /// Its runs' ends in [`Plan::cuts`].
    pub cuts: std::ops::Range<usize>,
}

/// What the skim reads inside bodies; it steps over all other bytes (most of a file: names, spaces) unread.
const BODY: Starts = Starts::of(b"{}()[]<>;");
/// Outside bodies it also reads words, to tell a machine from an app.
const TOP: Starts = Starts::of(b"{}()[]<>;_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

/// Finds the bodies of `text` of at least `run` bytes (the `{ … }` of machines) and cuts each into runs of
/// statements of at least `run` bytes. `None` when there is no such body, or when the text is not balanced the way
/// a file that parses is (a `}` or `)` with nothing open, a block comment or string never closed).
pub(crate) fn plan(text: &str, run: usize) -> Option<Plan> {
    let b = text.as_bytes();
    let mut p = Planner {
        run,
        plan: Plan::default(),
        nesting: Nesting::default(),
        braces: 0,
        parens: 0,
        brackets: 0,
        item_named: false,
        machine: false,
        open: 0,
        first_cut: 0,
        last_cut: 0,
    };
    let mut skim = Skim::new(text);
    while let Some(l) = skim.next(if p.braces == 0 { &TOP } else { &BODY }) {
        match l.lexeme {
            // Most of what the skim reads; the marks it reads are all one byte.
            Lexeme::Token(Kind::Punct) => {
                let c = b[l.start];
                p.plan.deepest = p.plan.deepest.max(p.nesting.punct(c));
                p.punct(c, l.start)?;
            }
            Lexeme::Token(Kind::OpenStr) | Lexeme::Block { closed: false, .. } => return None,
            Lexeme::Token(Kind::Ident) => p.word(&b[l.start..l.end]),
            lexeme => {
                p.plan.deepest = p.plan.deepest.max(p.nesting.step(b, &l));
                if let Some(kind) = lexeme.comment() {
                    p.plan.comments.push((kind, l.start, l.end));
                }
            }
        }
    }
    (!p.plan.bodies.is_empty() && p.braces == 0).then_some(p.plan)
}

/// The plan being made, and where the skim is.
struct Planner {
    run: usize,
    plan: Plan,
    nesting: Nesting,
    /// Open `{`, `(` and `[` (a file that parses has no `;` inside `(…)` and only `[T; N]`'s inside `[…]`).
    braces: usize,
    parens: usize,
    brackets: usize,
    /// Outside bodies: whether the item being read has shown its first word (`machine`, `app`, `import`) yet, and
    /// whether that word is `machine` (only a machine's body is cut: the pieces' rules expect one).
    item_named: bool,
    machine: bool,
    /// The open body: just after its `{`, its first cut in `plan.cuts`, and its last cut (or its `{`).
    open: usize,
    first_cut: usize,
    last_cut: usize,
}

impl Planner {
    /// A word outside bodies.
    fn word(&mut self, word: &[u8]) {
        if !self.item_named && self.parens == 0 && self.brackets == 0 {
            self.item_named = true;
            self.machine = word == b"machine";
        }
    }

    /// The punctuation mark `c` at `i`; `None` when it closes what is not open.
    fn punct(&mut self, c: u8, i: usize) -> Option<()> {
        let flat = self.parens == 0 && self.brackets == 0;
        match c {
            b'{' => {
                self.braces += 1;
                if self.braces == 1 {
                    (self.open, self.first_cut, self.last_cut) =
                        (i + 1, self.plan.cuts.len(), i + 1);
                }
            }
            b'}' => {
                self.braces = self.braces.checked_sub(1)?;
                if self.braces == 0 {
                    self.close_body(i, flat);
                } else if self.braces == 1 && flat {
                    // A state's body closed: its statement ends here.
                    self.cut(i + 1);
                }
            }
            b';' if self.braces == 0 => self.item_named = false,
            b';' if self.braces == 1 && flat => self.cut(i + 1),
            b'(' => self.parens += 1,
            b')' => self.parens = self.parens.checked_sub(1)?,
            b'[' => self.brackets += 1,
            b']' => {
                self.brackets = self.brackets.checked_sub(1)?;
                // An attribute ended: the item's first word is still to come.
                if self.braces == 0 && self.brackets == 0 {
                    self.item_named = false;
                }
            }
            _ => {}
        }
        Some(())
    }

    /// A statement of the open body ends at `end`: a run ends there if it is long enough.
    fn cut(&mut self, end: usize) {
        if end - self.last_cut >= self.run {
            self.plan.cuts.push(end);
            self.last_cut = end;
        }
    }

    /// The `}` at `close` ends the open body: it is one to cut if it is a machine's and long enough.
    fn close_body(&mut self, close: usize, flat: bool) {
        if self.machine && flat && close - self.open >= self.run {
            self.plan.bodies.push(Body {
                open: self.open,
                close,
                cuts: self.first_cut..self.plan.cuts.len(),
            });
        } else {
            self.plan.cuts.truncate(self.first_cut);
        }
        self.item_named = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::RUN;

    #[test]
    fn cuts_only_where_a_statement_ends() {
        let text = "machine M { a \"x;y\"; /* ; } */ key k: [u8; 32]; state S { p; } // ;\n q; }";
        let p = plan(text, 1).unwrap();
        let ends: Vec<&str> = p.cuts.iter().map(|&c| &text[..c]).collect();
        assert_eq!(p.bodies.len(), 1);
        assert_eq!(
            ends.iter()
                .map(|e| e.chars().last().unwrap())
                .collect::<String>(),
            ";;};",
            "{ends:#?}"
        );
        assert!(ends[0].ends_with("\"x;y\";"));
        assert!(ends[1].ends_with("[u8; 32];"));
        assert!(ends[2].ends_with("state S { p; }"));
        assert!(ends[3].ends_with("q;"));
        // The last run ends at the body's `}`.
        assert_eq!(&text[p.bodies[0].close..], "}");
        assert_eq!(p.bodies[0].cuts, 0..4);
    }

    #[test]
    fn short_or_unbalanced_files_are_not_cut() {
        assert_eq!(plan("machine M { state A; }", RUN), None, "too short");
        for text in [
            "machine M { state A; } }",
            "machine M { state A; ",
            "machine M { label \"open; }\n }",
            "machine M { /* open; }",
            "machine M { (A, B)) -> C; }",
        ] {
            assert_eq!(plan(text, 1), None, "{text}");
        }
    }
}
