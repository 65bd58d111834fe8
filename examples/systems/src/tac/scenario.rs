//! The scenario the example runs and the tests check, in three acts: a market where agents find each other by
//! search and negotiate (a third agent forging and pre-empting requests meanwhile), counterparties that go
//! quiet, and a peer that floods an agent with dialogues.

use super::fipa_negotiation::{Event, messages};
use super::{Agent, Goods, Mail, Market, MarketError, Strategy, TIMEOUT};
use fsmc_runtime::dialogue::{DialogueReference, Holdings, TransactionRequest};

/// The transaction fee of the game, which the buyer pays.
pub const FEE: u64 = 1;

fn holdings(money: u64, goods: &[(&str, u64)]) -> Holdings<String> {
    Holdings::new(money, goods.iter().map(|(g, n)| (g.to_string(), *n)))
}

/// The market: five traders who register and search, four who meet in the second act, and mallory, who
/// trades with nobody and sends the controller requests that are not hers to send.
///
/// Weights and margins are chosen so that every way a negotiation can go happens once: alice and carol both
/// call bob for his one spare apple; he proposes it to both (pending proposals do not count in the
/// forward-looking state), matches alice's acceptance, which locks the apple, and declines carol's. alice's
/// margin prices her banana beyond what bob will pay, and he declines her proposal. dave, who writes down less
/// than he agreed to pay, buys a cherry from carol: the two requests differ and the controller refuses the
/// transaction to both. erin offers a date to the agents that demand dates: bob bids, she accepts, the trade
/// settles; carol has nothing to bid and declines the call.
pub fn scenario() -> Market {
    let goods = |a, b, c, d| [("apple", a), ("banana", b), ("cherry", c), ("date", d)];
    let alice = Agent::new(
        "alice",
        holdings(50, &goods(1, 3, 1, 1)),
        Strategy::new(
            [("apple", 20), ("banana", 4), ("cherry", 6), ("date", 2)],
            10,
        ),
    )
    .wanting(&["apple"]);
    let bob = Agent::new(
        "bob",
        holdings(50, &goods(2, 1, 1, 1)),
        Strategy::new(
            [("apple", 8), ("banana", 20), ("cherry", 6), ("date", 30)],
            1,
        ),
    )
    .wanting(&["banana", "date"]);
    let carol = Agent::new(
        "carol",
        holdings(50, &goods(1, 1, 2, 1)),
        Strategy::new(
            [("apple", 14), ("banana", 4), ("cherry", 30), ("date", 2)],
            1,
        ),
    )
    .wanting(&["apple", "date"]);
    let mut dave = Agent::new(
        "dave",
        holdings(50, &goods(1, 1, 1, 1)),
        Strategy::new(
            [("apple", 5), ("banana", 5), ("cherry", 40), ("date", 5)],
            1,
        ),
    )
    .wanting(&["cherry"]);
    dave.haggle = 1;
    let erin = Agent::new(
        "erin",
        holdings(50, &goods(1, 1, 1, 3)),
        Strategy::new([("apple", 5), ("banana", 5), ("cherry", 5), ("date", 6)], 1),
    );
    let mut mallory = Agent::new("mallory", holdings(50, &[]), Strategy::new([], 0));
    mallory.quiet = true;
    let figs = |n| holdings(50, &[("fig", n)]);
    let fig = |w| Strategy::new([("fig", w)], 1);
    let gina = Agent::new("gina", figs(1), fig(20));
    let mut hal = Agent::new("hal", figs(3), fig(4));
    hal.quiet_after = Some(Event::Propose);
    let ivy = Agent::new("ivy", figs(3), fig(4));
    let mut jay = Agent::new("jay", figs(1), fig(20));
    jay.quiet_after = Some(Event::Accept);
    let agents = [alice, bob, carol, dave, erin, mallory, gina, hal, ivy, jay];
    Market::new(agents, FEE)
}

/// Who searches for what in the first act: buyers search for sellers of goods they want, a seller for buyers
/// of a good it offers; each calls every agent it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// The agent buys these goods.
    Buy(&'static str, &'static [&'static str]),
    /// The agent sells these goods.
    Sell(&'static str, &'static [&'static str]),
}

/// The agents that register their services in the first act.
pub const ACT_ONE: &[&str] = &["alice", "bob", "carol", "dave", "erin"];

/// The calls of the first act, in order.
pub const CALLS: &[Call] = &[
    Call::Buy("alice", &["apple"]),
    Call::Buy("carol", &["apple"]),
    Call::Buy("bob", &["banana"]),
    Call::Buy("dave", &["cherry"]),
    Call::Sell("erin", &["date"]),
];

/// mallory's requests, posted once every call of the first act is out and before anyone requests anything:
/// one for alice's dialogue with bob in her own name, as bob's counterparty (pre-empting it) and as alice's,
/// and two more naming alice and bob as senders of a trade neither negotiated (forged).
pub fn mallory_requests() -> Vec<TransactionRequest<String>> {
    let apple: Goods = [("apple".to_string(), 1)].into();
    let request =
        |dialogue: (&str, u64), sender: &str, counterparty: &str, buys: bool| TransactionRequest {
            dialogue: DialogueReference::new(dialogue.0, dialogue.1),
            sender: sender.into(),
            counterparty: counterparty.into(),
            is_sender_buyer: buys,
            amount: 5,
            fee: FEE,
            quantities: apple.clone(),
        };
    let forged = request(("alice", 9), "alice", "bob", true);
    vec![
        request(("alice", 1), "mallory", "bob", true),
        request(("alice", 1), "mallory", "alice", true),
        forged.clone(),
        forged.mirror(),
    ]
}

/// The first act on `market`: registration, searches and calls, mallory's requests, then every message
/// delivered in the order sent.
pub fn act_one(market: &mut Market) -> Result<(), MarketError> {
    for who in ACT_ONE {
        market.register(who)?;
    }
    for call in CALLS {
        match *call {
            Call::Buy(who, goods) => market.buy(who, goods)?,
            Call::Sell(who, goods) => market.sell(who, goods)?,
        };
    }
    for tx in mallory_requests() {
        market.post(Mail::Request {
            origin: "mallory".into(),
            tx,
        });
    }
    market.run();
    Ok(())
}

/// The second act: gina calls hal for a fig, hal proposes and goes quiet, so gina's acceptance and lock wait
/// for an answer that never comes and expire; jay calls ivy, accepts her proposal and goes quiet, so ivy's
/// request to the controller waits for jay's, which never comes, and the controller refuses it to both.
pub fn act_two(market: &mut Market) -> Result<(), MarketError> {
    let fig: Goods = [("fig".to_string(), 1)].into();
    let call = || messages::CallToBuy { goods: fig.clone() };
    market.call("gina", "hal", call().into())?;
    market.call("jay", "ivy", call().into())?;
    market.run();
    market.wait(TIMEOUT + 1);
    Ok(())
}

/// The third act: mallory calls erin for a date one time more than one peer may keep dialogues open with
/// her, and answers none of erin's proposals, which expire.
pub fn act_three(
    market: &mut Market,
) -> Result<Vec<Result<DialogueReference, MarketError>>, MarketError> {
    let date: Goods = [("date".to_string(), 1)].into();
    let calls: Vec<_> = (0..=super::PEER_LIMIT)
        .map(|_| {
            market.call(
                "mallory",
                "erin",
                messages::CallToBuy {
                    goods: date.clone(),
                }
                .into(),
            )
        })
        .collect();
    market.run();
    market.wait(TIMEOUT + 1);
    Ok(calls)
}

/// Runs the three acts to the end.
pub fn run_scenario() -> Result<Market, MarketError> {
    let mut market = scenario();
    act_one(&mut market)?;
    act_two(&mut market)?;
    act_three(&mut market)?;
    Ok(market)
}
