//! A statement pest could not parse → one diagnostic in the language's own terms, and if one small edit makes
//! the statement parse, that edit (so the tree keeps the statement).
//!
//! pest says where it stopped and which rules it could have matched there. That is turned into what a person
//! reads: a missing `;` or `,` is reported just after the token it should follow, an unclosed bracket at the
//! bracket, a misspelt keyword as such, a bad duration over the whole literal with the units listed, and
//! otherwise "expected a state name, found `;`", with a name described by its place in the statement. Every
//! repair is checked by parsing the repaired statement again: a suggestion is only made when it works.

mod mistakes;
mod wording;

pub(super) use wording::spelling;

use super::build::Edit;
use crate::grammar::{FsmParser, Rule};
use crate::lex::{self, Kind, Token};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use fsmc_vocab::Profile;
use pest::Parser as _;

/// What a piece of the file is parsed as. It decides the grammar rule, and how an expected name is described.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    InnerAttr,
    Import,
    MachineOpen,
    /// The members of a machine with this profile.
    Members(Option<Profile>),
    /// The head of a state with a body, up to its `{`.
    StateOpen(Option<Profile>),
    /// The properties in a state's body.
    Properties(Option<Profile>),
    AppOpen,
    AppMembers,
}

/// The profile a machine's head names (`machine M: abci {`), for naming what may follow `state Name:`: `None` when
/// it names no profile the language has.
pub(super) fn profile_of(name: Option<&str>) -> Option<Profile> {
    name.map_or(Some(Profile::Plain), Profile::parse)
}

impl Ctx {
    pub fn rule(self) -> Rule {
        match self {
            Ctx::InnerAttr => Rule::only_inner_attr,
            Ctx::Import => Rule::only_import,
            Ctx::MachineOpen => Rule::only_machine_open,
            Ctx::Members(_) => Rule::only_members,
            Ctx::StateOpen(_) => Rule::only_state_open,
            Ctx::Properties(_) => Rule::only_properties,
            Ctx::AppOpen => Rule::only_app_open,
            Ctx::AppMembers => Rule::only_app_members,
        }
    }

    /// Whether statements end with `;` here (item heads end with `{`, attributes with `]`).
    fn takes_semi(self) -> bool {
        matches!(
            self,
            Ctx::Import | Ctx::Members(_) | Ctx::Properties(_) | Ctx::AppMembers
        )
    }
}

/// Where pest stopped in a statement, and what it could have matched there.
pub(super) struct Failure {
    pub ctx: Ctx,
    /// The statement: `text[start..end]` was parsed.
    pub start: usize,
    pub end: usize,
    /// Where pest stopped, as a file offset.
    pub pos: usize,
    pub positives: Vec<Rule>,
}

/// How the tree can keep a statement that has an error.
pub(super) enum Fix {
    /// It cannot: the statement is left out.
    None,
    /// Parse this text (the statement with one edit) instead.
    Edit { text: String, edit: Edit },
    /// A `;` is missing at file offset `at`: the statement ends there, and another begins at `rest` (when `rest`
    /// is inside the statement's range).
    Split { at: usize, rest: usize },
}

/// Statements longer than this get no repairs tried: each repair parses the statement again, and a statement this
/// long is not a typo a suggestion helps with. Keeps diagnosing linear in the size of the file.
const MAX_REPAIRED: usize = 4096;

/// Whether `rule` parses all of `text`, and what the first thing parsed is; the position of the error otherwise.
pub(super) fn try_parse(rule: Rule, text: &str) -> Result<Option<Rule>, usize> {
    match FsmParser::parse(rule, text) {
        Ok(mut pairs) => Ok(pairs
            .next()
            .and_then(|root| root.into_inner().next())
            .map(|p| p.as_rule())),
        Err(e) => Err(match e.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        }),
    }
}

/// `a`, `b` or `c`: a list of alternatives as a message writes it.
fn either<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let words: Vec<String> = words.into_iter().map(|w| format!("`{w}`")).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A near miss of a keyword, if `word` is one (`finall` → `final`).
pub(super) fn keyword_like(word: &str, among: &[&'static str]) -> Option<&'static str> {
    if word.len() > 32 || word.len() < 2 {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let mut best: Option<(f64, &'static str)> = None;
    for &k in among {
        if k == word {
            return None;
        }
        let score = strsim::jaro_winkler(&lower, k);
        if score >= 0.85 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, k));
        }
    }
    best.map(|(_, k)| k)
}

struct Cx<'t> {
    text: &'t str,
    file: FileId,
    f: &'t Failure,
    toks: Vec<Token>,
    /// Index in `toks` of the token pest stopped at (`toks.len()` when it stopped at the statement's end).
    k: usize,
    /// The token it stopped at: in the statement, or the first one after it (`None` at the end of the file).
    found: Option<Token>,
    form: Form,
    /// What pest expected, less what only belongs to a reading of the statement it plainly is not.
    positives: Vec<Rule>,
}

/// The kind of statement, from its first tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Transition,
    Event,
    Key,
    State,
    Direct,
    Property,
    Chain,
    Mapping,
    Import,
    Attr,
    MachineHead,
    AppHead,
    Unknown,
}

pub(super) fn explain(text: &str, file: FileId, f: &Failure) -> (Diagnostic, Fix) {
    let toks = lex::tokens(text, f.start, f.end);
    let k = toks
        .iter()
        .position(|t| t.end > f.pos)
        .unwrap_or(toks.len());
    let found = toks.get(k).copied().or_else(|| lex::token_at(text, f.end));
    let form = form(f.ctx, &toks, text);
    let mut positives = f.positives.clone();
    if matches!(
        form,
        Form::Event | Form::Key | Form::State | Form::Transition | Form::Direct
    ) && positives.iter().any(|r| !property_only(*r))
    {
        positives.retain(|r| !property_only(*r) || (form == Form::Event && *r == Rule::duration));
    }
    let cx = Cx {
        text,
        file,
        f,
        toks,
        k,
        found,
        form,
        positives,
    };
    cx.explain()
}

fn form(ctx: Ctx, toks: &[Token], text: &str) -> Form {
    match ctx {
        Ctx::InnerAttr => return Form::Attr,
        Ctx::Import => return Form::Import,
        Ctx::MachineOpen => return Form::MachineHead,
        Ctx::AppOpen => return Form::AppHead,
        Ctx::StateOpen(_) => return Form::State,
        _ => {}
    }
    let mut words = toks.iter().filter(|t| t.kind != Kind::Doc);
    let Some(first) = words.next() else {
        return Form::Unknown;
    };
    let second = words.next();
    let app = ctx == Ctx::AppMembers;
    if first.is(text, "(") && !app {
        return Form::Transition;
    }
    if first.kind != Kind::Ident {
        return Form::Unknown;
    }
    if second.is_some_and(|t| t.is(text, "->")) {
        return if app { Form::Mapping } else { Form::Direct };
    }
    if app && second.is_some_and(|t| t.is(text, "::")) {
        return Form::Mapping;
    }
    if app && first.is_word(text, "chain") {
        return Form::Chain;
    }
    if matches!(ctx, Ctx::Members(_)) {
        match first.text(text) {
            "event" => return Form::Event,
            "key" | "cross_period" => return Form::Key,
            _ => {}
        }
        // `start default state A`, or a misspelt modifier before `state`.
        let leading = toks
            .iter()
            .filter(|t| t.kind != Kind::Doc)
            .take_while(|t| t.kind == Kind::Ident);
        if leading.clone().any(|t| t.is_word(text, "state"))
            || matches!(first.text(text), "start" | "default" | "final")
        {
            return Form::State;
        }
    }
    Form::Property
}

impl Form {
    /// The rule a statement of this form parses as, where that is one rule.
    fn rule(self) -> Option<Rule> {
        Some(match self {
            Form::Transition => Rule::transition,
            Form::Event => Rule::event_decl,
            Form::Key => Rule::key_decl,
            Form::State => Rule::state_decl,
            Form::Direct => Rule::direct_transition,
            Form::Property => Rule::property,
            Form::Chain => Rule::chain,
            Form::Mapping => Rule::mapping,
            _ => return None,
        })
    }
}

/// Rules only a property can be expecting: noise when the statement is plainly something else (`state 1st;` is
/// not a property whose value is a bad duration).
fn property_only(r: Rule) -> bool {
    matches!(
        r,
        Rule::string | Rule::duration | Rule::prop_eq | Rule::prop_list | Rule::equals
    )
}

fn backticked(s: &str) -> String {
    format!("`{s}`")
}

/// How a token is named in "found …" (`None`: the end of the file).
pub(super) fn describe_found(text: &str, t: Option<Token>) -> String {
    let Some(t) = t else {
        return "end of file".to_string();
    };
    match t.kind {
        Kind::Doc => "a doc comment".to_string(),
        Kind::OpenComment => "an unterminated comment".to_string(),
        _ => {
            let s = t.text(text);
            if s.chars().count() > 24 {
                format!("`{}…`", s.chars().take(24).collect::<String>())
            } else {
                format!("`{s}`")
            }
        }
    }
}

/// "a, b or c"
/// The message and the label of "expected …, found …", or of "unexpected …" where nothing is expected.
pub(super) fn expected_found(expected: &[String], found: &str) -> (String, String) {
    if expected.is_empty() {
        return (format!("unexpected {found}"), "unexpected here".to_string());
    }
    let expected = join_or(expected);
    (
        format!("expected {expected}, found {found}"),
        format!("expected {expected}"),
    )
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

impl Cx<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn found_span(&self) -> Span {
        match self.found {
            Some(t) => self.span(t.start, t.end),
            None => {
                let end = lex::end_of_text(self.text);
                self.span(end, end)
            }
        }
    }

    fn found_text(&self) -> &str {
        self.found.map_or("", |t| t.text(self.text))
    }

    fn found_is(&self, punct: &str) -> bool {
        self.found.is_some_and(|t| t.is(self.text, punct))
    }

    /// The significant tokens before the one pest stopped at.
    fn before(&self) -> impl DoubleEndedIterator<Item = &Token> + Clone {
        self.toks[..self.k.min(self.toks.len())]
            .iter()
            .filter(|t| t.kind != Kind::Doc)
    }

    fn prev(&self) -> Option<Token> {
        self.before().next_back().copied()
    }

    fn has(&self, rule: Rule) -> bool {
        self.positives.contains(&rule)
    }

    /// Whether the token pest stopped at is where a new statement would begin: on a later line, a closing brace,
    /// or the end of the statement's text.
    fn found_ends_statement(&self) -> bool {
        match self.found {
            None => true,
            Some(t) => {
                t.line_first
                    || t.start >= self.f.end
                    || t.is(self.text, "}")
                    || t.kind == Kind::OpenComment
            }
        }
    }

    /// The statement with `text[at..at + old_len]` replaced by `new`; `None` when that is not inside it.
    fn edited(&self, at: usize, old_len: usize, new: &str) -> Option<(String, Edit)> {
        let stmt = self.text.get(self.f.start..self.f.end)?;
        let rel = at.checked_sub(self.f.start)?;
        let mut s = String::with_capacity(stmt.len() + new.len());
        s.push_str(stmt.get(..rel)?);
        s.push_str(new);
        s.push_str(stmt.get(rel.checked_add(old_len)?..)?);
        let edit = Edit {
            at: rel,
            old_len,
            new_len: new.len(),
        };
        Some((s, edit))
    }

    /// The edit, if the statement parses with it as the kind of statement it is: a key missing its `:` is not
    /// repaired into a property `key price, u64;`.
    fn repair(&self, at: usize, old_len: usize, new: &str) -> Option<Fix> {
        let (text, edit) = self.edited(at, old_len, new)?;
        self.parses_as_written(&text)
            .then_some(Fix::Edit { text, edit })
    }

    /// Whether `text` parses, and as the same kind of statement as the one with the error.
    fn parses_as_written(&self, text: &str) -> bool {
        let lists = matches!(
            self.f.ctx,
            Ctx::Members(_) | Ctx::Properties(_) | Ctx::AppMembers
        );
        match try_parse(self.f.ctx.rule(), text) {
            Ok(first) => match (self.form.rule(), first) {
                (Some(want), Some(got)) if lists => want == got,
                _ => true,
            },
            Err(_) => false,
        }
    }

    /// The edit, if the statement parses with it as any kind of statement (a respelt keyword changes the kind).
    fn repair_any(&self, at: usize, old_len: usize, new: &str) -> Option<Fix> {
        let (text, edit) = self.edited(at, old_len, new)?;
        try_parse(self.f.ctx.rule(), &text)
            .is_ok()
            .then_some(Fix::Edit { text, edit })
    }

    fn can_repair(&self) -> bool {
        self.f.end - self.f.start <= MAX_REPAIRED
    }

    fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Code::Syntax, message)
    }

    fn explain(&self) -> (Diagnostic, Fix) {
        if let Some(out) = self.unterminated_string() {
            return out;
        }
        if let Some(out) = self.dangling_docs() {
            return out;
        }
        if self.can_repair() {
            for attempt in [
                Self::attribute_in_body,
                Self::non_ascii_name,
                Self::misspelt_keyword,
                Self::fat_arrow,
                Self::bad_duration,
                Self::unparenthesized_transition,
                Self::unquoted_path,
                Self::delimiter,
                Self::missing_punctuation,
            ] {
                if let Some(out) = attempt(self) {
                    return out;
                }
            }
        } else if let Some(out) = self.non_ascii_name().or_else(|| self.bad_duration()) {
            return out;
        }
        (self.expected_found(), Fix::None)
    }
}
