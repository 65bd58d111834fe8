//! The dialogue runtime on a hand-written stand-in for a generated protocol: a call for proposals, a
//! proposal, an accept and a matching accept, with a decline at each turn.

use super::*;
use crate::transition::{InvalidTransition, Machine, Reason, ValidationError};
use std::collections::BTreeMap;
use std::fmt::{self, Display, Formatter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum S {
    Idle,
    Called,
    Proposed,
    Accepted,
    Done,
    Declined,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum E {
    Cfp,
    Propose,
    Accept,
    MatchAccept,
    Decline,
}

#[derive(Debug, Clone, PartialEq)]
enum Msg {
    Cfp { good: &'static str },
    Propose { price: u64 },
    Accept,
    MatchAccept,
    Decline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Buyer,
    Seller,
}

impl Display for S {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Display for E {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl Display for Role {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Buyer => "buyer",
            Role::Seller => "seller",
        })
    }
}

/// What the hooks of this stand-in see: every transition taken, and a validator that can refuse prices.
trait Hooks {
    fn validate(&mut self, message: &Msg) -> Result<(), ValidationError>;
    fn took(&mut self, from: S, event: E, to: S, delivery: &Delivery<'_>);
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Log {
    max_price: Option<u64>,
    taken: Vec<(S, E, S, Side, MessageId)>,
}

impl Hooks for Log {
    fn validate(&mut self, message: &Msg) -> Result<(), ValidationError> {
        match (message, self.max_price) {
            (Msg::Propose { price }, Some(max)) if *price > max => {
                Err(ValidationError::new("too expensive"))
            }
            _ => Ok(()),
        }
    }

    fn took(&mut self, from: S, event: E, to: S, d: &Delivery<'_>) {
        self.taken.push((from, event, to, d.side(), d.message_id()));
    }
}

fn event_of(m: &Msg) -> E {
    match m {
        Msg::Cfp { .. } => E::Cfp,
        Msg::Propose { .. } => E::Propose,
        Msg::Accept => E::Accept,
        Msg::MatchAccept => E::MatchAccept,
        Msg::Decline => E::Decline,
    }
}

impl Machine for S {
    type Event = E;
    type Message = Msg;
    type Hooks = dyn Hooks;
    const ALL: &'static [Self] = &[
        S::Idle,
        S::Called,
        S::Proposed,
        S::Accepted,
        S::Done,
        S::Declined,
    ];

    fn next(self, event: E) -> Result<S, InvalidTransition<S, E>> {
        match (self, event) {
            (S::Idle, E::Cfp) => Ok(S::Called),
            (S::Called, E::Propose) => Ok(S::Proposed),
            (S::Proposed, E::Accept) => Ok(S::Accepted),
            (S::Accepted, E::MatchAccept) => Ok(S::Done),
            (S::Called | S::Accepted, E::Decline) => Ok(S::Declined),
            _ => Err(InvalidTransition::for_state(self, event)),
        }
    }

    fn fire(self, message: &Msg, _: &mut Self::Hooks) -> Result<S, InvalidTransition<S, E>> {
        self.next(event_of(message))
    }

    fn is_final(self) -> bool {
        matches!(self, S::Done | S::Declined)
    }

    fn accepted(self) -> &'static [E] {
        match self {
            S::Idle => &[E::Cfp],
            S::Called => &[E::Propose, E::Decline],
            S::Proposed => &[E::Accept],
            S::Accepted => &[E::MatchAccept, E::Decline],
            S::Done | S::Declined => &[],
        }
    }

    fn name(self) -> &'static str {
        match self {
            S::Idle => "Idle",
            S::Called => "Called",
            S::Proposed => "Proposed",
            S::Accepted => "Accepted",
            S::Done => "Done",
            S::Declined => "Declined",
        }
    }
}

impl Protocol for S {
    type Role = Role;
    const START: S = S::Idle;

    fn performative(message: &Msg) -> E {
        event_of(message)
    }

    // In this stand-in the decline is the seller's, to exercise a performative with one sender at every turn.
    fn sender_role(p: E) -> Option<Role> {
        Some(match p {
            E::Cfp | E::Accept => Role::Buyer,
            E::Propose | E::MatchAccept | E::Decline => Role::Seller,
        })
    }

    fn other_role(r: Role) -> Role {
        match r {
            Role::Buyer => Role::Seller,
            Role::Seller => Role::Buyer,
        }
    }

    fn deliver(
        self,
        message: &Msg,
        delivery: &Delivery<'_>,
        hooks: &mut Self::Hooks,
    ) -> Result<S, InvalidTransition<S, E>> {
        let event = event_of(message);
        let to = self.next(event)?;
        hooks
            .validate(message)
            .map_err(|e| InvalidTransition::new(self, event, Reason::Rejected(e)))?;
        hooks.took(self, event, to, delivery);
        Ok(to)
    }
}

type Store = Dialogues<S>;

fn open(buyer: &mut Store, log: &mut Log, seller: &str) -> Envelope<Msg> {
    buyer.open(seller, Msg::Cfp { good: "apple" }, log).unwrap()
}

#[test]
fn a_dialogue_runs_on_both_copies() {
    let (mut alice, mut bob) = (Store::new("alice"), Store::new("bob"));
    let (mut la, mut lb) = (Log::default(), Log::default());
    let cfp = open(&mut alice, &mut la, "bob");
    assert_eq!(cfp.header.message_id, FIRST_MESSAGE_ID);
    assert_eq!(cfp.header.target, NO_TARGET);
    assert_eq!(cfp.header.dialogue, DialogueReference::new("alice", 1));
    assert_eq!(bob.receive(&cfp, &mut lb), Ok(S::Called));
    let r = cfp.header.dialogue.clone();
    let propose = bob.send(&r, Msg::Propose { price: 5 }, &mut lb).unwrap();
    assert_eq!((propose.header.message_id, propose.header.target), (2, 1));
    assert_eq!(propose.header.sender, Address::from("bob"));
    alice.receive(&propose, &mut la).unwrap();
    let accept = alice.send(&r, Msg::Accept, &mut la).unwrap();
    bob.receive(&accept, &mut lb).unwrap();
    let matched = bob.send(&r, Msg::MatchAccept, &mut lb).unwrap();
    assert_eq!(alice.receive(&matched, &mut la), Ok(S::Done));

    let (a, b) = (alice.get(&r).unwrap(), bob.get(&r).unwrap());
    assert_eq!((a.role(), b.role()), (Role::Buyer, Role::Seller));
    assert!(a.is_self_initiated() && !b.is_self_initiated());
    assert!(a.is_ended() && b.is_ended());
    assert_eq!(a.last_message_id(), 4);
    let sides: Vec<_> = a
        .history()
        .iter()
        .map(|r| (r.performative, r.side))
        .collect();
    assert_eq!(
        sides,
        [
            (E::Cfp, Side::Sent),
            (E::Propose, Side::Received),
            (E::Accept, Side::Sent),
            (E::MatchAccept, Side::Received)
        ]
    );
    // The hooks ran once per copy per message, told which side they ran on.
    assert_eq!(lb.taken.len(), 4);
    assert_eq!(lb.taken[0], (S::Idle, E::Cfp, S::Called, Side::Received, 1));
    assert_eq!(
        lb.taken[1],
        (S::Called, E::Propose, S::Proposed, Side::Sent, 2)
    );
    assert_eq!(alice.open_dialogues().count(), 0);
}

/// Asserts `result` is an error and that the store and the hooks' log are as they were.
fn refused<T: std::fmt::Debug>(
    result: Result<T, ErrorOf<S>>,
    store: &Store,
    before: &Store,
    log: &Log,
    log_before: &Log,
) -> ErrorOf<S> {
    let err = result.unwrap_err();
    assert_eq!(store, before, "{err}: the store changed");
    assert_eq!(log, log_before, "{err}: the hooks ran");
    err
}

#[test]
fn every_refusal_leaves_the_dialogue_unchanged() {
    let (mut alice, mut bob) = (Store::new("alice"), Store::new("bob"));
    let (mut la, mut lb) = (Log::default(), Log::default());
    let cfp = open(&mut alice, &mut la, "bob");
    bob.receive(&cfp, &mut lb).unwrap();
    let r = cfp.header.dialogue.clone();
    let propose = bob.send(&r, Msg::Propose { price: 5 }, &mut lb).unwrap();
    let (a0, l0) = (alice.clone(), la.clone());

    // The buyer sends a seller's performative.
    let mut forged = propose.clone();
    forged.header.sender = "alice".into();
    forged.header.to = "alice".into();
    let e = refused(alice.receive(&forged, &mut la), &alice, &a0, &la, &l0);
    assert!(matches!(e, DialogueError::NotAParty { .. }), "{e}");
    let e = refused(
        alice.send(&r, Msg::MatchAccept, &mut la),
        &alice,
        &a0,
        &la,
        &l0,
    );
    assert_eq!(
        e.to_string(),
        "`alice` is the buyer of this dialogue, but `MatchAccept` is sent by the seller"
    );
    // A third agent speaks in someone else's dialogue.
    let mut intruder = propose.clone();
    intruder.header.sender = "mallory".into();
    let e = refused(alice.receive(&intruder, &mut la), &alice, &a0, &la, &l0);
    assert_eq!(e.to_string(), "`mallory` cannot send here; only `bob` can");
    // Addressed to someone else.
    let mut misaddressed = propose.clone();
    misaddressed.header.to = "carol".into();
    let e = refused(alice.receive(&misaddressed, &mut la), &alice, &a0, &la, &l0);
    assert!(matches!(e, DialogueError::NotAddressed { .. }), "{e}");
    // Out of sequence, or answering a message that is not the last one.
    let mut skipped = propose.clone();
    skipped.header.message_id = 3;
    let e = refused(alice.receive(&skipped, &mut la), &alice, &a0, &la, &l0);
    assert_eq!(
        e,
        DialogueError::MessageId {
            got: 3,
            expected: 2
        }
    );
    let mut stale = propose.clone();
    stale.header.target = 0;
    let e = refused(alice.receive(&stale, &mut la), &alice, &a0, &la, &l0);
    assert_eq!(
        e,
        DialogueError::Target {
            got: 0,
            expected: 1
        }
    );
    // Not a reply to the last performative: the reply relation.
    let mut not_a_reply = propose.clone();
    not_a_reply.message = Msg::MatchAccept;
    let e = refused(alice.receive(&not_a_reply, &mut la), &alice, &a0, &la, &l0);
    assert_eq!(
        e.to_string(),
        "event `MatchAccept` is not accepted in state `Called`; it accepts: `Propose`, `Decline`"
    );
    // A validator refuses.
    la.max_price = Some(4);
    let l0 = la.clone();
    let e = refused(alice.receive(&propose, &mut la), &alice, &a0, &la, &l0);
    assert!(
        matches!(&e, DialogueError::Refused(t) if t.reason == Reason::Rejected(ValidationError::new("too expensive")))
    );
    // Another dialogue's message.
    let mut elsewhere = propose.clone();
    elsewhere.header.dialogue = DialogueReference::new("alice", 9);
    let e = refused(alice.receive(&elsewhere, &mut la), &alice, &a0, &la, &l0);
    assert_eq!(
        e,
        DialogueError::UnknownDialogue(DialogueReference::new("alice", 9))
    );
    // The genuine message is still taken afterwards.
    la.max_price = None;
    assert_eq!(alice.receive(&propose, &mut la), Ok(S::Proposed));
    // Nothing answers a dialogue that has ended.
    let decline = bob.send(&r, Msg::Decline, &mut lb);
    assert!(
        decline.is_err(),
        "the seller cannot decline while waiting for the buyer"
    );
    let accept = alice.send(&r, Msg::Accept, &mut la).unwrap();
    bob.receive(&accept, &mut lb).unwrap();
    let decline = bob.send(&r, Msg::Decline, &mut lb).unwrap();
    alice.receive(&decline, &mut la).unwrap();
    let (a1, l1) = (alice.clone(), la.clone());
    let e = refused(alice.send(&r, Msg::Accept, &mut la), &alice, &a1, &la, &l1);
    assert_eq!(
        e.to_string(),
        "event `Accept` is not accepted in state `Declined`; it accepts no events"
    );
}

#[test]
fn openings_are_checked_and_refused_ones_leave_no_dialogue() {
    let (mut alice, mut bob) = (Store::new("alice"), Store::new("bob"));
    let (mut la, mut lb) = (Log::default(), Log::default());
    let (a0, b0, l0) = (alice.clone(), bob.clone(), la.clone());
    // Only an opening performative opens, and never with oneself.
    let e = refused(
        alice.open("bob", Msg::Accept, &mut la),
        &alice,
        &a0,
        &la,
        &l0,
    );
    assert!(matches!(e, DialogueError::Refused(_)), "{e}");
    let e = refused(
        alice.open("alice", Msg::Cfp { good: "pear" }, &mut la),
        &alice,
        &a0,
        &la,
        &l0,
    );
    assert_eq!(e, DialogueError::SelfDialogue("alice".into()));
    let cfp = open(&mut alice, &mut la, "bob");
    // An opening that is not the first message, or not from the initiator, opens nothing.
    let lb0 = lb.clone();
    let mut late = cfp.clone();
    late.header.message_id = 2;
    let e = refused(bob.receive(&late, &mut lb), &bob, &b0, &lb, &lb0);
    assert!(matches!(e, DialogueError::UnknownDialogue(_)), "{e}");
    let mut relayed = cfp.clone();
    relayed.header.sender = "carol".into();
    let e = refused(bob.receive(&relayed, &mut lb), &bob, &b0, &lb, &lb0);
    assert!(matches!(e, DialogueError::NotAParty { .. }), "{e}");
    bob.receive(&cfp, &mut lb).unwrap();
    // The same opening twice is a duplicate message in an existing dialogue.
    let b1 = bob.clone();
    let lb1 = lb.clone();
    let e = refused(bob.receive(&cfp, &mut lb), &bob, &b1, &lb, &lb1);
    assert_eq!(
        e,
        DialogueError::MessageId {
            got: 1,
            expected: 2
        }
    );
}

#[test]
fn many_dialogues_run_at_once_by_reference() {
    let mut alice = Store::new("alice");
    let mut sellers = [Store::new("bob"), Store::new("carol")];
    let (mut la, mut ls) = (Log::default(), Log::default());
    let refs: Vec<_> = sellers
        .iter_mut()
        .map(|s| {
            let cfp = open(&mut alice, &mut la, s.me().as_str());
            s.receive(&cfp, &mut ls).unwrap();
            cfp.header.dialogue
        })
        .collect();
    assert_eq!(
        refs,
        [
            DialogueReference::new("alice", 1),
            DialogueReference::new("alice", 2)
        ]
    );
    // Answers arrive in the other order and each lands in its own dialogue.
    let p2 = sellers[1]
        .send(&refs[1], Msg::Propose { price: 7 }, &mut ls)
        .unwrap();
    let p1 = sellers[0].send(&refs[0], Msg::Decline, &mut ls).unwrap();
    assert_eq!(alice.receive(&p2, &mut la), Ok(S::Proposed));
    assert_eq!(alice.receive(&p1, &mut la), Ok(S::Declined));
    let states: BTreeMap<_, _> = alice
        .iter()
        .map(|d| (d.counterparty().to_string(), d.state()))
        .collect();
    assert_eq!(states["bob"], S::Declined);
    assert_eq!(states["carol"], S::Proposed);
    assert_eq!(alice.open_dialogues().count(), 1);
    assert_eq!(alice.len(), 2);
    // A proposal from carol's dialogue cannot be replayed into bob's.
    let mut crossed = p2.clone();
    crossed.header.dialogue = refs[0].clone();
    assert!(alice.receive(&crossed, &mut la).is_err());
}

fn tx(
    id: u32,
    sender: &str,
    counterparty: &str,
    buyer: bool,
    amount: u64,
) -> TransactionRequest<&'static str> {
    TransactionRequest {
        id: TransactionId(DialogueReference::new("alice", id.into())),
        sender: sender.into(),
        counterparty: counterparty.into(),
        is_sender_buyer: buyer,
        amount,
        quantities: BTreeMap::from([("apple", 2)]),
    }
}

#[test]
fn ledger_stores_pop_and_look_forward() {
    let r = DialogueReference::new("alice", 1);
    let mut l = AgentLedger::new();
    let t = tx(2, "bob", "alice", false, 10);
    l.add_pending_proposal(&r, 2, t.clone()).unwrap();
    assert_eq!(
        l.add_pending_proposal(&r, 2, t.clone())
            .unwrap_err()
            .to_string(),
        "`alice/1@2` is already in pending proposals"
    );
    assert_eq!(l.pending_proposals().count(), 1);
    assert_eq!(l.pending_proposal(&r, 2), Some(&t));
    assert_eq!(l.pending_proposal(&r, 3), None);
    assert_eq!(l.pop_pending_proposal(&r, 2), Ok(t.clone()));
    assert_eq!(
        l.pop_pending_proposal(&r, 2).unwrap_err().to_string(),
        "`alice/1@2` is not in pending proposals"
    );
    l.add_pending_initial_acceptance(&r, 3, t.clone()).unwrap();
    assert_eq!(l.pending_initial_acceptance(&r, 3), Some(&t));
    assert!(l.pop_pending_initial_acceptance(&r, 4).is_err());
    assert_eq!(l.pop_pending_initial_acceptance(&r, 3), Ok(t.clone()));
    // Selling two apples of three: the forward-looking state has one, and more money.
    let h = Holdings::new(5, [("apple", 3)]);
    l.add_locked_tx(t.clone()).unwrap();
    assert!(l.add_locked_tx(t.clone()).is_err());
    assert_eq!(l.forward_state(&h), Some(Holdings::new(15, [("apple", 1)])));
    // A second lock of two more apples overcommits.
    l.add_locked_tx(tx(4, "bob", "carol", false, 10)).unwrap();
    assert_eq!(l.forward_state(&h), None);
    assert_eq!(l.locked_txs().count(), 2);
    l.pop_locked_tx(&t.id).unwrap();
    assert!(l.pop_locked_tx(&t.id).is_err());
    l.pop_locked_tx(&tx(4, "bob", "carol", false, 10).id)
        .unwrap();
    assert!(l.is_empty());
}

#[test]
fn requests_match_only_as_mirror_images() {
    let seller = tx(2, "bob", "alice", false, 10);
    let buyer = seller.mirror();
    assert!(seller.matches(&buyer) && buyer.matches(&seller));
    assert_eq!(buyer.to_string(), "alice buys 2 apple from bob for 10");
    assert!(!seller.matches(&seller), "two sellers");
    let mut cheap = buyer.clone();
    cheap.amount = 9;
    assert!(!seller.matches(&cheap));
    let mut other = buyer.clone();
    other.id = TransactionId(DialogueReference::new("alice", 4));
    assert!(!seller.matches(&other));
}

fn controller() -> Controller<&'static str> {
    Controller::new([
        ("alice".into(), Holdings::new(20, [("apple", 0)])),
        ("bob".into(), Holdings::new(0, [("apple", 3)])),
    ])
}

#[test]
fn controller_confirms_matching_requests_to_both() {
    let mut c = controller();
    let seller = tx(2, "bob", "alice", false, 10);
    assert_eq!(c.request(seller.clone()), []);
    assert_eq!(c.pending().count(), 1);
    let before = c.clone();
    assert_eq!(
        c.request(seller.clone()),
        [(
            "bob".into(),
            Notice::Refused {
                id: seller.id.clone(),
                reason: Refusal::Duplicate
            }
        )]
    );
    assert_eq!(c, before, "a duplicate changes nothing");
    let notices = c.request(seller.mirror());
    assert_eq!(
        notices,
        [
            ("bob".into(), Notice::Confirmed(seller.id.clone())),
            ("alice".into(), Notice::Confirmed(seller.id.clone()))
        ]
    );
    assert_eq!(
        c.holdings(&"alice".into()),
        Some(&Holdings::new(10, [("apple", 2)]))
    );
    assert_eq!(
        c.holdings(&"bob".into()),
        Some(&Holdings::new(10, [("apple", 1)]))
    );
    assert_eq!(c.pending().count(), 0);
    assert_eq!(c.settled(), std::slice::from_ref(&seller));
    let before = c.clone();
    let again = c.request(seller.mirror());
    assert_eq!(
        again[0].1,
        Notice::Refused {
            id: seller.id,
            reason: Refusal::AlreadySettled
        }
    );
    assert_eq!(c, before);
}

#[test]
fn controller_refuses_a_mismatch_to_both_parties() {
    let mut c = controller();
    let seller = tx(2, "bob", "alice", false, 10);
    c.request(seller.clone());
    let mut cheap = seller.mirror();
    cheap.amount = 9;
    let notices = c.request(cheap.clone());
    let refusal = Notice::Refused {
        id: seller.id.clone(),
        reason: Refusal::Mismatch,
    };
    assert_eq!(
        notices,
        [("bob".into(), refusal.clone()), ("alice".into(), refusal)]
    );
    assert_eq!(notices[0].1.id(), &seller.id);
    // Holdings untouched; nothing left pending; the transaction cannot settle later.
    assert_eq!(
        c.holdings(&"alice".into()),
        Some(&Holdings::new(20, [("apple", 0)]))
    );
    assert_eq!(c.pending().count(), 0);
    assert!(c.is_refused(&seller.id));
    let late = c.request(seller.mirror());
    assert_eq!(
        late[0].1,
        Notice::Refused {
            id: seller.id.clone(),
            reason: Refusal::AlreadyRefused
        }
    );
    assert!(Refusal::Mismatch.ends_transaction() && !Refusal::Duplicate.ends_transaction());
}

#[test]
fn controller_refuses_what_a_party_cannot_cover_or_who_is_unknown() {
    let mut c = controller();
    let before = c.clone();
    let stranger = tx(2, "bob", "zed", false, 10);
    assert_eq!(
        c.request(stranger)[0].1.to_string(),
        "transaction alice/2 refused: `zed` is not a registered agent"
    );
    assert_eq!(c, before);
    let narcissist = tx(2, "bob", "bob", false, 10);
    assert_eq!(c.request(narcissist).len(), 1);
    assert_eq!(c, before);
    let dear = tx(2, "bob", "alice", false, 30);
    let notices = c.request(dear.clone());
    assert_eq!(notices.len(), 2, "both parties are told");
    assert_eq!(
        notices[1].1,
        Notice::Refused {
            id: dear.id.clone(),
            reason: Refusal::Infeasible("alice".into())
        }
    );
    assert_eq!(
        c.holdings(&"alice".into()),
        before.holdings(&"alice".into())
    );
    assert_eq!(c.pending().count(), 0);
}
