//! A TAC agent: its holdings, its strategy (TAC's baseline), its ledger, and the generated dialogue hooks it
//! implements. The hooks do TAC's bookkeeping and decide the agent's replies; the runtime's dialogues
//! decide whether a message may be taken at all.

use super::fipa_negotiation::{Hooks, Message, Transition, messages};
use fsmc_runtime::ValidationError;
use fsmc_runtime::dialogue::{
    Address, AgentLedger, Delivery, DialogueReference, Holdings, Notice, Side, TransactionId,
    TransactionRequest,
};
use std::collections::BTreeMap;

/// Goods by name, with quantities.
pub type Goods = BTreeMap<String, u64>;

/// How an agent values goods and prices what it sells: TAC's baseline strategy on a discrete logarithmic
/// utility (the k-th unit of a good is worth `weight / k` money, so the first units matter most).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// The weight of each good.
    pub weights: BTreeMap<String, u64>,
    /// What a seller asks on top of what giving the goods up costs it.
    pub margin: u64,
}

impl Strategy {
    /// A strategy with these weights and margin.
    pub fn new<'a>(weights: impl IntoIterator<Item = (&'a str, u64)>, margin: u64) -> Strategy {
        Strategy {
            weights: weights
                .into_iter()
                .map(|(g, w)| (g.to_string(), w))
                .collect(),
            margin,
        }
    }

    /// The utility of `h`: its money plus, for each good, weight × (1 + 1/2 + … + 1/quantity).
    pub fn utility(&self, h: &Holdings<String>) -> f64 {
        let goods: f64 = self
            .weights
            .iter()
            .map(|(good, &w)| {
                (1..=h.quantity(good))
                    .map(|k| w as f64 / k as f64)
                    .sum::<f64>()
            })
            .sum();
        h.money as f64 + goods
    }

    /// Whether `tx` (this agent's side of it) leaves `state` better off: `state` can cover it and the
    /// utility strictly grows. `state` is the forward-looking state.
    pub fn is_profitable(&self, state: &Holdings<String>, tx: &TransactionRequest<String>) -> bool {
        state
            .apply(tx)
            .is_some_and(|after| self.utility(&after) > self.utility(state))
    }

    /// The goods the agent offers from `state`: every unit but the first of each (TAC's baseline supplies
    /// its holdings minus one).
    pub fn supplied(&self, state: &Holdings<String>) -> Goods {
        state
            .goods
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(g, n)| (g.clone(), n - 1))
            .collect()
    }

    /// The proposal answering a call for `wanted` from `state`: the wanted goods it supplies, at what giving
    /// them up costs plus the margin; `None` when it supplies none of them.
    pub fn propose(&self, state: &Holdings<String>, wanted: &Goods) -> Option<(Goods, u64)> {
        let supplied = self.supplied(state);
        let goods: Goods = wanted
            .iter()
            .filter_map(|(g, &n)| {
                let n = n.min(supplied.get(g).copied().unwrap_or(0));
                (n > 0).then(|| (g.clone(), n))
            })
            .collect();
        if goods.is_empty() {
            return None;
        }
        let mut after = state.clone();
        for (g, n) in &goods {
            after.goods.insert(g.clone(), state.quantity(g) - n);
        }
        let cost = (self.utility(state) - self.utility(&after)).ceil().max(0.0) as u64;
        Some((goods, cost + self.margin))
    }
}

/// One agent: what its dialogue hooks work on.
///
/// It implements the generated `Hooks`: the spec's actions keep its ledger (each on the side the spec names),
/// validators refuse a message that does not fit the ledger, and the `after_` hooks of a received call,
/// proposal or acceptance decide the reply, which the agent sends once the message has been taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    /// The agent's address.
    pub address: Address,
    /// Money and goods, as the controller last confirmed them.
    pub holdings: Holdings<String>,
    /// How it values and prices goods.
    pub strategy: Strategy,
    /// Pending proposals, pending initial acceptances, locked transactions.
    pub ledger: AgentLedger<String>,
    /// How much less than the agreed price this agent writes in its own ledger when it buys: 0 for an
    /// honest agent. Its transaction requests then differ from its counterparty's.
    pub haggle: u64,
    /// Bookkeeping that failed because the two parties' views diverged; empty in a correct run.
    pub faults: Vec<String>,
    replies: Vec<(DialogueReference, Message)>,
    requests: Vec<TransactionRequest<String>>,
}

impl Agent {
    /// An honest agent.
    pub fn new(address: &str, holdings: Holdings<String>, strategy: Strategy) -> Agent {
        Agent {
            address: address.into(),
            holdings,
            strategy,
            ledger: AgentLedger::new(),
            haggle: 0,
            faults: Vec::new(),
            replies: Vec::new(),
            requests: Vec::new(),
        }
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

    /// Replies decided while taking the last message, to send now.
    pub fn take_replies(&mut self) -> Vec<(DialogueReference, Message)> {
        std::mem::take(&mut self.replies)
    }

    /// Transaction requests to send the controller now.
    pub fn take_requests(&mut self) -> Vec<TransactionRequest<String>> {
        std::mem::take(&mut self.requests)
    }

    /// Handles the controller's `notice`: on confirmation, pops the locked transaction and updates the
    /// holdings; on a refusal that ends the transaction, pops it and leaves the holdings as they were.
    pub fn on_notice(&mut self, notice: &Notice) {
        match notice {
            Notice::Confirmed(id) => match self.ledger.pop_locked_tx(id) {
                Ok(tx) => match self.holdings.apply(&tx) {
                    Some(h) => self.holdings = h,
                    None => self.fault(format!("cannot cover confirmed {id}")),
                },
                Err(e) => self.fault(e.to_string()),
            },
            Notice::Refused { id, reason } if reason.ends_transaction() => {
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

    /// This agent's side of the transaction on `goods` for `price` negotiated in `d`'s dialogue.
    fn transaction(
        &self,
        d: &Delivery<'_>,
        buys: bool,
        goods: &Goods,
        price: u64,
    ) -> TransactionRequest<String> {
        TransactionRequest {
            id: TransactionId(d.dialogue().clone()),
            sender: d.me().clone(),
            counterparty: d.counterparty().clone(),
            is_sender_buyer: buys,
            amount: price,
            quantities: goods.clone(),
        }
    }

    fn reply(&mut self, d: &Delivery<'_>, message: impl Into<Message>) {
        self.replies.push((d.dialogue().clone(), message.into()));
    }
}

/// Whether `tx`'s terms are `goods` for `price`.
fn same_terms(tx: &TransactionRequest<String>, goods: &Goods, price: u64) -> bool {
    tx.quantities == *goods && tx.amount == price
}

impl Hooks for Agent {
    // A received accept or decline must answer a message this agent's ledger still holds, on the same terms;
    // otherwise it is refused and nothing changes. The pops in the actions below then cannot fail.
    fn validate(&self, t: &Transition<'_>) -> Result<(), ValidationError> {
        let d = t.profile;
        if d.side() == Side::Sent {
            return Ok(());
        }
        let (dialogue, target) = (d.dialogue(), d.target());
        let held = match t.message {
            Message::Accept(a) => self
                .ledger
                .pending_proposal(dialogue, target)
                .map(|tx| same_terms(tx, &a.goods, a.price)),
            Message::DeclinePropose => self.ledger.pending_proposal(dialogue, target).map(|_| true),
            Message::MatchAccept(m) => self
                .ledger
                .pending_initial_acceptance(dialogue, target)
                .map(|tx| same_terms(tx, &m.goods, m.price.saturating_sub(self.haggle))),
            Message::DeclineAccept => self
                .ledger
                .pending_initial_acceptance(dialogue, target)
                .map(|_| true),
            Message::Cfp(_) | Message::Propose(_) | Message::DeclineCfp => Some(true),
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

    fn store_pending_proposal(&mut self, t: &Transition<'_>) {
        let (d, Message::Propose(p)) = (t.profile, t.message) else {
            return;
        };
        if d.is_sent() {
            let tx = self.transaction(d, false, &p.goods, p.price);
            if let Err(e) = self
                .ledger
                .add_pending_proposal(d.dialogue(), d.message_id(), tx)
            {
                self.fault(e.to_string());
            }
        }
    }

    fn lock_transaction(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if !d.is_sent() {
            return;
        }
        let tx = match t.message {
            // The buyer's own record of what it agreed to pay (less, for a haggler).
            Message::Accept(a) => {
                self.transaction(d, true, &a.goods, a.price.saturating_sub(self.haggle))
            }
            Message::MatchAccept(m) => self.transaction(d, false, &m.goods, m.price),
            _ => return,
        };
        if let Err(e) = self.ledger.add_locked_tx(tx) {
            self.fault(e.to_string());
        }
    }

    fn add_pending_initial_acceptance(&mut self, t: &Transition<'_>) {
        let (d, Message::Accept(a)) = (t.profile, t.message) else {
            return;
        };
        if d.is_sent() {
            let tx = self.transaction(d, true, &a.goods, a.price.saturating_sub(self.haggle));
            if let Err(e) =
                self.ledger
                    .add_pending_initial_acceptance(d.dialogue(), d.message_id(), tx)
            {
                self.fault(e.to_string());
            }
        }
    }

    fn pop_pending_proposal(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if !d.is_sent()
            && let Err(e) = self.ledger.pop_pending_proposal(d.dialogue(), d.target())
        {
            self.fault(e.to_string());
        }
    }

    fn pop_pending_initial_acceptance(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if !d.is_sent()
            && let Err(e) = self
                .ledger
                .pop_pending_initial_acceptance(d.dialogue(), d.target())
        {
            self.fault(e.to_string());
        }
    }

    fn unlock_transaction(&mut self, t: &Transition<'_>) {
        let d = t.profile;
        if !d.is_sent()
            && let Err(e) = self
                .ledger
                .pop_locked_tx(&TransactionId(d.dialogue().clone()))
        {
            self.fault(e.to_string());
        }
    }

    // Both parties, each from its own ledger: the locked transaction becomes the request to the controller.
    fn request_settlement(&mut self, t: &Transition<'_>) {
        let id = TransactionId(t.profile.dialogue().clone());
        match self.ledger.locked_tx(&id) {
            Some(tx) => self.requests.push(tx.clone()),
            None => self.fault(format!("nothing locked for {id}")),
        }
    }

    // The seller answers a call from its forward-looking state.
    fn after_cfp(&mut self, t: &Transition<'_>, data: &messages::Cfp) {
        if t.profile.is_sent() {
            return;
        }
        match self.strategy.propose(&self.forward_state(), &data.goods) {
            Some((goods, price)) => self.reply(t.profile, messages::Propose { goods, price }),
            None => self.reply(t.profile, Message::DeclineCfp),
        }
    }

    // The buyer accepts a proposal profitable against its forward-looking state.
    fn after_propose(&mut self, t: &Transition<'_>, data: &messages::Propose) {
        let d = t.profile;
        if d.is_sent() {
            return;
        }
        let tx = self.transaction(d, true, &data.goods, data.price);
        if self.strategy.is_profitable(&self.forward_state(), &tx) {
            let (goods, price) = (data.goods.clone(), data.price);
            self.reply(d, messages::Accept { goods, price });
        } else {
            self.reply(d, Message::DeclinePropose);
        }
    }

    // The seller has popped its proposal (the `on` group ran); it re-checks it against its state now, which
    // may have changed since it proposed, and matches or declines.
    fn after_accept(&mut self, t: &Transition<'_>, data: &messages::Accept) {
        let d = t.profile;
        if d.is_sent() {
            return;
        }
        let tx = self.transaction(d, false, &data.goods, data.price);
        if self.strategy.is_profitable(&self.forward_state(), &tx) {
            let (goods, price) = (data.goods.clone(), data.price);
            self.reply(d, messages::MatchAccept { goods, price });
        } else {
            self.reply(d, Message::DeclineAccept);
        }
    }
}
