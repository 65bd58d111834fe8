//! The scenario's three acts, each behaviour pinned: search, a seller-opened negotiation, a forged and a
//! pre-empting request refused while the real trade settles, fees, expiry at an agent and at the controller,
//! and the limit on the dialogues one peer may open.

use super::*;
use fsmc_examples::tac::fipa_negotiation::{Event, Role};
use fsmc_examples::tac::{
    FEE, Mail, PEER_LIMIT, Settlement, TIMEOUT, act_three, act_two, mallory_requests, run_scenario,
};
use fsmc_runtime::dialogue::{Address, Refusal, Side};

#[test]
fn the_scenario_ends_every_dialogue_as_planned_and_leaves_nothing_behind() {
    let m = run_scenario().unwrap();
    let ends = [
        (r("alice", 1), "alice", "bob", State::Successful),
        (r("carol", 1), "carol", "bob", State::DeclinedAccept),
        (r("bob", 1), "bob", "alice", State::DeclinedPropose),
        (r("dave", 1), "dave", "carol", State::Successful),
        (r("erin", 1), "erin", "bob", State::Successful),
        (r("erin", 2), "erin", "carol", State::DeclinedCfp),
        (r("jay", 1), "jay", "ivy", State::Successful),
    ];
    for (d, opener, other, end) in &ends {
        assert_eq!(state_of(&m, opener, d), Some(*end), "{d}, opener's copy");
        assert_eq!(state_of(&m, other, d), Some(*end), "{d}, other copy");
    }
    let settled = |d: &DialogueReference| m.settlement(d);
    assert_eq!(settled(&r("alice", 1)), Settlement::Settled);
    assert_eq!(settled(&r("erin", 1)), Settlement::Settled);
    assert_eq!(settled(&r("dave", 1)), Settlement::Refused);
    assert_eq!(settled(&r("jay", 1)), Settlement::Refused);
    assert_eq!(settled(&r("bob", 1)), Settlement::None);
    // Every store of every agent is empty, the controller holds nothing, and agents agree with it.
    for (a, t) in &m.traders {
        assert!(t.agent.ledger.is_empty(), "{a}: {:?}", t.agent.ledger);
        assert!(t.agent.faults.is_empty(), "{a}: {:?}", t.agent.faults);
        assert_eq!(m.controller.holdings(a), Some(&t.agent.holdings), "{a}");
    }
    assert_eq!(m.controller.pending().count(), 0);
    assert!(m.is_idle());
    // Goods are conserved; money is, but for the fees the buyers paid.
    let start = scenario();
    let total = |m: &Market| {
        m.traders
            .values()
            .fold((0, BTreeMap::new()), |(money, mut goods), t| {
                for (g, n) in &t.agent.holdings.goods {
                    *goods.entry(g.clone()).or_insert(0) += n;
                }
                (money + t.agent.holdings.money, goods)
            })
    };
    let ((money, goods), (money0, goods0)) = (total(&m), total(&start));
    assert_eq!(goods, goods0);
    assert_eq!(m.controller.fees_collected(), 2 * FEE);
    assert_eq!(money + m.controller.fees_collected(), money0);
}

#[test]
fn agents_find_their_counterparties_by_search() {
    let m = started();
    let registered: Vec<String> = m
        .trace
        .iter()
        .filter(|l| l.contains(" registers: "))
        .cloned()
        .collect();
    assert_eq!(registered.len(), 5);
    assert_eq!(
        registered[1],
        "bob registers: supplies 1 apple; demands 1 banana, 1 date"
    );
    let searches: Vec<&str> = m
        .trace
        .iter()
        .filter(|l| l.contains(" searches for "))
        .map(String::as_str)
        .collect();
    assert_eq!(
        searches,
        [
            "alice searches for sellers of apple: bob",
            "carol searches for sellers of apple: bob",
            "bob searches for sellers of banana: alice",
            "dave searches for sellers of cherry: carol",
            "erin searches for buyers of date: bob, carol",
        ]
    );
    // Each call went to an agent the search found, and nobody else was called.
    let calls: Vec<(String, String)> = m
        .traders
        .values()
        .flat_map(|t| t.dialogues.iter())
        .map(|d| (d.me().to_string(), d.counterparty().to_string()))
        .collect();
    assert_eq!(calls.len(), 6);
    // Agents that did not register (the second act's, mallory) are found by no search.
    assert!(m.directory.service(&Address::from("hal")).is_none());
}

#[test]
fn a_seller_opens_and_the_buyer_proposes() {
    let m = after_act_one();
    let d = r("erin", 1);
    let (erin, bob) = (
        trader(&m, "erin").dialogues.get(&d).unwrap(),
        trader(&m, "bob").dialogues.get(&d).unwrap(),
    );
    assert_eq!((erin.role(), bob.role()), (Role::Seller, Role::Buyer));
    assert!(erin.is_self_initiated());
    let moves: Vec<_> = erin
        .history()
        .iter()
        .map(|rec| (rec.performative, rec.header.sender.to_string(), rec.side))
        .collect();
    assert_eq!(
        moves,
        [
            (Event::CallToSell, "erin".to_string(), Side::Sent),
            (Event::Propose, "bob".to_string(), Side::Received),
            (Event::Accept, "erin".to_string(), Side::Sent),
            (Event::MatchAccept, "bob".to_string(), Side::Received),
        ]
    );
    // bob, the buyer, paid what he bid and the fee.
    let (bob, erin) = (
        &trader(&m, "bob").agent.holdings,
        &trader(&m, "erin").agent.holdings,
    );
    assert_eq!(
        (bob.money, bob.quantity(&"date".to_string())),
        (55 - 13 - FEE, 2)
    );
    assert_eq!(
        (erin.money, erin.quantity(&"date".to_string())),
        (50 + 13, 2)
    );
    // carol, offered a date she would pay nothing for, declined the call.
    assert_eq!(
        state_of(&m, "carol", &r("erin", 2)),
        Some(State::DeclinedCfp)
    );
}

#[test]
fn forged_and_pre_empting_requests_are_refused_while_the_real_trade_settles() {
    let m = after_act_one();
    let [outsider, beside, forged_buy, forged_sell] = mallory_requests().try_into().unwrap();
    let refusals: BTreeMap<_, _> = m
        .trace
        .iter()
        .filter(|l| l.starts_with("mallory ← controller"))
        .map(|l| (l.clone(), ()))
        .collect();
    let told = |id: &fsmc_runtime::dialogue::TransactionId, why: &str| {
        refusals
            .keys()
            .any(|l| l.contains(&id.to_string()) && l.contains(why))
    };
    // As bob's counterparty in alice's dialogue, mallory is no party to it.
    assert!(
        told(&outsider.id(), "neither party opened the dialogue"),
        "{refusals:?}"
    );
    // In alice's and bob's names: refused to mallory, who sent them.
    assert!(told(&forged_buy.id(), "in another agent's name"));
    assert!(told(&forged_sell.id(), "in another agent's name"));
    assert!(!m.controller.is_settled(&forged_buy.id()));
    // As alice's counterparty, her request waits in a negotiation of its own, apart from bob's.
    assert_eq!(m.controller.pending().collect::<Vec<_>>(), [&beside]);
    // The real trade settled: alice paid bob 5 and the fee for an apple.
    assert_eq!(m.settlement(&r("alice", 1)), Settlement::Settled);
    let alice = &trader(&m, "alice").agent.holdings;
    assert_eq!(
        (alice.money, alice.quantity(&"apple".to_string())),
        (50 - 5 - FEE, 2)
    );
    let bob = &trader(&m, "bob").agent.holdings;
    let apple_then_date = 50 + 5 - 13 - FEE;
    assert_eq!(
        (bob.money, bob.quantity(&"apple".to_string())),
        (apple_then_date, 1)
    );
    assert!(trader(&m, "alice").agent.faults.is_empty());
}

#[test]
fn forged_requests_alone_settle_nothing() {
    let mut m = scenario();
    for tx in mallory_requests().into_iter().skip(2) {
        m.post(Mail::Request {
            origin: "mallory".into(),
            tx,
        });
    }
    m.run();
    assert!(m.controller.settled().is_empty() && m.controller.pending().count() == 0);
    for (a, t) in &m.traders {
        assert_eq!(m.controller.holdings(a), Some(&t.agent.holdings), "{a}");
    }
    assert!(m.traders.values().all(|t| t.agent.faults.is_empty()));
}

#[test]
fn a_lock_whose_counterparty_goes_quiet_expires_at_the_agent() {
    let mut m = after_act_one();
    let d = r("gina", 1);
    let fig = goods(&[("fig", 1)]);
    m.call(
        "gina",
        "hal",
        fsmc_examples::tac::fipa_negotiation::messages::CallToBuy { goods: fig }.into(),
    )
    .unwrap();
    m.run();
    // hal proposed and went quiet; gina accepted, locked the fig and waits.
    assert_eq!(state_of(&m, "gina", &d), Some(State::Accepted));
    assert!(trader(&m, "gina").agent.ledger.locked_in(&d).is_some());
    assert!(trader(&m, "hal").agent.quiet);
    // Time passes, a tick at a time, until the lock goes: never longer than the timeout.
    let mut waited = 0;
    while trader(&m, "gina").agent.ledger.locked_in(&d).is_some() {
        m.wait(1);
        waited += 1;
        assert!(waited <= TIMEOUT, "the lock outlived its timeout");
    }
    let gina = &trader(&m, "gina").agent;
    assert!(gina.ledger.is_empty(), "{:?}", gina.ledger);
    assert_eq!(gina.forward_state(), gina.holdings, "nothing held any more");
    let expired = format!("gina: locked transaction expired after {TIMEOUT} ticks unanswered");
    assert!(
        m.trace.iter().any(|l| l.starts_with(&expired)),
        "{:?}",
        m.trace
    );
}

#[test]
fn a_request_whose_counterparty_goes_quiet_expires_at_the_controller() {
    let mut m = after_act_one();
    act_two(&mut m).unwrap();
    let refused: Vec<&String> = m
        .trace
        .iter()
        .filter(|l| l.contains("(jay/1) refused: the counterparty's request did not come in time"))
        .collect();
    assert_eq!(refused.len(), 2, "both parties are told: {refused:?}");
    for who in ["ivy", "jay"] {
        assert!(
            trader(&m, who).agent.ledger.is_empty(),
            "{who} still locks it"
        );
    }
    assert_eq!(m.settlement(&r("jay", 1)), Settlement::Refused);
    // mallory's request beside alice's trade expired too; alice, who locked nothing for it, ignored it.
    assert!(
        m.trace
            .iter()
            .any(|l| l.starts_with("alice ← controller") && l.contains("did not come in time"))
    );
    assert!(trader(&m, "alice").agent.faults.is_empty());
    assert_eq!(m.controller.pending().count(), 0);
    assert!(Refusal::Expired.ends_transaction());
}

#[test]
fn one_peer_may_keep_only_so_many_dialogues_open_with_an_agent() {
    let mut m = after_act_one();
    act_two(&mut m).unwrap();
    let calls = act_three(&mut m).unwrap();
    assert_eq!(calls.len(), PEER_LIMIT + 1);
    let erin = &trader(&m, "erin").dialogues;
    assert_eq!(erin.opened_by(&"mallory".into()), PEER_LIMIT);
    assert!(
        erin.get(&r("mallory", 4)).is_none(),
        "the call beyond the limit opened nothing"
    );
    let refused = format!(
        "refused: `mallory` already has {PEER_LIMIT} open dialogues with this agent, the most one peer may have"
    );
    assert!(
        m.trace.iter().any(|l| l.contains(&refused)),
        "{:?}",
        m.trace
    );
    // erin proposed to the calls she took; mallory answered none, and the proposals expired.
    assert!(trader(&m, "erin").agent.ledger.is_empty());
    let expired = m
        .trace
        .iter()
        .filter(|l| l.starts_with("erin: pending proposal expired"))
        .count();
    assert_eq!(expired, PEER_LIMIT);
}
