//! TAC's ledger, controller and directory: stores that pop and expire, requests that match only as mirror
//! images, settlement authenticated by who sent a request, ids no third agent can take, fees and timeouts.

use super::*;
use std::collections::BTreeMap;

/// `sender`'s view of selling or buying 2 apples in dialogue `initiator/nonce`, for `amount`, no fee.
fn tx(
    dialogue: (&str, u64),
    sender: &str,
    counterparty: &str,
    buyer: bool,
    amount: u64,
) -> TransactionRequest<&'static str> {
    TransactionRequest {
        dialogue: DialogueReference::new(dialogue.0, dialogue.1),
        sender: sender.into(),
        counterparty: counterparty.into(),
        is_sender_buyer: buyer,
        amount,
        fee: 0,
        quantities: BTreeMap::from([("apple", 2)]),
    }
}

#[test]
fn ledger_stores_pop_and_look_forward() {
    let r = DialogueReference::new("alice", 1);
    let mut l = AgentLedger::new();
    let t = tx(("alice", 1), "bob", "alice", false, 10);
    l.add_pending_proposal(&r, 2, t.clone(), 0).unwrap();
    assert_eq!(
        l.add_pending_proposal(&r, 2, t.clone(), 0)
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
    l.add_pending_initial_acceptance(&r, 3, t.clone(), 0)
        .unwrap();
    assert_eq!(l.pending_initial_acceptance(&r, 3), Some(&t));
    assert!(l.pop_pending_initial_acceptance(&r, 4).is_err());
    assert_eq!(l.pop_pending_initial_acceptance(&r, 3), Ok(t.clone()));
    // Selling two apples of three: the forward-looking state has one, and more money.
    let h = Holdings::new(5, [("apple", 3)]);
    l.add_locked_tx(t.clone(), 0).unwrap();
    assert!(
        l.add_locked_tx(t.clone(), 0).is_err(),
        "one lock per dialogue"
    );
    assert_eq!(l.locked_in(&r), Some(&t));
    assert_eq!(l.forward_state(&h), Some(Holdings::new(15, [("apple", 1)])));
    // A second lock of two more apples overcommits.
    let other = tx(("carol", 4), "bob", "carol", false, 10);
    l.add_locked_tx(other.clone(), 0).unwrap();
    assert_eq!(l.forward_state(&h), None);
    assert_eq!(l.locked_txs().count(), 2);
    l.pop_locked_tx(&t.id()).unwrap();
    assert!(l.pop_locked_tx(&t.id()).is_err());
    assert_eq!(l.pop_locked_in(&other.dialogue), Ok(other.clone()));
    assert!(l.pop_locked_in(&other.dialogue).is_err());
    assert!(l.is_empty());
}

#[test]
fn unanswered_entries_expire_but_requested_locks_wait_for_the_controller() {
    let r = DialogueReference::new("alice", 1);
    let t = tx(("alice", 1), "alice", "bob", true, 10);
    let mut l = AgentLedger::new().with_timeout(5);
    assert_eq!(l.timeout(), Some(5));
    l.add_pending_proposal(&r, 2, t.clone(), 0).unwrap();
    l.add_pending_initial_acceptance(&r, 3, t.clone(), 2)
        .unwrap();
    l.add_locked_tx(t.clone(), 2).unwrap();
    let requested = tx(("carol", 1), "alice", "carol", true, 4);
    l.add_locked_tx(requested.clone(), 0).unwrap();
    assert_eq!(l.mark_requested(&requested.id()), Ok(&requested));
    let other = tx(("dave", 1), "alice", "dave", true, 4);
    assert!(l.mark_requested(&other.id()).is_err(), "not locked");
    assert_eq!(l.expire(4), [], "nothing is 5 ticks old yet");
    let gone = l.expire(5);
    assert_eq!(gone.len(), 1);
    assert_eq!((gone[0].store, gone[0].at), (LedgerStore::Proposals, 0));
    let gone = l.expire(7);
    let stores: Vec<_> = gone.iter().map(|e| e.store).collect();
    assert_eq!(
        stores,
        [LedgerStore::InitialAcceptances, LedgerStore::Locked]
    );
    assert_eq!(l.locked_in(&r), None, "the dialogue's lock is gone with it");
    // The requested lock stays until the controller answers, however old.
    assert_eq!(l.expire(1_000), []);
    assert_eq!(l.locked_txs().collect::<Vec<_>>(), [&requested]);
    // A ledger without a timeout keeps everything.
    let mut forever = AgentLedger::new();
    forever.add_locked_tx(t, 0).unwrap();
    assert_eq!(forever.expire(u64::MAX), []);
}

#[test]
fn ids_are_digests_of_the_dialogue_and_the_terms() {
    let seller = tx(("alice", 2), "bob", "alice", false, 10);
    let buyer = seller.mirror();
    assert_eq!(
        seller.id(),
        buyer.id(),
        "both views name the same transaction"
    );
    assert_eq!(seller.id().to_hex().len(), 64);
    assert_eq!(seller.id().to_string(), seller.id().to_hex()[..12]);
    let changed = |f: &dyn Fn(&mut TransactionRequest<&'static str>)| {
        let mut t = seller.clone();
        f(&mut t);
        t.id()
    };
    // Every term, the dialogue and the parties are in it.
    for other in [
        changed(&|t| t.amount = 11),
        changed(&|t| t.fee = 1),
        changed(&|t| t.quantities = BTreeMap::from([("apple", 3)])),
        changed(&|t| t.quantities = BTreeMap::from([("pear", 2)])),
        changed(&|t| t.dialogue = DialogueReference::new("alice", 3)),
        changed(&|t| t.dialogue = DialogueReference::new("bob", 2)),
        changed(&|t| t.counterparty = "mallory".into()),
        changed(&|t| t.is_sender_buyer = true),
    ] {
        assert_ne!(other, seller.id());
    }
    // Text is length-prefixed: moving a character from one name to the next gives another id.
    let a = TransactionRequest {
        sender: "ab".into(),
        counterparty: "c".into(),
        ..seller.clone()
    };
    let b = TransactionRequest {
        sender: "a".into(),
        counterparty: "bc".into(),
        ..seller.clone()
    };
    assert_ne!(a.id(), b.id());
}

#[test]
fn requests_match_only_as_mirror_images() {
    let seller = tx(("alice", 2), "bob", "alice", false, 10);
    let buyer = seller.mirror();
    assert!(seller.matches(&buyer) && buyer.matches(&seller));
    assert_eq!(
        buyer.to_string(),
        "alice buys 2 apple from bob for 10 (alice/2)"
    );
    assert!(!seller.matches(&seller), "two sellers");
    let mut cheap = buyer.clone();
    cheap.amount = 9;
    assert!(!seller.matches(&cheap));
    let mut other = buyer.clone();
    other.dialogue = DialogueReference::new("alice", 4);
    assert!(!seller.matches(&other));
    let mut fee = buyer.clone();
    fee.fee = 1;
    assert!(!seller.matches(&fee));
    assert_eq!(
        fee.to_string(),
        "alice buys 2 apple from bob for 10 + fee 1 (alice/2)"
    );
}

fn controller() -> Controller<&'static str> {
    Controller::new([
        ("alice".into(), Holdings::new(20, [("apple", 0)])),
        ("bob".into(), Holdings::new(0, [("apple", 3)])),
        ("mallory".into(), Holdings::new(100, [("apple", 9)])),
    ])
}

fn refusal(to: &str, id: TransactionId, reason: Refusal) -> (Address, Notice) {
    (to.into(), Notice::Refused { id, reason })
}

fn from(who: &str) -> Address {
    who.into()
}

#[test]
fn controller_confirms_matching_requests_to_both() {
    let mut c = controller();
    let seller = tx(("alice", 2), "bob", "alice", false, 10);
    let id = seller.id();
    assert_eq!(c.request(&from("bob"), seller.clone()), []);
    assert_eq!(c.pending().count(), 1);
    let before = c.clone();
    assert_eq!(
        c.request(&from("bob"), seller.clone()),
        [refusal("bob", id, Refusal::Duplicate)]
    );
    assert_eq!(c, before, "a duplicate changes nothing");
    let notices = c.request(&from("alice"), seller.mirror());
    assert_eq!(
        notices,
        [
            ("bob".into(), Notice::Confirmed(id)),
            ("alice".into(), Notice::Confirmed(id))
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
    assert!(c.is_settled(&id) && !c.is_refused(&id));
    let before = c.clone();
    let again = c.request(&from("alice"), seller.mirror());
    assert_eq!(again, [refusal("alice", id, Refusal::AlreadySettled)]);
    assert_eq!(c, before);
}

#[test]
fn controller_refuses_a_mismatch_to_both_parties() {
    let mut c = controller();
    let seller = tx(("alice", 2), "bob", "alice", false, 10);
    c.request(&from("bob"), seller.clone());
    let mut cheap = seller.mirror();
    cheap.amount = 9;
    let notices = c.request(&from("alice"), cheap.clone());
    // Each party is told about its own request: they name different transactions.
    assert_eq!(
        notices,
        [
            refusal("bob", seller.id(), Refusal::Mismatch),
            refusal("alice", cheap.id(), Refusal::Mismatch)
        ]
    );
    // Holdings untouched; nothing left pending; the negotiation cannot settle later, on any terms.
    assert_eq!(
        c.holdings(&"alice".into()),
        Some(&Holdings::new(20, [("apple", 0)]))
    );
    assert_eq!(c.pending().count(), 0);
    assert!(c.is_refused(&seller.id()) && c.is_refused(&cheap.id()));
    let late = c.request(&from("alice"), seller.mirror());
    assert_eq!(
        late,
        [refusal("alice", seller.id(), Refusal::AlreadyRefused)]
    );
    assert!(Refusal::Mismatch.ends_transaction() && !Refusal::Duplicate.ends_transaction());
}

#[test]
fn controller_refuses_what_a_party_cannot_cover_or_who_is_unknown() {
    let mut c = controller();
    let before = c.clone();
    let stranger = tx(("bob", 2), "bob", "zed", false, 10);
    assert_eq!(
        c.request(&from("bob"), stranger.clone())[0].1.to_string(),
        format!(
            "transaction {} refused: `zed` is not a registered agent",
            stranger.id()
        )
    );
    let unregistered = tx(("zed", 1), "zed", "bob", true, 10);
    assert_eq!(
        c.request(&from("zed"), unregistered.clone()),
        [refusal(
            "zed",
            unregistered.id(),
            Refusal::UnknownAgent("zed".into())
        )]
    );
    let narcissist = tx(("bob", 2), "bob", "bob", false, 10);
    assert_eq!(c.request(&from("bob"), narcissist).len(), 1);
    assert_eq!(c, before);
    let dear = tx(("alice", 2), "bob", "alice", false, 30);
    let notices = c.request(&from("bob"), dear.clone());
    assert_eq!(notices.len(), 2, "both parties are told");
    assert_eq!(
        notices[1],
        refusal("alice", dear.id(), Refusal::Infeasible("alice".into()))
    );
    assert_eq!(
        c.holdings(&"alice".into()),
        before.holdings(&"alice".into())
    );
    assert_eq!(c.pending().count(), 0);
}

#[test]
fn a_request_counts_as_its_origins_whatever_sender_it_names() {
    let mut c = controller();
    let before = c.clone();
    // mallory sends the two requests of a trade alice and bob never negotiated, one in each one's name.
    let seller = tx(("alice", 7), "bob", "alice", false, 1);
    for forged in [seller.clone(), seller.mirror()] {
        let id = forged.id();
        let notices = c.request(&from("mallory"), forged);
        let origin = from("mallory");
        assert_eq!(
            notices,
            [refusal("mallory", id, Refusal::Forged { origin })]
        );
    }
    assert_eq!(c, before, "nothing settled, nothing held");
    assert_eq!(
        Refusal::Forged {
            origin: from("mallory")
        }
        .to_string(),
        "`mallory` sent a request in another agent's name"
    );
    assert!(
        !Refusal::Forged {
            origin: from("mallory")
        }
        .ends_transaction()
    );
}

#[test]
fn a_third_agent_cannot_take_the_place_of_a_partys_request() {
    let mut c = controller();
    let bob = tx(("alice", 2), "bob", "alice", false, 10);
    // mallory, in her own name, requests alice's dialogue with bob's terms before alice does: as bob's
    // counterparty she is no party to alice's dialogue, and as alice's she is in a negotiation of her own.
    let mut outsider = bob.mirror();
    outsider.sender = from("mallory");
    let notices = c.request(&from("mallory"), outsider.clone());
    assert_eq!(
        notices,
        [refusal("mallory", outsider.id(), Refusal::NotInDialogue)]
    );
    let mut beside = bob.clone();
    beside.sender = from("mallory");
    assert_ne!(beside.id(), bob.id());
    assert_eq!(c.request(&from("mallory"), beside.clone()), []);
    // The real trade settles all the same.
    assert_eq!(c.request(&from("bob"), bob.clone()), []);
    let notices = c.request(&from("alice"), bob.mirror());
    assert_eq!(notices[0], ("bob".into(), Notice::Confirmed(bob.id())));
    assert!(c.is_settled(&bob.id()) && !c.is_settled(&beside.id()));
    assert_eq!(c.pending().collect::<Vec<_>>(), [&beside]);
}

#[test]
fn the_buyer_pays_the_fee_and_a_request_with_another_fee_is_refused() {
    let mut c = controller().with_fee(2);
    assert_eq!(c.fee(), 2);
    let cheap = tx(("alice", 1), "bob", "alice", false, 10);
    let notices = c.request(&from("bob"), cheap.clone());
    assert_eq!(
        notices,
        [refusal("bob", cheap.id(), Refusal::WrongFee { fee: 2 })]
    );
    let seller = TransactionRequest { fee: 2, ..cheap };
    c.request(&from("bob"), seller.clone());
    c.request(&from("alice"), seller.mirror());
    assert_eq!(
        c.holdings(&"alice".into()),
        Some(&Holdings::new(8, [("apple", 2)]))
    );
    assert_eq!(
        c.holdings(&"bob".into()),
        Some(&Holdings::new(10, [("apple", 1)]))
    );
    assert_eq!(c.fees_collected(), 2);
    // A buyer who can pay the price but not the fee cannot buy.
    let dear = TransactionRequest {
        dialogue: DialogueReference::new("alice", 2),
        amount: 7,
        quantities: BTreeMap::from([("apple", 1)]),
        ..seller
    };
    let notices = c.request(&from("bob"), dear);
    assert_eq!(
        notices[0].1,
        Notice::Refused {
            id: notices[0].1.id().to_owned(),
            reason: Refusal::Infeasible("alice".into())
        }
    );
}

#[test]
fn a_first_request_expires_when_its_counterparty_does_not_follow() {
    let mut c = controller().with_timeout(10);
    let seller = tx(("alice", 2), "bob", "alice", false, 10);
    c.advance(3);
    c.request(&from("bob"), seller.clone());
    assert_eq!(c.advance(12), [], "9 ticks");
    assert_eq!(c.advance(1), [], "the clock never goes back");
    assert_eq!(c.now(), 12);
    let notices = c.advance(13);
    assert_eq!(
        notices,
        [
            refusal("bob", seller.id(), Refusal::Expired),
            refusal("alice", seller.id(), Refusal::Expired)
        ]
    );
    assert_eq!(c.pending().count(), 0);
    let late = c.request(&from("alice"), seller.mirror());
    assert_eq!(
        late,
        [refusal("alice", seller.id(), Refusal::AlreadyRefused)]
    );
    // Without a timeout a request waits for ever.
    let mut patient = controller();
    patient.request(&from("bob"), seller);
    assert_eq!(patient.advance(u64::MAX), []);
    assert_eq!(patient.pending().count(), 1);
}

#[test]
fn agents_find_sellers_and_buyers_in_the_directory() {
    let mut d = Directory::new();
    let service = |supplies: &[(&'static str, u64)], demands: &[(&'static str, u64)]| Service {
        supplies: supplies.iter().copied().collect(),
        demands: demands.iter().copied().collect(),
    };
    assert!(d.is_empty());
    d.register(
        &from("bob"),
        service(&[("apple", 1), ("cherry", 2)], &[("banana", 1)]),
    );
    d.register(&from("carol"), service(&[("apple", 0)], &[("cherry", 1)]));
    d.register(&from("alice"), service(&[("banana", 2)], &[("apple", 1)]));
    assert_eq!(d.len(), 3);
    assert_eq!(
        d.search(&from("alice"), &Query::sellers_of(["apple"])),
        [from("bob")]
    );
    assert_eq!(
        d.search(&from("alice"), &Query::buyers_of(["cherry", "banana"])),
        [from("bob"), from("carol")]
    );
    // Nobody finds itself, and a quantity of zero offers nothing.
    assert_eq!(
        d.search(&from("bob"), &Query::sellers_of(["apple", "cherry"])),
        []
    );
    // Registering again replaces; withdrawing removes.
    let old = d.register(&from("bob"), service(&[], &[("banana", 1)]));
    assert_eq!(old.map(|s| s.supplies.len()), Some(2));
    assert_eq!(d.search(&from("alice"), &Query::sellers_of(["apple"])), []);
    assert!(d.unregister(&from("bob")).is_some());
    assert_eq!(d.service(&from("bob")), None);
    assert_eq!(d.search(&from("alice"), &Query::buyers_of(["banana"])), []);
}
