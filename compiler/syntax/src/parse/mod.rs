//! Text → syntax tree: the obvious path. pest parses the whole file; this module turns pairs into
//! [`ast`](crate::ast) nodes with spans ([`build`]) and pest's errors into diagnostics.
//!
//! A file that parses is parsed once. One that does not is parsed again piece by piece ([`recover`]), so that
//! every syntax error in it is reported and the rest of it still makes a tree; the recovery starts from where
//! parsing the whole file stops. A file holding a long machine body goes to the fast path first
//! ([`crate::fast`]), which parses it in pieces and, when a piece does not parse, tells where parsing the
//! whole file stops without that parse.

pub(crate) mod build;
mod diagnose;
pub(crate) mod recover;

use crate::ast::*;
use crate::fast::{self, Fast};
use crate::grammar::{FsmParser, Rule};
use crate::lex::{self, Bracket, Kind, Lexed, Lexeme, Skim, Starts};
use build::{Builder, Origin};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};

/// How deeply brackets and block comments may nest. Real specs nest a handful of levels; the limit keeps the
/// recursive-descent parser far from the stack's end on hostile input.
pub const MAX_NESTING: usize = 64;

/// Parses one file into its syntax tree and every syntax error in it.
///
/// With syntax errors the tree is partial: it holds the items and statements that parsed (or that one checked
/// edit, such as a missing `;`, made parse). The tree is `None` only when the file could not be split into pieces
/// at all: nesting deeper than [`MAX_NESTING`], or a parser out of stack.
pub fn parse(file: FileId, text: &str) -> (Option<File>, Vec<Diagnostic>) {
    parse_in_runs(file, text, fast::RUN, fsmc_base::par::threads)
}

/// [`parse`], with a long body cut into runs of `run` bytes parsed on up to `threads()` threads (the tests cut
/// small files too).
pub(crate) fn parse_in_runs(
    file: FileId,
    text: &str,
    run: usize,
    threads: impl FnOnce() -> usize,
) -> (Option<File>, Vec<Diagnostic>) {
    match fast::parse(file, text, run, threads) {
        Fast::Parsed(tree) => (Some(tree), Vec::new()),
        Fast::FailsAt(at) => recovered(file, text, at, None),
        Fast::Declined => obvious(file, text),
    }
}

/// The whole file parsed by pest; recovered piece by piece when that fails.
pub(crate) fn obvious(file: FileId, text: &str) -> (Option<File>, Vec<Diagnostic>) {
    if let Some(at) = too_deep(text, MAX_NESTING) {
        let d = Diagnostic::new(
            Code::Syntax,
            format!("nesting deeper than {MAX_NESTING} levels"),
        )
        .at(Span::new(file, at, at + 1), "nested too deeply here")
        .help("flatten the nested brackets or comments");
        return (None, vec![d]);
    }
    match whole(file, text) {
        Ok(mut tree) => {
            tree.comments = crate::trivia::comments(file, text);
            (Some(tree), Vec::new())
        }
        // pest gives up with a custom error ("stack limit reached", "call limit reached") when it runs out of
        // room: parsing the pieces again would run out of room the same way.
        Err(e) if matches!(e.variant, ErrorVariant::CustomError { .. }) => {
            (None, vec![syntax_error(file, text, e)])
        }
        Err(e) => {
            let at = match e.location {
                InputLocation::Pos(p) => p,
                InputLocation::Span((s, _)) => s,
            };
            recovered(file, text, at, Some(e))
        }
    }
}

/// The file recovered piece by piece from `failed_at`, where parsing it whole stops, with that parse's `error`
/// when it was made.
fn recovered(
    file: FileId,
    text: &str,
    failed_at: usize,
    error: Option<pest::error::Error<Rule>>,
) -> (Option<File>, Vec<Diagnostic>) {
    let (mut tree, mut diags) = recover::parse(file, text, failed_at);
    tree.comments = crate::trivia::comments(file, text);
    if diags.is_empty() {
        // The pieces all parsed although the whole did not: never lose the error.
        match error.map_or_else(|| whole(file, text), Err) {
            Err(e) if matches!(e.variant, ErrorVariant::CustomError { .. }) => {
                return (None, vec![syntax_error(file, text, e)]);
            }
            Err(e) => diags.push(syntax_error(file, text, e)),
            // Only the whole file's parse can tell what the error was; had it parsed, its tree is the answer.
            Ok(mut whole) => {
                whole.comments = tree.comments;
                return (Some(whole), Vec::new());
            }
        }
    }
    (Some(tree), diags)
}

/// Parses the whole file at once: its tree without comments, or pest's error.
pub(crate) fn whole(file: FileId, text: &str) -> Result<File, pest::error::Error<Rule>> {
    let mut out = File::default();
    let Some(root) = FsmParser::parse(Rule::file, text)?.next() else {
        return Ok(out);
    };
    let b = Builder::new(file, Origin::at(0));
    for pair in root.into_inner() {
        match pair.as_rule() {
            Rule::inner_attr => out.lints.extend(b.lint_attr(pair)),
            Rule::import => out.imports.push(b.import(pair)),
            Rule::machine => out.machines.push(b.machine(pair)),
            Rule::app => out.apps.push(b.app(pair)),
            _ => {}
        }
    }
    Ok(out)
}

/// How deeply brackets and block comments nest as a skim of the text goes, counted as [`MAX_NESTING`] bounds
/// it: every opening bracket (`<` too) and every level of a block comment in one count, which a closing bracket
/// lowers if it can (the `>` of `->` too).
#[derive(Debug, Default)]
pub(crate) struct Nesting {
    depth: usize,
}

impl Nesting {
    /// The bytes a skim must read for the count.
    pub const BRACKETS: &[u8] = b"([{<)]}>";

    /// Steps over `l`, a lexeme of `b`: how deeply the text nests at its innermost within it.
    #[inline(always)]
    pub fn step(&mut self, b: &[u8], l: &Lexed) -> usize {
        match l.lexeme {
            Lexeme::Block { depth, .. } => self.depth + depth,
            Lexeme::Token(Kind::Punct) => self.punct(b[l.end - 1]),
            Lexeme::Token(_) | Lexeme::Line => self.depth,
        }
    }

    /// Steps over a punctuation mark ending in `last`, a bracket or not: how deeply the text nests after it.
    #[inline(always)]
    pub fn punct(&mut self, last: u8) -> usize {
        match Bracket::of(last) {
            Some((_, true)) => self.depth += 1,
            Some((_, false)) => self.depth = self.depth.saturating_sub(1),
            None => {}
        }
        self.depth
    }
}

/// Finds the first byte where nesting exceeds `limit` ([`MAX_NESTING`]), as [`Nesting`] counts it: a bracket,
/// or the `*` of a `/*` in a block comment.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<usize> {
    const BRACKETS: Starts = Starts::of(Nesting::BRACKETS);
    let b = text.as_bytes();
    let mut nesting = Nesting::default();
    let mut skim = Skim::new(text);
    while let Some(l) = skim.next(&BRACKETS) {
        if nesting.step(b, &l) > limit {
            return Some(match l.lexeme {
                // A comment nests past the limit within itself: where it does.
                Lexeme::Block { .. } => lex::block_comment(b, l.start, limit - nesting.depth)
                    .past_limit
                    .unwrap_or(l.start),
                _ => l.start,
            });
        }
    }
    None
}

/// pest's own error in words: a safety net should the recovery find nothing wrong in a file pest rejects.
pub(crate) fn syntax_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, next_char_end(text, p)),
        InputLocation::Span((s, e)) => (s, e),
    };
    let found = text[start.min(text.len())..]
        .split(|c: char| c.is_whitespace())
        .next()
        .filter(|s| !s.is_empty())
        .map_or("end of file".to_string(), |s| {
            format!("`{}`", s.chars().take(24).collect::<String>())
        });
    let expected = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut names: Vec<String> = positives.iter().filter_map(|r| describe(*r)).collect();
            names.sort_unstable();
            names.dedup();
            names
        }
        ErrorVariant::CustomError { .. } => Vec::new(),
    };
    // pest gives up with a custom error only when a limit stops it ("call limit reached"); none is set today, but
    // its words are better than "unexpected" should one be.
    if let ErrorVariant::CustomError { message } = &e.variant {
        return Diagnostic::new(Code::Syntax, format!("cannot parse this file: the parser ran out of room ({message})"))
            .at(Span::new(file, start, end), "the parser gave up here")
            .help("the spec nests too deeply for the stack the parser runs on; flatten nested brackets or comments");
    }
    let (message, label) = diagnose::expected_found(&expected, &found);
    Diagnostic::new(Code::Syntax, message)
        .at(Span::new(file, start, end), label)
        .help("see docs/language.md for the grammar")
}

fn next_char_end(text: &str, p: usize) -> usize {
    text.get(p..)
        .and_then(|s| s.chars().next())
        .map_or(p, |c| p + c.len_utf8())
}

/// How a grammar rule is named to a user; `None` hides rules that would only confuse.
fn describe(rule: Rule) -> Option<String> {
    let phrase = match rule {
        Rule::EOI => "end of file",
        Rule::ident | Rule::qualified | Rule::lint_name => "a name",
        Rule::string => "a string",
        Rule::duration => "a duration like `30s`",
        Rule::integer => "a number",
        Rule::rust_type | Rule::type_path | Rule::type_tuple | Rule::type_array => "a type",
        Rule::key_mod => "`key`",
        Rule::state_mod => "`state`",
        Rule::transition => "a transition `(State, EVENT) -> State;`",
        Rule::direct_transition | Rule::mapping => "`->`",
        Rule::property => "a property",
        Rule::inner_attr | Rule::outer_attr => "an attribute",
        Rule::doc => "a doc comment",
        Rule::fields | Rule::field => "fields `(name: Type)`",
        Rule::prop_list => "a list of names",
        Rule::kw_side => "`sender` or `receiver`",
        Rule::kw_key_is | Rule::key_test => "`has` or `missing`",
        Rule::kw_bound => "`least` or `most`",
        Rule::group => "`[]`",
        // An attribute is named as a whole, not by its `#` or `!`.
        Rule::hash | Rule::bang => return None,
        // Punctuation and keywords as they are written.
        _ => return diagnose::spelling(rule).map(|s| format!("`{s}`")),
    };
    Some(phrase.to_string())
}

#[cfg(test)]
mod tests;
