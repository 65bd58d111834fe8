//! A TAC negotiation (the Trading Agent Competition's FIPA dialogue), end to end on generated code, in three
//! acts: agents register their services, search for counterparties and negotiate (a buyer-opened trade that
//! settles while a third agent's forged and pre-empting requests are refused, a seller-opened trade, a
//! declined call, a declined proposal, a declined acceptance, a trade the controller refuses because the two
//! requests differ); counterparties that go quiet, whose pending entries expire; and a peer that floods an
//! agent with dialogues, then messages outside the protocol.

use fsmc_examples::tac::{self, Mail, Market, Settlement, holdings_line};
use fsmc_runtime::dialogue::{Address, DialogueReference, Header};
use std::collections::BTreeMap;
use std::process::ExitCode;
use tac::fipa_negotiation::{Envelope, Message, messages};

fn main() -> ExitCode {
    let mut market = tac::scenario();
    println!(
        "Holdings at the start (every transaction pays a fee of {}, the buyer's):",
        tac::FEE
    );
    for (a, t) in &market.traders {
        println!("  {a:<8} {}", holdings_line(&t.agent.holdings));
    }
    let acts: [(&str, Act); 2] = [
        (
            "Act 1: registration, search, and the negotiations it leads to; meanwhile mallory sends the \
             controller requests in her own name for alice's dialogue with bob, and two in alice's and bob's",
            tac::act_one,
        ),
        (
            "Act 2: hal goes quiet after proposing, jay after accepting; time passes",
            tac::act_two,
        ),
    ];
    for (title, act) in acts {
        let before = market.trace.len();
        if let Err(e) = act(&mut market) {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        section(title, &market.trace[before..]);
    }
    let before = market.trace.len();
    let calls = match tac::act_three(&mut market) {
        Ok(calls) => calls,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    section(
        &format!(
            "Act 3: mallory calls erin {} times, one more than a peer may keep open with an agent, and answers \
             nothing",
            calls.len()
        ),
        &market.trace[before..],
    );
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
    outcomes(&market);
    if summary(&market) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// One act of the scenario, run on the market.
type Act = fn(&mut Market) -> Result<(), tac::MarketError>;

fn section(title: &str, lines: &[String]) {
    println!("\n{title}:");
    for line in lines {
        println!("  {line}");
    }
}

/// How each dialogue ended (its initiator's copy) and what the controller made of it.
fn outcomes(market: &Market) {
    println!(
        "\nHow each dialogue ended (its initiator's copy) and what the controller made of it:"
    );
    for (a, t) in &market.traders {
        for d in t.dialogues.iter().filter(|d| d.is_self_initiated()) {
            let settlement = match market.settlement(d.reference()) {
                Settlement::Settled => "settled",
                Settlement::Refused => "refused by the controller",
                Settlement::None => "no transaction",
            };
            let r = d.reference().to_string();
            println!(
                "  {r:<10} {a:<7} ({:<6}) → {:<7} {:<16} {settlement}",
                d.role().name(),
                d.counterparty(),
                d.state().name()
            );
        }
    }
}

/// The holdings at the end, and whether every agent agrees with the controller with nothing left pending.
fn summary(market: &Market) -> bool {
    println!("\nHoldings at the end (each agent's own view; the controller's agrees):");
    let mut consistent = true;
    for (a, t) in &market.traders {
        let agrees = market.controller.holdings(a) == Some(&t.agent.holdings);
        let left = t.agent.ledger.is_empty() && t.agent.faults.is_empty();
        consistent &= agrees && left;
        let note = if left { "" } else { "  (ledger not empty!)" };
        println!("  {a:<8} {}{note}", holdings_line(&t.agent.holdings));
    }
    let pending = market.controller.pending().count();
    println!(
        "Settled {} transaction(s), collected {} in fees; {pending} request(s) pending at the controller; \
         every ledger empty: {consistent}.",
        market.controller.settled().len(),
        market.controller.fees_collected()
    );
    consistent && pending == 0
}

/// Three messages a misbehaving agent might send after the run, each with why the runtime refuses it.
fn out_of_protocol(market: &Market) -> Vec<(&'static str, Envelope)> {
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
        let goods = BTreeMap::from([("cherry".to_string(), 1)]);
        let accept = messages::Accept { goods, price: 16 };
        out.push((
            "dave replays his accept",
            Envelope {
                header: h,
                message: accept.into(),
            },
        ));
    }
    // bob, the initiator of bob/1, proposes in it as if he were the responder.
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
            "bob proposes in a dialogue he opened",
            Envelope {
                header: h,
                message: propose.into(),
            },
        ));
    }
    // carol answers a dialogue alice never opened.
    let ghost = DialogueReference::new("alice", 9);
    let h = Header {
        message_id: 2,
        target: 1,
        ..header(&ghost, "carol", "alice")
    };
    out.push((
        "carol answers a dialogue that does not exist",
        Envelope {
            header: h,
            message: Message::DeclineCfp,
        },
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
