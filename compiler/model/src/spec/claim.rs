//! Properties a spec declares for `fsmc verify` to prove: `invariant` (true in every reachable state) and
//! `eventually` (reached on every fair run).
//!
//! Names stay names: an app's claims name the states and keys of its chained machines, and are carried onto the
//! composed machine, whose tables differ from each chained machine's. Resolution checks that each name exists
//! (E1105); the verifier binds them to the machine it explores.

use fsmc_base::source::{Name, Span};

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

/// A condition on one state of a run: where the machine is and which keys are present.
#[derive(Clone, Debug)]
pub enum Formula {
    In(Vec<Name>),
    Has(Name),
    Missing(Name),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

impl Formula {
    /// Its value, given whether the machine is in a state and whether a key is present.
    pub fn holds(&self, in_state: &dyn Fn(&str) -> bool, has: &dyn Fn(&str) -> bool) -> bool {
        match self {
            Formula::In(states) => states.iter().any(|s| in_state(s.as_str())),
            Formula::Has(k) => has(k.as_str()),
            Formula::Missing(k) => !has(k.as_str()),
            Formula::Not(f) => !f.holds(in_state, has),
            Formula::And(fs) => fs.iter().all(|f| f.holds(in_state, has)),
            Formula::Or(fs) => fs.iter().any(|f| f.holds(in_state, has)),
        }
    }

    /// Every state and every key it names, in the order written.
    pub fn names(&self) -> Vec<(&Name, bool)> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<(&'a Name, bool)>) {
        match self {
            Formula::In(states) => out.extend(states.iter().map(|s| (s, true))),
            Formula::Has(k) | Formula::Missing(k) => out.push((k, false)),
            Formula::Not(f) => f.collect(out),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|f| f.collect(out)),
        }
    }

    /// The formula written back as `.fsm` text, parenthesized where precedence needs it (`or` binds looser
    /// than `and`, `and` looser than `not`).
    pub fn to_fsm(&self) -> String {
        self.text(0)
    }

    /// `outer`: 0 inside `or` or at the top, 1 inside `and`, 2 under `not`.
    fn text(&self, outer: u8) -> String {
        let (own, s) = match self {
            Formula::In(states) => {
                let names: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
                (3, format!("in {}", names.join(", ")))
            }
            Formula::Has(k) => (3, format!("has {k}")),
            Formula::Missing(k) => (3, format!("missing {k}")),
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
