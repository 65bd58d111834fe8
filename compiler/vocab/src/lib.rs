//! The vocabulary of fsmc's language, written once: the systems a machine can model ([`Profile`]), the keywords,
//! the properties each system's states and machines accept ([`Property`]), and each system's closed word lists
//! ([`abci`]: round kinds and the outcomes each decides, the keys every app has; [`genie`]: state types and
//! dialogue persistence).
//!
//! The compiler (parser, resolve, checks, code generator), the language server, the runtime and the editor
//! grammar's generator all read these lists; none keeps a copy. A test of the workspace (`tests/tests/tidy.rs`)
//! holds the editor grammar to them.

pub mod abci;
pub mod genie;
mod property;

pub use property::{Property, Value, Where};

/// Which system a machine models (`machine M: abci { … }`); decides which properties and checks apply.
/// A machine without one is [`Profile::Plain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Profile {
    /// A plain state machine.
    Plain,
    /// An Open Autonomy app: states are rounds that decide from the agents' payloads, replicated.
    Abci,
    /// A Genie Flow conversation: user and invoker states with templates.
    Genie,
    /// A FIPA dialogue protocol: events are performatives sent by two roles.
    Dialogue,
    /// A Phantom-style staged environment: handlers choose the next stage.
    Staged,
}

impl Profile {
    /// Every profile, [`Profile::Plain`] first.
    pub const ALL: &'static [Profile] = &[
        Profile::Plain,
        Profile::Abci,
        Profile::Genie,
        Profile::Dialogue,
        Profile::Staged,
    ];

    /// How a spec names it after `machine M:` (`plain` is never written: it is the absence of a profile).
    pub const fn name(self) -> &'static str {
        match self {
            Profile::Plain => "plain",
            Profile::Abci => "abci",
            Profile::Genie => "genie",
            Profile::Dialogue => "dialogue",
            Profile::Staged => "staged",
        }
    }

    /// The profile a spec names, if it is one.
    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.iter().copied().find(|p| p.name() == s)
    }

    /// The profiles a spec may write after `machine M:`.
    pub fn written() -> impl Iterator<Item = Profile> {
        Profile::ALL
            .iter()
            .copied()
            .filter(|p| *p != Profile::Plain)
    }

    /// The kinds a state of this profile may be given after `state S:`: round kinds, Genie's state types, or
    /// none.
    pub fn state_kinds(self) -> &'static [&'static str] {
        match self {
            Profile::Abci => abci::RoundKind::NAMES,
            Profile::Genie => genie::StateType::NAMES,
            Profile::Plain | Profile::Dialogue | Profile::Staged => &[],
        }
    }

    /// The properties a state of this profile accepts (besides free string attributes), in the order
    /// messages list them.
    pub fn state_properties(self) -> impl Iterator<Item = &'static Property> {
        property::PROPERTIES
            .iter()
            .filter(move |p| p.place == Where::State && p.profiles.contains(&self))
    }

    /// The properties a machine of this profile is meant to have.
    pub fn machine_properties(self) -> impl Iterator<Item = &'static Property> {
        property::PROPERTIES
            .iter()
            .filter(move |p| p.place == Where::Machine && p.profiles.contains(&self))
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every property, on states and on machines, in the order messages list them.
pub fn properties() -> &'static [Property] {
    property::PROPERTIES
}

/// The keywords that begin a top-level item.
pub const ITEM_KEYWORDS: &[&str] = &["machine", "app", "import"];

/// The keyword of a machine's head that names the imported app it refines (`machine A: abci refines Base {`).
pub const MACHINE_KEYWORDS: &[&str] = &["refines"];

/// The keyword that names an imported machine (`import "x.fsm" as X;`).
pub const IMPORT_KEYWORDS: &[&str] = &["as"];

/// The keywords that begin a member of a machine's body (besides a transition's `(`).
pub const MEMBER_KEYWORDS: &[&str] = &[
    "event",
    "key",
    "cross_period",
    "state",
    "start",
    "default",
    "final",
    "invariant",
    "eventually",
];

/// The words of a declared property's formula (`not (in A, B and missing k) or has k`), reserved only there:
/// the [`FORMULA_OPENERS`] that begin a condition, then the [`FORMULA_JOINERS`] that join conditions.
pub const FORMULA_KEYWORDS: &[&str] = &concat::<9>(&[FORMULA_OPENERS, FORMULA_JOINERS]);

/// The words that begin a condition of a formula: where the machine is (`in`), which keys are present (`has`,
/// `missing`), the transition that led into the state (`after` the state it left, `outcome` its event), the
/// period number (`period`), and `not`.
pub const FORMULA_OPENERS: &[&str] = &["in", "has", "missing", "after", "outcome", "period", "not"];

/// The words that join conditions of a formula.
pub const FORMULA_JOINERS: &[&str] = &["and", "or"];

/// The words that compare the period with a number in a formula (`period is 2`, `period at least 1`).
pub const PERIOD_WORDS: &[&str] = &["is", "at", "least", "most"];

/// What a name in a formula names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A state: `in A`, `after A`.
    State,
    /// A key: `has k`, `missing k`.
    Key,
    /// An event: `outcome E`.
    Event,
}

/// How a formula compares the period number with a constant: `period is 2`, `period at least 2`,
/// `period at most 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeriodCmp {
    Is,
    AtLeast,
    AtMost,
}

impl PeriodCmp {
    /// Every comparison, in the order completion offers them.
    pub const ALL: [PeriodCmp; 3] = [PeriodCmp::Is, PeriodCmp::AtLeast, PeriodCmp::AtMost];

    /// The words written between `period` and the number.
    pub fn words(self) -> &'static str {
        match self {
            PeriodCmp::Is => "is",
            PeriodCmp::AtLeast => "at least",
            PeriodCmp::AtMost => "at most",
        }
    }

    /// Whether `period` compares so with `n`.
    pub fn holds(self, period: u64, n: u64) -> bool {
        match self {
            PeriodCmp::Is => period == n,
            PeriodCmp::AtLeast => period >= n,
            PeriodCmp::AtMost => period <= n,
        }
    }
}

/// The modifiers written before `state`.
pub const STATE_MODIFIERS: &[&str] = &["start", "default", "final"];

/// The modifiers written before `key`.
pub const KEY_MODIFIERS: &[&str] = &["cross_period"];

/// The keywords after an event's name: its timeout and the role that sends it.
pub const EVENT_KEYWORDS: &[&str] = &["timeout", "by"];

/// The keywords that begin a member of an app's body (besides a mapping's state name).
pub const APP_KEYWORDS: &[&str] = &["chain"];

/// The keywords that may follow a transition's target: guards, actions (in a dialogue, the party whose copy
/// runs them may come first: `sender do a;`) and a persistence override.
pub const TRANSITION_KEYWORDS: &[&str] = &["if", "unless", "sender", "receiver", "do", "persist"];

/// In a dialogue, the party whose copy of the dialogue runs a transition's actions: `sender do a;`,
/// `receiver do b;`.
pub const ACTION_SIDES: &[&str] = &["sender", "receiver"];

/// The language's keywords, each reserved only where the grammar expects it (names are plain identifiers): the
/// lists above, in the order did-you-mean suggestions consider them.
pub const KEYWORDS: &[&str] = &concat::<23>(&[
    ITEM_KEYWORDS,
    MACHINE_KEYWORDS,
    IMPORT_KEYWORDS,
    MEMBER_KEYWORDS,
    EVENT_KEYWORDS,
    APP_KEYWORDS,
    TRANSITION_KEYWORDS,
]);

/// The lists one after the other; `N` is their total length (a wrong `N` fails to compile).
const fn concat<const N: usize>(lists: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut n, mut i) = (0, 0);
    while i < lists.len() {
        let mut j = 0;
        while j < lists[i].len() {
            out[n] = lists[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(n == N, "N is the lists' total length");
    out
}

/// The units a duration may have (`30s`, `500ms`, `1.5m`, `2h`), with the seconds each is worth.
pub const DURATION_UNITS: &[(&str, f64)] = &[("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)];

/// In a staged machine, the agent list that names nobody: `rewarded none;` (and `acting none;`). It cannot name
/// an agent, so a list is never ambiguous.
pub const NOBODY: &str = "none";

/// In a dialogue, the parties named by who opened it, which a performative may be sent by instead of a role:
/// `event Propose by responder;`. They cannot name a role.
pub const TURNS: &[&str] = &["initiator", "responder"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_lists_are_parts_of_the_whole() {
        for list in [
            ITEM_KEYWORDS,
            IMPORT_KEYWORDS,
            EVENT_KEYWORDS,
            APP_KEYWORDS,
            STATE_MODIFIERS,
            KEY_MODIFIERS,
            MEMBER_KEYWORDS,
            TRANSITION_KEYWORDS,
            ACTION_SIDES,
        ] {
            for k in list {
                assert!(KEYWORDS.contains(k), "{k}");
            }
        }
        for (i, k) in KEYWORDS.iter().enumerate() {
            assert!(!KEYWORDS[i + 1..].contains(k), "{k} twice");
        }
    }

    #[test]
    fn profiles_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::parse(p.name()), Some(*p));
        }
        assert_eq!(Profile::written().count(), Profile::ALL.len() - 1);
        assert_eq!(Profile::parse("Abci"), None);
    }

    #[test]
    fn every_outcome_is_an_abci_state_property() {
        for o in abci::OutcomeKind::ALL {
            let p = Profile::Abci
                .state_properties()
                .find(|p| p.name == o.name())
                .expect("an outcome mapping property");
            assert_eq!(p.value, Value::Event);
        }
    }

    #[test]
    fn property_names_are_unique_per_place() {
        let all = properties();
        for (i, p) in all.iter().enumerate() {
            assert!(
                !all[i + 1..]
                    .iter()
                    .any(|q| q.name == p.name && q.place == p.place),
                "{}",
                p.name
            );
        }
    }
}
