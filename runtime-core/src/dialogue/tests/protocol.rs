//! One dialogue on both parties' copies, every refusal, openings, many dialogues at once, a seller opening,
//! and the limit on the dialogues one peer may open.

use super::*;
use std::collections::BTreeMap;

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
    // The hooks ran once per copy per message, told which side they ran on, and as which role.
    assert_eq!(lb.taken.len(), 4);
    assert_eq!(lb.roles, [Role::Seller; 4]);
    assert_eq!(la.roles, [Role::Buyer; 4]);
    assert_eq!(Delivery::<Role>::default().role(), None);
    assert_eq!(lb.taken[0], (S::Idle, E::Cfp, S::Called, Side::Received, 1));
    assert_eq!(
        lb.taken[1],
        (S::Called, E::Propose, S::Proposed, Side::Sent, 2)
    );
    assert_eq!(alice.open_dialogues().count(), 0);
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
        "`alice` is the buyer of this dialogue, but `MatchAccept` is sent by the responder, the seller"
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
    // Only an opening performative, sent by a role, opens; and never with oneself.
    let e = refused(
        alice.open("bob", Msg::Accept, &mut la),
        &alice,
        &a0,
        &la,
        &l0,
    );
    assert!(matches!(e, DialogueError::NoRole { .. }), "{e}");
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

#[test]
fn a_seller_opens_and_the_replies_follow_the_turns_not_the_roles() {
    let (mut bob, mut alice) = (Store::new("bob"), Store::new("alice"));
    let (mut lb, mut la) = (Log::default(), Log::default());
    // bob offers: he is the seller and the initiator, so alice is the buyer and proposes.
    let offer = bob
        .open("alice", Msg::Offer { good: "pear" }, &mut lb)
        .unwrap();
    let r = offer.header.dialogue.clone();
    alice.receive(&offer, &mut la).unwrap();
    let (b, a) = (bob.get(&r).unwrap(), alice.get(&r).unwrap());
    assert_eq!((b.role(), a.role()), (Role::Seller, Role::Buyer));
    assert_eq!(
        (b.initiator_role(), a.initiator_role()),
        (Role::Seller, Role::Seller)
    );
    assert_eq!(a.role_sending(E::Propose), Ok(Role::Buyer));
    assert_eq!(b.role_sending(E::Accept), Ok(Role::Seller));
    // The seller cannot propose here: the responder does, and the responder is the buyer.
    let (b0, lb0) = (bob.clone(), lb.clone());
    let e = refused(
        bob.send(&r, Msg::Propose { price: 3 }, &mut lb),
        &bob,
        &b0,
        &lb,
        &lb0,
    );
    assert_eq!(
        e.to_string(),
        "`bob` is the seller of this dialogue, but `Propose` is sent by the responder, the buyer"
    );
    let propose = alice.send(&r, Msg::Propose { price: 3 }, &mut la).unwrap();
    bob.receive(&propose, &mut lb).unwrap();
    let accept = bob.send(&r, Msg::Accept, &mut lb).unwrap();
    alice.receive(&accept, &mut la).unwrap();
    let matched = alice.send(&r, Msg::MatchAccept, &mut la).unwrap();
    assert_eq!(bob.receive(&matched, &mut lb), Ok(S::Done));
    // An opening that is not sent by a role cannot open: nothing says who plays what.
    let (a0, la0) = (alice.clone(), la.clone());
    let e = refused(
        alice.open("bob", Msg::Accept, &mut la),
        &alice,
        &a0,
        &la,
        &la0,
    );
    assert_eq!(
        e,
        DialogueError::NoRole {
            performative: E::Accept
        }
    );
}

#[test]
fn one_peer_may_keep_only_so_many_dialogues_open_with_an_agent() {
    let mut bob = Store::new("bob").with_peer_limit(2);
    let mut mallory = Store::new("mallory");
    let (mut lb, mut lm) = (Log::default(), Log::default());
    assert_eq!(Store::new("x").peer_limit(), DEFAULT_PEER_LIMIT);
    let calls: Vec<_> = (0..3).map(|_| open(&mut mallory, &mut lm, "bob")).collect();
    bob.receive(&calls[0], &mut lb).unwrap();
    bob.receive(&calls[1], &mut lb).unwrap();
    assert_eq!(bob.opened_by(&"mallory".into()), 2);
    let (b0, lb0) = (bob.clone(), lb.clone());
    let e = refused(bob.receive(&calls[2], &mut lb), &bob, &b0, &lb, &lb0);
    assert_eq!(
        e.to_string(),
        "`mallory` already has 2 open dialogues with this agent, the most one peer may have"
    );
    // Another peer is not affected, and neither are the dialogues bob opens himself.
    let mut carol = Store::new("carol");
    let mut lc = Log::default();
    bob.receive(&open(&mut carol, &mut lc, "bob"), &mut lb)
        .unwrap();
    open(&mut bob, &mut lb, "mallory");
    assert_eq!(bob.opened_by(&"mallory".into()), 2);
    // Once one of mallory's dialogues ends, she may open another.
    let r = calls[0].header.dialogue.clone();
    let decline = bob.send(&r, Msg::Decline, &mut lb).unwrap();
    mallory.receive(&decline, &mut lm).unwrap();
    assert_eq!(bob.opened_by(&"mallory".into()), 1);
    assert_eq!(bob.receive(&calls[2], &mut lb), Ok(S::Called));
    assert_eq!(bob.opened_by(&"mallory".into()), 2);
}
