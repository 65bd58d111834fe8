//! TAC negotiation over FIPA (`specs/tac/fipa_negotiation.fsm`): a buyer and a seller run the dialogue on
//! generated code; the spec's actions keep locked transactions and pending proposals, and a controller
//! settles a transaction once both parties requested it.

fsmc_runtime::include_fsm!("../specs/tac/fipa_negotiation.fsm");

use fipa_negotiation::{Event, Hooks, Role, State, messages};
use fsmc_runtime::dialogue::{AgentLedger, ControllerReply, TransactionController};
use std::collections::BTreeMap;

/// A transaction both parties must request identically: id, good, quantity, price.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tx {
    pub id: String,
    pub good: String,
    pub quantity: u32,
    pub price: u64,
}

/// One agent's holdings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holdings {
    pub money: u64,
    pub goods: BTreeMap<String, u32>,
}

/// Both parties' books, the controller, and the message being handled (the spec's actions read it).
#[derive(Debug, Default)]
pub struct Market {
    pub buyer: Holdings,
    pub seller: Holdings,
    buyer_ledger: AgentLedger<Tx, String>,
    seller_ledger: AgentLedger<Tx, String>,
    controller: TransactionController<Tx, Role>,
    current: Option<Tx>,
    /// Every performative exchanged, with its sender, in order.
    pub log: Vec<(Role, Event)>,
    pub settled: Vec<Tx>,
}

impl Hooks for Market {
    fn store_pending_proposal(&mut self, _: State, _: Event, _: State) {
        if let Some(tx) = self.current.clone() {
            let _ = self.seller_ledger.store_proposal(tx.id.clone(), tx);
        }
    }

    fn lock_transaction(&mut self, _: State, event: Event, _: State) {
        let Some(tx) = self.current.clone() else {
            return;
        };
        let ledger = if event.role() == Some(Role::Buyer) {
            &mut self.buyer_ledger
        } else {
            &mut self.seller_ledger
        };
        let _ = ledger.add_locked_tx(tx.id.clone(), tx);
    }

    fn add_pending_initial_acceptance(&mut self, _: State, _: Event, _: State) {
        if let Some(tx) = self.current.clone() {
            let _ = self
                .buyer_ledger
                .add_pending_initial_acceptance(tx.id.clone(), tx);
        }
    }

    /// Both parties ask the controller to settle; the second matching request confirms it.
    fn request_settlement(&mut self, _: State, _: Event, _: State) {
        let Some(tx) = self.current.clone() else {
            return;
        };
        let _ = self.seller_ledger.pop_pending_proposal(&tx.id);
        let _ = self.buyer_ledger.pop_pending_initial_acceptance(&tx.id);
        for role in [Role::Seller, Role::Buyer] {
            if let Ok(ControllerReply::Confirmed { tx, .. }) =
                self.controller.request(role, tx.clone())
            {
                let _ = self.buyer_ledger.pop_locked_tx(&tx.id);
                let _ = self.seller_ledger.pop_locked_tx(&tx.id);
                self.buyer.money -= tx.price;
                self.seller.money += tx.price;
                *self.buyer.goods.entry(tx.good.clone()).or_default() += tx.quantity;
                if let Some(n) = self.seller.goods.get_mut(&tx.good) {
                    *n -= tx.quantity;
                }
                self.settled.push(tx);
            }
        }
    }

    fn pop_pending_proposal(&mut self, _: State, _: Event, _: State) {
        if let Some(tx) = &self.current {
            let _ = self.seller_ledger.pop_pending_proposal(&tx.id);
            let _ = self.buyer_ledger.pop_locked_tx(&tx.id);
        }
    }
}

/// How a negotiation ended.
pub type Outcome = Result<State, fsmc_runtime::InvalidTransition<State, Event>>;

impl Market {
    /// A market where the buyer has money and the seller has apples.
    pub fn new() -> Market {
        let mut m = Market::default();
        m.buyer.money = 100;
        m.seller.goods.insert("apple".into(), 3);
        m
    }

    fn send(&mut self, state: State, event: Event) -> Outcome {
        if let Some(role) = event.role() {
            self.log.push((role, event));
        }
        state.fire(event, self)
    }

    /// One dialogue: the buyer asks for `quantity` of `good` and accepts up to `max_price`; the seller asks
    /// `unit_price` per unit. `seller_changes_mind` makes the seller decline the buyer's acceptance.
    pub fn negotiate(
        &mut self,
        id: &str,
        good: &str,
        quantity: u32,
        unit_price: u64,
        max_price: u64,
        seller_changes_mind: bool,
    ) -> Outcome {
        let query = messages::Cfp {
            query: BTreeMap::from([(good.to_string(), quantity)]),
        };
        let mut state = self.send(State::DEFAULT_START, Event::Cfp)?;
        let in_stock = self.seller.goods.get(good).copied().unwrap_or(0);
        let wanted = query.query.get(good).copied().unwrap_or(0);
        if in_stock < wanted {
            return self.send(state, Event::DeclineCfp);
        }
        let proposal = messages::Propose {
            proposal: BTreeMap::from([(good.to_string(), i64::from(quantity))]),
            price: unit_price * u64::from(quantity),
            tx_id: id.to_string(),
        };
        self.current = Some(Tx {
            id: proposal.tx_id.clone(),
            good: good.into(),
            quantity,
            price: proposal.price,
        });
        state = self.send(state, Event::Propose)?;
        if proposal.price > max_price || proposal.price > self.buyer.money {
            return self.send(state, Event::DeclinePropose);
        }
        state = self.send(state, Event::Accept)?;
        if seller_changes_mind {
            return self.send(state, Event::DeclineAccept);
        }
        self.send(state, Event::MatchAccept)
    }

    /// Transactions still locked by either party (none once every dialogue has ended).
    pub fn locked(&self) -> usize {
        self.buyer_ledger.locked_txs().count() + self.seller_ledger.locked_txs().count()
    }
}
