//! The syntax tree of a `.fsm` file: what was written, with spans, before any name is resolved.

use fsmc_base::source::{Name, Span};
pub use thin_vec::ThinVec;

/// One parsed file.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub lints: Vec<LintAttr>,
    pub imports: Vec<Import>,
    pub machines: Vec<Machine>,
    pub apps: Vec<App>,
    /// Every comment of the file, doc comments included, in order: the trivia the nodes above do not hold
    /// (doc comments are also on the nodes they document, as text). The formatter and the language server
    /// read them; the stages after parsing do not.
    pub comments: Vec<Comment>,
}

/// A comment, as written (its text is the file's bytes under `span`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comment {
    pub kind: CommentKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentKind {
    /// `// …` (also `////…` and `//!…`), up to the end of the line.
    Line,
    /// `/* … */`, nesting; one never closed runs to the end of the file.
    Block,
    /// `/// …`, up to the end of the line.
    Doc,
}

/// `#![allow(name, …)]` or `#[deny(…)]`.
#[derive(Clone, Debug)]
pub struct LintAttr {
    pub level: Name,
    pub lints: Vec<Name>,
    /// The whole attribute, `#` to `]`.
    pub span: Span,
}

/// `import "path" as Name;`
#[derive(Clone, Debug)]
pub struct Import {
    pub path: String,
    pub path_span: Span,
    pub alias: Option<Name>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub docs: Vec<String>,
    pub lints: Vec<LintAttr>,
    pub name: Name,
    pub profile: Option<Name>,
    /// `refines Base`: the machine this one refines (its states, events and transitions are Base's).
    pub refines: Option<Name>,
    pub events: Vec<Event>,
    pub keys: Vec<Key>,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub properties: Vec<Property>,
    pub claims: Vec<Claim>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub docs: Vec<String>,
    pub name: Name,
    /// The whole declaration, doc comments included: `event A, B;` declares two events with one span.
    pub span: Span,
    pub fields: Vec<Field>,
    /// The duration literal as written, e.g. `30s`.
    pub timeout: Option<Name>,
    pub role: Option<Name>,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Name,
    /// The Rust type as written.
    pub ty: Name,
}

#[derive(Clone, Debug)]
pub struct Key {
    pub docs: Vec<String>,
    pub name: Name,
    /// The whole declaration, doc comments included.
    pub span: Span,
    pub ty: Name,
    pub cross_period: bool,
}

#[derive(Clone, Debug)]
pub struct State {
    pub docs: Vec<String>,
    /// `start`, `default`, `final`, in the order written.
    pub modifiers: Vec<Name>,
    pub name: Name,
    pub kind: Option<Name>,
    pub properties: Vec<Property>,
    /// The whole declaration, doc comments and body included.
    pub span: Span,
}

/// `name;`, `name = IDENT;`, `name "text";`, `name 30s;` or `name a, b;`.
#[derive(Clone, Debug)]
pub struct Property {
    pub docs: Vec<String>,
    pub name: Name,
    pub value: PropValue,
    /// The names of a list written as groups (`traders[]`), by their position in the list, with the span of
    /// the `[]`.
    pub groups: Vec<(usize, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum PropValue {
    Flag,
    Assign(Name),
    Text(Name),
    Duration(Name),
    /// A whole number as written: `confirmations 10;`.
    Number(Name),
    List(Vec<Name>),
}

/// `(A, EVENT) -> B …;` or one target of `A -> B, C;`.
///
/// A large spec is mostly transitions, nearly all without doc comments, guards, actions or persistence: those are
/// thin lists and a box, a pointer each when empty.
#[derive(Clone, Debug)]
pub struct Transition {
    pub docs: ThinVec<String>,
    pub from: Name,
    /// `None` for a direct transition `A -> B`, chosen by the state's handler.
    pub event: Option<Name>,
    pub to: Name,
    pub guards: ThinVec<Guard>,
    pub actions: ThinVec<Action>,
    pub persist: Option<Box<Name>>,
    pub span: Span,
}

/// An action a transition names (`do a`), and in a dialogue the party whose copy runs it (`sender do a`).
#[derive(Clone, Debug)]
pub struct Action {
    /// `sender` or `receiver`, as written before `do`.
    pub side: Option<Name>,
    pub name: Name,
}

#[derive(Clone, Debug)]
pub struct Guard {
    /// `unless` guards hold when the named condition is false.
    pub negated: bool,
    pub name: Name,
}

#[derive(Clone, Debug)]
pub struct App {
    pub docs: Vec<String>,
    pub lints: Vec<LintAttr>,
    pub name: Name,
    pub chain: Vec<Name>,
    pub chain_span: Option<Span>,
    pub mappings: Vec<Mapping>,
    pub properties: Vec<Property>,
    pub claims: Vec<Claim>,
    pub span: Span,
}

/// `FinalState -> StartState;`, each side optionally qualified `Machine::State`.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub from: Qualified,
    pub to: Qualified,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Qualified {
    pub machine: Option<Name>,
    pub state: Name,
}

/// `invariant "name": formula;` or `eventually "name": formula;`: a property `fsmc verify` proves.
#[derive(Clone, Debug)]
pub struct Claim {
    pub docs: Vec<String>,
    /// `invariant` or `eventually`, as written.
    pub kind: Name,
    /// The name between the quotes, spanning the quotes.
    pub name: Name,
    pub formula: Formula,
    pub span: Span,
}

pub use fsmc_vocab::{Named, PeriodCmp};

/// What a claim says of a state of the machine.
#[derive(Clone, Debug)]
pub enum Formula {
    /// `in A, B`: the machine is in one of these states.
    In(Vec<Name>),
    /// `has k`: the key is present.
    Has(Name),
    /// `missing k`: the key is absent.
    Missing(Name),
    /// `after A, B`: the transition that led into the current state left one of these states.
    After(Vec<Name>),
    /// `outcome E, F`: the transition that led into the current state was taken on one of these events (for an
    /// `abci` round, the outcome it decided or its timeout).
    Outcome(Vec<Name>),
    /// `period is 2`, `period at least 2`, `period at most 2`: the period number against a constant.
    Period(PeriodTest),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

/// `period at least 2`: how the period number compares with a constant, which is kept as written (its span
/// locates the diagnostic of a constant out of range).
#[derive(Clone, Debug)]
pub struct PeriodTest {
    pub cmp: PeriodCmp,
    pub value: Name,
    /// The whole condition, `period` to the number.
    pub span: Span,
}

impl Formula {
    /// Every state, key and event the formula names, in the order written.
    pub fn names(&self) -> Vec<(&Name, Named)> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(f) = stack.pop() {
            match f {
                Formula::In(states) | Formula::After(states) => {
                    out.extend(states.iter().map(|s| (s, Named::State)));
                }
                Formula::Outcome(events) => out.extend(events.iter().map(|e| (e, Named::Event))),
                Formula::Has(k) | Formula::Missing(k) => out.push((k, Named::Key)),
                Formula::Period(_) => {}
                Formula::Not(f) => stack.push(f),
                Formula::And(fs) | Formula::Or(fs) => stack.extend(fs.iter().rev()),
            }
        }
        out
    }
}
