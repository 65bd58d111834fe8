//! TAC's baseline strategy: how an agent values goods, what it supplies, and how it prices a proposal, as a
//! seller answering a call to buy or as a buyer answering an offer to sell.

use fsmc_runtime::dialogue::{Holdings, TransactionRequest};
use std::collections::BTreeMap;

/// Goods by name, with quantities.
pub type Goods = BTreeMap<String, u64>;

/// How an agent values goods and prices what it trades: TAC's baseline strategy on a discrete logarithmic
/// utility (the k-th unit of a good is worth `weight / k` money, so the first units matter most).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// The weight of each good.
    pub weights: BTreeMap<String, u64>,
    /// What a seller asks on top of what giving the goods up costs it, and a buyer keeps below what they are
    /// worth to it.
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

    /// Whether `tx` (this agent's side of it, fee included) leaves `state` better off: `state` can cover it and
    /// the utility strictly grows. `state` is the forward-looking state.
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

    /// A seller's proposal answering a call for `wanted` from `state`: the wanted goods it supplies, at what
    /// giving them up costs plus the margin; `None` when it supplies none of them.
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

    /// A buyer's proposal answering an offer of `offered` from `state`: one of each good offered, for what
    /// they add to its utility less the margin and the fee (which the buyer pays too); `None` when that leaves
    /// nothing to bid, or more than it can pay.
    pub fn bid(&self, state: &Holdings<String>, offered: &Goods, fee: u64) -> Option<(Goods, u64)> {
        let goods: Goods = offered
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(g, _)| (g.clone(), 1))
            .collect();
        let mut after = state.clone();
        for g in goods.keys() {
            after.goods.insert(g.clone(), state.quantity(g) + 1);
        }
        let gain = (self.utility(&after) - self.utility(state))
            .floor()
            .max(0.0) as u64;
        let price = gain.checked_sub(self.margin + fee).filter(|p| *p > 0)?;
        (!goods.is_empty() && price + fee <= state.money).then_some((goods, price))
    }
}
