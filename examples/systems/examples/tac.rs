//! A TAC negotiation (the Trading Agent Competition's FIPA dialogue), end to end on generated code: four agents, five dialogues at once
//! (a settled trade, a declined call, a declined proposal, a declined acceptance, and a trade the controller
//! refuses because the two requests differ), then three out-of-protocol messages the dialogues refuse.

use fsmc_examples::tac::{self, Mail, holdings_line};
use fsmc_runtime::dialogue::{Address, DialogueReference, Header, TransactionId};
use std::collections::BTreeMap;
use std::process::ExitCode;
use tac::fipa_negotiation::{Envelope, Message, messages};

fn main() -> ExitCode {
    let mut market = tac::scenario();
    println!("Holdings at the start:");
    for (a, t) in &market.traders {
        println!("  {a:<6} {}", holdings_line(&t.agent.holdings));
    }
    println!("\nCalls for proposals, all sent at once; then every message in the order sent, as");
    println!(
        "[dialogue #message id→target] sender → receiver: contents, and the receiver's state after it:"
    );
    for (buyer, seller, goods) in tac::CALLS {
        if let Err(e) = market.call_for_proposals(buyer, seller, goods) {
            eprintln!("{buyer} cannot call {seller}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let opened = market.trace.len();
    market.run();
    for line in &market.trace[opened..] {
        println!("  {line}");
    }

    println!("\nMessages outside the protocol, refused with the dialogue unchanged:");
    for (why, envelope) in out_of_protocol(&market) {
        let before = market.trace.len();
        market.post(Mail::Fipa(envelope));
        market.run();
        println!("  {why}:");
        for line in &market.trace[before..] {
            println!("    {line}");
        }
    }

    println!(
        "\nHow each dialogue ended (its initiator's copy) and what the controller made of it:"
    );
    for (a, t) in &market.traders {
        for d in t.dialogues.iter().filter(|d| d.is_self_initiated()) {
            let id = TransactionId(d.reference().clone());
            let settlement = if market.controller.settled().iter().any(|tx| tx.id == id) {
                "settled"
            } else if market.controller.is_refused(&id) {
                "refused by the controller"
            } else {
                "no transaction"
            };
            let r = d.reference().to_string();
            println!(
                "  {r:<8} {a:<5} → {:<6} {:<16} {settlement}",
                d.counterparty(),
                d.state().name()
            );
        }
    }
    println!("\nHoldings at the end (each agent's own view; the controller's agrees):");
    let mut consistent = true;
    for (a, t) in &market.traders {
        let agrees = market.controller.holdings(a) == Some(&t.agent.holdings);
        let left = t.agent.ledger.is_empty() && t.agent.faults.is_empty();
        consistent &= agrees && left;
        println!(
            "  {a:<6} {}{}",
            holdings_line(&t.agent.holdings),
            if left { "" } else { "  (ledger not empty!)" }
        );
    }
    let pending = market.controller.pending().count();
    println!(
        "Settled {} transaction(s); {pending} request(s) pending at the controller; every ledger empty: {consistent}.",
        market.controller.settled().len()
    );
    if consistent && pending == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Three messages a misbehaving agent might send after the run, each with why the runtime refuses it.
fn out_of_protocol(market: &tac::Market) -> Vec<(&'static str, Envelope)> {
    let mut out = Vec::new();
    let at = |who: &str, r: &DialogueReference| market.trader(who).and_then(|t| t.dialogues.get(r));
    // dave replays his accept to carol: its id is no longer the next one.
    let dave = DialogueReference::new("dave", 1);
    if at("carol", &dave).is_some() {
        let h = Header {
            message_id: 3,
            target: 2,
            ..header(&dave, "dave", "carol")
        };
        let goods = BTreeMap::from([("banana".to_string(), 1)]);
        let accept = messages::Accept { goods, price: 3 };
        out.push(("dave replays his accept", envelope(h, accept.into())));
    }
    // bob, the buyer of bob/1, answers his own call as if he were the seller.
    let bob = DialogueReference::new("bob", 1);
    if let Some(d) = at("alice", &bob) {
        let h = Header {
            message_id: d.last_message_id() + 1,
            target: d.last_message_id(),
            ..header(&bob, "bob", "alice")
        };
        let goods = BTreeMap::from([("banana".to_string(), 1)]);
        let propose = messages::Propose { goods, price: 1 };
        out.push((
            "bob proposes in a dialogue where he buys",
            envelope(h, propose.into()),
        ));
    }
    // carol answers a dialogue alice never opened.
    let ghost = DialogueReference::new("alice", 9);
    out.push((
        "carol answers a dialogue that does not exist",
        envelope(
            Header {
                message_id: 2,
                target: 1,
                ..header(&ghost, "carol", "alice")
            },
            Message::DeclineCfp,
        ),
    ));
    out
}

fn header(r: &DialogueReference, sender: &str, to: &str) -> Header {
    Header {
        dialogue: r.clone(),
        message_id: 1,
        target: 0,
        sender: Address::from(sender),
        to: Address::from(to),
    }
}

fn envelope(header: Header, message: Message) -> Envelope {
    Envelope { header, message }
}
