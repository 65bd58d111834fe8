//! TAC negotiation over FIPA (`specs/tac/tac.fsm`) on generated code.
//!
//! Every agent keeps its own dialogues (the generated `Dialogues`, keyed by dialogue reference), ledger and
//! holdings. Messages travel as FIPA envelopes through one mailbox, in the order sent; the receiving agent's
//! dialogue checks each one (sender's role, message id, target, reply relation) before its hooks run. Agents
//! send transaction requests built from their own ledgers to the controller, which settles a transaction
//! once both parties' requests match and tells both parties either way.

fsmc_runtime::include_fsm!("../../specs/tac/tac.fsm");

mod agent;

pub use agent::{Agent, Goods, Strategy};
use fipa_negotiation::{DialogueError, Dialogues, Envelope, Message, State};
use fsmc_runtime::dialogue::{
    Address, Controller, DialogueReference, Holdings, Notice, TransactionRequest,
};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

/// An agent with its dialogues.
#[derive(Clone, Debug, PartialEq)]
pub struct Trader {
    /// Every dialogue the agent takes part in.
    pub dialogues: Dialogues,
    /// The agent: holdings, strategy, ledger; the dialogues' hooks.
    pub agent: Agent,
}

/// Something in transit.
#[derive(Clone, Debug, PartialEq)]
pub enum Mail {
    /// A FIPA message between two agents.
    Fipa(Envelope),
    /// A transaction request to the controller.
    Request(TransactionRequest<String>),
    /// The controller's notice to an agent.
    Notice(Address, Notice),
}

/// Why the market could not hand a message on.
#[derive(Clone, Debug, PartialEq)]
pub enum MarketError {
    /// No agent has this address.
    UnknownAgent(Address),
    /// The agent's dialogue refused the message (and nothing changed).
    Refused(DialogueError),
}

impl std::fmt::Display for MarketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MarketError::UnknownAgent(a) => write!(f, "no agent `{a}`"),
            MarketError::Refused(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MarketError {}

impl From<DialogueError> for MarketError {
    fn from(e: DialogueError) -> MarketError {
        MarketError::Refused(e)
    }
}

/// The agents, the controller and the mailbox between them.
#[derive(Clone, Debug)]
pub struct Market {
    /// The agents, by address.
    pub traders: BTreeMap<Address, Trader>,
    /// The controller.
    pub controller: Controller<String>,
    mail: VecDeque<Mail>,
    /// What happened, a line per message, request and notice.
    pub trace: Vec<String>,
}

impl Market {
    /// A market of these agents, registered with the controller at their current holdings.
    pub fn new(agents: impl IntoIterator<Item = Agent>) -> Market {
        let traders: BTreeMap<Address, Trader> = agents
            .into_iter()
            .map(|agent| {
                let trader = Trader {
                    dialogues: Dialogues::new(agent.address.clone()),
                    agent,
                };
                (trader.agent.address.clone(), trader)
            })
            .collect();
        let controller = Controller::new(
            traders
                .iter()
                .map(|(a, t)| (a.clone(), t.agent.holdings.clone())),
        );
        Market {
            traders,
            controller,
            mail: VecDeque::new(),
            trace: Vec::new(),
        }
    }

    /// The trader at `address`.
    pub fn trader(&self, address: &str) -> Option<&Trader> {
        self.traders.get(&Address::from(address))
    }

    /// `buyer` calls `seller` for proposals on `goods`, opening a dialogue; returns its reference.
    pub fn call_for_proposals(
        &mut self,
        buyer: &str,
        seller: &str,
        goods: &[(&str, u64)],
    ) -> Result<DialogueReference, MarketError> {
        let goods = goods.iter().map(|(g, n)| (g.to_string(), *n)).collect();
        let message = Message::from(fipa_negotiation::messages::Cfp { goods });
        let Some(t) = self.traders.get_mut(&Address::from(buyer)) else {
            return Err(MarketError::UnknownAgent(buyer.into()));
        };
        let envelope = t.dialogues.open(seller, message, &mut t.agent)?;
        let reference = envelope.header.dialogue.clone();
        self.mail.push_back(Mail::Fipa(envelope));
        Ok(reference)
    }

    /// Puts `mail` in the mailbox as if someone had sent it (how a test or the example injects a forged or
    /// replayed message).
    pub fn post(&mut self, mail: Mail) {
        self.mail.push_back(mail);
    }

    /// Delivers the next piece of mail; `false` when there is none.
    pub fn step(&mut self) -> bool {
        let Some(mail) = self.mail.pop_front() else {
            return false;
        };
        match mail {
            Mail::Fipa(envelope) => {
                let result = self.deliver(&envelope);
                let line = match result {
                    Ok(state) => format!("{:<56} {}", fipa_line(&envelope), state.name()),
                    Err(e) => format!("{}\n      refused: {e}", fipa_line(&envelope)),
                };
                self.trace.push(line);
            }
            Mail::Request(tx) => {
                let notices = self.controller.request(tx.clone());
                let line = if notices.is_empty() {
                    format!(
                        "controller ← {tx}: held until {} requests it",
                        tx.counterparty
                    )
                } else {
                    format!("controller ← {tx}")
                };
                self.trace.push(line);
                self.mail
                    .extend(notices.into_iter().map(|(to, n)| Mail::Notice(to, n)));
            }
            Mail::Notice(to, notice) => {
                if let Some(t) = self.traders.get_mut(&to) {
                    t.agent.on_notice(&notice);
                    let h = &t.agent.holdings;
                    self.trace.push(format!(
                        "{to} ← controller: {notice}; holds {}",
                        holdings_line(h)
                    ));
                }
            }
        }
        true
    }

    /// Delivers until the mailbox is empty.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Hands `envelope` to its receiver's dialogues; if taken, the receiver sends the replies its hooks
    /// decided and the transaction requests its ledger holds.
    fn deliver(&mut self, envelope: &Envelope) -> Result<State, MarketError> {
        let Some(t) = self.traders.get_mut(&envelope.header.to) else {
            return Err(MarketError::UnknownAgent(envelope.header.to.clone()));
        };
        let state = t.dialogues.receive(envelope, &mut t.agent)?;
        for (reference, reply) in t.agent.take_replies() {
            match t.dialogues.send(&reference, reply, &mut t.agent) {
                Ok(out) => self.mail.push_back(Mail::Fipa(out)),
                Err(e) => t.agent.faults.push(e.to_string()),
            }
        }
        self.mail
            .extend(t.agent.take_requests().into_iter().map(Mail::Request));
        Ok(state)
    }

    /// Whether anything is still in transit.
    pub fn is_idle(&self) -> bool {
        self.mail.is_empty()
    }
}

/// `[alice/1 #2→1] bob → alice: Propose 1 apple for 5`.
pub fn fipa_line(e: &Envelope) -> String {
    let h = &e.header;
    format!(
        "[{} #{}→{}] {} → {}: {}",
        h.dialogue,
        h.message_id,
        h.target,
        h.sender,
        h.to,
        message_line(&e.message)
    )
}

/// A performative with its contents, e.g. `Propose 1 apple for 5`.
pub fn message_line(m: &Message) -> String {
    let goods = |g: &Goods| {
        g.iter()
            .map(|(good, n)| format!("{n} {good}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = m.event().name();
    match m {
        Message::Cfp(c) => format!("{name} {}", goods(&c.goods)),
        Message::Propose(p) => format!("{name} {} for {}", goods(&p.goods), p.price),
        Message::Accept(a) => format!("{name} {} for {}", goods(&a.goods), a.price),
        Message::MatchAccept(a) => format!("{name} {} for {}", goods(&a.goods), a.price),
        Message::DeclineCfp | Message::DeclinePropose | Message::DeclineAccept => name.to_string(),
    }
}

/// `money 45, 2 apple, 3 banana`.
pub fn holdings_line(h: &Holdings<String>) -> String {
    let mut s = format!("money {}", h.money);
    for (good, n) in &h.goods {
        let _ = write!(s, ", {n} {good}");
    }
    s
}

/// The seeds' scenario: four agents, and one dialogue per way a negotiation can go.
///
/// * alice and carol both call bob for an apple. bob has one to spare and proposes it to both (pending
///   proposals do not count in the forward-looking state); both accept; bob matches alice's acceptance and
///   locks the transaction, so when carol's arrives his state has changed and he declines it.
/// * alice calls carol for a cherry; carol has none to spare and declines the call.
/// * bob calls alice for a banana; alice's margin makes it too dear for bob, who declines the proposal.
/// * dave, who writes down less than he agreed to pay, buys a banana from carol: the two requests differ,
///   the controller refuses the transaction to both, and both unlock it.
pub fn scenario() -> Market {
    let goods = |a, b, c| {
        [
            ("apple".to_string(), a),
            ("banana".to_string(), b),
            ("cherry".to_string(), c),
        ]
    };
    let alice = Agent::new(
        "alice",
        Holdings::new(50, goods(1, 3, 2)),
        Strategy::new([("apple", 20), ("banana", 4), ("cherry", 6)], 10),
    );
    let bob = Agent::new(
        "bob",
        Holdings::new(50, goods(2, 1, 3)),
        Strategy::new([("apple", 8), ("banana", 20), ("cherry", 6)], 1),
    );
    let carol = Agent::new(
        "carol",
        Holdings::new(50, goods(1, 2, 1)),
        Strategy::new([("apple", 12), ("banana", 4), ("cherry", 30)], 1),
    );
    let mut dave = Agent::new(
        "dave",
        Holdings::new(50, goods(1, 1, 1)),
        Strategy::new([("apple", 5), ("banana", 16), ("cherry", 5)], 1),
    );
    dave.haggle = 1;
    Market::new([alice, bob, carol, dave])
}

/// A call for proposals: buyer, seller, and the goods wanted with quantities.
pub type Call = (&'static str, &'static str, &'static [(&'static str, u64)]);

/// The calls for proposals that open the scenario's dialogues.
pub const CALLS: &[Call] = &[
    ("alice", "bob", &[("apple", 1)]),
    ("carol", "bob", &[("apple", 1)]),
    ("alice", "carol", &[("cherry", 1)]),
    ("bob", "alice", &[("banana", 1)]),
    ("dave", "carol", &[("banana", 1)]),
];

/// Runs the scenario to the end: every call sent at once, then the mail delivered in the order sent.
pub fn run_scenario() -> Result<Market, MarketError> {
    let mut market = scenario();
    for (buyer, seller, goods) in CALLS {
        market.call_for_proposals(buyer, seller, goods)?;
    }
    market.run();
    Ok(market)
}
