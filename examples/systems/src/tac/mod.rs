//! TAC negotiation over FIPA (`specs/tac/tac.fsm`) on generated code.
//!
//! Every agent keeps its own dialogues (the generated `Dialogues`, keyed by dialogue reference), ledger and
//! holdings. Agents register their services in a directory and search it for counterparties before they call
//! any. Messages travel as FIPA envelopes through one mailbox, in the order sent; the receiving agent's
//! dialogue checks each one (sender's role, message id, target, reply relation) before its hooks run. Agents
//! send transaction requests built from their own ledgers to the controller, which learns from the mailbox who
//! really sent each, settles a transaction once both parties' requests match, charges the fee, and tells both
//! parties either way. The mailbox keeps the clock: one tick per delivery, and pending entries that wait too
//! long expire, at the agents and at the controller.

fsmc_runtime::include_fsm!("../../specs/tac/tac.fsm");

mod agent;
mod scenario;
mod strategy;

pub use agent::Agent;
pub use scenario::{
    ACT_ONE, CALLS, Call, FEE, act_one, act_three, act_two, mallory_requests, run_scenario,
    scenario,
};
pub use strategy::{Goods, Strategy};

use fipa_negotiation::{DialogueError, Dialogues, Envelope, Message, State};
use fsmc_runtime::dialogue::{
    Address, Controller, DialogueReference, Directory, Holdings, Notice, Query, Tick,
    TransactionId, TransactionRequest,
};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

/// How many open dialogues one peer may have with an agent of the market.
pub const PEER_LIMIT: usize = 3;

/// How many ticks a pending entry waits, at an agent or at the controller, before it expires.
pub const TIMEOUT: Tick = 40;

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
    /// A transaction request to the controller, with the agent that really sent it, as the transport knows:
    /// the request itself may claim any sender.
    Request {
        /// Who sent it.
        origin: Address,
        /// The request.
        tx: TransactionRequest<String>,
    },
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

/// The agents, the controller, the service directory and the mailbox between them.
#[derive(Clone, Debug)]
pub struct Market {
    /// The agents, by address.
    pub traders: BTreeMap<Address, Trader>,
    /// The controller.
    pub controller: Controller<String>,
    /// The services the agents registered.
    pub directory: Directory<String>,
    mail: VecDeque<Mail>,
    /// The clock: one tick per piece of mail delivered, or per tick waited.
    pub now: Tick,
    /// The dialogue each transaction the controller heard of was negotiated in, for the trace.
    negotiated: BTreeMap<TransactionId, DialogueReference>,
    /// What happened, a line per message, request, notice, registration, search and expiry.
    pub trace: Vec<String>,
}

impl Market {
    /// A market of these agents, registered with the controller at their current holdings; every transaction
    /// pays `fee`, and pending entries expire after [`TIMEOUT`] ticks.
    pub fn new(agents: impl IntoIterator<Item = Agent>, fee: u64) -> Market {
        let traders: BTreeMap<Address, Trader> = agents
            .into_iter()
            .map(|mut agent| {
                agent.fee = fee;
                agent.ledger = agent.ledger.clone().with_timeout(TIMEOUT);
                let dialogues = Dialogues::new(agent.address.clone()).with_peer_limit(PEER_LIMIT);
                (agent.address.clone(), Trader { dialogues, agent })
            })
            .collect();
        let controller = Controller::new(
            traders
                .iter()
                .map(|(a, t)| (a.clone(), t.agent.holdings.clone())),
        )
        .with_fee(fee)
        .with_timeout(TIMEOUT);
        Market {
            traders,
            controller,
            directory: Directory::new(),
            mail: VecDeque::new(),
            now: 0,
            negotiated: BTreeMap::new(),
            trace: Vec::new(),
        }
    }

    /// The trader at `address`.
    pub fn trader(&self, address: &str) -> Option<&Trader> {
        self.traders.get(&Address::from(address))
    }

    /// `who` registers its service in the directory (TAC's first step).
    pub fn register(&mut self, who: &str) -> Result<(), MarketError> {
        let t = self
            .trader(who)
            .ok_or_else(|| MarketError::UnknownAgent(who.into()))?;
        let service = t.agent.service();
        let line = format!(
            "{who} registers: supplies {}; demands {}",
            goods_line(&service.supplies),
            goods_line(&service.demands)
        );
        self.directory.register(&t.agent.address.clone(), service);
        self.trace.push(line);
        Ok(())
    }

    /// `who` searches the directory with `query`, as the trace shows it.
    fn search(&mut self, who: &str, query: &Query<String>) -> Vec<Address> {
        let found = self.directory.search(&who.into(), query);
        let (side, goods) = match query {
            Query::Sellers(g) => ("sellers", g),
            Query::Buyers(g) => ("buyers", g),
        };
        let goods: Vec<&str> = goods.iter().map(String::as_str).collect();
        let names: Vec<&str> = found.iter().map(Address::as_str).collect();
        self.trace.push(format!(
            "{who} searches for {side} of {}: {}",
            goods.join(", "),
            if names.is_empty() {
                "nobody".to_string()
            } else {
                names.join(", ")
            }
        ));
        found
    }

    /// `buyer` searches for the sellers of `goods` and calls each it finds for one of each; returns the
    /// dialogues opened.
    pub fn buy(
        &mut self,
        buyer: &str,
        goods: &[&str],
    ) -> Result<Vec<DialogueReference>, MarketError> {
        let query = Query::sellers_of(goods.iter().map(|g| g.to_string()));
        let goods: Goods = goods.iter().map(|g| (g.to_string(), 1)).collect();
        let sellers = self.search(buyer, &query);
        let mut opened = Vec::new();
        for seller in sellers {
            let call = messages_call_to_buy(&goods);
            opened.push(self.call(buyer, seller.as_str(), call)?);
        }
        Ok(opened)
    }

    /// `seller` searches for the buyers of `goods` and offers each it finds one of each; returns the
    /// dialogues opened.
    pub fn sell(
        &mut self,
        seller: &str,
        goods: &[&str],
    ) -> Result<Vec<DialogueReference>, MarketError> {
        let query = Query::buyers_of(goods.iter().map(|g| g.to_string()));
        let offered: Goods = goods.iter().map(|g| (g.to_string(), 1)).collect();
        let buyers = self.search(seller, &query);
        let mut opened = Vec::new();
        for buyer in buyers {
            let call = fipa_negotiation::messages::CallToSell {
                goods: offered.clone(),
            };
            opened.push(self.call(seller, buyer.as_str(), call.into())?);
        }
        Ok(opened)
    }

    /// `opener` opens a dialogue with `counterparty` by sending `message`; returns its reference.
    pub fn call(
        &mut self,
        opener: &str,
        counterparty: &str,
        message: Message,
    ) -> Result<DialogueReference, MarketError> {
        let Some(t) = self.traders.get_mut(&Address::from(opener)) else {
            return Err(MarketError::UnknownAgent(opener.into()));
        };
        let envelope = t.dialogues.open(counterparty, message, &mut t.agent)?;
        let reference = envelope.header.dialogue.clone();
        self.mail.push_back(Mail::Fipa(envelope));
        Ok(reference)
    }

    /// Puts `mail` in the mailbox as if someone had sent it (how a test or the example injects a forged or
    /// replayed message, or a request from an agent that does not follow the protocol).
    pub fn post(&mut self, mail: Mail) {
        self.mail.push_back(mail);
    }

    /// Delivers the next piece of mail, and the clock moves on a tick; `false` when there is none.
    pub fn step(&mut self) -> bool {
        let Some(mail) = self.mail.pop_front() else {
            return false;
        };
        match mail {
            Mail::Fipa(envelope) => {
                // What the delivery itself traces (an agent going quiet) comes after the message.
                let at = self.trace.len();
                let line = match self.deliver(&envelope) {
                    Ok(state) => format!("{:<60} {}", fipa_line(&envelope), state.name()),
                    Err(e) => format!("{}\n      refused: {e}", fipa_line(&envelope)),
                };
                self.trace.insert(at, line);
            }
            Mail::Request { origin, tx } => self.request(&origin, tx),
            Mail::Notice(to, notice) => self.notify(&to, &notice),
        }
        self.tick();
        true
    }

    /// Delivers until the mailbox is empty.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Lets `ticks` ticks pass with nothing delivered, then delivers what their expiries sent.
    pub fn wait(&mut self, ticks: Tick) {
        for _ in 0..ticks {
            self.tick();
        }
        self.run();
    }

    /// One tick: the controller refuses the requests that waited too long, and every agent drops the
    /// entries of its ledger that did.
    fn tick(&mut self) {
        self.now += 1;
        let notices = self.controller.advance(self.now);
        self.mail
            .extend(notices.into_iter().map(|(to, n)| Mail::Notice(to, n)));
        for (a, t) in &mut self.traders {
            for e in t.agent.ledger.expire(self.now) {
                self.trace.push(format!(
                    "{a}: {} expired after {} ticks unanswered: {}",
                    store_name(e.store),
                    self.now - e.at,
                    e.tx
                ));
            }
        }
    }

    fn request(&mut self, origin: &Address, tx: TransactionRequest<String>) {
        self.negotiated.insert(tx.id(), tx.dialogue.clone());
        let notices = self.controller.request(origin, tx.clone());
        let line = if notices.is_empty() {
            format!(
                "controller ← {origin}: {tx}: held until {} requests it",
                tx.counterparty
            )
        } else {
            format!("controller ← {origin}: {tx}")
        };
        self.trace.push(line);
        self.mail
            .extend(notices.into_iter().map(|(to, n)| Mail::Notice(to, n)));
    }

    fn notify(&mut self, to: &Address, notice: &Notice) {
        let Some(t) = self.traders.get_mut(to) else {
            return;
        };
        t.agent.now = self.now;
        t.agent.on_notice(notice);
        let of = self
            .negotiated
            .get(notice.id())
            .map_or(String::new(), |d| format!(" ({d})"));
        let line = match notice {
            Notice::Confirmed(id) => format!("transaction {id}{of} confirmed"),
            Notice::Refused { id, reason } => format!("transaction {id}{of} refused: {reason}"),
        };
        let h = holdings_line(&t.agent.holdings);
        self.trace
            .push(format!("{to} ← controller: {line}; holds {h}"));
    }

    /// Hands `envelope` to its receiver's dialogues; if taken, the receiver sends the replies its hooks
    /// decided and the transaction requests its ledger holds, unless it has gone quiet.
    fn deliver(&mut self, envelope: &Envelope) -> Result<State, MarketError> {
        let Some(t) = self.traders.get_mut(&envelope.header.to) else {
            return Err(MarketError::UnknownAgent(envelope.header.to.clone()));
        };
        t.agent.now = self.now;
        let state = t.dialogues.receive(envelope, &mut t.agent)?;
        for (reference, reply) in t.agent.take_replies() {
            if t.agent.quiet {
                break;
            }
            let performative = reply.event();
            match t.dialogues.send(&reference, reply, &mut t.agent) {
                Ok(out) => self.mail.push_back(Mail::Fipa(out)),
                Err(e) => t.agent.faults.push(e.to_string()),
            }
            if t.agent.quiet_after == Some(performative) {
                t.agent.quiet = true;
                self.trace.push(format!("{} goes quiet", t.agent.address));
            }
        }
        // The requests the message and the replies to it made (a matching accept's sender requests as it
        // sends); a quiet agent sends none.
        let requests = t.agent.take_requests();
        if !t.agent.quiet {
            let origin = t.agent.address.clone();
            self.mail
                .extend(requests.into_iter().map(|tx| Mail::Request {
                    origin: origin.clone(),
                    tx,
                }));
        }
        Ok(state)
    }

    /// Whether anything is still in transit.
    pub fn is_idle(&self) -> bool {
        self.mail.is_empty()
    }

    /// What the controller made of the transaction negotiated in `dialogue`: settled, refused, or nothing
    /// (no request came).
    pub fn settlement(&self, dialogue: &DialogueReference) -> Settlement {
        if self
            .controller
            .settled()
            .iter()
            .any(|tx| tx.dialogue == *dialogue)
        {
            return Settlement::Settled;
        }
        let refused = self
            .negotiated
            .iter()
            .any(|(id, d)| d == dialogue && self.controller.is_refused(id));
        if refused {
            Settlement::Refused
        } else {
            Settlement::None
        }
    }
}

/// What the controller made of a dialogue's transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settlement {
    /// It settled.
    Settled,
    /// It was refused.
    Refused,
    /// No request for it came.
    None,
}

fn messages_call_to_buy(goods: &Goods) -> Message {
    fipa_negotiation::messages::CallToBuy {
        goods: goods.clone(),
    }
    .into()
}

fn store_name(store: fsmc_runtime::dialogue::LedgerStore) -> &'static str {
    match store {
        fsmc_runtime::dialogue::LedgerStore::Locked => "locked transaction",
        fsmc_runtime::dialogue::LedgerStore::Proposals => "pending proposal",
        fsmc_runtime::dialogue::LedgerStore::InitialAcceptances => "pending initial acceptance",
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
    let name = m.event().name();
    match m {
        Message::CallToBuy(c) => format!("{name} {}", goods_line(&c.goods)),
        Message::CallToSell(c) => format!("{name} {}", goods_line(&c.goods)),
        Message::Propose(p) => format!("{name} {} for {}", goods_line(&p.goods), p.price),
        Message::Accept(a) => format!("{name} {} for {}", goods_line(&a.goods), a.price),
        Message::MatchAccept(a) => format!("{name} {} for {}", goods_line(&a.goods), a.price),
        Message::DeclineCfp | Message::DeclinePropose | Message::DeclineAccept => name.to_string(),
    }
}

/// `1 apple, 2 banana`, or `nothing`.
pub fn goods_line(goods: &Goods) -> String {
    if goods.is_empty() {
        return "nothing".to_string();
    }
    goods
        .iter()
        .map(|(good, n)| format!("{n} {good}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `money 45, 2 apple, 3 banana`.
pub fn holdings_line(h: &Holdings<String>) -> String {
    let mut s = format!("money {}", h.money);
    for (good, n) in &h.goods {
        let _ = write!(s, ", {n} {good}");
    }
    s
}
