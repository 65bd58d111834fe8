//! The closed vocabularies of the language: profiles, round kinds and their outcomes, Genie state types and
//! dialogue persistence. Each knows its spelling in a spec, so resolve and codegen agree on names.

/// Which system a machine models; decides which properties and checks apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Profile {
    /// A plain state machine.
    Plain,
    /// Open Autonomy FSM app: states are rounds.
    Abci,
    /// Genie Flow: user and invoker states with templates.
    Genie,
    /// A dialogue protocol: events are performatives sent by roles.
    Dialogue,
    /// Staged environment: handlers choose the next stage directly.
    Staged,
}

impl Profile {
    pub const ALL: &'static [Profile] = &[
        Profile::Plain,
        Profile::Abci,
        Profile::Genie,
        Profile::Dialogue,
        Profile::Staged,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Plain => "plain",
            Profile::Abci => "abci",
            Profile::Genie => "genie",
            Profile::Dialogue => "dialogue",
            Profile::Staged => "staged",
        }
    }

    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.iter().copied().find(|p| p.name() == s)
    }
}

/// An Open Autonomy round kind (BRIEF §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoundKind {
    CollectSameUntilAll,
    CollectDifferentUntilAll,
    CollectSameUntilThreshold,
    CollectDifferentUntilThreshold,
    CollectNonEmptyUntilThreshold,
    OnlyKeeperSends,
    Voting,
    Degenerate,
    /// A round whose decision logic is user code: it may emit any of its transitions' events.
    Custom,
}

/// What a round decided; each maps to an event of the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Done,
    None,
    NoMajority,
    Negative,
    Fail,
}

impl Outcome {
    pub const ALL: &'static [Outcome] = &[
        Outcome::Done,
        Outcome::None,
        Outcome::NoMajority,
        Outcome::Negative,
        Outcome::Fail,
    ];

    /// The property name in a state body: `done = SUCCESS;`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::None => "none",
            Outcome::NoMajority => "no_majority",
            Outcome::Negative => "negative",
            Outcome::Fail => "fail",
        }
    }

    /// The event an outcome maps to when the state does not say: Open Autonomy's conventional names.
    pub fn default_event(self) -> &'static str {
        match self {
            Outcome::Done => "DONE",
            Outcome::None => "NONE",
            Outcome::NoMajority => "NO_MAJORITY",
            Outcome::Negative => "NEGATIVE",
            Outcome::Fail => "FAIL",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.iter().copied().find(|o| o.name() == s)
    }
}

impl RoundKind {
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

    pub fn name(self) -> &'static str {
        match self {
            RoundKind::CollectSameUntilAll => "collect_same_until_all",
            RoundKind::CollectDifferentUntilAll => "collect_different_until_all",
            RoundKind::CollectSameUntilThreshold => "collect_same_until_threshold",
            RoundKind::CollectDifferentUntilThreshold => "collect_different_until_threshold",
            RoundKind::CollectNonEmptyUntilThreshold => "collect_non_empty_until_threshold",
            RoundKind::OnlyKeeperSends => "only_keeper_sends",
            RoundKind::Voting => "voting",
            RoundKind::Degenerate => "degenerate",
            RoundKind::Custom => "custom",
        }
    }

    pub fn parse(s: &str) -> Option<RoundKind> {
        RoundKind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// The outcomes a kind can emit, and whether each must have a transition (required) or may be left out
    /// because the round only emits it for payloads the app may never send (optional).
    pub fn outcomes(self) -> &'static [(Outcome, bool)] {
        use Outcome::*;
        match self {
            RoundKind::CollectSameUntilAll | RoundKind::CollectDifferentUntilAll => &[(Done, true)],
            RoundKind::CollectSameUntilThreshold => {
                &[(Done, true), (NoMajority, true), (None, false)]
            }
            RoundKind::CollectDifferentUntilThreshold => &[(Done, true), (NoMajority, false)],
            RoundKind::CollectNonEmptyUntilThreshold => {
                &[(Done, true), (None, true), (NoMajority, false)]
            }
            RoundKind::OnlyKeeperSends => &[(Done, true), (Fail, true)],
            RoundKind::Voting => &[
                (Done, true),
                (Negative, true),
                (NoMajority, true),
                (None, false),
            ],
            RoundKind::Degenerate | RoundKind::Custom => &[],
        }
    }
}

/// A Genie Flow state's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GenieType {
    User,
    Invoker,
}

impl GenieType {
    pub fn name(self) -> &'static str {
        match self {
            GenieType::User => "user",
            GenieType::Invoker => "invoker",
        }
    }
    pub fn parse(s: &str) -> Option<GenieType> {
        match s {
            "user" => Some(GenieType::User),
            "invoker" => Some(GenieType::Invoker),
            _ => None,
        }
    }
}

/// What a Genie transition records in the dialogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Persistence {
    None,
    Raw,
    Rendered,
}

impl Persistence {
    pub fn name(self) -> &'static str {
        match self {
            Persistence::None => "none",
            Persistence::Raw => "raw",
            Persistence::Rendered => "rendered",
        }
    }
    pub fn parse(s: &str) -> Option<Persistence> {
        match s {
            "none" => Some(Persistence::None),
            "raw" => Some(Persistence::Raw),
            "rendered" => Some(Persistence::Rendered),
            _ => None,
        }
    }

    /// Genie Flow's default per transition type (seed 001).
    pub fn default_for(from: GenieType, to: GenieType) -> Persistence {
        match (from, to) {
            (GenieType::User, GenieType::User) => Persistence::Rendered,
            (GenieType::User, GenieType::Invoker) => Persistence::Raw,
            (GenieType::Invoker, GenieType::User) => Persistence::Rendered,
            (GenieType::Invoker, GenieType::Invoker) => Persistence::None,
        }
    }
}
