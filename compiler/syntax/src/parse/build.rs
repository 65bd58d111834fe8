//! pest pairs → syntax tree nodes, with spans in the file's byte offsets.
//!
//! The fast path parses the whole file at once; after a syntax error the recovery parses pieces of it (one item,
//! one statement, or one statement repaired by a single edit), so a [`Builder`] knows where the text it was given
//! sits in the file ([`Origin`]) and builds a node from pieces as well as from a whole pair.

use crate::ast::*;
use crate::grammar::Rule;
use crate::lex::unquote;
use fsmc_base::source::{FileId, Name, Span};
use pest::iterators::Pair;

/// One edit made to a slice of the file before parsing it: `old_len` bytes at `at` replaced by `new_len` bytes
/// (a keyword respelt, a missing `;` inserted). Positions are in the edited text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub at: usize,
    pub old_len: usize,
    pub new_len: usize,
}

/// Where the text pest parsed came from: the file's bytes from `base`, with at most one [`Edit`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Origin {
    pub base: usize,
    pub edit: Option<Edit>,
}

impl Origin {
    pub fn at(base: usize) -> Origin {
        Origin { base, edit: None }
    }

    /// The file offset of a position in the parsed text. A position inside the edited bytes maps into the bytes
    /// they replaced, so every span stays inside the file and inside the text that was written.
    pub fn map(&self, p: usize) -> usize {
        let p = match self.edit {
            Some(e) if p >= e.at + e.new_len => p - e.new_len + e.old_len,
            Some(e) if p > e.at => e.at + (p - e.at).min(e.old_len),
            _ => p,
        };
        self.base + p
    }
}

pub(crate) struct Builder {
    pub file: FileId,
    pub origin: Origin,
}

/// The text of one `/// …` line as it goes into the generated code's docs.
fn doc(pair: &Pair<'_, Rule>) -> String {
    let text = pair.as_str().trim_start_matches("///");
    // A carriage return inside a line (old Mac line ends) is not allowed in a Rust doc comment, which is where
    // this text ends up: it becomes a space.
    text.strip_prefix(' ')
        .unwrap_or(text)
        .trim_end()
        .replace('\r', " ")
}

/// The first child of `pair` made by `rule`.
fn child<'i>(pair: Pair<'i, Rule>, rule: Rule) -> Option<Pair<'i, Rule>> {
    pair.into_inner().find(|p| p.as_rule() == rule)
}

impl Builder {
    pub fn new(file: FileId, origin: Origin) -> Builder {
        Builder { file, origin }
    }

    pub fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        self.span_of(pair.as_span())
    }

    fn span_of(&self, s: pest::Span<'_>) -> Span {
        Span::new(
            self.file,
            self.origin.map(s.start()),
            self.origin.map(s.end()),
        )
    }

    /// A name and where it is (one look at pest's tokens for both: a large spec has millions of names).
    fn name(&self, pair: &Pair<'_, Rule>) -> Name {
        let s = pair.as_span();
        Name::new(s.as_str(), self.span_of(s))
    }

    /// A Rust type as generated code will hold it: its tokens without the comments and byte order marks the
    /// grammar skipped between them (the span still covers what was written).
    fn rust_type(&self, pair: &Pair<'_, Rule>) -> Name {
        let s = pair.as_span();
        Name::new(crate::lex::without_trivia(s.as_str()), self.span_of(s))
    }

    /// `#![…]` or `#[…]`: the level and the lints inside.
    pub fn lint_attr(&self, attr: Pair<'_, Rule>) -> Option<LintAttr> {
        let span = self.span(&attr);
        let inner = child(attr, Rule::lint_attr)?;
        let mut level = None;
        let mut lints = Vec::new();
        for p in inner.into_inner() {
            match p.as_rule() {
                Rule::ident => level = Some(self.name(&p)),
                Rule::lint_name => lints.push(self.name(&p)),
                _ => {}
            }
        }
        Some(LintAttr {
            level: level?,
            lints,
            span,
        })
    }

    pub fn import(&self, pair: Pair<'_, Rule>) -> Import {
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

    pub fn machine(&self, pair: Pair<'_, Rule>) -> Machine {
        let mut m = empty_machine(self.span(&pair));
        let mut named = false;
        for p in pair.into_inner() {
            self.machine_part(p, &mut m, &mut named);
        }
        m
    }

    /// Adds one child of a machine (its head's docs, attributes, name and profile, or one member) to `m`.
    /// `named` says whether the name was seen: the first identifier is the name, the second the profile.
    pub fn machine_part(&self, p: Pair<'_, Rule>, m: &mut Machine, named: &mut bool) {
        match p.as_rule() {
            Rule::doc => m.docs.push(doc(&p)),
            Rule::outer_attr => m.lints.extend(self.lint_attr(p)),
            Rule::ident if !*named => {
                m.name = self.name(&p);
                *named = true;
            }
            Rule::ident => m.profile = Some(self.name(&p)),
            Rule::refines => {
                m.refines = p
                    .into_inner()
                    .find(|q| q.as_rule() == Rule::ident)
                    .map(|q| self.name(&q))
            }
            Rule::event_decl => self.events(p, &mut m.events),
            Rule::key_decl => m.keys.push(self.key(p)),
            // `fast_state` and `fast_transition` (the fast path's, see `grammar/fsm.pest`) are the same statements
            // with fewer pairs, none of which these read.
            Rule::state_decl | Rule::fast_state => m.states.push(self.state(p)),
            Rule::transition | Rule::fast_transition => m.transitions.push(self.transition(p)),
            Rule::direct_transition => self.direct(p, &mut m.transitions),
            Rule::property => m.properties.push(self.property(p)),
            Rule::claim => m.claims.push(self.claim(p)),
            _ => {}
        }
    }

    fn events(&self, pair: Pair<'_, Rule>, out: &mut Vec<Event>) {
        let span = self.span(&pair);
        let mut docs = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => docs.push(doc(&p)),
                Rule::event_item => {
                    let mut e = Event {
                        docs: docs.clone(),
                        name: Name::new("", self.span(&p)),
                        span,
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
                                e.fields = q
                                    .into_inner()
                                    .filter(|f| f.as_rule() == Rule::field)
                                    .map(|f| self.field(f))
                                    .collect()
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
        let span = self.span(&pair);
        let mut name = Name::new("", span);
        let mut ty = Name::new("", span);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => name = self.name(&p),
                Rule::rust_type => ty = self.rust_type(&p),
                _ => {}
            }
        }
        Field { name, ty }
    }

    fn key(&self, pair: Pair<'_, Rule>) -> Key {
        let mut k = Key {
            docs: Vec::new(),
            name: Name::new("", self.span(&pair)),
            span: self.span(&pair),
            ty: Name::new("", self.span(&pair)),
            cross_period: false,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => k.docs.push(doc(&p)),
                Rule::key_mod => k.cross_period = true,
                Rule::ident => k.name = self.name(&p),
                Rule::rust_type => k.ty = self.rust_type(&p),
                _ => {}
            }
        }
        k
    }

    fn state(&self, pair: Pair<'_, Rule>) -> State {
        let mut s = empty_state(self.span(&pair));
        let mut named = false;
        for p in pair.into_inner() {
            self.state_part(p, &mut s, &mut named);
        }
        s
    }

    /// Adds one child of a state declaration (head, body, or one property of the body) to `s`.
    pub fn state_part(&self, p: Pair<'_, Rule>, s: &mut State, named: &mut bool) {
        match p.as_rule() {
            Rule::doc => s.docs.push(doc(&p)),
            Rule::state_mod => s.modifiers.push(self.name(&p)),
            Rule::ident if !*named => {
                s.name = self.name(&p);
                *named = true;
            }
            Rule::ident => s.kind = Some(self.name(&p)),
            Rule::state_body => s.properties.extend(
                p.into_inner()
                    .filter(|q| q.as_rule() == Rule::property)
                    .map(|q| self.property(q)),
            ),
            Rule::property => s.properties.push(self.property(p)),
            _ => {}
        }
    }

    fn property(&self, pair: Pair<'_, Rule>) -> Property {
        let span = self.span(&pair);
        let mut docs = Vec::new();
        let mut name = Name::new("", span);
        let mut value = PropValue::Flag;
        let mut groups = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => docs.push(doc(&p)),
                Rule::ident => name = self.name(&p),
                Rule::prop_eq => {
                    if let Some(target) = child(p, Rule::ident) {
                        value = PropValue::Assign(self.name(&target));
                    }
                }
                Rule::string => {
                    value = PropValue::Text(Name::new(unquote(p.as_str()), self.span(&p)))
                }
                Rule::duration => value = PropValue::Duration(self.name(&p)),
                Rule::integer => value = PropValue::Number(self.name(&p)),
                Rule::prop_list => {
                    let mut names = Vec::new();
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::ident => names.push(self.name(&q)),
                            // `[]` after a name: the name before it is a group.
                            Rule::group => {
                                groups.push((names.len().saturating_sub(1), self.span(&q)))
                            }
                            _ => {}
                        }
                    }
                    value = PropValue::List(names);
                }
                _ => {}
            }
        }
        Property {
            docs,
            name,
            value,
            groups,
            span,
        }
    }

    fn transition(&self, pair: Pair<'_, Rule>) -> Transition {
        let span = self.span(&pair);
        let mut t = Transition {
            docs: ThinVec::new(),
            from: Name::new("", span),
            event: None,
            to: Name::new("", span),
            guards: ThinVec::new(),
            actions: ThinVec::new(),
            persist: None,
            span,
        };
        let mut idents = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => t.docs.push(doc(&p)),
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
                    if let Some(name) = child(p, Rule::ident) {
                        t.guards.push(Guard {
                            negated,
                            name: self.name(&name),
                        });
                    }
                }
                Rule::actions => {
                    let mut side = None;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::kw_side => side = Some(self.name(&q)),
                            Rule::ident => t.actions.push(Action {
                                side: side.clone(),
                                name: self.name(&q),
                            }),
                            _ => {}
                        }
                    }
                }
                Rule::persist => t.persist = child(p, Rule::ident).map(|q| Box::new(self.name(&q))),
                _ => {}
            }
        }
        t
    }

    /// `A -> B, C;` is one direct transition per target.
    fn direct(&self, pair: Pair<'_, Rule>, out: &mut Vec<Transition>) {
        let span = self.span(&pair);
        let mut docs = ThinVec::new();
        let mut names = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => docs.push(doc(&p)),
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
                guards: ThinVec::new(),
                actions: ThinVec::new(),
                persist: None,
                span,
            });
        }
    }

    pub fn app(&self, pair: Pair<'_, Rule>) -> App {
        let mut a = empty_app(self.span(&pair));
        for p in pair.into_inner() {
            self.app_part(p, &mut a);
        }
        a
    }

    /// Adds one child of an app (its head's docs, attributes and name, or one member) to `a`.
    pub fn app_part(&self, p: Pair<'_, Rule>, a: &mut App) {
        match p.as_rule() {
            Rule::doc => a.docs.push(doc(&p)),
            Rule::outer_attr => a.lints.extend(self.lint_attr(p)),
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
            Rule::claim => a.claims.push(self.claim(p)),
            _ => {}
        }
    }

    /// `invariant "name": formula;`.
    fn claim(&self, pair: Pair<'_, Rule>) -> Claim {
        let span = self.span(&pair);
        let mut c = Claim {
            docs: Vec::new(),
            kind: Name::new("", span),
            name: Name::new("", span),
            formula: Formula::Or(Vec::new()),
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::doc => c.docs.push(doc(&p)),
                Rule::kw_claim => c.kind = self.name(&p),
                Rule::string => c.name = Name::new(unquote(p.as_str()), self.span(&p)),
                Rule::formula => c.formula = self.formula(p),
                _ => {}
            }
        }
        c
    }

    /// A formula, a conjunct or a negation, with a list of one member left as that member.
    fn formula(&self, pair: Pair<'_, Rule>) -> Formula {
        let rule = pair.as_rule();
        let mut parts = Vec::new();
        let mut nots = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::kw_not => nots += 1,
                Rule::formula | Rule::conjunct | Rule::negation => parts.push(self.formula(p)),
                _ => parts.extend(self.condition(p)),
            }
        }
        let mut f = match (rule, parts.len()) {
            (_, 1) => parts.pop().expect("one part"),
            (Rule::conjunct, _) => Formula::And(parts),
            _ => Formula::Or(parts),
        };
        for _ in 0..nots {
            f = Formula::Not(Box::new(f));
        }
        f
    }

    /// One condition of a formula: `in A, B`, `has k`, `missing k`, `after A`, `outcome E`, `period at least 2`.
    fn condition(&self, p: Pair<'_, Rule>) -> Option<Formula> {
        let rule = p.as_rule();
        let names = |p: Pair<'_, Rule>| -> Vec<Name> {
            p.into_inner()
                .filter(|q| q.as_rule() == Rule::ident)
                .map(|q| self.name(&q))
                .collect()
        };
        Some(match rule {
            Rule::in_states => Formula::In(names(p)),
            Rule::after => Formula::After(names(p)),
            Rule::outcome => Formula::Outcome(names(p)),
            Rule::key_test => {
                let has = p.as_str().starts_with("has");
                let key = self.name(&child(p, Rule::ident)?);
                if has {
                    Formula::Has(key)
                } else {
                    Formula::Missing(key)
                }
            }
            Rule::period => {
                let span = self.span(&p);
                let mut cmp = PeriodCmp::Is;
                let mut value = Name::new("", span);
                for q in p.into_inner() {
                    match (q.as_rule(), q.as_str()) {
                        (Rule::kw_bound, "least") => cmp = PeriodCmp::AtLeast,
                        (Rule::kw_bound, _) => cmp = PeriodCmp::AtMost,
                        (Rule::integer, _) => value = self.name(&q),
                        _ => {}
                    }
                }
                Formula::Period(PeriodTest { cmp, value, span })
            }
            _ => return None,
        })
    }

    fn qualified(&self, pair: Pair<'_, Rule>) -> Qualified {
        let span = self.span(&pair);
        let names: Vec<Name> = pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::ident)
            .map(|p| self.name(&p))
            .collect();
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
                state: Name::new("", span),
            },
        }
    }
}

pub(crate) fn empty_machine(span: Span) -> Machine {
    Machine {
        docs: Vec::new(),
        lints: Vec::new(),
        name: Name::new("", span),
        profile: None,
        refines: None,
        events: Vec::new(),
        keys: Vec::new(),
        states: Vec::new(),
        transitions: Vec::new(),
        properties: Vec::new(),
        claims: Vec::new(),
        span,
    }
}

pub(crate) fn empty_state(span: Span) -> State {
    State {
        docs: Vec::new(),
        modifiers: Vec::new(),
        name: Name::new("", span),
        kind: None,
        properties: Vec::new(),
        span,
    }
}

pub(crate) fn empty_app(span: Span) -> App {
    App {
        docs: Vec::new(),
        lints: Vec::new(),
        name: Name::new("", span),
        chain: Vec::new(),
        chain_span: None,
        mappings: Vec::new(),
        properties: Vec::new(),
        claims: Vec::new(),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_map_back_through_an_edit() {
        // `finall` (6 bytes at 4) respelt `final` (5 bytes): before the edit, inside it, after it.
        let o = Origin {
            base: 100,
            edit: Some(Edit {
                at: 4,
                old_len: 6,
                new_len: 5,
            }),
        };
        assert_eq!(o.map(0), 100);
        assert_eq!(o.map(4), 104);
        assert_eq!(o.map(7), 107);
        assert_eq!(o.map(9), 110, "the end of `final` is the end of `finall`");
        assert_eq!(o.map(16), 117);
        // A `;` inserted at 12: it maps to where it was missing.
        let o = Origin {
            base: 0,
            edit: Some(Edit {
                at: 12,
                old_len: 0,
                new_len: 1,
            }),
        };
        assert_eq!(o.map(12), 12);
        assert_eq!(o.map(13), 12);
    }
}
