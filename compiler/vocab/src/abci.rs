//! Open Autonomy apps (`machine M: abci`): the round kinds, the outcomes each decides, and the keys every app
//! has without declaring them.
//!
//! The outcomes follow upstream Open Autonomy's round classes (`abstract_round_abci/base.py`): what a class's
//! `end_block` can return is what the kind decides here, no more. Whether a spec must give an outcome a
//! transition is the [`Need`] beside it.

use std::fmt::{self, Display, Formatter};

/// What a decided round produced, without its value. A spec maps each to one of its events (conventionally
/// `DONE`, `NONE`, `NO_MAJORITY`, `NEGATIVE`, `FAIL`; `done = SUCCESS;` says otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutcomeKind {
    /// The round reached its goal.
    Done,
    /// The agreed answer was "nothing" (empty payloads reached the threshold, or all were empty).
    None,
    /// No value can reach the threshold any more.
    NoMajority,
    /// A vote reached the threshold against the proposal.
    Negative,
    /// The keeper reported failure.
    Fail,
}

impl OutcomeKind {
    /// Every outcome kind, in declaration order.
    pub const ALL: &'static [OutcomeKind] = &[
        OutcomeKind::Done,
        OutcomeKind::None,
        OutcomeKind::NoMajority,
        OutcomeKind::Negative,
        OutcomeKind::Fail,
    ];

    /// The name a state body maps it by (`done = SUCCESS;`): `done`, `none`, `no_majority`, `negative`, `fail`.
    pub const fn name(self) -> &'static str {
        match self {
            OutcomeKind::Done => "done",
            OutcomeKind::None => "none",
            OutcomeKind::NoMajority => "no_majority",
            OutcomeKind::Negative => "negative",
            OutcomeKind::Fail => "fail",
        }
    }

    /// The event it maps to when the state does not say: Open Autonomy's conventional names.
    pub const fn default_event(self) -> &'static str {
        match self {
            OutcomeKind::Done => "DONE",
            OutcomeKind::None => "NONE",
            OutcomeKind::NoMajority => "NO_MAJORITY",
            OutcomeKind::Negative => "NEGATIVE",
            OutcomeKind::Fail => "FAIL",
        }
    }

    /// The outcome a state body names, if it is one.
    pub fn parse(s: &str) -> Option<OutcomeKind> {
        OutcomeKind::ALL.iter().copied().find(|o| o.name() == s)
    }
}

impl Display for OutcomeKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a round's state must have a transition for an outcome its kind decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The round can decide it whatever the agents send: the state must have a transition for it.
    Required,
    /// The round decides it only for payloads the app may never send (an empty payload, a `None` vote): the state
    /// may leave it out, and then its agents cannot send such payloads (the payload type is not an `Option`).
    Optional,
}

/// The round kinds of Open Autonomy, and `custom` for a round whose decision is the app's own code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoundKind {
    /// Every participant sends the same payload.
    CollectSameUntilAll,
    /// Every participant sends a payload of its own.
    CollectDifferentUntilAll,
    /// A threshold of participants agree on one payload.
    CollectSameUntilThreshold,
    /// A threshold of participants send a payload each.
    CollectDifferentUntilThreshold,
    /// A threshold of participants send a payload each; only the non-empty ones count.
    CollectNonEmptyUntilThreshold,
    /// The elected keeper alone sends the payload, or reports failure.
    OnlyKeeperSends,
    /// A threshold of participants vote yes, no or nothing.
    Voting,
    /// A final round: the app (or this part of it) ends here.
    Degenerate,
    /// A round whose decision is the app's own code: it may decide any of its state's transitions' events.
    Custom,
}

impl RoundKind {
    /// Every round kind, in declaration order.
    pub const ALL: &'static [RoundKind] = &[
        RoundKind::CollectSameUntilAll,
        RoundKind::CollectDifferentUntilAll,
        RoundKind::CollectSameUntilThreshold,
        RoundKind::CollectDifferentUntilThreshold,
        RoundKind::CollectNonEmptyUntilThreshold,
        RoundKind::OnlyKeeperSends,
        RoundKind::Voting,
        RoundKind::Degenerate,
        RoundKind::Custom,
    ];

    /// The names of [`RoundKind::ALL`], in order: what a spec may write after `state S:` in an `abci` machine.
    pub const NAMES: &'static [&'static str] = &[
        "collect_same_until_all",
        "collect_different_until_all",
        "collect_same_until_threshold",
        "collect_different_until_threshold",
        "collect_non_empty_until_threshold",
        "only_keeper_sends",
        "voting",
        "degenerate",
        "custom",
    ];

    /// The snake_case name a spec writes, e.g. `collect_same_until_threshold`.
    pub const fn name(self) -> &'static str {
        RoundKind::NAMES[self as usize]
    }

    /// The kind a spec names, if it is one.
    pub fn parse(s: &str) -> Option<RoundKind> {
        RoundKind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// The outcomes this kind can decide, each with whether its state must have a transition for it, required ones
    /// first: the order messages and generated code list them in. `degenerate` decides none; `custom` decides whatever its code says, so none is listed.
    pub const fn outcomes(self) -> &'static [(OutcomeKind, Need)] {
        use Need::{Optional, Required};
        use OutcomeKind as O;
        match self {
            RoundKind::CollectSameUntilAll
            | RoundKind::CollectDifferentUntilAll
            | RoundKind::CollectDifferentUntilThreshold => &[(O::Done, Required)],
            // Upstream's `none_event` is decided when the threshold agrees on an empty payload: only an app whose
            // payloads can be empty (its state has a `NONE` transition) sends one.
            RoundKind::CollectSameUntilThreshold => &[
                (O::Done, Required),
                (O::NoMajority, Required),
                (O::None, Optional),
            ],
            RoundKind::CollectNonEmptyUntilThreshold => &[(O::Done, Required), (O::None, Required)],
            RoundKind::OnlyKeeperSends => &[(O::Done, Required), (O::Fail, Required)],
            RoundKind::Voting => &[
                (O::Done, Required),
                (O::Negative, Required),
                (O::NoMajority, Required),
                (O::None, Optional),
            ],
            RoundKind::Degenerate | RoundKind::Custom => &[],
        }
    }

    /// Whether this kind can decide `outcome`.
    pub fn decides(self, outcome: OutcomeKind) -> bool {
        self.outcomes().iter().any(|(o, _)| *o == outcome)
    }

    /// Whether this kind is final (degenerate).
    pub const fn is_final(self) -> bool {
        matches!(self, RoundKind::Degenerate)
    }
}

impl Display for RoundKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The keys every Open Autonomy app has without declaring them. Specs never list them as pre- or
/// post-conditions: upstream rejects a spec that does, and so does fsmc.
pub const DEFAULT_KEYS: &[&str] = &[
    "round_count",
    "period_count",
    "all_participants",
    "nb_participants",
    "max_participants",
    "consensus_threshold",
    "safe_contract_address",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        assert_eq!(RoundKind::NAMES.len(), RoundKind::ALL.len());
        for &kind in RoundKind::ALL {
            assert_eq!(RoundKind::parse(kind.name()), Some(kind));
            assert_eq!(kind.to_string(), kind.name());
        }
        assert_eq!(RoundKind::parse("CollectSameUntilAll"), None);
        let mut names = RoundKind::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RoundKind::ALL.len());
        for &o in OutcomeKind::ALL {
            assert_eq!(OutcomeKind::parse(o.name()), Some(o));
            assert_eq!(o.default_event(), o.name().to_uppercase());
        }
    }

    #[test]
    fn outcomes_are_upstreams() {
        use Need::*;
        use OutcomeKind as O;
        assert_eq!(
            RoundKind::Voting.outcomes(),
            [
                (O::Done, Required),
                (O::Negative, Required),
                (O::NoMajority, Required),
                (O::None, Optional)
            ]
        );
        assert_eq!(
            RoundKind::CollectDifferentUntilThreshold.outcomes(),
            [(O::Done, Required)]
        );
        assert_eq!(
            RoundKind::CollectNonEmptyUntilThreshold.outcomes(),
            [(O::Done, Required), (O::None, Required)]
        );
        assert!(RoundKind::Degenerate.is_final());
        for &kind in RoundKind::ALL {
            let outcomes: Vec<OutcomeKind> = kind.outcomes().iter().map(|(o, _)| *o).collect();
            // Required ones first: messages list what a state must have before what it may have.
            let first_optional = kind.outcomes().iter().position(|(_, n)| *n == Optional);
            assert!(
                first_optional
                    .is_none_or(|i| kind.outcomes()[i..].iter().all(|(_, n)| *n == Optional)),
                "{kind}"
            );
            // Every kind that decides anything can finish its job.
            assert!(outcomes.is_empty() || kind.decides(O::Done), "{kind}");
        }
    }
}
