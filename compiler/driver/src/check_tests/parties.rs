//! The checks of who does what in dialogues and staged machines: performatives sent by the initiator or the
//! responder, actions on one side of a dialogue, groups of agents and scripted agents.

use super::{check, codes};
use fsmc_base::diag::Code;
use fsmc_model::spec::Machine;
use fsmc_model::spec::dialogue::{ActionSide, Turn};
use std::path::Path;

fn machine(src: &str) -> Machine {
    let c = crate::compile_str("test.fsm", src, Path::new("."), &crate::Options::default());
    let checked = c
        .checked
        .unwrap_or_else(|| panic!("{src}: {:?}", c.diagnostics));
    checked.spec().machines[0].clone()
}

/// A negotiation either role may open, whose replies are sent by the initiator and the responder; `extra` is
/// added to its body.
fn negotiation(extra: &str) -> String {
    format!(
        "machine N: dialogue {{ roles buyer, seller; event Call by buyer; event Offer by seller; \
         event Quote by responder; event Take by initiator; start default state Open; state Called; \
         state Quoted; final state Done; (Open, Call) -> Called; (Open, Offer) -> Called; \
         (Called, Quote) -> Quoted; (Quoted, Take) -> Done; {extra} }}"
    )
}

#[test]
fn performatives_may_be_sent_by_the_initiator_or_the_responder() {
    let m = machine(&negotiation(""));
    let turns: Vec<_> = m.events.iter().map(|e| (e.role, e.turn)).collect();
    assert_eq!(
        turns,
        [
            (Some(0), None),
            (Some(1), None),
            (None, Some(Turn::Responder)),
            (None, Some(Turn::Initiator))
        ]
    );
}

#[test]
fn an_opening_performative_is_sent_by_a_role() {
    let src = "machine N: dialogue { roles buyer, seller; event Call by initiator; event Quote by responder; \
               start default state Open; state Called; final state Done; (Open, Call) -> Called; \
               (Called, Quote) -> Done; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::OpeningWithoutRole]
    );
    assert_eq!(
        diags[0].message,
        "performative `Call` opens the dialogue but is sent `by initiator`"
    );
    // The responder cannot open either; one error per performative, however many start states it leaves.
    let src = "machine N: dialogue { roles buyer, seller; event Call by responder; event Quote by initiator; \
               start default state Open; start state Again; state Called; final state Done; \
               (Open, Call) -> Called; (Again, Call) -> Called; (Called, Quote) -> Done; }";
    let found = codes(src);
    assert_eq!(
        found
            .iter()
            .filter(|c| **c == Code::OpeningWithoutRole)
            .count(),
        1,
        "{found:?}"
    );
}

#[test]
fn the_parties_alternate_whether_named_by_role_or_by_turn() {
    // The initiator answers its own call: the role that opens is the initiator.
    let own = negotiation("event Again by initiator; (Called, Again) -> Done;");
    assert!(
        codes(&own).contains(&Code::SameRoleReply),
        "{:?}",
        codes(&own)
    );
    // The responder answers its own quote.
    let own = negotiation("event More by responder; (Quoted, More) -> Done;");
    let diags = check("test.fsm", &own);
    let same: Vec<_> = diags
        .iter()
        .filter(|d| d.code == Code::SameRoleReply)
        .collect();
    assert_eq!(same.len(), 1);
    assert_eq!(
        same[0].message,
        "`More` answers a performative that `responder` itself sent"
    );
    // A reply by a role after a performative by a turn cannot be judged before the dialogue opens: no error.
    assert_eq!(
        codes(&negotiation(
            "event Haggle by buyer; (Quoted, Haggle) -> Done;"
        )),
        []
    );
}

#[test]
fn initiator_and_responder_name_no_role() {
    let src = "machine N: dialogue { roles initiator, seller; event Call by seller; event Ok by initiator; \
               start default state Open; state Called; final state Done; (Open, Call) -> Called; \
               (Called, Ok) -> Done; }";
    let diags = check("test.fsm", src);
    assert!(diags.iter().any(|d| d.code == Code::ReservedName
        && d.message == "the role name `initiator` is reserved in dialogues"));
}

#[test]
fn a_dialogue_runs_each_action_at_most_once_on_each_copy() {
    let with = |actions: &str| {
        negotiation("").replace(
            "(Called, Quote) -> Quoted;",
            &format!("(Called, Quote) -> Quoted {actions};"),
        )
    };
    let m = machine(&with("sender do keep receiver do answer do log"));
    let t = m
        .transitions
        .iter()
        .find(|t| !t.actions.is_empty())
        .expect("the actions");
    let sides: Vec<_> = t
        .actions
        .iter()
        .map(|a| (a.name.as_str(), a.side.map(|(s, _)| s)))
        .collect();
    assert_eq!(
        sides,
        [
            ("keep", Some(ActionSide::Sender)),
            ("answer", Some(ActionSide::Receiver)),
            ("log", None)
        ]
    );
    // One action on both sides, one side each, is once per copy.
    assert_eq!(codes(&with("sender do note receiver do note")), []);
    for twice in [
        "sender do note do note",
        "do note receiver do note",
        "receiver do note, note",
    ] {
        assert_eq!(codes(&with(twice)), [Code::ActionSide], "{twice}");
    }
}

#[test]
fn only_a_dialogue_has_sides() {
    let src = "machine M { event GO; start default state A; final state B; (A, GO) -> B sender do log receiver do x; }";
    let diags = check("test.fsm", src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::ActionSide]
    );
    assert_eq!(
        diags[0].message,
        "`sender do` applies only to the actions of a `dialogue` machine"
    );
}

fn staged(agents: &str, body: &str) -> String {
    format!("machine Market: staged {{ agents {agents}; {body} }}")
}

#[test]
fn groups_are_declared_in_agents_and_named_alone_elsewhere() {
    let src = staged(
        "auctioneer, traders[], bidders[]",
        "start default state Bid { acting traders, bidders; } Bid -> Bid;",
    );
    let m = machine(&src);
    let groups: Vec<usize> = m.roster.groups.iter().map(|(i, _)| *i).collect();
    assert_eq!(groups, [1, 2]);
    assert!(m.roster.is_group(1) && !m.roster.is_group(0));
    let marked = staged(
        "traders[]",
        "start default state Bid { acting traders[]; } Bid -> Bid;",
    );
    let diags = check("test.fsm", &marked);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::BadPropertyValue]
    );
    assert_eq!(diags[0].message, "`[]` cannot follow a name in `acting`");
    let roles = "machine D: dialogue { roles buyer[], seller; event A by buyer; event B by seller; \
                 start default state S; state T; final state U; (S, A) -> T; (T, B) -> U; }";
    assert_eq!(codes(roles), [Code::BadPropertyValue]);
}

#[test]
fn scripted_agents_are_declared_and_never_rewarded() {
    let src = staged(
        "traders[], crier",
        "scripted crier; start default state Bid { acting traders, crier; } Bid -> Bid;",
    );
    let m = machine(&src);
    assert_eq!(
        m.roster
            .scripted
            .iter()
            .map(|(i, _)| *i)
            .collect::<Vec<_>>(),
        [1]
    );
    let ghost = staged(
        "traders[]",
        "scripted crier; start default state Bid { acting traders; } Bid -> Bid;",
    );
    assert_eq!(codes(&ghost), [Code::UnknownRole]);
    let rewarded = staged(
        "traders[], crier",
        "scripted crier; start default state Bid { acting traders, crier; rewarded crier; } Bid -> Bid;",
    );
    let diags = check("test.fsm", &rewarded);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::ScriptedRewarded]
    );
    assert_eq!(
        diags[0].message,
        "stage `Bid` rewards `crier`, a scripted agent"
    );
}

#[test]
fn a_handler_cannot_take_the_name_of_an_agents_method() {
    let src = staged(
        "buyer, crier",
        "scripted crier; start default state ActBuyer { acting buyer; handler; } state ObserveCrier; \
         ActBuyer -> ActBuyer, ObserveCrier; ObserveCrier -> ActBuyer;",
    );
    let diags = check("test.fsm", &src);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NameCollision]
    );
    assert!(
        diags[0].message.contains("`act_buyer`"),
        "{}",
        diags[0].message
    );
    // A scripted agent observes nothing, so `observe_crier` is free.
    let src = staged(
        "buyer, crier",
        "scripted crier; start default state ObserveCrier { acting buyer; handler; } \
         ObserveCrier -> ObserveCrier;",
    );
    assert_eq!(codes(&src), []);
}
