//! A TAC agent: its holdings, its strategy (TAC's baseline), its ledger, and the generated dialogue hooks it
//! implements. The hooks do TAC's bookkeeping and decide the agent's replies, each on the side of the dialogue
//! the spec gives it; the runtime's dialogues decide whether a message may be taken at all.

use super::fipa_negotiation::{Hooks, Message, Role, Transition, messages};
use super::strategy::{Goods, Strategy};
use fsmc_runtime::ValidationError;
use fsmc_runtime::dialogue::{
    Address, AgentLedger, Delivery, DialogueReference, Holdings, Notice, Service, Side, Tick,
    TransactionRequest,
};

/// One agent: what its dialogue hooks work on.
///
/// It implements the generated `Hooks`: the spec's actions keep its ledger and answer calls, proposals and
/// acceptances (the generated code runs each on the side the spec names, so none asks which side it is on),
/// a validator refuses a received message that does not fit the ledger, and the replies it decides are sent
/// once the message has been taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    /// The agent's address.
    pub address: Address,
    /// Money and goods, as the controller last confirmed them.
    pub holdings: Holdings<String>,
    /// How it values and prices goods.
    pub strategy: Strategy,
    /// The goods it wants to buy (its demand, registered and searched for).
    pub wants: Vec<String>,
    /// Pending proposals, pending initial acceptances, locked transactions.
    pub ledger: AgentLedger<String>,
    /// The game's transaction fee, which the buyer pays.
    pub fee: u64,
    /// How much less than the agreed price this agent writes in its own ledger when it buys: 0 for an
    /// honest agent. Its transaction requests then differ from its counterparty's.
    pub haggle: u64,
    /// The performative after which the agent goes quiet: it sends nothing more (a counterparty that never
    /// answers).
    pub quiet_after: Option<super::fipa_negotiation::Event>,
    /// Whether it has gone quiet.
    pub quiet: bool,
    /// Bookkeeping that failed because the two parties' views diverged; empty in a correct run.
    pub faults: Vec<String>,
    /// The market's clock, as of the message being delivered.
    pub now: Tick,
    replies: Vec<(DialogueReference, Message)>,
    requests: Vec<TransactionRequest<String>>,
}

impl Agent {
    /// An honest agent that wants nothing yet.
    pub fn new(address: &str, holdings: Holdings<String>, strategy: Strategy) -> Agent {
        Agent {
            address: address.into(),
            holdings,
            strategy,
            wants: Vec::new(),
            ledger: AgentLedger::new(),
            fee: 0,
            haggle: 0,
            quiet_after: None,
            quiet: false,
            faults: Vec::new(),
            now: 0,
            replies: Vec::new(),
            requests: Vec::new(),
        }
    }

    /// The same agent, wanting `goods`.
    pub fn wanting(mut self, goods: &[&str]) -> Agent {
        self.wants = goods.iter().map(|g| g.to_string()).collect();
        self
    }

    /// The forward-looking state: holdings with every locked transaction applied.
    pub fn forward_state(&self) -> Holdings<String> {
        self.ledger
            .forward_state(&self.holdings)
            .unwrap_or_else(|| {
                // Locks are only taken when the forward state covers them, so this cannot be reached; the
                // current holdings are the safe answer if it ever were.
                self.holdings.clone()
            })
    }

    /// The service it registers (TAC's baseline): every unit but the first of each good it holds supplied, one
    /// of each good it wants demanded.
    pub fn service(&self) -> Service<String> {
        Service {
            supplies: self.strategy.supplied(&self.forward_state()),
            demands: self.wants.iter().map(|g| (g.clone(), 1)).collect(),
        }
    }

    /// Replies decided while taking the last message, to send now.
    pub fn take_replies(&mut self) -> Vec<(DialogueReference, Message)> {
        std::mem::take(&mut self.replies)
    }

    /// Transaction requests to send the controller now.
    pub fn take_requests(&mut self) -> Vec<TransactionRequest<String>> {
        std::mem::take(&mut self.requests)
    }

    /// Handles the controller's `notice`: on confirmation, pops the locked transaction and updates the
    /// holdings; on a refusal that ends a transaction it locked, pops it and leaves the holdings as they were.
    /// A refusal about a transaction it never locked (one a third agent requested in its name, say) changes
    /// nothing.
    pub fn on_notice(&mut self, notice: &Notice) {
        match notice {
            Notice::Confirmed(id) => match self.ledger.pop_locked_tx(id) {
                Ok(tx) => match self.holdings.apply(&tx) {
                    Some(h) => self.holdings = h,
                    None => self.fault(format!("cannot cover confirmed {id}")),
                },
                Err(e) => self.fault(e.to_string()),
            },
            Notice::Refused { id, reason }
                if reason.ends_transaction() && self.ledger.locked_tx(id).is_some() =>
            {
                if let Err(e) = self.ledger.pop_locked_tx(id) {
                    self.fault(e.to_string());
                }
            }
            Notice::Refused { .. } => {}
        }
    }

    fn fault(&mut self, what: String) {
        self.faults.push(what);
    }

    /// This agent's side of the transaction on `goods` for `price` negotiated in `d`'s dialogue: it buys if it
    /// plays the buyer there.
    fn transaction(
        &self,
        d: &Delivery<'_, Role>,
        goods: &Goods,
        price: u64,
    ) -> TransactionRequest<String> {
        TransactionRequest {
            dialogue: d.dialogue().clone(),
            sender: d.me().clone(),
            counterparty: d.counterparty().clone(),
            is_sender_buyer: d.role() == Some(Role::Buyer),
            amount: price,
            fee: self.fee,
            quantities: goods.clone(),
        }
    }

    /// What this agent writes in its own ledger for the terms `goods` for `price`: a haggling buyer writes less.
    fn recorded(
        &self,
        d: &Delivery<'_, Role>,
        goods: &Goods,
        price: u64,
    ) -> TransactionRequest<String> {
        let haggle = if d.role() == Some(Role::Buyer) {
            self.haggle
        } else {
            0
        };
        self.transaction(d, goods, price.saturating_sub(haggle))
    }

    fn reply(&mut self, d: &Delivery<'_, Role>, message: impl Into<Message>) {
        self.replies.push((d.dialogue().clone(), message.into()));
    }

    /// Accepts `goods` for `price` as this agent's side of the dialogue, if profitable against its
    /// forward-looking state.
    fn profitable(&self, d: &Delivery<'_, Role>, goods: &Goods, price: u64) -> bool {
        let tx = self.transaction(d, goods, price);
        self.strategy.is_profitable(&self.forward_state(), &tx)
    }
}

/// Whether `tx`'s terms are `goods` for `price`.
fn same_terms(tx: &TransactionRequest<String>, goods: &Goods, price: u64) -> bool {
    tx.quantities == *goods && tx.amount == price
}

impl Hooks for Agent {
    // A received accept or decline must answer a message this agent's ledger still holds, on the same terms;
    // otherwise it is refused and nothing changes. The pops in the actions below then cannot fail. What this
    // agent sends, it checked when it decided to.
    fn validate(&self, t: &Transition<'_>) -> Result<(), ValidationError> {
        let d = t.profile;
        if d.side() == Side::Sent {
            return Ok(());
        }
        let (dialogue, target) = (d.dialogue(), d.target());
        let proposal = self.ledger.pending_proposal(dialogue, target);
        let acceptance = self.ledger.pending_initial_acceptance(dialogue, target);
        let held = match t.message {
            Message::Accept(a) => proposal.map(|tx| same_terms(tx, &a.goods, a.price)),
            Message::DeclinePropose => proposal.map(|_| true),
            Message::MatchAccept(m) => {
                let mine = self.recorded(d, &m.goods, m.price);
                acceptance.map(|tx| same_terms(tx, &mine.quantities, mine.amount))
            }
            Message::DeclineAccept => acceptance.map(|_| true),
            _ => Some(true),
        };
        match held {
            Some(true) => Ok(()),
            Some(false) => Err(ValidationError::new(format!(
                "the terms differ from message {target} of {dialogue}"
            ))),
            None => Err(ValidationError::new(format!(
                "{} holds nothing for message {target} of {dialogue}",
                self.address
            ))),
        }
    }

    // The responder, receiving a call: a seller proposes what it can spare of the goods wanted, at what giving
    // them up costs plus its margin; a buyer bids for the goods offered what they are worth to it, less its
    // margin and the fee. Either declines when it has nothing to propose.
    fn answer_call(&mut self, t: &Transition<'_>) {
        let (d, state) = (t.profile, self.forward_state());
        let answer = match (t.message, d.role()) {
            (Message::CallToBuy(c), Some(Role::Seller)) => self.strategy.propose(&state, &c.goods),
            (Message::CallToSell(c), Some(Role::Buyer)) => {
                self.strategy.bid(&state, &c.goods, self.fee)
            }
            _ => None,
        };
        match answer {
            Some((goods, price)) => self.reply(d, messages::Propose { goods, price }),
            None => self.reply(d, Message::DeclineCfp),
        }
    }

    // The proposer keeps its proposal, under the proposal's message id, until it is answered.
    fn store_pending_proposal(&mut self, t: &Transition<'_>, p: &messages::Propose) {
        let d = t.profile;
        let tx = self.transaction(d, &p.goods, p.price);
        let at = self.now;
        if let Err(e) = self
            .ledger
            .add_pending_proposal(d.dialogue(), d.message_id(), tx, at)
        {
            self.fault(e.to_string());
        }
    }

    // The initiator accepts a proposal profitable against its forward-looking state.
    fn answer_proposal(&mut self, t: &Transition<'_>, p: &messages::Propose) {
        let d = t.profile;
        if self.profitable(d, &p.goods, p.price) {
            let (goods, price) = (p.goods.clone(), p.price);
            self.reply(d, messages::Accept { goods, price });
        } else {
            self.reply(d, Message::DeclinePropose);
        }
    }

    // The sender of an accept or a matching accept commits to the terms (a haggling buyer to fewer of them).
    fn lock_transaction(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        let tx = match t.message {
            Message::Accept(a) => self.recorded(d, &a.goods, a.price),
            Message::MatchAccept(m) => self.recorded(d, &m.goods, m.price),
            _ => return,
        };
        if let Err(e) = self.ledger.add_locked_tx(tx, self.now) {
            self.fault(e.to_string());
        }
    }

    fn add_pending_initial_acceptance(&mut self, t: &Transition<'_>, a: &messages::Accept) {
        let d = t.profile;
        let tx = self.recorded(d, &a.goods, a.price);
        let (dialogue, id, at) = (d.dialogue(), d.message_id(), self.now);
        if let Err(e) = self
            .ledger
            .add_pending_initial_acceptance(dialogue, id, tx, at)
        {
            self.fault(e.to_string());
        }
    }

    // The proposer, receiving the answer to its proposal: the key is the message's target.
    fn pop_pending_proposal(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if let Err(e) = self.ledger.pop_pending_proposal(d.dialogue(), d.target()) {
            self.fault(e.to_string());
        }
    }

    // The responder has popped its proposal (the action before this one); it re-checks the terms against its
    // state now, which may have changed since it proposed, and matches or declines.
    fn answer_acceptance(&mut self, t: &Transition<'_>, a: &messages::Accept) {
        let d = t.profile;
        if self.profitable(d, &a.goods, a.price) {
            let (goods, price) = (a.goods.clone(), a.price);
            self.reply(d, messages::MatchAccept { goods, price });
        } else {
            self.reply(d, Message::DeclineAccept);
        }
    }

    fn pop_pending_initial_acceptance(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if let Err(e) = self
            .ledger
            .pop_pending_initial_acceptance(d.dialogue(), d.target())
        {
            self.fault(e.to_string());
        }
    }

    fn unlock_transaction(&mut self, t: &Transition<'_>) {
        if let Err(e) = self.ledger.pop_locked_in(t.profile.dialogue()) {
            self.fault(e.to_string());
        }
    }

    // Both parties, each from its own ledger: the locked transaction becomes the request to the controller,
    // and from now on only the controller's answer releases it.
    fn request_settlement(&mut self, t: &Transition<'_>, _: &messages::MatchAccept) {
        let dialogue = t.profile.dialogue();
        let Some(id) = self.ledger.locked_in(dialogue).map(|tx| tx.id()) else {
            self.fault(format!("nothing locked in {dialogue}"));
            return;
        };
        match self.ledger.mark_requested(&id) {
            Ok(tx) => self.requests.push(tx.clone()),
            Err(e) => self.fault(e.to_string()),
        }
    }
}
