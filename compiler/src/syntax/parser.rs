//! Text → syntax tree. pest does the parsing; this module turns pairs into [`ast`](super::ast) nodes with spans
//! and pest's errors into diagnostics.

use super::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::source::{FileId, Name, Span};
use pest::Parser as _;
use pest::iterators::Pair;

#[derive(pest_derive::Parser)]
#[grammar = "syntax/fsm.pest"]
struct FsmParser;

/// How deeply brackets and block comments may nest. Real specs nest a handful of levels; the limit keeps the
/// recursive-descent parser far from the stack's end on hostile input.
pub const MAX_NESTING: usize = 64;

/// Parses one file. On a syntax error the tree is `None` and the diagnostic says where and what was expected.
pub fn parse(file: FileId, text: &str) -> (Option<File>, Vec<Diagnostic>) {
    if let Some(at) = too_deep(text) {
        let d = Diagnostic::new(
            Code::Syntax,
            format!("nesting deeper than {MAX_NESTING} levels"),
        )
        .at(Span::new(file, at, at + 1), "nested too deeply here")
        .help("flatten the nested brackets or comments");
        return (None, vec![d]);
    }
    match FsmParser::parse(Rule::file, text) {
        Ok(mut pairs) => {
            let mut out = File::default();
            let Some(root) = pairs.next() else {
                return (Some(out), Vec::new());
            };
            let b = Builder { file };
            for pair in root.into_inner() {
                match pair.as_rule() {
                    Rule::inner_attr => out.lints.push(b.lint_attr(first(pair))),
                    Rule::import => out.imports.push(b.import(pair)),
                    Rule::machine => out.machines.push(b.machine(pair)),
                    Rule::app => out.apps.push(b.app(pair)),
                    _ => {}
                }
            }
            (Some(out), Vec::new())
        }
        Err(e) => (None, vec![syntax_error(file, text, e)]),
    }
}

/// Finds the first byte where nesting exceeds [`MAX_NESTING`], skipping strings and line comments.
///
/// The scan mirrors the grammar's lexing: inside a block comment only `/*` and `*/` mean anything (a `"` or `//`
/// there is comment text), so neither can hide the brackets after the comment from the count.
fn too_deep(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut comments, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
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
        if depth > MAX_NESTING {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn syntax_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
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
    // pest gives up with a custom error ("stack limit reached", "call limit reached") when it runs out of room.
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
        Rule::doc | Rule::docs => "a doc comment",
        Rule::fields | Rule::field => "fields `(name: Type)`",
        Rule::state_body => "`{`",
        Rule::prop_eq => "`=`",
        Rule::prop_list => "a list of names",
        _ => return None,
    })
}

fn first(pair: Pair<'_, Rule>) -> Pair<'_, Rule> {
    // The grammar guarantees the child exists for every rule this is called on.
    pair.into_inner()
        .next()
        .expect("grammar guarantees a child")
}

struct Builder {
    file: FileId,
}

impl Builder {
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.file, s.start(), s.end())
    }

    fn name(&self, pair: &Pair<'_, Rule>) -> Name {
        Name::new(pair.as_str(), self.span(pair))
    }

    fn docs(&self, pair: Pair<'_, Rule>) -> Vec<String> {
        pair.into_inner()
            .map(|d| {
                let text = d.as_str().trim_start_matches("///");
                // A carriage return inside a line (old Mac line ends) is not allowed in a Rust doc comment, which
                // is where this text ends up: it becomes a space.
                text.strip_prefix(' ')
                    .unwrap_or(text)
                    .trim_end()
                    .replace('\r', " ")
            })
            .collect()
    }

    fn lint_attr(&self, pair: Pair<'_, Rule>) -> LintAttr {
        let mut inner = pair.into_inner();
        let level = self.name(&inner.next().expect("grammar: lint level"));
        LintAttr {
            level,
            lints: inner.map(|p| self.name(&p)).collect(),
        }
    }

    fn import(&self, pair: Pair<'_, Rule>) -> Import {
        let span = self.span(&pair);
        let mut path = String::new();
        let mut path_span = span;
        let mut alias = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::string => {
                    path = unquote(p.as_str());
                    path_span = self.span(&p);
                }
                Rule::ident => alias = Some(self.name(&p)),
                _ => {}
            }
        }
        Import {
            path,
            path_span,
            alias,
            span,
        }
    }

    fn machine(&self, pair: Pair<'_, Rule>) -> Machine {
        let span = self.span(&pair);
        let mut m = Machine {
            docs: Vec::new(),
            lints: Vec::new(),
            name: Name::new("", span),
            profile: None,
            events: Vec::new(),
            keys: Vec::new(),
            states: Vec::new(),
            transitions: Vec::new(),
            properties: Vec::new(),
            span,
        };
        let mut named = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => m.docs = self.docs(p),
                Rule::outer_attr => m.lints.push(self.lint_attr(first(p))),
                Rule::ident if !named => {
                    m.name = self.name(&p);
                    named = true;
                }
                Rule::ident => m.profile = Some(self.name(&p)),
                Rule::event_decl => self.events(p, &mut m.events),
                Rule::key_decl => m.keys.push(self.key(p)),
                Rule::state_decl => m.states.push(self.state(p)),
                Rule::transition => m.transitions.push(self.transition(p)),
                Rule::direct_transition => self.direct(p, &mut m.transitions),
                Rule::property => m.properties.push(self.property(p)),
                _ => {}
            }
        }
        m
    }

    fn events(&self, pair: Pair<'_, Rule>, out: &mut Vec<Event>) {
        let mut docs = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => docs = self.docs(p),
                Rule::event_item => {
                    let mut e = Event {
                        docs: docs.clone(),
                        name: Name::new("", self.span(&p)),
                        fields: Vec::new(),
                        timeout: None,
                        role: None,
                    };
                    let mut after_by = false;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::ident if after_by => e.role = Some(self.name(&q)),
                            Rule::ident => e.name = self.name(&q),
                            Rule::fields => {
                                e.fields = q.into_inner().map(|f| self.field(f)).collect()
                            }
                            Rule::duration => e.timeout = Some(self.name(&q)),
                            Rule::kw_by => after_by = true,
                            _ => {}
                        }
                    }
                    out.push(e);
                }
                _ => {}
            }
        }
    }

    fn field(&self, pair: Pair<'_, Rule>) -> Field {
        let mut inner = pair.into_inner();
        let name = self.name(&inner.next().expect("grammar: field name"));
        let ty = self.name(&inner.next().expect("grammar: field type"));
        Field { name, ty }
    }

    fn key(&self, pair: Pair<'_, Rule>) -> Key {
        let mut k = Key {
            docs: Vec::new(),
            name: Name::new("", self.span(&pair)),
            ty: Name::new("", self.span(&pair)),
            cross_period: false,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => k.docs = self.docs(p),
                Rule::key_mod => k.cross_period = true,
                Rule::ident => k.name = self.name(&p),
                Rule::rust_type => k.ty = self.name(&p),
                _ => {}
            }
        }
        k
    }

    fn state(&self, pair: Pair<'_, Rule>) -> State {
        let mut s = State {
            docs: Vec::new(),
            modifiers: Vec::new(),
            name: Name::new("", self.span(&pair)),
            kind: None,
            properties: Vec::new(),
        };
        let mut named = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => s.docs = self.docs(p),
                Rule::state_mod => s.modifiers.push(self.name(&p)),
                Rule::ident if !named => {
                    s.name = self.name(&p);
                    named = true;
                }
                Rule::ident => s.kind = Some(self.name(&p)),
                Rule::state_body => {
                    s.properties = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::property)
                        .map(|q| self.property(q))
                        .collect()
                }
                _ => {}
            }
        }
        s
    }

    fn property(&self, pair: Pair<'_, Rule>) -> Property {
        let span = self.span(&pair);
        let mut docs = Vec::new();
        let mut name = Name::new("", span);
        let mut value = PropValue::Flag;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => docs = self.docs(p),
                Rule::ident => name = self.name(&p),
                Rule::prop_eq => value = PropValue::Assign(self.name(&first(p))),
                Rule::string => {
                    value = PropValue::Text(Name::new(unquote(p.as_str()), self.span(&p)))
                }
                Rule::duration => value = PropValue::Duration(self.name(&p)),
                Rule::prop_list => {
                    value = PropValue::List(p.into_inner().map(|q| self.name(&q)).collect())
                }
                _ => {}
            }
        }
        Property {
            docs,
            name,
            value,
            span,
        }
    }

    fn transition(&self, pair: Pair<'_, Rule>) -> Transition {
        let span = self.span(&pair);
        let mut t = Transition {
            docs: Vec::new(),
            from: Name::new("", span),
            event: None,
            to: Name::new("", span),
            guards: Vec::new(),
            actions: Vec::new(),
            persist: None,
            span,
        };
        let mut idents = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => t.docs = self.docs(p),
                Rule::ident => {
                    match idents {
                        0 => t.from = self.name(&p),
                        1 => t.event = Some(self.name(&p)),
                        _ => t.to = self.name(&p),
                    }
                    idents += 1;
                }
                Rule::guard_if | Rule::guard_unless => {
                    let negated = p.as_rule() == Rule::guard_unless;
                    let name = p
                        .into_inner()
                        .find(|q| q.as_rule() == Rule::ident)
                        .map(|q| self.name(&q));
                    if let Some(name) = name {
                        t.guards.push(Guard { negated, name });
                    }
                }
                Rule::actions => t.actions.extend(
                    p.into_inner()
                        .filter(|q| q.as_rule() == Rule::ident)
                        .map(|q| self.name(&q)),
                ),
                Rule::persist => {
                    t.persist = p
                        .into_inner()
                        .find(|q| q.as_rule() == Rule::ident)
                        .map(|q| self.name(&q))
                }
                _ => {}
            }
        }
        t
    }

    /// `A -> B, C;` is one direct transition per target.
    fn direct(&self, pair: Pair<'_, Rule>, out: &mut Vec<Transition>) {
        let span = self.span(&pair);
        let mut docs = Vec::new();
        let mut names = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => docs = self.docs(p),
                Rule::ident => names.push(self.name(&p)),
                _ => {}
            }
        }
        let mut names = names.into_iter();
        let Some(from) = names.next() else { return };
        for to in names {
            out.push(Transition {
                docs: docs.clone(),
                from: from.clone(),
                event: None,
                to,
                guards: Vec::new(),
                actions: Vec::new(),
                persist: None,
                span,
            });
        }
    }

    fn app(&self, pair: Pair<'_, Rule>) -> App {
        let span = self.span(&pair);
        let mut a = App {
            docs: Vec::new(),
            lints: Vec::new(),
            name: Name::new("", span),
            chain: Vec::new(),
            chain_span: None,
            mappings: Vec::new(),
            properties: Vec::new(),
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => a.docs = self.docs(p),
                Rule::outer_attr => a.lints.push(self.lint_attr(first(p))),
                Rule::ident => a.name = self.name(&p),
                Rule::chain => {
                    a.chain_span = Some(self.span(&p));
                    a.chain.extend(
                        p.into_inner()
                            .filter(|q| q.as_rule() == Rule::ident)
                            .map(|q| self.name(&q)),
                    );
                }
                Rule::mapping => {
                    let mspan = self.span(&p);
                    let mut sides = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::qualified)
                        .map(|q| self.qualified(q));
                    if let (Some(from), Some(to)) = (sides.next(), sides.next()) {
                        a.mappings.push(Mapping {
                            from,
                            to,
                            span: mspan,
                        });
                    }
                }
                Rule::property => a.properties.push(self.property(p)),
                _ => {}
            }
        }
        a
    }

    fn qualified(&self, pair: Pair<'_, Rule>) -> Qualified {
        let names: Vec<Name> = pair.into_inner().map(|p| self.name(&p)).collect();
        match names.as_slice() {
            [m, s] => Qualified {
                machine: Some(m.clone()),
                state: s.clone(),
            },
            [s] => Qualified {
                machine: None,
                state: s.clone(),
            },
            // The grammar allows only one or two names.
            _ => Qualified {
                machine: None,
                state: Name::new("", Span::default()),
            },
        }
    }
}

/// Removes the quotes and resolves `\"`, `\\`, `\n` and `\t` escapes.
pub fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
