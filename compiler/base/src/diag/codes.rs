//! The catalogue of diagnostic codes: one stable code and name per condition fsmc reports.
//!
//! Codes never change meaning once published. Hard errors (`E…`) cannot be silenced; lints (`W…`) have a
//! default level that a spec (`#![allow(name)]`) or the command line (`--allow CODE`) can change. A few
//! errors are lints on plain machines only (see [`Code::plain_level`]): a spec in progress may leave a state
//! unreachable or an event unused, while the profiles whose upstream checkers reject those keep them errors.
//! Their `E` codes stay, so a code means one condition whatever the profile; only its level differs.
//! Every code has one minimal failing spec in `specs/invalid/`, enforced by a test.

use std::fmt;

/// How a lint is treated unless configured otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "json",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }
}

macro_rules! codes {
    ($( $variant:ident = $id:literal, $name:literal, $kind:ident, $summary:literal; )*) => {
        /// A diagnostic code. See [`Code::ALL`] for the catalogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $variant, )* }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable code, e.g. `E0101`.
            pub fn id(self) -> &'static str {
                match self { $( Code::$variant => $id, )* }
            }

            /// The stable snake_case name, usable in `#![allow(name)]`.
            pub fn name(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            /// `None` for hard errors; the default level for lints.
            pub fn default_level(self) -> Option<Level> {
                match self { $( Code::$variant => codes!(@level $kind), )* }
            }

            /// The default level on a plain machine (no profile): a lint's own level, and `Warn` for the
            /// errors that a spec in progress is allowed to have there.
            pub fn plain_level(self) -> Option<Level> {
                match self { $( Code::$variant => codes!(@plain $kind), )* }
            }

            /// One line describing the condition.
            pub fn summary(self) -> &'static str {
                match self { $( Code::$variant => $summary, )* }
            }
        }
    };
    (@level error) => { None };
    (@level warn) => { Some(Level::Warn) };
    (@level deny) => { Some(Level::Deny) };
    (@level allow) => { Some(Level::Allow) };
    (@level plain_warn) => { None };
    (@plain plain_warn) => { Some(Level::Warn) };
    (@plain $kind:ident) => { codes!(@level $kind) };
}

codes! {
    // Input: syntax, files, imports, foreign formats.
    Syntax = "E0001", "syntax_error", error, "the spec does not parse";
    Io = "E0002", "unreadable_file", error, "a file could not be read, or is not UTF-8 text";
    ImportOutsideRoots = "E0003", "import_outside_roots", error, "an import path is absolute or leaves the allowed roots";
    ImportCycle = "E0004", "import_cycle", error, "files import each other in a cycle";
    ImportNotFound = "E0005", "import_not_found", error, "an imported file does not exist in any search path";
    ImportAmbiguous = "E0006", "import_alias_needs_one_machine", error, "`import … as Name` names a file that does not define exactly one machine";
    UnknownProperty = "E0007", "unknown_property", error, "a property is not known for this item or profile";
    BadPropertyValue = "E0008", "bad_property_value", error, "a property has a value of the wrong shape";
    UnknownLint = "E0009", "unknown_lint", error, "a lint attribute names no known lint";
    InvalidDuration = "E0010", "invalid_duration", error, "a timeout duration is zero or out of range";
    YamlSyntax = "E0011", "yaml_syntax_error", error, "an Open Autonomy spec is not valid YAML";
    YamlSchema = "E0012", "yaml_schema_error", error, "an Open Autonomy spec lacks a key, has an extra one, or a value of the wrong type";
    YamlDuplicateKey = "E0013", "yaml_duplicate_key", error, "a YAML mapping repeats a key (YAML silently keeps the last)";
    YamlTransitionKey = "E0014", "yaml_bad_transition_key", error, "a transition key is not of the form `(State, EVENT)`";
    DuplicateProperty = "E0015", "duplicate_property", error, "a property is given twice";
    InvalidType = "E0016", "invalid_type", error, "a type in a spec is not a plain type, or names a generated item";
    UnknownType = "E0017", "unknown_type", error, "a bare name in a spec's type is no primitive or prelude type, so the generated code cannot name it";
    // Names.
    DuplicateState = "E0101", "duplicate_state", error, "a state is declared twice";
    DuplicateEvent = "E0102", "duplicate_event", error, "an event is declared twice";
    DuplicateItem = "E0103", "duplicate_item", error, "two machines or apps have the same name";
    UnknownState = "E0104", "unknown_state", error, "a state is used but not declared";
    UnknownEvent = "E0105", "unknown_event", error, "an event is used but not declared";
    UnknownMachine = "E0106", "unknown_machine", error, "a composition names a machine that is not in scope";
    DuplicateKey = "E0107", "duplicate_key", error, "a data key is declared twice";
    UnknownKey = "E0108", "unknown_key", error, "a data key is used but not declared";
    UnknownKind = "E0109", "unknown_kind", error, "a state kind or profile is not known";
    UnknownRole = "E0110", "unknown_role", error, "a role or agent is used but not declared";
    NameCollision = "E0111", "generated_name_collision", error, "two names become the same identifier in generated Rust";
    ReservedName = "E0112", "reserved_name", error, "a name is reserved";
    RefinementChangesBase = "E0113", "refinement_changes_base", error, "a refinement adds a state, event or transition to its base, or changes its start or final states";
    BadRefinement = "E0114", "bad_refinement", error, "`refines` names a machine that is not an imported Open Autonomy app, or the refining machine is not `abci`";
    // Structure.
    NoDefaultStart = "E0201", "missing_default_start", error, "a machine has no default start state";
    MultipleDefaultStarts = "E0202", "multiple_default_starts", error, "a machine has more than one default start state";
    StartIsFinal = "E0203", "start_state_is_final", error, "a state is both a start state and a final state";
    TransitionFromFinal = "E0204", "transition_from_final", error, "a final state has an outgoing transition";
    DuplicateTransition = "E0205", "duplicate_transition", error, "the same transition is written twice";
    ConflictingTransition = "E0206", "conflicting_transition", error, "one (state, event) pair leads to two different states";
    EmptyMachine = "E0207", "empty_machine", error, "a machine declares no states";
    NoTransitions = "E0208", "no_transitions", error, "a machine has no transitions";
    DefaultNotStart = "E0209", "default_start_not_start", error, "the default start state is not among the start states";
    UnlistedState = "E0210", "state_not_listed", error, "a start or final state is not in the machine's state list";
    // Graph.
    UnreachableState = "E0301", "unreachable_state", plain_warn, "a state cannot be reached from any start state";
    DeadEnd = "E0302", "dead_end_state", error, "a non-final state has no outgoing transition";
    NoPathToFinal = "W0303", "no_path_to_final", warn, "a state cannot reach any final state";
    UnusedEvent = "E0304", "unused_event", plain_warn, "an event is declared but no transition uses it";
    EventNeverHandled = "W0305", "event_never_handled", warn, "an event is handled only in states that can never be reached";
    // Round rules (Open Autonomy profile).
    MissingRoundEvent = "E0401", "missing_round_event", error, "a round can emit an event that has no transition";
    MultipleTimeouts = "E0402", "multiple_timeouts", error, "a round has more than one timeout transition";
    OnlyTimeouts = "E0403", "only_timeout_transitions", error, "a non-final round has no non-timeout transition";
    FinalNotDegenerate = "E0404", "final_round_not_degenerate", error, "a final round is not degenerate";
    DegenerateNotFinal = "E0405", "degenerate_round_not_final", error, "a degenerate round is not final";
    BadOutcome = "E0406", "bad_round_outcome", error, "a round maps an outcome its kind cannot emit, or to a timeout event";
    BadRoundWrites = "E0407", "bad_round_writes", error, "a round's `writes` do not fit the value it decides";
    BadRoundRole = "E0408", "bad_round_role", error, "`registration;` or `elects_keeper;` on a round that cannot play that part";
    BadConfirmations = "E0409", "bad_confirmations", error, "`confirmations` on a round that no threshold decides";
    ShortTimeout = "W0410", "short_timeout", warn, "a timeout is shorter than a block interval, so its round times out before it can decide";
    // Composition.
    TooFewMachines = "E0501", "too_few_machines", error, "a composition has fewer than two machines";
    MachineUsedTwice = "E0502", "machine_used_twice", error, "a machine appears twice in one composition";
    MappingFromNonFinal = "E0503", "mapping_from_non_final", error, "a mapping key is not a final state";
    MappingToNonStart = "E0504", "mapping_to_non_start", error, "a mapping value is not a start state";
    SharedState = "E0505", "shared_state", error, "two composed machines declare the same state";
    TimeoutMismatch = "E0506", "timeout_mismatch", error, "composed machines give one event two different timeouts";
    SharedEvent = "W0507", "shared_event", allow, "composed machines use the same event name (treated as one event)";
    PreconditionUnmet = "E0508", "precondition_unmet", error, "a machine is entered on a path where its pre-conditions are not guaranteed";
    DuplicateMapping = "E0509", "duplicate_mapping", error, "a final state is mapped twice";
    ComposedCheck = "E0510", "composed_app_invalid", error, "the composed app fails a check as an ordinary machine";
    KeyTypeMismatch = "E0511", "key_type_mismatch", error, "composed machines declare one key with two different types";
    MachineNeverEntered = "W0512", "machine_never_entered", warn, "a chained machine is never entered: no mapping leads into it, so the app drops it";
    // Data flow and conditions.
    ReadBeforeWrite = "E0601", "read_before_write", error, "a key is read in a state that some path reaches without writing it";
    PostconditionUnmet = "E0602", "postcondition_unmet", error, "a final state guarantees a key that some path reaches it without writing";
    ConditionOnWrongState = "E0603", "condition_on_wrong_state", error, "a pre-condition on a non-start state, or a post-condition on a non-final state";
    ConditionOverlap = "E0604", "pre_post_overlap", error, "a key is both a pre-condition and a post-condition";
    DefaultKeyAsCondition = "E0605", "default_key_as_condition", error, "a default key is listed as a condition (it is always present)";
    UnusedKey = "W0606", "unused_key", warn, "a data key is never read, written or guaranteed";
    KeeperNotElected = "E0607", "keeper_not_elected", error, "a keeper round is reachable on a path that elects no keeper in the period";
    // Profiles: Genie Flow.
    GenieMissingType = "E0701", "genie_state_type", error, "a Genie state is neither `user` nor `invoker`";
    GenieMissingTemplate = "E0702", "genie_missing_template", error, "a Genie state has no template";
    RedundantPersistence = "W0703", "redundant_persistence", warn, "a persistence override equals the transition type's default";
    GenieTemplateNotFound = "E0704", "genie_template_not_found", error, "a Genie state's template file does not exist or cannot be read";
    GenieMissingWork = "E0705", "genie_missing_work", error, "a Genie invoker state does not name the work it runs";
    GenieFailureUnhandled = "E0706", "genie_failure_unhandled", error, "an invoker state's failure policy sends an event the state has no transition on";
    // Profiles: dialogue protocols (FIPA).
    DialogueRoles = "E0801", "dialogue_roles", error, "a dialogue does not declare exactly two roles";
    PerformativeWithoutRole = "E0802", "performative_without_role", error, "a performative does not say which role sends it";
    NoInitiation = "E0803", "no_initiation", error, "a dialogue has no initiating performative";
    NoTermination = "E0804", "no_termination", error, "a dialogue has no terminating performative";
    PerformativeUnreachable = "E0805", "performative_unreachable", error, "a performative cannot occur in any dialogue from the initiation";
    PerformativeCannotTerminate = "E0806", "performative_cannot_terminate", error, "after a performative the dialogue can never terminate";
    SameRoleReply = "E0807", "same_role_reply", error, "a performative is answered by the role that sent it";
    OpeningWithoutRole = "E0808", "opening_without_role", error, "a performative that opens a dialogue is not sent by a role";
    ActionSide = "E0809", "action_side", error, "an action's side is given outside a dialogue, or an action runs twice on one side";
    // Profiles: staged environments (Phantom).
    StageNextCount = "E0901", "stage_without_handler", error, "a stage without a handler does not have exactly one next stage";
    EventInStaged = "E0902", "event_in_staged_machine", error, "a staged machine uses events; stages move directly";
    DirectTransition = "E0903", "direct_transition", error, "a direct `A -> B` transition outside a staged machine";
    FinalStage = "E0904", "final_stage", error, "a stage of a staged machine is marked `final`";
    ScriptedRewarded = "E0905", "scripted_agent_rewarded", error, "a stage rewards a scripted agent";
    // Verification (`fsmc verify`): what goes wrong over time.
    VerifyStuck = "E1101", "verify_stuck_state", error, "the app can reach a state that no block leaves";
    VerifyPeriodNeverEnds = "E1102", "verify_period_never_ends", error, "a fair run loops forever without reaching a reset round or a final state";
    VerifyKeeperNotLive = "E1103", "verify_keeper_not_live", error, "a keeper round can run without an elected keeper that has not failed this period";
    VerifyKeyMissing = "E1104", "verify_key_missing", error, "a state can be entered without a key it reads or requires";
    ClaimUnknownName = "E1105", "claim_unknown_name", error, "an `invariant` or `eventually` names a state, key or event the machine does not have, or repeats a name";
    InvariantViolated = "E1106", "invariant_violated", error, "a reachable state breaks a declared `invariant`";
    EventuallyViolated = "E1107", "eventually_violated", error, "a fair run never reaches a state a declared `eventually` asks for";
    DialogueDisagrees = "E1108", "dialogue_parties_disagree", error, "a dialogue's two parties can disagree: a crossing message is refused, or they end in different states";
    ClaimImpossibleTransition = "E1109", "claim_impossible_transition", error, "an `after` or `outcome` in a declared property speaks of a transition that cannot happen";
    ClaimPeriod = "E1110", "claim_period", error, "a declared property compares the period where there are no periods, or with a constant too large to count to";
    // Lints.
    StateNaming = "W1001", "state_naming", warn, "an Open Autonomy state name does not end in `Round`";
    AppNaming = "W1002", "app_naming", warn, "an Open Autonomy app label does not end in `AbciApp`";
}

impl Code {
    /// Looks a code up by id (`E0101`) or name (`duplicate_state`), case-insensitively.
    pub fn lookup(s: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.id().eq_ignore_ascii_case(s) || c.name().eq_ignore_ascii_case(s))
    }

    /// Whether `allow`, `warn` and `deny` accept the code: a lint, or an error that is a lint on plain
    /// machines (there the levels apply; on other profiles it stays an error whatever they say).
    pub fn is_lint(self) -> bool {
        self.plain_level().is_some()
    }

    /// The long explanation `fsmc explain CODE` prints, in Markdown: what the rule is and why it exists, an
    /// erroneous example and its fix (the first two fenced blocks tagged `fsm` or `yaml`, which
    /// `compiler/cli/tests/explain.rs` compiles). Empty only for a code missing from the table below, which that
    /// test forbids.
    pub fn explanation(self) -> &'static str {
        EXPLANATIONS
            .iter()
            .find(|(code, _)| *code == self)
            .map_or("", |(_, text)| text)
    }
}

/// One Markdown file per code in `explain/`, compiled in so `fsmc explain` reads no files at run time. A table
/// rather than a match, so that adding a code fails a test (every code has an explanation) instead of the build.
/// One line per code, like the catalogue above.
#[rustfmt::skip]
const EXPLANATIONS: &[(Code, &str)] = &[
    (Code::Syntax, include_str!("explain/E0001.md")),
    (Code::Io, include_str!("explain/E0002.md")),
    (Code::ImportOutsideRoots, include_str!("explain/E0003.md")),
    (Code::ImportCycle, include_str!("explain/E0004.md")),
    (Code::ImportNotFound, include_str!("explain/E0005.md")),
    (Code::ImportAmbiguous, include_str!("explain/E0006.md")),
    (Code::UnknownProperty, include_str!("explain/E0007.md")),
    (Code::BadPropertyValue, include_str!("explain/E0008.md")),
    (Code::UnknownLint, include_str!("explain/E0009.md")),
    (Code::InvalidDuration, include_str!("explain/E0010.md")),
    (Code::YamlSyntax, include_str!("explain/E0011.md")),
    (Code::YamlSchema, include_str!("explain/E0012.md")),
    (Code::YamlDuplicateKey, include_str!("explain/E0013.md")),
    (Code::YamlTransitionKey, include_str!("explain/E0014.md")),
    (Code::DuplicateProperty, include_str!("explain/E0015.md")),
    (Code::InvalidType, include_str!("explain/E0016.md")),
    (Code::UnknownType, include_str!("explain/E0017.md")),
    (Code::DuplicateState, include_str!("explain/E0101.md")),
    (Code::DuplicateEvent, include_str!("explain/E0102.md")),
    (Code::DuplicateItem, include_str!("explain/E0103.md")),
    (Code::UnknownState, include_str!("explain/E0104.md")),
    (Code::UnknownEvent, include_str!("explain/E0105.md")),
    (Code::UnknownMachine, include_str!("explain/E0106.md")),
    (Code::DuplicateKey, include_str!("explain/E0107.md")),
    (Code::UnknownKey, include_str!("explain/E0108.md")),
    (Code::UnknownKind, include_str!("explain/E0109.md")),
    (Code::UnknownRole, include_str!("explain/E0110.md")),
    (Code::NameCollision, include_str!("explain/E0111.md")),
    (Code::ReservedName, include_str!("explain/E0112.md")),
    (Code::RefinementChangesBase, include_str!("explain/E0113.md")),
    (Code::BadRefinement, include_str!("explain/E0114.md")),
    (Code::NoDefaultStart, include_str!("explain/E0201.md")),
    (Code::MultipleDefaultStarts, include_str!("explain/E0202.md")),
    (Code::StartIsFinal, include_str!("explain/E0203.md")),
    (Code::TransitionFromFinal, include_str!("explain/E0204.md")),
    (Code::DuplicateTransition, include_str!("explain/E0205.md")),
    (Code::ConflictingTransition, include_str!("explain/E0206.md")),
    (Code::EmptyMachine, include_str!("explain/E0207.md")),
    (Code::NoTransitions, include_str!("explain/E0208.md")),
    (Code::DefaultNotStart, include_str!("explain/E0209.md")),
    (Code::UnlistedState, include_str!("explain/E0210.md")),
    (Code::UnreachableState, include_str!("explain/E0301.md")),
    (Code::DeadEnd, include_str!("explain/E0302.md")),
    (Code::NoPathToFinal, include_str!("explain/W0303.md")),
    (Code::UnusedEvent, include_str!("explain/E0304.md")),
    (Code::EventNeverHandled, include_str!("explain/W0305.md")),
    (Code::MissingRoundEvent, include_str!("explain/E0401.md")),
    (Code::MultipleTimeouts, include_str!("explain/E0402.md")),
    (Code::OnlyTimeouts, include_str!("explain/E0403.md")),
    (Code::FinalNotDegenerate, include_str!("explain/E0404.md")),
    (Code::DegenerateNotFinal, include_str!("explain/E0405.md")),
    (Code::BadOutcome, include_str!("explain/E0406.md")),
    (Code::BadRoundWrites, include_str!("explain/E0407.md")),
    (Code::BadRoundRole, include_str!("explain/E0408.md")),
    (Code::BadConfirmations, include_str!("explain/E0409.md")),
    (Code::ShortTimeout, include_str!("explain/W0410.md")),
    (Code::TooFewMachines, include_str!("explain/E0501.md")),
    (Code::MachineUsedTwice, include_str!("explain/E0502.md")),
    (Code::MappingFromNonFinal, include_str!("explain/E0503.md")),
    (Code::MappingToNonStart, include_str!("explain/E0504.md")),
    (Code::SharedState, include_str!("explain/E0505.md")),
    (Code::TimeoutMismatch, include_str!("explain/E0506.md")),
    (Code::SharedEvent, include_str!("explain/W0507.md")),
    (Code::PreconditionUnmet, include_str!("explain/E0508.md")),
    (Code::DuplicateMapping, include_str!("explain/E0509.md")),
    (Code::ComposedCheck, include_str!("explain/E0510.md")),
    (Code::KeyTypeMismatch, include_str!("explain/E0511.md")),
    (Code::MachineNeverEntered, include_str!("explain/W0512.md")),
    (Code::ReadBeforeWrite, include_str!("explain/E0601.md")),
    (Code::PostconditionUnmet, include_str!("explain/E0602.md")),
    (Code::ConditionOnWrongState, include_str!("explain/E0603.md")),
    (Code::ConditionOverlap, include_str!("explain/E0604.md")),
    (Code::DefaultKeyAsCondition, include_str!("explain/E0605.md")),
    (Code::UnusedKey, include_str!("explain/W0606.md")),
    (Code::KeeperNotElected, include_str!("explain/E0607.md")),
    (Code::GenieMissingType, include_str!("explain/E0701.md")),
    (Code::GenieMissingTemplate, include_str!("explain/E0702.md")),
    (Code::RedundantPersistence, include_str!("explain/W0703.md")),
    (Code::GenieTemplateNotFound, include_str!("explain/E0704.md")),
    (Code::GenieMissingWork, include_str!("explain/E0705.md")),
    (Code::GenieFailureUnhandled, include_str!("explain/E0706.md")),
    (Code::DialogueRoles, include_str!("explain/E0801.md")),
    (Code::PerformativeWithoutRole, include_str!("explain/E0802.md")),
    (Code::NoInitiation, include_str!("explain/E0803.md")),
    (Code::NoTermination, include_str!("explain/E0804.md")),
    (Code::PerformativeUnreachable, include_str!("explain/E0805.md")),
    (Code::PerformativeCannotTerminate, include_str!("explain/E0806.md")),
    (Code::SameRoleReply, include_str!("explain/E0807.md")),
    (Code::OpeningWithoutRole, include_str!("explain/E0808.md")),
    (Code::ActionSide, include_str!("explain/E0809.md")),
    (Code::StageNextCount, include_str!("explain/E0901.md")),
    (Code::EventInStaged, include_str!("explain/E0902.md")),
    (Code::DirectTransition, include_str!("explain/E0903.md")),
    (Code::FinalStage, include_str!("explain/E0904.md")),
    (Code::ScriptedRewarded, include_str!("explain/E0905.md")),
    (Code::VerifyStuck, include_str!("explain/E1101.md")),
    (Code::VerifyPeriodNeverEnds, include_str!("explain/E1102.md")),
    (Code::VerifyKeeperNotLive, include_str!("explain/E1103.md")),
    (Code::VerifyKeyMissing, include_str!("explain/E1104.md")),
    (Code::ClaimUnknownName, include_str!("explain/E1105.md")),
    (Code::InvariantViolated, include_str!("explain/E1106.md")),
    (Code::EventuallyViolated, include_str!("explain/E1107.md")),
    (Code::DialogueDisagrees, include_str!("explain/E1108.md")),
    (Code::ClaimImpossibleTransition, include_str!("explain/E1109.md")),
    (Code::ClaimPeriod, include_str!("explain/E1110.md")),
    (Code::StateNaming, include_str!("explain/W1001.md")),
    (Code::AppNaming, include_str!("explain/W1002.md")),
];

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn ids_and_names_are_unique_and_well_formed() {
        let ids: BTreeSet<_> = Code::ALL.iter().map(|c| c.id()).collect();
        let names: BTreeSet<_> = Code::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(ids.len(), Code::ALL.len());
        assert_eq!(names.len(), Code::ALL.len());
        for c in Code::ALL {
            let id = c.id();
            assert_eq!(id.len(), 5, "{id}");
            // Lints carry W, errors carry E, so a reader can tell them apart at a glance; an error that is a
            // lint on plain machines only keeps its E.
            assert_eq!(id.starts_with('W'), c.default_level().is_some(), "{id}");
        }
    }

    #[test]
    fn lookup_by_id_or_name() {
        assert_eq!(Code::lookup("e0101"), Some(Code::DuplicateState));
        assert_eq!(Code::lookup("unused_key"), Some(Code::UnusedKey));
        assert_eq!(Code::lookup("nope"), None);
    }
}
