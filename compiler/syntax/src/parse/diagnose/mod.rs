//! A statement pest could not parse → one diagnostic in the language's own terms, and if one small edit makes
//! the statement parse, that edit (so the tree keeps the statement).
//!
//! pest says where it stopped and which rules it could have matched there. That is turned into what a person
//! reads: a missing `;` or `,` is reported just after the token it should follow, an unclosed bracket at the
//! bracket, a misspelt keyword as such, a bad duration over the whole literal with the units listed, and
//! otherwise "expected a state name, found `;`", with a name described by its place in the statement. Every
//! repair is checked by parsing the repaired statement again: a suggestion is only made when it works.

use super::build::Edit;
use crate::grammar::{FsmParser, Rule};
use crate::lex::{self, Kind, Token};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use fsmc_vocab::abci::RoundKind;
use fsmc_vocab::genie::Persistence;
use fsmc_vocab::{DURATION_UNITS, KEYWORDS, Profile};
use pest::Parser as _;
use std::borrow::Cow;

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

/// A near miss of a keyword, if `word` is one (`finall` → `final`).
/// `a`, `b` or `c`: a list of alternatives as a message writes it.
fn either<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let words: Vec<String> = words.into_iter().map(|w| format!("`{w}`")).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

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

    fn unterminated_string(&self) -> Option<(Diagnostic, Fix)> {
        let s = self.toks.iter().find(|t| t.kind == Kind::OpenStr)?;
        let d = self
            .error("unterminated string")
            .at(self.span(s.start, s.end), "this string has no closing `\"`")
            .help("a string ends on the line it starts on; write `\\\"` for a quote inside it and `\\n` for a line break");
        Some((d, Fix::None))
    }

    /// `#[allow(…)]` inside a body, before a member: attributes apply to whole machines and apps.
    fn attribute_in_body(&self) -> Option<(Diagnostic, Fix)> {
        let inside = match self.f.ctx {
            Ctx::Members(_) => "a machine",
            Ctx::Properties(_) => "a state",
            Ctx::AppMembers => "an app",
            _ => return None,
        };
        let mut words = self.toks.iter().filter(|t| t.kind != Kind::Doc);
        let hash = *words.next()?;
        if !hash.is(self.text, "#") {
            return None;
        }
        // Up to the `]` closing the attribute.
        let mut depth = 0usize;
        let mut end = hash.end;
        for t in words {
            end = t.end;
            if t.is(self.text, "[") {
                depth += 1;
            } else if t.is(self.text, "]") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
        }
        let fix = self
            .repair_any(hash.start, end - hash.start, "")
            .unwrap_or(Fix::None);
        let d = self
            .error(format!("attribute inside {inside}"))
            .at(self.span(hash.start, end), "`#[…]` applies to a whole machine or app")
            .help("put it right before the machine or app it is for, or write `#![…]` at the top of the file for the whole file");
        Some((d, fix))
    }

    /// `state Größe;`: a name with a letter outside ASCII.
    fn non_ascii_name(&self) -> Option<(Diagnostic, Fix)> {
        let t = self.found?;
        if !(t.kind == Kind::Other && t.text(self.text).chars().any(char::is_alphabetic)) {
            return None;
        }
        // The whole word: the letters, digits and `_` touching it on either side.
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let before = &self.text[..t.start];
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| word(c))
            .last()
            .map_or(t.start, |(i, _)| i);
        let after = &self.text[t.start..];
        let end = t.start
            + after
                .char_indices()
                .find(|&(_, c)| !word(c))
                .map_or(after.len(), |(i, _)| i);
        let name = &self.text[start..end];
        let d = self
            .error(format!("invalid name `{name}`"))
            .at(self.span(start, end), "only ASCII letters, digits and `_` may appear in a name")
            .help("names become Rust identifiers in the generated code: write them in ASCII, e.g. `Groesse` for `Größe`");
        Some((d, Fix::None))
    }

    fn dangling_docs(&self) -> Option<(Diagnostic, Fix)> {
        if self.toks.is_empty() || self.toks.iter().any(|t| t.kind != Kind::Doc) {
            return None;
        }
        let (first, last) = (self.toks[0], self.toks[self.toks.len() - 1]);
        let d = self
            .error("doc comment not followed by anything it could document")
            .at(self.span(first.start, last.end), "this doc comment documents nothing")
            .with(self.found_span(), format!("expected a declaration before {}", describe_found(self.text, self.found)))
            .help("doc comments (`///`) go right before a machine, an app, or a member; use `//` for an ordinary comment");
        Some((d, Fix::None))
    }

    /// A misspelt keyword: respelling one word before the error (or the word it is at) makes the statement parse.
    fn misspelt_keyword(&self) -> Option<(Diagnostic, Fix)> {
        let upto = (self.k + 1).min(self.toks.len());
        let words = self.toks[..upto]
            .iter()
            .rev()
            .filter(|t| t.kind == Kind::Ident)
            .take(6);
        for t in words {
            let word = t.text(self.text);
            let Some(kw) = keyword_like(word, KEYWORDS) else {
                continue;
            };
            if let Some(fix) = self.repair_any(t.start, word.len(), kw) {
                let d = self
                    .error(format!("unknown keyword `{word}`"))
                    .at(self.span(t.start, t.end), format!("did you mean `{kw}`?"))
                    .help(format!("write `{kw}`"));
                return Some((d, fix));
            }
        }
        None
    }

    /// `=>` written for `->`.
    fn fat_arrow(&self) -> Option<(Diagnostic, Fix)> {
        let t = self.found?;
        let next = lex::token_at(self.text, t.end)?;
        if !(self.has(Rule::arrow)
            && t.is(self.text, "=")
            && next.is(self.text, ">")
            && next.start == t.end)
        {
            return None;
        }
        let fix = self.repair(t.start, 2, "->").unwrap_or(Fix::None);
        let d = self
            .error("expected `->`, found `=>`")
            .at(self.span(t.start, next.end), "write `->`")
            .help(self.form_help().unwrap_or("the arrow is written `->`"));
        Some((d, fix))
    }

    /// A number where a duration is expected: `30x`, `30`, `30 s`, `30sec`.
    fn bad_duration(&self) -> Option<(Diagnostic, Fix)> {
        let t = self.found?;
        if t.kind != Kind::Number
            || !self.has(Rule::duration)
            || !matches!(self.form, Form::Event | Form::Property)
        {
            return None;
        }
        let lit = t.text(self.text);
        let digits = lit
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(lit.len());
        let (number, unit) = lit.split_at(digits);
        let help = format!(
            "a duration is a number followed by a unit, {}: for example `500ms`, `30s`, `1.5m` or `2h`",
            either(DURATION_UNITS.iter().map(|(unit, _)| *unit))
        );
        let message = format!("invalid duration `{lit}`");
        // `30 s`: the unit is there, one space too far.
        if unit.is_empty()
            && let Some(next) = lex::token_at(self.text, t.end)
            && next.kind == Kind::Ident
            && !next.line_first
            && canonical_unit(next.text(self.text)).is_some()
        {
            let unit = canonical_unit(next.text(self.text)).unwrap_or("s");
            let fixed = format!("{number}{unit}");
            let fix = self
                .repair(t.start, next.end - t.start, &fixed)
                .unwrap_or(Fix::None);
            let written = &self.text[t.start..next.end];
            let d = self
                .error(format!("invalid duration `{written}`"))
                .at(
                    self.span(t.start, next.end),
                    "the unit must follow the number without a space",
                )
                .help(format!("write `{fixed}`"));
            return Some((d, fix));
        }
        let (label, fix) = if unit.is_empty() {
            ("this number has no unit".to_string(), Fix::None)
        } else if let Some(canon) = canonical_unit(unit) {
            let fixed = format!("{number}{canon}");
            let fix = self.repair(t.start, lit.len(), &fixed).unwrap_or(Fix::None);
            (format!("did you mean `{fixed}`?"), fix)
        } else {
            (format!("`{unit}` is not a unit of time"), Fix::None)
        };
        let d = self
            .error(message)
            .at(self.span(t.start, t.end), label)
            .help(help);
        Some((d, fix))
    }

    /// An unclosed or mismatched `(`, `[`, `<` or `{` inside the statement.
    fn delimiter(&self) -> Option<(Diagnostic, Fix)> {
        let mut open: Vec<Token> = Vec::new();
        for t in self.toks[..self.k.min(self.toks.len())].iter() {
            match t.text(self.text) {
                _ if t.kind != Kind::Punct => {}
                "(" | "[" | "<" | "{" => open.push(*t),
                c @ (")" | "]" | ">" | "}")
                    if open.last().is_some_and(|o| closer(o.text(self.text)) == c) =>
                {
                    open.pop();
                }
                _ => {}
            }
        }
        let opener = *open.last()?;
        let o = opener.text(self.text);
        let want = closer(o);
        let found = self.found_text();
        let found_is_closer = self
            .found
            .is_some_and(|t| t.kind == Kind::Punct && matches!(found, ")" | "]" | ">" | "}"));
        let inside = self.found.is_some_and(|t| t.start < self.f.end);
        if found_is_closer && found != want && inside {
            let t = self.found?;
            let fix = self
                .repair(t.start, t.end - t.start, want)
                .unwrap_or(Fix::None);
            let d = self
                .error(format!("mismatched closing delimiter `{found}`"))
                .at(
                    self.span(t.start, t.end),
                    format!("expected `{want}` to close `{o}`"),
                )
                .with(self.span(opener.start, opener.end), "unclosed delimiter")
                .help(format!("close `{o}` with `{want}`"));
            return Some((d, fix));
        }
        if !self.has(closer_rule(want)?) {
            return None;
        }
        let prev = self.prev()?;
        let fix = self.repair(prev.end, 0, want);
        if fix.is_none() && !(self.found_ends_statement() || self.found_is(";") || found_is_closer)
        {
            return None;
        }
        let fix = fix.unwrap_or(Fix::None);
        let before = describe_found(self.text, self.found);
        let d = self
            .error(format!("unclosed `{o}`"))
            .at(
                self.span(opener.start, opener.end),
                format!("this `{o}` is never closed"),
            )
            .with(
                self.span(prev.end, prev.end),
                format!("expected `{want}` here, before {before}"),
            )
            .help(format!("close it with `{want}`"));
        Some((d, fix))
    }

    /// A missing `;`, `,`, `:`, `{` or `->`, reported just after the token it should follow.
    fn missing_punctuation(&self) -> Option<(Diagnostic, Fix)> {
        let prev = self.prev()?;
        let mut candidates: Vec<(&str, Rule)> = [
            (",", Rule::comma),
            (":", Rule::colon),
            ("->", Rule::arrow),
            ("{", Rule::lbrace),
            ("=", Rule::equals),
        ]
        .into_iter()
        .filter(|(_, r)| self.has(*r))
        .collect();
        let semi = self.has(Rule::semi) && self.f.ctx.takes_semi();
        let ends = self.found_ends_statement();
        // A token on a new line most likely starts the next statement; on the same line, a separator is missing.
        if semi && ends {
            candidates.insert(0, (";", Rule::semi));
        } else if semi {
            candidates.push((";", Rule::semi));
        }
        let found = describe_found(self.text, self.found);
        for (p, _) in candidates {
            let fix = if p == ";" {
                // On the same line, what follows must look like the start of a statement.
                let starts = self.found.is_some_and(|t| {
                    matches!(t.kind, Kind::Ident | Kind::Doc) || t.is(self.text, "(")
                });
                if !(ends || starts) {
                    continue;
                }
                let Some(mut prefix) = self.text.get(self.f.start..prev.end).map(str::to_string)
                else {
                    continue;
                };
                prefix.push(';');
                if !self.parses_as_written(&prefix) {
                    continue;
                }
                let rest = self.found.map_or(self.f.end, |t| t.start);
                Fix::Split { at: prev.end, rest }
            } else {
                let inserted = if p == "->" { " ->" } else { p };
                match self.repair(prev.end, 0, inserted) {
                    Some(fix) => fix,
                    None => {
                        // The statement may have a second mistake further on: the insertion still counts if pest
                        // now gets past the token it stopped at.
                        let Some((text, _)) = self.edited(prev.end, 0, inserted) else {
                            continue;
                        };
                        let past = self
                            .found
                            .map_or(usize::MAX, |t| t.end - self.f.start + inserted.len());
                        match try_parse(self.f.ctx.rule(), &text) {
                            Err(at) if at >= past => Fix::None,
                            _ => continue,
                        }
                    }
                }
            };
            let d = self
                .error(format!("expected `{p}`, found {found}"))
                .at(self.span(prev.end, prev.end), format!("add `{p}` here"));
            let d = match self.form_help() {
                Some(h) => d.help(h),
                None => d,
            };
            return Some((d, fix));
        }
        None
    }

    /// `import common.fsm;`
    fn unquoted_path(&self) -> Option<(Diagnostic, Fix)> {
        let t = self.found?;
        if self.form != Form::Import
            || !self.has(Rule::string)
            || matches!(t.kind, Kind::Str | Kind::Punct)
            || t.start >= self.f.end
        {
            return None;
        }
        // The path runs to the `;` or `as`, or the end of the line.
        let mut end = t.end;
        for u in self.toks[self.k..].iter().skip(1) {
            if u.is(self.text, ";") || u.is_word(self.text, "as") || u.line_first {
                break;
            }
            end = u.end;
        }
        let path = &self.text[t.start..end];
        let quoted = format!("\"{path}\"");
        let fix = self
            .repair(t.start, end - t.start, &quoted)
            .unwrap_or(Fix::None);
        let d = self
            .error(format!("expected a path in double quotes, found `{path}`"))
            .at(self.span(t.start, end), format!("write `{quoted}`"))
            .help("an import is written `import \"path.fsm\";` or `import \"path\" as Name;`");
        Some((d, fix))
    }

    /// `A, GO -> B;`: a transition on an event without its parentheses.
    fn unparenthesized_transition(&self) -> Option<(Diagnostic, Fix)> {
        if !matches!(self.form, Form::Property | Form::Direct) {
            return None;
        }
        let mut it = self.toks.iter().filter(|t| t.kind != Kind::Doc);
        let (a, comma, b, arrow) = (it.next()?, it.next()?, it.next()?, it.next()?);
        if !(a.kind == Kind::Ident
            && comma.is(self.text, ",")
            && b.kind == Kind::Ident
            && arrow.is(self.text, "->"))
        {
            return None;
        }
        let pair = &self.text[a.start..b.end];
        let d = self
            .error("expected `(` before a transition's state and event")
            .at(self.span(a.start, b.end), format!("write `({pair})`"))
            .help("a transition on an event is written `(State, EVENT) -> Target;`; a direct transition `State -> Target;` has no event");
        Some((d, Fix::None))
    }

    /// The general case: "expected …, found …" at the token pest stopped at.
    fn expected_found(&self) -> Diagnostic {
        let expected = self.expected();
        let found = describe_found(self.text, self.found);
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
        let mut d = self.error(message).at(self.found_span(), label);
        let name_expected =
            self.has(Rule::ident) || self.has(Rule::prop_list) || self.has(Rule::qualified);
        let help = match self.found {
            Some(t) if name_expected && t.kind == Kind::Number => {
                Some("a name starts with a letter or `_`".to_string())
            }
            Some(t)
                if t.kind == Kind::Other && t.text(self.text).chars().any(char::is_alphabetic) =>
            {
                Some("names may only use ASCII letters, digits and `_`".to_string())
            }
            _ => self.form_help().map(str::to_string),
        };
        if let Some(h) = help {
            d = d.help(h);
        } else {
            d = d.help("see docs/language.md for the grammar");
        }
        d
    }

    /// What pest could have matched, in the language's terms.
    fn expected(&self) -> Vec<String> {
        let at_start = self.before().next().is_none();
        if at_start && let Some(s) = self.start_phrase() {
            return vec![s.to_string()];
        }
        // Right after a keyword that must be followed by a name (`state`, `event`, `if`, …), other readings of the
        // statement (`state;` as a property, `state -> B;` as a direct transition) only confuse.
        let named_by_keyword = self.form != Form::Property
            && self.prev().is_some_and(|t| {
                t.kind == Kind::Ident
                    && matches!(
                        t.text(self.text),
                        "state"
                            | "event"
                            | "key"
                            | "machine"
                            | "app"
                            | "chain"
                            | "if"
                            | "unless"
                            | "do"
                            | "persist"
                            | "by"
                            | "as"
                    )
            });
        // Content first, then punctuation, then keywords; each group in a fixed order.
        let mut content: Vec<String> = Vec::new();
        let mut punct: Vec<String> = Vec::new();
        let mut words: Vec<String> = Vec::new();
        for &r in &self.positives {
            let (group, phrase) = match r {
                Rule::ident | Rule::prop_list | Rule::qualified => {
                    (&mut content, self.name_role().to_string())
                }
                Rule::lint_name => (&mut content, "a lint name or code".to_string()),
                Rule::string if self.form == Form::Import => (
                    &mut content,
                    "a path in double quotes, such as `\"common.fsm\"`".to_string(),
                ),
                Rule::string => (&mut content, "a string".to_string()),
                Rule::duration => (&mut content, "a duration such as `30s`".to_string()),
                Rule::integer => (&mut content, "a number".to_string()),
                Rule::rust_type | Rule::type_path | Rule::type_tuple | Rule::type_array => {
                    (&mut content, "a type".to_string())
                }
                Rule::outer_attr | Rule::inner_attr => (&mut content, "an attribute".to_string()),
                Rule::state_mod if self.has(Rule::kw_state) => continue,
                Rule::state_mod => (&mut words, "`start`, `default` or `final`".to_string()),
                Rule::key_mod if self.has(Rule::kw_key) => continue,
                Rule::key_mod => (&mut words, backticked("cross_period")),
                _ if named_by_keyword => continue,
                _ => match punct_of(r) {
                    Some(p) => (&mut punct, backticked(p)),
                    None => match keyword_of(r) {
                        Some(w) => (&mut words, backticked(w)),
                        None => continue,
                    },
                },
            };
            if !group.contains(&phrase) {
                group.push(phrase);
            }
        }
        punct.sort_by_key(|p| PUNCT_ORDER.iter().position(|o| backticked(o) == *p));
        words.sort();
        content.extend(punct);
        content.extend(words);
        content
    }

    /// What a statement may start with here.
    fn start_phrase(&self) -> Option<&'static str> {
        Some(match self.f.ctx {
            Ctx::Members(_) => {
                "`event`, `key`, `state`, a transition `(State, EVENT) -> Target;` or a property"
            }
            Ctx::Properties(_) => "a property such as `reads key;`",
            Ctx::AppMembers => "`chain`, a mapping `Final -> Start;` or a property",
            _ => return None,
        })
    }

    /// How the name pest expects is described: by the token before it and the kind of statement.
    fn name_role(&self) -> Cow<'static, str> {
        let Some(prev) = self.prev() else {
            return "a name".into();
        };
        let p = prev.text(self.text);
        // Depth in `(` of the tokens before: a transition's `(State, EVENT)`, an event's fields.
        let depth = self.before().fold(0i32, |d, t| match t.text(self.text) {
            "(" if t.kind == Kind::Punct => d + 1,
            ")" if t.kind == Kind::Punct => d - 1,
            _ => d,
        });
        let after_colon = self
            .before()
            .rev()
            .take_while(|t| !(t.is(self.text, "(") || (t.is(self.text, ",") && depth <= 1)))
            .any(|t| t.is(self.text, ":"));
        let kind = match self.f.ctx {
            Ctx::Members(p) | Ctx::StateOpen(p) | Ctx::Properties(p) => p,
            _ => Some(Profile::Plain),
        };
        let role = match (self.form, p) {
            (Form::Transition, "(") => "a state name",
            (Form::Transition, ",") if depth >= 1 => "an event name",
            (Form::Transition, ",") => "an action name",
            (Form::Transition, "->") => "the target state's name",
            (Form::Transition, "if" | "unless") => "a guard name",
            (Form::Transition, "do") => "an action name",
            (Form::Transition, "persist") => {
                let modes = either(Persistence::ALL.iter().map(|p| p.name()));
                return format!("a persistence mode: {modes}").into();
            }
            (Form::Event, "by") => "a role name",
            (Form::Event | Form::Key, _) if after_colon => "a type",
            (Form::Event, "(") => "a field name",
            (Form::Event, ",") if depth >= 1 => "a field name",
            (Form::Event, "event" | ",") => "an event name",
            (Form::Key, "key") => "a key name",
            (Form::State, "state") => "a state name",
            (Form::State, ":") => match kind {
                Some(Profile::Abci) => {
                    return format!("a round kind such as `{}`", RoundKind::NAMES[0]).into();
                }
                Some(p @ Profile::Genie) => {
                    return format!("a state kind: {}", either(p.state_kinds().iter().copied()))
                        .into();
                }
                _ => "a state kind",
            },
            (Form::Direct, "->" | ",") => "a state name",
            (Form::Mapping, "->") => "a start state (`State` or `Machine::State`)",
            (Form::Mapping, "::") => "a state name",
            (Form::Chain, "chain" | ",") => "a machine name",
            (Form::MachineHead, "machine") => "a machine name",
            (Form::MachineHead, ":") => {
                return format!(
                    "a profile: {}",
                    either(Profile::written().map(Profile::name))
                )
                .into();
            }
            (Form::AppHead, "app") => "an app name",
            (Form::Import, "as") => "a name for the imported machine",
            (Form::Attr, "[") => "a lint level: `allow`, `warn` or `deny`",
            (Form::Property, "=") if kind == Some(Profile::Abci) => "an event name",
            (_, "<" | "::" | "[") => "a type",
            _ => "a name",
        };
        role.into()
    }

    /// How the statement is written, for the help line.
    fn form_help(&self) -> Option<&'static str> {
        Some(match self.form {
            Form::Transition => {
                "a transition is written `(State, EVENT) -> Target;`, optionally with `if guard`, `unless guard`, `do action, …` or `persist mode` before the `;`"
            }
            Form::Event => {
                "an event is declared `event NAME;`, `event A, B;`, `event NAME timeout 30s;` or `event NAME(field: Type) by role;`"
            }
            Form::Key => "a key is declared `key name: Type;` or `cross_period key name: Type;`",
            Form::State => {
                "a state is declared `state Name;` or `state Name: kind { property; … }`, after any of `start`, `default`, `final`"
            }
            Form::Direct => "a direct transition is written `State -> Next, Other;`",
            Form::Property => {
                "a property is written `name;`, `name = EVENT;`, `name \"text\";`, `name 30s;` or `name a, b;`"
            }
            Form::Chain => "a chain is written `chain First, Second, Third;`",
            Form::Mapping => {
                "a mapping is written `FinalState -> StartState;`; either side may be `Machine::State`"
            }
            Form::Import => {
                "an import is written `import \"path.fsm\";` or `import \"path\" as Name;`"
            }
            Form::Attr => {
                "a lint attribute is written `#[allow(lint, …)]` (or `warn`, `deny`); `#![…]` applies to the whole file"
            }
            Form::MachineHead => "a machine starts `machine Name {` or `machine Name: profile {`",
            Form::AppHead => "an app starts `app Name {`",
            Form::Unknown => return None,
        })
    }
}

/// The order punctuation is listed in.
const PUNCT_ORDER: &[&str] = &[
    ";", ",", ":", "::", "=", "->", "(", ")", "[", "]", "<", ">", "{", "}", "#", "!",
];

fn punct_of(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::semi => ";",
        Rule::comma => ",",
        Rule::colon => ":",
        Rule::path_sep => "::",
        Rule::equals | Rule::prop_eq => "=",
        Rule::arrow => "->",
        Rule::lparen | Rule::fields => "(",
        Rule::rparen => ")",
        Rule::lbracket => "[",
        Rule::rbracket => "]",
        Rule::langle => "<",
        Rule::rangle => ">",
        Rule::lbrace | Rule::state_body => "{",
        Rule::rbrace => "}",
        Rule::hash => "#",
        Rule::bang => "!",
        _ => return None,
    })
}

fn keyword_of(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_import | Rule::import => "import",
        Rule::kw_as => "as",
        Rule::kw_machine | Rule::machine => "machine",
        Rule::kw_app | Rule::app => "app",
        Rule::kw_event | Rule::event_decl => "event",
        Rule::kw_key | Rule::key_decl => "key",
        Rule::kw_state | Rule::state_decl => "state",
        Rule::kw_timeout => "timeout",
        Rule::kw_by => "by",
        Rule::kw_chain | Rule::chain => "chain",
        Rule::kw_if | Rule::guard_if => "if",
        Rule::kw_unless | Rule::guard_unless => "unless",
        Rule::kw_do | Rule::actions => "do",
        Rule::kw_persist | Rule::persist => "persist",
        _ => return None,
    })
}

fn closer(open: &str) -> &'static str {
    match open {
        "(" => ")",
        "[" => "]",
        "<" => ">",
        _ => "}",
    }
}

fn closer_rule(close: &str) -> Option<Rule> {
    Some(match close {
        ")" => Rule::rparen,
        "]" => Rule::rbracket,
        ">" => Rule::rangle,
        "}" => Rule::rbrace,
        _ => return None,
    })
}

/// The unit a spelling of one means: `sec` → `s`.
fn canonical_unit(unit: &str) -> Option<&'static str> {
    Some(match unit.to_ascii_lowercase().as_str() {
        "ms" | "msec" | "msecs" | "millis" | "millisecond" | "milliseconds" => "ms",
        "s" | "sec" | "secs" | "second" | "seconds" => "s",
        "m" | "min" | "mins" | "minute" | "minutes" => "m",
        "h" | "hr" | "hrs" | "hour" | "hours" => "h",
        _ => return None,
    })
}
