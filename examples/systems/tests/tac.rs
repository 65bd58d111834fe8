//! TAC negotiation over FIPA on generated code: the three acts of the scenario (search, negotiations either
//! party opens, forged and pre-empting requests, fees; counterparties that go quiet; a peer that floods an
//! agent), and the protocol underneath: messages and the dialogue checks, the sides actions run on, the
//! forward-looking state, the responder's re-check, declines, the controller, and refusals.

// The two halves live in `tests/tac/`: a test target is one file of `tests/`, and its modules are found from it.
#[path = "tac/acts.rs"]
mod acts;
#[path = "tac/protocol.rs"]
mod protocol;

use fsmc_examples::tac::fipa_negotiation::State;
use fsmc_examples::tac::{Market, Trader, act_one, scenario};
use fsmc_runtime::dialogue::DialogueReference;
use std::collections::BTreeMap;

fn r(initiator: &str, nonce: u64) -> DialogueReference {
    DialogueReference::new(initiator, nonce)
}

fn trader<'a>(m: &'a Market, who: &str) -> &'a Trader {
    m.trader(who).unwrap()
}

/// The state of `who`'s copy of dialogue `d`, if `who` has one yet.
fn state_of(m: &Market, who: &str, d: &DialogueReference) -> Option<State> {
    trader(m, who).dialogues.get(d).map(|d| d.state())
}

/// Steps the market until `done` holds; fails if the mail runs out first.
fn run_until(m: &mut Market, done: impl Fn(&Market) -> bool) {
    while !done(m) {
        assert!(m.step(), "the mail ran out first");
    }
}

/// The scenario with the first act's calls (and mallory's requests) out, nothing delivered yet.
fn started() -> Market {
    let mut m = scenario();
    for who in fsmc_examples::tac::ACT_ONE {
        m.register(who).unwrap();
    }
    for call in fsmc_examples::tac::CALLS {
        match *call {
            fsmc_examples::tac::Call::Buy(who, goods) => m.buy(who, goods).unwrap(),
            fsmc_examples::tac::Call::Sell(who, goods) => m.sell(who, goods).unwrap(),
        };
    }
    m
}

/// The scenario after its first act.
fn after_act_one() -> Market {
    let mut m = scenario();
    act_one(&mut m).unwrap();
    m
}

fn goods(list: &[(&str, u64)]) -> BTreeMap<String, u64> {
    list.iter().map(|(g, n)| (g.to_string(), *n)).collect()
}
