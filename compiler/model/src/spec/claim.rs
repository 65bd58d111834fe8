//! Properties a spec declares for `fsmc verify` to prove: `invariant` (true in every reachable state) and
//! `eventually` (reached on every fair run).
//!
//! Names stay names: an app's claims name the states and keys of its chained machines, and are carried onto the
//! composed machine, whose tables differ from each chained machine's. Resolution checks that each name exists
//! (E1105); the verifier binds them to the machine it explores.

use fsmc_base::source::{Name, Span};
pub use fsmc_vocab::{Named, PeriodCmp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// Holds in every reachable state.
    Invariant,
    /// Every fair run reaches a state where it holds.
    Eventually,
}

impl ClaimKind {
    pub fn keyword(self) -> &'static str {
        match self {
            ClaimKind::Invariant => "invariant",
            ClaimKind::Eventually => "eventually",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Claim {
    pub kind: ClaimKind,
    /// The name between the quotes (its span covers them).
    pub name: Name,
    pub formula: Formula,
    pub docs: Vec<String>,
    pub span: Span,
}

/// A condition on one state of a run: where the machine is, which keys are present, the transition that led
/// into the state, and the period number.
#[derive(Clone, Debug)]
pub enum Formula {
    In(Vec<Name>),
    Has(Name),
    Missing(Name),
    /// The transition that led into the current state left one of these states.
    After(Vec<Name>),
    /// The transition that led into the current state was taken on one of these events.
    Outcome(Vec<Name>),
    /// The period number compares so with the constant.
    Period(PeriodCmp, u64),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

/// One state of a run, as a formula sees it.
pub trait Situation {
    /// Whether the machine is in the state of this name.
    fn in_state(&self, state: &str) -> bool;
    /// Whether the key of this name is present.
    fn has(&self, key: &str) -> bool;
    /// The transition that led into the current state: the state it left, and its event (`None` for a staged
    /// handler's direct transition). `None` at the start of a run, before any transition.
    fn led_in(&self) -> Option<(&str, Option<&str>)>;
    /// The period number (0 until the first reset round is done).
    fn period(&self) -> u64;
}

impl Formula {
    /// Its value in a state of a run.
    pub fn holds(&self, at: &dyn Situation) -> bool {
        match self {
            Formula::In(states) => states.iter().any(|s| at.in_state(s.as_str())),
            Formula::Has(k) => at.has(k.as_str()),
            Formula::Missing(k) => !at.has(k.as_str()),
            Formula::After(states) => at
                .led_in()
                .is_some_and(|(from, _)| states.iter().any(|s| s.as_str() == from)),
            Formula::Outcome(events) => at.led_in().is_some_and(|(_, event)| {
                event.is_some_and(|e| events.iter().any(|x| x.as_str() == e))
            }),
            Formula::Period(cmp, n) => cmp.holds(at.period(), *n),
            Formula::Not(f) => !f.holds(at),
            Formula::And(fs) => fs.iter().all(|f| f.holds(at)),
            Formula::Or(fs) => fs.iter().any(|f| f.holds(at)),
        }
    }

    /// Every state, key and event it names, in the order written.
    pub fn names(&self) -> Vec<(&Name, Named)> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<(&'a Name, Named)>) {
        match self {
            Formula::In(states) | Formula::After(states) => {
                out.extend(states.iter().map(|s| (s, Named::State)));
            }
            Formula::Outcome(events) => out.extend(events.iter().map(|e| (e, Named::Event))),
            Formula::Has(k) | Formula::Missing(k) => out.push((k, Named::Key)),
            Formula::Period(..) => {}
            Formula::Not(f) => f.collect(out),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| f.collect(out)),
        }
    }

    /// Whether it speaks of the transition that led into the state (`after`, `outcome`): the verifier then
    /// remembers that transition in each state it explores.
    pub fn mentions_transition(&self) -> bool {
        match self {
            Formula::After(_) | Formula::Outcome(_) => true,
            Formula::In(_) | Formula::Has(_) | Formula::Missing(_) | Formula::Period(..) => false,
            Formula::Not(f) => f.mentions_transition(),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().any(Formula::mentions_transition),
        }
    }

    /// The largest constant it compares the period number with, if it speaks of the period at all.
    pub fn period_bound(&self) -> Option<u64> {
        match self {
            Formula::Period(_, n) => Some(*n),
            Formula::In(_)
            | Formula::Has(_)
            | Formula::Missing(_)
            | Formula::After(_)
            | Formula::Outcome(_) => None,
            Formula::Not(f) => f.period_bound(),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().filter_map(Formula::period_bound).max(),
        }
    }

    /// The formula written back as `.fsm` text, parenthesized where precedence needs it (`or` binds looser
    /// than `and`, `and` looser than `not`).
    pub fn to_fsm(&self) -> String {
        self.text(0)
    }

    /// `outer`: 0 inside `or` or at the top, 1 inside `and`, 2 under `not`.
    fn text(&self, outer: u8) -> String {
        let list = |word: &str, names: &[Name]| {
            let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
            format!("{word} {}", names.join(", "))
        };
        let (own, s) = match self {
            Formula::In(states) => (3, list("in", states)),
            Formula::After(states) => (3, list("after", states)),
            Formula::Outcome(events) => (3, list("outcome", events)),
            Formula::Has(k) => (3, format!("has {k}")),
            Formula::Missing(k) => (3, format!("missing {k}")),
            Formula::Period(cmp, n) => (3, format!("period {} {n}", cmp.words())),
            Formula::Not(f) => (2, format!("not {}", f.text(2))),
            Formula::And(fs) => (1, join(fs, " and ", 1)),
            Formula::Or(fs) => (0, join(fs, " or ", 0)),
        };
        if own < outer { format!("({s})") } else { s }
    }
}

fn join(fs: &[Formula], sep: &str, level: u8) -> String {
    fs.iter()
        .map(|f| f.text(level + 1))
        .collect::<Vec<_>>()
        .join(sep)
}
