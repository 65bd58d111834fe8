//! The negotiation protocol underneath the scenario: messages and both copies of a dialogue, the side each
//! action runs on, the forward-looking state, the responder's re-check, declines, the controller, and every
//! refusal leaving the agent unchanged.

use super::*;
use fsmc_examples::tac::fipa_negotiation::{
    DialogueError, Envelope, Event, INITIATION, Message, Role, TERMINATION, messages,
};
use fsmc_examples::tac::{Agent, Strategy};
use fsmc_runtime::dialogue::{Address, Header, Holdings, Notice, Refusal, Sender, Side};
use fsmc_runtime::{InvalidTransition, Reason};

#[test]
fn messages_carry_reference_ids_targets_and_senders_and_both_copies_agree() {
    let m = after_act_one();
    let d = r("alice", 1);
    let (alice, bob) = (
        trader(&m, "alice").dialogues.get(&d).unwrap(),
        trader(&m, "bob").dialogues.get(&d).unwrap(),
    );
    assert_eq!((alice.role(), bob.role()), (Role::Buyer, Role::Seller));
    assert!(alice.is_self_initiated() && !bob.is_self_initiated());
    let headers: Vec<_> = alice
        .history()
        .iter()
        .map(|rec| {
            let h = &rec.header;
            (
                rec.performative,
                h.message_id,
                h.target,
                h.sender.to_string(),
                rec.side,
            )
        })
        .collect();
    assert_eq!(
        headers,
        [
            (Event::CallToBuy, 1, 0, "alice".to_string(), Side::Sent),
            (Event::Propose, 2, 1, "bob".to_string(), Side::Received),
            (Event::Accept, 3, 2, "alice".to_string(), Side::Sent),
            (Event::MatchAccept, 4, 3, "bob".to_string(), Side::Received),
        ]
    );
    // The seller's copy holds the same messages, seen from the other side.
    let theirs: Vec<_> = bob
        .history()
        .iter()
        .map(|rec| (rec.header.clone(), rec.side != Side::Sent))
        .collect();
    let ours: Vec<_> = alice
        .history()
        .iter()
        .map(|rec| (rec.header.clone(), rec.side == Side::Sent))
        .collect();
    assert_eq!(theirs, ours);
    // The generated protocol facts the dialogues run on.
    assert_eq!(INITIATION, [Event::CallToBuy, Event::CallToSell]);
    assert_eq!(Event::CallToSell.sender(), Some(Sender::Role(Role::Seller)));
    assert_eq!(Event::Propose.sender(), Some(Sender::Responder));
    assert_eq!(Event::Accept.sender(), Some(Sender::Initiator));
    assert_eq!(Role::Buyer.other(), Role::Seller);
    assert!(TERMINATION.contains(&Event::DeclineAccept) && !TERMINATION.contains(&Event::Accept));
}

#[test]
fn each_action_runs_on_the_side_the_spec_gives_it() {
    let mut m = started();
    let d = r("alice", 1);
    let ledger = |m: &Market, who: &str| trader(m, who).agent.ledger.clone();
    // bob's proposal: the proposer stores it as it sends (`sender do`).
    run_until(&mut m, |m| state_of(m, "bob", &d) == Some(State::Proposed));
    assert!(ledger(&m, "bob").pending_proposal(&d, 2).is_some());
    // alice's accept: she locks and records her acceptance as she sends it; bob has not had it yet.
    run_until(&mut m, |m| {
        state_of(m, "alice", &d) == Some(State::Accepted)
    });
    let (alice, bob) = (ledger(&m, "alice"), ledger(&m, "bob"));
    assert!(alice.pending_initial_acceptance(&d, 3).is_some() && alice.locked_in(&d).is_some());
    assert!(
        alice.pending_proposal(&d, 2).is_none(),
        "only the proposer stores a proposal"
    );
    assert!(bob.pending_proposal(&d, 2).is_some() && bob.locked_in(&d).is_none());
    // bob, receiving it, pops his proposal (`receiver do`), and locks as he sends his matching accept; alice
    // has not had that yet, and still holds her acceptance.
    run_until(&mut m, |m| {
        state_of(m, "bob", &d) == Some(State::Successful)
    });
    let (alice, bob) = (ledger(&m, "alice"), ledger(&m, "bob"));
    assert!(
        bob.pending_proposal(&d, 2).is_none() && bob.pending_initial_acceptance(&d, 3).is_none()
    );
    assert!(bob.locked_in(&d).is_some());
    assert!(alice.pending_initial_acceptance(&d, 3).is_some());
    // Both request settlement (a plain `do`), each from its own lock.
    m.run();
    assert_eq!(m.settlement(&d), fsmc_examples::tac::Settlement::Settled);
}

#[test]
fn one_agent_runs_several_dialogues_at_once_by_reference() {
    let mut m = started();
    // bob is the seller in two dialogues and the buyer in two, one of which erin opened.
    run_until(&mut m, |m| trader(m, "bob").dialogues.len() == 4);
    let bob = &trader(&m, "bob").dialogues;
    let refs: Vec<_> = bob
        .iter()
        .map(|d| (d.reference().clone(), d.role()))
        .collect();
    assert_eq!(
        refs,
        [
            (r("alice", 1), Role::Seller),
            (r("bob", 1), Role::Buyer),
            (r("carol", 1), Role::Seller),
            (r("erin", 1), Role::Buyer),
        ]
    );
    m.run();
    let bob = &trader(&m, "bob").dialogues;
    assert_eq!(bob.get(&r("alice", 1)).unwrap().state(), State::Successful);
    assert_eq!(
        bob.get(&r("carol", 1)).unwrap().state(),
        State::DeclinedAccept
    );
}

#[test]
fn proposals_are_computed_against_the_forward_looking_state() {
    let apples = |n| [("apple".to_string(), n), ("banana".to_string(), 1)];
    let strategy = || Strategy::new([("apple", 12), ("banana", 12)], 1);
    let mut m = Market::new(
        [
            Agent::new("seller", Holdings::new(0, apples(3)), strategy()),
            Agent::new("first", Holdings::new(100, apples(1)), strategy()),
            Agent::new("second", Holdings::new(100, apples(1)), strategy()),
        ],
        0,
    );
    m.call(
        "first",
        "seller",
        messages::CallToBuy {
            goods: goods(&[("apple", 1)]),
        }
        .into(),
    )
    .unwrap();
    // Run until the seller has locked the first sale, before the controller settled it.
    run_until(&mut m, |m| {
        trader(m, "seller").agent.ledger.locked_txs().count() == 1
    });
    let seller = &trader(&m, "seller").agent;
    assert_eq!(
        seller.holdings.quantity(&"apple".to_string()),
        3,
        "not settled yet"
    );
    assert_eq!(seller.forward_state().quantity(&"apple".to_string()), 2);
    // The second buyer asks for two apples: from its holdings the seller could spare two, but with the lock
    // applied it spares one, and prices it as its second apple rather than its third.
    let d = m
        .call(
            "second",
            "seller",
            messages::CallToBuy {
                goods: goods(&[("apple", 2)]),
            }
            .into(),
        )
        .unwrap();
    run_until(&mut m, |m| {
        state_of(m, "seller", &d) == Some(State::Proposed)
    });
    let seller = &trader(&m, "seller").agent;
    let proposal = seller.ledger.pending_proposal(&d, 2).unwrap();
    assert_eq!(proposal.quantities, goods(&[("apple", 1)]));
    assert_eq!(
        proposal.amount,
        6 + 1,
        "12 / 2 for the second apple, plus the margin"
    );
    let from_holdings = seller
        .strategy
        .propose(&seller.holdings, &goods(&[("apple", 2)]))
        .unwrap();
    assert_eq!(
        from_holdings.0,
        goods(&[("apple", 2)]),
        "what ignoring the lock would have offered"
    );
    m.run();
    assert!(
        m.traders
            .values()
            .all(|t| t.agent.ledger.is_empty() && t.agent.faults.is_empty())
    );
}

#[test]
fn on_accept_the_responder_pops_the_proposal_rechecks_and_locks_or_declines() {
    let mut m = started();
    let (first, second) = (r("alice", 1), r("carol", 1));
    // Taking alice's accept, bob popped the proposal, re-checked it, and answered at once: he matched it,
    // locking the transaction.
    run_until(&mut m, |m| {
        state_of(m, "bob", &first) == Some(State::Successful)
    });
    let bob = &trader(&m, "bob").agent.ledger;
    assert!(bob.pending_proposal(&first, 2).is_none());
    assert!(bob.locked_in(&first).is_some());
    // carol's proposal is still pending: bob proposed the one spare apple twice, since pending proposals do
    // not count in the forward-looking state.
    assert!(bob.pending_proposal(&second, 2).is_some());
    // carol's accept then finds bob's state changed: the apple is locked, selling his last one would cost
    // more than the price, so he pops the proposal and declines without locking.
    run_until(&mut m, |m| {
        state_of(m, "bob", &second) == Some(State::DeclinedAccept)
    });
    let bob = &trader(&m, "bob").agent.ledger;
    assert!(bob.pending_proposal(&second, 2).is_none());
    assert!(bob.locked_in(&second).is_none());
}

#[test]
fn declines_clear_pending_proposals_and_initial_acceptances() {
    let mut m = started();
    // Decline of a proposal: alice (the responder of bob/1) holds the proposal until bob's decline arrives.
    let b = r("bob", 1);
    run_until(&mut m, |m| {
        state_of(m, "bob", &b) == Some(State::DeclinedPropose)
    });
    assert!(
        trader(&m, "alice")
            .agent
            .ledger
            .pending_proposal(&b, 2)
            .is_some()
    );
    run_until(&mut m, |m| {
        state_of(m, "alice", &b) == Some(State::DeclinedPropose)
    });
    assert!(
        trader(&m, "alice")
            .agent
            .ledger
            .pending_proposal(&b, 2)
            .is_none()
    );
    // Decline of an acceptance: carol locked and recorded her initial acceptance; bob's decline clears both.
    let c = r("carol", 1);
    let carol = &trader(&m, "carol").agent.ledger;
    assert!(carol.pending_initial_acceptance(&c, 3).is_some() && carol.locked_in(&c).is_some());
    run_until(&mut m, |m| {
        state_of(m, "carol", &c) == Some(State::DeclinedAccept)
    });
    let carol = &trader(&m, "carol").agent.ledger;
    assert!(carol.pending_initial_acceptance(&c, 3).is_none() && carol.locked_in(&c).is_none());
}

#[test]
fn the_controller_settles_only_when_both_parties_sent_matching_requests() {
    let mut m = started();
    let d = r("alice", 1);
    // bob's request, built from his ledger, waits for alice's; nothing moves yet.
    run_until(&mut m, |m| {
        m.controller
            .pending()
            .any(|tx| tx.dialogue == d && tx.sender == "bob".into())
    });
    let pending: Vec<_> = m
        .controller
        .pending()
        .filter(|tx| tx.dialogue == d && tx.sender == "bob".into())
        .cloned()
        .collect();
    assert!(!pending[0].is_sender_buyer);
    assert_eq!(pending[0].fee, fsmc_examples::tac::FEE);
    assert_eq!(
        m.controller.holdings(&"bob".into()),
        Some(&scenario().trader("bob").unwrap().agent.holdings)
    );
    // alice's matching request settles it; both are told; each pops its lock and updates its holdings.
    run_until(&mut m, |m| !m.controller.settled().is_empty());
    run_until(&mut m, |m| {
        trader(m, "alice").agent.holdings.money == 44 && trader(m, "bob").agent.holdings.money == 55
    });
    for who in ["alice", "bob"] {
        assert!(
            trader(&m, who).agent.ledger.locked_in(&d).is_none(),
            "{who} still locks it"
        );
    }
}

#[test]
fn a_mismatch_is_refused_to_both_parties_who_unlock_and_keep_their_holdings() {
    let m = after_act_one();
    let d = r("dave", 1);
    assert_eq!(m.settlement(&d), fsmc_examples::tac::Settlement::Refused);
    let before = scenario();
    for who in ["carol", "dave"] {
        let t = trader(&m, who);
        assert!(
            t.agent.ledger.locked_in(&d).is_none(),
            "{who} still locks it"
        );
        assert_eq!(
            t.agent.holdings,
            trader(&before, who).agent.holdings,
            "{who}'s holdings moved"
        );
    }
    let told: Vec<_> = m
        .trace
        .iter()
        .filter(|l| l.contains("(dave/1) refused: the parties' requests do not match"))
        .collect();
    assert_eq!(told.len(), 2, "both parties are told: {told:?}");
    // Each request comes from its sender's own ledger: dave wrote down one less than the agreed price, so
    // the two name different transactions.
    let requests: Vec<_> = m
        .trace
        .iter()
        .filter(|l| l.starts_with("controller ←") && l.contains("(dave/1)"))
        .collect();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(
        requests[0].contains("carol sells 1 cherry to dave for 16"),
        "{requests:?}"
    );
    assert!(
        requests[1].contains("dave buys 1 cherry from carol for 15"),
        "{requests:?}"
    );
}

#[test]
fn a_stray_notice_leaves_the_lock_alone() {
    let mut m = started();
    let d = r("alice", 1);
    run_until(&mut m, |m| {
        trader(m, "bob").agent.ledger.locked_in(&d).is_some()
    });
    let mut bob = trader(&m, "bob").agent.clone();
    let id = bob.ledger.locked_in(&d).unwrap().id();
    bob.on_notice(&Notice::Refused {
        id,
        reason: Refusal::Duplicate,
    });
    assert!(bob.ledger.locked_tx(&id).is_some() && bob.faults.is_empty());
    // A refusal that ends a transaction bob never locked is none of his business.
    let other = bob.ledger.locked_in(&d).unwrap().mirror();
    let mut elsewhere = other.clone();
    elsewhere.amount += 1;
    bob.on_notice(&Notice::Refused {
        id: elsewhere.id(),
        reason: Refusal::Mismatch,
    });
    assert!(bob.ledger.locked_tx(&id).is_some() && bob.faults.is_empty());
    bob.on_notice(&Notice::Refused {
        id,
        reason: Refusal::Mismatch,
    });
    assert!(bob.ledger.locked_tx(&id).is_none());
    // A confirmation of something never locked is a fault, not a panic or a silent change.
    let holdings = bob.holdings.clone();
    bob.on_notice(&Notice::Confirmed(id));
    assert_eq!(bob.faults.len(), 1);
    assert_eq!(bob.holdings, holdings);
}

fn header(d: &DialogueReference, id: u32, target: u32, sender: &str, to: &str) -> Header {
    Header {
        dialogue: d.clone(),
        message_id: id,
        target,
        sender: sender.into(),
        to: to.into(),
    }
}

fn accept(price: u64) -> Message {
    messages::Accept {
        goods: goods(&[("apple", 1)]),
        price,
    }
    .into()
}

fn envelope(header: Header, message: Message) -> Envelope {
    Envelope { header, message }
}

/// Delivers `envelope` to a copy of `t`; asserts it is refused with a message containing `says` and that the
/// copy (dialogues, ledger, holdings, everything) is unchanged.
fn refused(t: &Trader, envelope: &Envelope, says: &str) {
    let mut copy = t.clone();
    let err = copy
        .dialogues
        .receive(envelope, &mut copy.agent)
        .unwrap_err();
    assert!(
        err.to_string().contains(says),
        "expected `{says}`, got `{err}`"
    );
    assert_eq!(&copy, t, "{err}: the trader changed");
}

#[test]
fn every_out_of_protocol_message_is_refused_and_changes_nothing() {
    let mut m = started();
    let d = r("alice", 1);
    // bob has proposed (message 2) in alice/1 and waits for alice's answer.
    run_until(&mut m, |m| state_of(m, "bob", &d) == Some(State::Proposed));
    let bob = trader(&m, "bob");
    let match_accept: Message = messages::MatchAccept {
        goods: goods(&[("apple", 1)]),
        price: 5,
    }
    .into();
    let call: Message = messages::CallToBuy {
        goods: goods(&[("apple", 1)]),
    }
    .into();
    let cases = [
        (
            header(&d, 3, 2, "alice", "bob"),
            match_accept,
            "`alice` is the buyer of this dialogue, but `MatchAccept` is sent by the responder, the seller",
        ),
        (
            header(&d, 3, 2, "carol", "bob"),
            accept(5),
            "`carol` cannot send here; only `alice` can",
        ),
        (
            header(&d, 3, 2, "alice", "carol"),
            accept(5),
            "the message is addressed to `carol`, not `bob`",
        ),
        (
            header(&d, 4, 2, "alice", "bob"),
            accept(5),
            "message id 4 is out of sequence; the next is 3",
        ),
        (
            header(&d, 3, 1, "alice", "bob"),
            accept(5),
            "the message answers message 1, but the dialogue is waiting for an answer to 2",
        ),
        (
            header(&d, 3, 2, "alice", "bob"),
            call.clone(),
            "event `CallToBuy` is not accepted in state `Proposed`; it accepts: `Accept`, `DeclinePropose`",
        ),
        (
            header(&d, 3, 2, "alice", "bob"),
            accept(4),
            "was rejected in state `Proposed`: the terms differ from message 2 of alice/1",
        ),
        (
            header(&r("alice", 7), 3, 2, "alice", "bob"),
            accept(5),
            "no dialogue `alice/7`, and the message does not open one",
        ),
        (
            header(&r("zed", 1), 1, 0, "carol", "bob"),
            call.clone(),
            "`carol` cannot send here; only `zed` can",
        ),
        // alice reuses the reference of a dialogue bob opened with her, as if she had opened it.
        (
            header(&r("bob", 1), 1, 0, "alice", "bob"),
            call,
            "`alice` is the seller of this dialogue, but `CallToBuy` is sent by the buyer",
        ),
    ];
    for (h, message, says) in cases {
        refused(bob, &envelope(h, message), says);
    }
    // The genuine accept is still taken afterwards; once the dialogue ends, nothing more is.
    m.run();
    let bob = trader(&m, "bob");
    refused(
        bob,
        &envelope(header(&d, 5, 4, "alice", "bob"), accept(5)),
        "it accepts no events",
    );
    // The initiator's validator: a matching accept must repeat the terms it accepted.
    let c = r("carol", 1);
    let mut m = started();
    run_until(&mut m, |m| {
        state_of(m, "carol", &c) == Some(State::Accepted)
    });
    let forged = messages::MatchAccept {
        goods: goods(&[("apple", 1)]),
        price: 4,
    };
    refused(
        trader(&m, "carol"),
        &envelope(header(&c, 4, 3, "bob", "carol"), forged.into()),
        "the terms differ from message 3 of carol/1",
    );
}

#[test]
fn sending_is_checked_too_and_refusals_are_typed_errors() {
    let mut m = started();
    let d = r("alice", 1);
    run_until(&mut m, |m| state_of(m, "bob", &d) == Some(State::Proposed));
    let bob = m.traders.get_mut(&Address::from("bob")).unwrap();
    let before = bob.clone();
    // The responder cannot accept his own proposal: the initiator accepts, and here she is the buyer.
    let err = bob
        .dialogues
        .send(&d, accept(5), &mut bob.agent)
        .unwrap_err();
    assert!(
        matches!(
            err,
            DialogueError::WrongRole {
                role: Role::Seller,
                expected: Role::Buyer,
                by: Sender::Initiator,
                ..
            }
        ),
        "{err}"
    );
    // Nor decline an acceptance that has not come.
    let err = bob
        .dialogues
        .send(&d, Message::DeclineAccept, &mut bob.agent)
        .unwrap_err();
    match &err {
        DialogueError::Refused(InvalidTransition {
            state,
            reason: Reason::NotAccepted,
            accepted,
            ..
        }) => {
            assert_eq!(*state, State::Proposed);
            assert_eq!(*accepted, [Event::Accept, Event::DeclinePropose]);
        }
        other => panic!("unexpected {other}"),
    }
    assert_eq!(*bob, before, "refused sends changed bob");
    // A dialogue with oneself is refused before any message exists.
    let err = m
        .call(
            "bob",
            "bob",
            messages::CallToBuy {
                goods: goods(&[("apple", 1)]),
            }
            .into(),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "`bob` cannot open a dialogue with itself");
}
