//! Completion: the names that may be written where the cursor is.
//!
//! Where the cursor is, is read from the text rather than the tree, since the statement being typed is exactly
//! what does not parse yet: the file's tokens up to the cursor give the blocks it is inside (a machine, a state's
//! body, an app) and the tokens of the statement so far. What may come next follows from the grammar (after
//! `(` a state, after `(State,` an event, after `reads` a key, after `state Name:` a round kind…); the names come
//! from the machine's declarations in the (possibly partial) tree.

use super::Analysis;
use super::index::{self, MachineSyntax};
use fsmc_base::source::FileId;
use fsmc_driver::resolve::Syntax;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use fsmc_vocab::genie::{Persistence, StateType};
use fsmc_vocab::{
    ACTION_SIDES, FORMULA_JOINERS, FORMULA_KEYWORDS, FORMULA_OPENERS, ITEM_KEYWORDS,
    MEMBER_KEYWORDS, PERIOD_WORDS, Profile, STATE_MODIFIERS, TRANSITION_KEYWORDS, TURNS,
};

use fsmc_syntax::ast::{self, CommentKind, PropValue};
use fsmc_syntax::lex::{Kind, Lexer, Token};
use lsp_types as lt;
use lt::CompletionItemKind as K;
use std::collections::BTreeSet;

/// The block a statement is in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Block {
    /// The file's top level.
    File,
    /// A machine's body (the machine's name).
    Machine(String),
    /// A state's body (the machine's and the state's names).
    State(String),
    /// An app's body.
    App,
    /// Any other braces (a recovery's guess would be no better than nothing).
    Other,
}

pub fn complete(a: &Analysis, file: FileId, offset: usize) -> Vec<lt::CompletionItem> {
    let text = a.text(file);
    let offset = floor_char(text, offset.min(text.len()));
    let Some(unit) = a.index.unit_of(file) else {
        return Vec::new();
    };
    let Some(Syntax::Fsm(f)) = a.compilation.units.get(unit).map(|u| &u.syntax) else {
        return Vec::new();
    };
    // Nothing is completed inside a comment or a string.
    let in_comment = f.comments.iter().any(|c| {
        let (s, e) = (c.span.start as usize, c.span.end as usize);
        s < offset && (offset < e || (offset == e && c.kind != CommentKind::Block))
    });
    if in_comment {
        return Vec::new();
    }
    // The word being typed is replaced by the completion; the context is what comes before it.
    let word_start = text[..offset]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let mut stack: Vec<Block> = Vec::new();
    let mut stmt: Vec<Token> = Vec::new();
    for t in Lexer::new(text, 0) {
        if t.start >= word_start {
            break;
        }
        match t.kind {
            Kind::Doc => continue,
            // An open comment runs to the end of the file; an open string to the end of its line.
            Kind::OpenComment => return Vec::new(),
            Kind::Str | Kind::OpenStr if t.end >= offset && t.start < offset => return Vec::new(),
            _ => {}
        }
        if t.kind != Kind::Punct {
            stmt.push(t);
            continue;
        }
        match t.text(text) {
            "{" => {
                let current = stack.last().cloned().unwrap_or(Block::File);
                stack.push(opened(text, &stmt, &current));
                stmt.clear();
            }
            "}" => {
                stack.pop();
                stmt.clear();
            }
            ";" => stmt.clear(),
            // An attribute ends at its `]` when it is not followed by anything of its own statement.
            _ => stmt.push(t),
        }
    }
    let block = stack.last().cloned().unwrap_or(Block::File);
    let words: Vec<&str> = stmt.iter().map(|t| t.text(text)).collect();
    let cx = Cx { a, unit, file: f };
    let mut items = Items::default();
    match block {
        Block::File => cx.top_level(&words, &mut items),
        Block::Machine(m) => cx.machine(&m, &words, &mut items),
        Block::State(m) => cx.state_body(&m, &words, &mut items),
        Block::App => cx.app(&words, &mut items),
        Block::Other => {}
    }
    items.0
}

/// What the `{` ending `stmt` opens.
fn opened(text: &str, stmt: &[Token], current: &Block) -> Block {
    let words: Vec<&str> = stmt.iter().map(|t| t.text(text)).collect();
    let after = |kw: &str| {
        words
            .iter()
            .position(|w| *w == kw)
            .and_then(|i| words.get(i + 1))
            .map(|w| w.to_string())
    };
    match current {
        Block::File if words.contains(&"machine") => {
            after("machine").map_or(Block::Other, Block::Machine)
        }
        Block::File if words.contains(&"app") => Block::App,
        Block::Machine(m) if words.contains(&"state") => Block::State(m.clone()),
        _ => Block::Other,
    }
}

/// Completion items, each label once, in the order added.
#[derive(Default)]
struct Items(Vec<lt::CompletionItem>, BTreeSet<String>);

impl Items {
    fn add(&mut self, label: &str, kind: K, detail: impl Into<Option<String>>) {
        if label.is_empty() || !self.1.insert(label.to_string()) {
            return;
        }
        self.0.push(lt::CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail: detail.into(),
            ..Default::default()
        });
    }

    fn keywords(&mut self, words: &[&str]) {
        for w in words {
            self.add(w, K::KEYWORD, None);
        }
    }
}

struct Cx<'a> {
    a: &'a Analysis,
    unit: usize,
    file: &'a ast::File,
}

const LINT_LEVELS: &[&str] = &["allow", "warn", "deny"];

impl Cx<'_> {
    fn machine_ast(&self, name: &str) -> Option<&ast::Machine> {
        self.file.machines.iter().find(|m| m.name.text == name)
    }

    fn profile(&self, name: &str) -> Profile {
        self.machine_ast(name)
            .and_then(|m| m.profile.as_ref())
            .and_then(|p| Profile::parse(&p.text))
            .unwrap_or(Profile::Plain)
    }

    fn states(&self, m: &str, items: &mut Items) {
        let Some(m) = self.machine_ast(m) else { return };
        for s in &m.states {
            let mut detail: Vec<&str> = s.modifiers.iter().map(|n| n.as_str()).collect();
            detail.push("state");
            if let Some(k) = &s.kind {
                detail.push(k.as_str());
            }
            items.add(&s.name.text, K::ENUM_MEMBER, detail.join(" "));
        }
    }

    fn events(&self, m: &str, items: &mut Items) {
        let Some(m) = self.machine_ast(m) else { return };
        for e in &m.events {
            let detail = match &e.timeout {
                Some(t) => format!("event, timeout {t}"),
                None => "event".to_string(),
            };
            items.add(&e.name.text, K::EVENT, detail);
        }
    }

    fn keys(&self, m: &str, items: &mut Items) {
        let Some(m) = self.machine_ast(m) else { return };
        for k in &m.keys {
            items.add(&k.name.text, K::FIELD, format!("key: {}", k.ty));
        }
    }

    /// The names listed by a machine property (`roles buyer, seller;`, `agents a, b;`).
    fn listed(&self, m: &str, property: &str, kind: &str, items: &mut Items) {
        let Some(m) = self.machine_ast(m) else { return };
        for p in m.properties.iter().filter(|p| p.name.text == property) {
            if let PropValue::List(names) = &p.value {
                for (i, n) in names.iter().enumerate() {
                    let group = p.groups.iter().any(|&(at, _)| at == i);
                    let detail = if group {
                        format!("group of {kind}s")
                    } else {
                        kind.to_string()
                    };
                    items.add(&n.text, K::VARIABLE, detail);
                }
            }
        }
    }

    /// Guard or action names already used in the machine (they are declared by use, in code).
    fn used(&self, m: &str, guards: bool, items: &mut Items) {
        let Some(m) = self.machine_ast(m) else { return };
        let mut names: Vec<&str> = m
            .transitions
            .iter()
            .flat_map(|t| {
                if guards {
                    t.guards.iter().map(|g| g.name.as_str()).collect::<Vec<_>>()
                } else {
                    t.actions.iter().map(|a| a.name.as_str()).collect()
                }
            })
            .collect();
        names.sort_unstable();
        for n in names {
            items.add(
                n,
                K::FUNCTION,
                if guards { "guard" } else { "action" }.to_string(),
            );
        }
    }

    fn top_level(&self, w: &[&str], items: &mut Items) {
        match w {
            [] => items.keywords(ITEM_KEYWORDS),
            [.., "machine", _, ":"] => {
                for p in Profile::written() {
                    items.add(p.name(), K::ENUM, "profile".to_string());
                }
            }
            ["#", "[" | "!"] | ["#", "!", "["] => {
                for l in LINT_LEVELS {
                    items.add(l, K::KEYWORD, "lint level".to_string());
                }
            }
            ["#", ..] if in_lint_list(w) => {
                for c in fsmc_base::diag::Code::ALL.iter().filter(|c| c.is_lint()) {
                    items.add(
                        c.name(),
                        K::CONSTANT,
                        format!("{}: {}", c.id(), c.summary()),
                    );
                }
            }
            // After an attribute, an item.
            ["#", .., "]"] => items.keywords(&["machine", "app"]),
            _ => {}
        }
    }

    fn machine(&self, m: &str, w: &[&str], items: &mut Items) {
        let profile = self.profile(m);
        let modifiers = STATE_MODIFIERS;
        match w {
            [] => {
                items.keywords(MEMBER_KEYWORDS);
                for p in profile.machine_properties() {
                    items.add(p.name, K::PROPERTY, "machine property".to_string());
                }
                // Staged machines move directly: `Stage -> Next;` starts with a state.
                if profile == Profile::Staged {
                    self.states(m, items);
                }
            }
            ["("] | [_, "->"] | [_, "->", .., ","] if w.first() != Some(&"event") => {
                self.states(m, items)
            }
            ["(", _, ","] => self.events(m, items),
            ["(", _, ",", _, ")", "->"] => self.states(m, items),
            ["(", _, ",", _, ")", "->", _, rest @ ..] => match rest.last() {
                Some(&("if" | "unless")) => self.used(m, true, items),
                Some(&"do") => self.used(m, false, items),
                Some(&",") if rest.contains(&"do") => self.used(m, false, items),
                Some(&"persist") => {
                    for p in Persistence::ALL {
                        items.add(p.name(), K::ENUM_MEMBER, "persistence".to_string());
                    }
                }
                // A side comes before `do`; after `do` or `,` the same word is an action's name.
                Some(&("sender" | "receiver"))
                    if profile == Profile::Dialogue
                        && !matches!(rest.iter().rev().nth(1), Some(&("do" | ","))) =>
                {
                    items.keywords(&["do"])
                }
                // `sender do` and `receiver do` only mean something in a dialogue.
                _ => {
                    let words: Vec<&str> = TRANSITION_KEYWORDS
                        .iter()
                        .copied()
                        .filter(|k| profile == Profile::Dialogue || !ACTION_SIDES.contains(k))
                        .collect();
                    items.keywords(&words)
                }
            },
            ["invariant" | "eventually", rest @ ..] if rest.contains(&":") => {
                self.formula(m, rest, items)
            }
            ["cross_period"] => items.keywords(&["key"]),
            ["event", .., "by"] => {
                self.listed(m, "roles", "role", items);
                if profile == Profile::Dialogue {
                    items.keywords(TURNS);
                }
            }
            [.., "state", _, ":"] => match profile {
                Profile::Abci => {
                    for k in RoundKind::ALL {
                        let outcomes: Vec<&str> =
                            k.outcomes().iter().map(|(o, _)| o.name()).collect();
                        let detail = if outcomes.is_empty() {
                            "round kind".to_string()
                        } else {
                            format!("round kind: {}", outcomes.join(", "))
                        };
                        items.add(k.name(), K::ENUM, detail);
                    }
                }
                Profile::Genie => {
                    for g in StateType::ALL {
                        items.add(g.name(), K::ENUM, "state type".to_string());
                    }
                }
                _ => {}
            },
            ws if ws.iter().all(|w| modifiers.contains(w)) => {
                let left: Vec<&str> = modifiers
                    .iter()
                    .copied()
                    .filter(|m| !ws.contains(m))
                    .collect();
                items.keywords(&left);
                items.keywords(&["state"]);
            }
            ["scripted"] | ["scripted", .., ","] => self.listed(m, "agents", "agent", items),
            ["roles" | "agents", ..] | ["label", ..] => {}
            _ => {}
        }
    }

    /// In a declared property's formula: states after `in` and `after` (and their commas), events after
    /// `outcome` (and its commas), keys after `has` and `missing`, the comparisons after `period`, the words that
    /// begin a condition where one begins, and `and`, `or` after one.
    fn formula(&self, m: &str, rest: &[&str], items: &mut Items) {
        // The word that opened the list a comma continues.
        let opened = rest.iter().rev().find(|w| FORMULA_KEYWORDS.contains(w));
        match rest.last() {
            Some(&("in" | "after")) => self.states(m, items),
            Some(&"outcome") => self.events(m, items),
            Some(&",") => match opened {
                Some(&"outcome") => self.events(m, items),
                _ => self.states(m, items),
            },
            Some(&("has" | "missing")) => self.keys(m, items),
            Some(&"period") => items.keywords(&PERIOD_WORDS[..2]),
            Some(&"at") => items.keywords(&PERIOD_WORDS[2..]),
            Some(&("is" | "least" | "most")) => {}
            Some(&(":" | "not" | "and" | "or" | "(")) => items.keywords(FORMULA_OPENERS),
            _ => items.keywords(FORMULA_JOINERS),
        }
    }

    fn state_body(&self, m: &str, w: &[&str], items: &mut Items) {
        let profile = self.profile(m);
        match w {
            [] => {
                for p in profile.state_properties() {
                    items.add(p.name, K::PROPERTY, p.detail.to_string());
                }
            }
            ["reads" | "writes" | "requires" | "ensures"]
            | ["reads" | "writes" | "requires" | "ensures", .., ","] => self.keys(m, items),
            [outcome, "="] if OutcomeKind::parse(outcome).is_some() => self.events(m, items),
            ["acting" | "rewarded"] | ["acting" | "rewarded", .., ","] => {
                self.listed(m, "agents", "agent", items);
                items.add(fsmc_vocab::NOBODY, K::KEYWORD, "no agent".to_string());
            }
            _ => {}
        }
    }

    fn app(&self, w: &[&str], items: &mut Items) {
        let units = &self.a.compilation.units;
        let scope = index::scope(units, self.unit);
        let machines = |items: &mut Items| {
            for name in scope.keys() {
                items.add(name, K::CLASS, "machine".to_string());
            }
        };
        // The states of the machines the app chains (or of the one named).
        let states = |only: Option<&str>, finals: Option<bool>, items: &mut Items| {
            for (name, r) in &scope {
                if only.is_some_and(|o| o != name) {
                    continue;
                }
                let Some(mach) = index::machine(units, *r) else {
                    continue;
                };
                for (s, is_final) in state_finality(&mach) {
                    if finals.is_none_or(|f| f == is_final) {
                        items.add(s, K::ENUM_MEMBER, format!("state of `{name}`"));
                    }
                }
            }
        };
        match w {
            [] => {
                items.keywords(&["chain"]);
                items.add("label", K::PROPERTY, "app property".to_string());
                // A mapping starts at a final state.
                states(None, Some(true), items);
                machines(items);
            }
            ["chain"] | ["chain", .., ","] => machines(items),
            [mach, "::"] | [.., "->", mach, "::"] => states(Some(mach), None, items),
            [.., "->"] => {
                states(None, Some(false), items);
                machines(items);
            }
            _ => {}
        }
    }
}

/// Inside the `(…)` of a lint attribute, `#[allow(` or `#![deny(a, `: where a lint name goes.
fn in_lint_list(w: &[&str]) -> bool {
    let Some(open) = w.iter().position(|t| *t == "(") else {
        return false;
    };
    open > 0
        && LINT_LEVELS.contains(&w[open - 1])
        && !w.contains(&")")
        && matches!(w.last(), Some(&("(" | ",")))
}

/// Each state of a machine with whether it is final.
fn state_finality<'m>(m: &MachineSyntax<'m>) -> Vec<(&'m str, bool)> {
    match m {
        MachineSyntax::Fsm(f) => f
            .states
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.modifiers.iter().any(|n| n.text == "final"),
                )
            })
            .collect(),
        MachineSyntax::Oa(o) => o
            .states
            .iter()
            .map(|s| (s.as_str(), o.final_states.iter().any(|f| f.text == s.text)))
            .collect(),
    }
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
