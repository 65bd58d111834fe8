//! Text → syntax tree. pest does the parsing; this module turns pairs into [`ast`](crate::ast) nodes with spans
//! and pest's errors into diagnostics.
//!
//! A file that parses is parsed once: whole, or in pieces when it holds a long machine body ([`chunk`], which
//! bounds pest's memory and shares the body among threads). A file that does not is parsed again piece by piece
//! ([`recover`]), so that every syntax error in it is reported and the rest of it still makes a tree; the
//! recovery starts from where parsing the whole file stops, which the pieces of a large file tell without the
//! whole parse.

pub(crate) mod build;
mod diagnose;
pub(crate) mod recover;

use crate::ast::*;
use crate::fast::chunk;
use crate::grammar::{FsmParser, Rule};
pub use build::unquote;
use build::{Builder, Origin};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use pest::Parser as _;

/// How deeply brackets and block comments may nest. Real specs nest a handful of levels; the limit keeps the
/// recursive-descent parser far from the stack's end on hostile input.
pub const MAX_NESTING: usize = 64;

/// Parses one file into its syntax tree and every syntax error in it.
///
/// With syntax errors the tree is partial: it holds the items and statements that parsed (or that one checked
/// edit, such as a missing `;`, made parse). The tree is `None` only when the file could not be split into pieces
/// at all: nesting deeper than [`MAX_NESTING`], or a parser out of stack.
pub fn parse(file: FileId, text: &str) -> (Option<File>, Vec<Diagnostic>) {
    parse_in_runs(file, text, chunk::RUN, fsmc_base::par::threads)
}

/// [`parse`], with a long body cut into runs of `run` bytes parsed on up to `threads()` threads (the tests cut
/// small files too).
pub(crate) fn parse_in_runs(
    file: FileId,
    text: &str,
    run: usize,
    threads: impl FnOnce() -> usize,
) -> (Option<File>, Vec<Diagnostic>) {
    let plan = chunk::plan(text, run);
    // The plan's scan counts nesting as `too_deep` does: a file it found shallow need not be scanned again.
    if plan.as_ref().is_none_or(|p| p.deepest > MAX_NESTING)
        && let Some(at) = too_deep(text, MAX_NESTING)
    {
        let d = Diagnostic::new(
            Code::Syntax,
            format!("nesting deeper than {MAX_NESTING} levels"),
        )
        .at(Span::new(file, at, at + 1), "nested too deeply here")
        .help("flatten the nested brackets or comments");
        return (None, vec![d]);
    }
    // Where parsing the whole file stops, when the pieces tell without parsing it whole (which on a large file
    // would hold pest's tokens for all of it up to there), and the error of that whole parse when it was made.
    let (failed_at, error) = match plan.map(|p| chunk::parse(file, text, &p, threads())) {
        Some(Ok(tree)) => return (Some(tree), Vec::new()),
        Some(Err(Some(at))) => (at, None),
        Some(Err(None)) | None => match whole(file, text) {
            Ok(mut tree) => {
                tree.comments = crate::trivia::comments(file, text);
                return (Some(tree), Vec::new());
            }
            // pest gives up with a custom error ("stack limit reached", "call limit reached") when it runs out
            // of room: parsing the pieces again would run out of room the same way.
            Err(e) if matches!(e.variant, pest::error::ErrorVariant::CustomError { .. }) => {
                return (None, vec![syntax_error(file, text, e)]);
            }
            Err(e) => {
                let at = match e.location {
                    pest::error::InputLocation::Pos(p) => p,
                    pest::error::InputLocation::Span((s, _)) => s,
                };
                (at, Some(e))
            }
        },
    };
    let (mut tree, mut diags) = recover::parse(file, text, failed_at);
    tree.comments = crate::trivia::comments(file, text);
    if diags.is_empty() {
        // The pieces all parsed although the whole did not: never lose the error.
        match error.map_or_else(|| whole(file, text), Err) {
            Err(e) if matches!(e.variant, pest::error::ErrorVariant::CustomError { .. }) => {
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

/// Finds the first byte where nesting exceeds `limit` ([`MAX_NESTING`]), skipping strings and line comments.
///
/// The scan mirrors the grammar's lexing: inside a block comment only `/*` and `*/` mean anything (a `"` or `//`
/// there is comment text), so neither can hide the brackets after the comment from the count.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut comments, mut i) = (0usize, 0usize, 0usize);
    // Other bytes change nothing here; stepping over them in a tight loop makes the scan several times faster.
    const SPECIAL: [bool; 256] = chunk::byte_set(b"/*\"([{<)]}>");
    loop {
        i = chunk::next_special(bytes, i, &SPECIAL);
        if i >= bytes.len() {
            break;
        }
        let next = bytes.get(i + 1).copied();
        match (bytes[i], next) {
            (b'/', Some(b'*')) => {
                comments += 1;
                depth += 1;
                i += 1;
            }
            (b'*', Some(b'/')) if comments > 0 => {
                comments -= 1;
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ if comments > 0 => {}
            (b'"', _) => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            (b'(' | b'[' | b'{' | b'<', _) => depth += 1,
            (b')' | b']' | b'}' | b'>', _) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > limit {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// pest's own error in words: a safety net should the recovery find nothing wrong in a file pest rejects.
pub(crate) fn syntax_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
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
            let mut names: Vec<&str> = positives.iter().filter_map(|r| describe(*r)).collect();
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
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", join_or(&expected))
    };
    let label = if expected.is_empty() {
        "unexpected here".to_string()
    } else {
        format!("expected {}", join_or(&expected))
    };
    Diagnostic::new(Code::Syntax, message)
        .at(Span::new(file, start, end), label)
        .help("see docs/language.md for the grammar")
}

fn next_char_end(text: &str, p: usize) -> usize {
    text.get(p..)
        .and_then(|s| s.chars().next())
        .map_or(p, |c| p + c.len_utf8())
}

fn join_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// How a grammar rule is named to a user; `None` hides rules that would only confuse.
fn describe(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::EOI => "end of file",
        Rule::arrow => "`->`",
        Rule::semi => "`;`",
        Rule::lbrace => "`{`",
        Rule::rbrace => "`}`",
        Rule::comma => "`,`",
        Rule::colon => "`:`",
        Rule::path_sep => "`::`",
        Rule::equals => "`=`",
        Rule::lparen => "`(`",
        Rule::rparen => "`)`",
        Rule::lbracket => "`[`",
        Rule::rbracket => "`]`",
        Rule::langle => "`<`",
        Rule::rangle => "`>`",
        Rule::ident | Rule::qualified | Rule::lint_name => "a name",
        Rule::string => "a string",
        Rule::duration => "a duration like `30s`",
        Rule::integer => "a number",
        Rule::rust_type | Rule::type_path | Rule::type_tuple | Rule::type_array => "a type",
        Rule::kw_import | Rule::import => "`import`",
        Rule::kw_machine | Rule::machine => "`machine`",
        Rule::kw_app | Rule::app => "`app`",
        Rule::kw_event | Rule::event_decl => "`event`",
        Rule::kw_key | Rule::key_decl | Rule::key_mod => "`key`",
        Rule::kw_state | Rule::state_decl | Rule::state_mod => "`state`",
        Rule::kw_timeout => "`timeout`",
        Rule::kw_by => "`by`",
        Rule::kw_as => "`as`",
        Rule::kw_chain | Rule::chain => "`chain`",
        Rule::transition => "a transition `(State, EVENT) -> State;`",
        Rule::direct_transition | Rule::mapping => "`->`",
        Rule::property => "a property",
        Rule::kw_if | Rule::guard_if => "`if`",
        Rule::kw_unless | Rule::guard_unless => "`unless`",
        Rule::kw_do | Rule::actions => "`do`",
        Rule::kw_persist | Rule::persist => "`persist`",
        Rule::inner_attr | Rule::outer_attr => "an attribute",
        Rule::doc => "a doc comment",
        Rule::fields | Rule::field => "fields `(name: Type)`",
        Rule::state_body => "`{`",
        Rule::prop_eq => "`=`",
        Rule::prop_list => "a list of names",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
