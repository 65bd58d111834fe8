//! The particular mistakes a statement is checked for before the general "expected …, found …": each says
//! what is wrong in the language's terms and, where one checked edit makes the statement parse, offers it.

use super::{Ctx, Cx, Fix, Form, describe_found, either, keyword_like, try_parse};
use crate::grammar::Rule;
use crate::lex::{self, Bracket, Kind, Token};
use fsmc_base::diag::Diagnostic;
use fsmc_vocab::{DURATION_UNITS, KEYWORDS};

impl Cx<'_> {
    pub(super) fn unterminated_string(&self) -> Option<(Diagnostic, Fix)> {
        let s = self.toks.iter().find(|t| t.kind == Kind::OpenStr)?;
        let d = self
            .error("unterminated string")
            .at(self.span(s.start, s.end), "this string has no closing `\"`")
            .help("a string ends on the line it starts on; write `\\\"` for a quote inside it and `\\n` for a line break");
        Some((d, Fix::None))
    }

    /// `#[allow(…)]` inside a body, before a member: attributes apply to whole machines and apps.
    pub(super) fn attribute_in_body(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn non_ascii_name(&self) -> Option<(Diagnostic, Fix)> {
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

    pub(super) fn dangling_docs(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn misspelt_keyword(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn fat_arrow(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn bad_duration(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn delimiter(&self) -> Option<(Diagnostic, Fix)> {
        let mut open: Vec<(Token, Bracket)> = Vec::new();
        for t in self.toks[..self.k.min(self.toks.len())].iter() {
            match t.bracket(self.text) {
                Some((b, true)) => open.push((*t, b)),
                Some((b, false)) if open.last().is_some_and(|&(_, o)| o == b) => {
                    open.pop();
                }
                _ => {}
            }
        }
        let (opener, bracket) = *open.last()?;
        let (o, want) = (bracket.open(), bracket.close());
        let found = self.found_text();
        let found_is_closer = self
            .found
            .is_some_and(|t| matches!(t.bracket(self.text), Some((_, false))));
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
        if !self.has(closer_rule(bracket)) {
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
    pub(super) fn missing_punctuation(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn unquoted_path(&self) -> Option<(Diagnostic, Fix)> {
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
    pub(super) fn unparenthesized_transition(&self) -> Option<(Diagnostic, Fix)> {
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
}

/// The rule of the grammar that matches the closing `bracket`.
fn closer_rule(bracket: Bracket) -> Rule {
    match bracket {
        Bracket::Paren => Rule::rparen,
        Bracket::Square => Rule::rbracket,
        Bracket::Angle => Rule::rangle,
        Bracket::Brace => Rule::rbrace,
    }
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
