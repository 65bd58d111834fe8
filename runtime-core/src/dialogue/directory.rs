//! Service registration and search, TAC's first steps: each agent registers the goods it supplies and
//! demands, and searches for the agents that sell (or buy) the goods it wants to trade, before it calls any of
//! them for proposals.

use super::message::Address;
use std::collections::{BTreeMap, BTreeSet};

/// What an agent registers (TAC's service description): the goods it supplies, as a seller, and the goods it
/// demands, as a buyer, with quantities.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Service<G: Ord> {
    /// The goods the agent would sell, and how many of each (TAC's `tac_supply` data model).
    pub supplies: BTreeMap<G, u64>,
    /// The goods the agent would buy, and how many of each (`tac_demand`).
    pub demands: BTreeMap<G, u64>,
}

/// A search (TAC's `build_services_query`): for the sellers of some goods (an agent that wants to buy them),
/// or their buyers (an agent that wants to sell).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Query<G: Ord> {
    /// The agents that supply any of these goods.
    Sellers(BTreeSet<G>),
    /// The agents that demand any of these goods.
    Buyers(BTreeSet<G>),
}

impl<G: Ord> Query<G> {
    /// The agents that supply any of `goods`.
    pub fn sellers_of(goods: impl IntoIterator<Item = G>) -> Self {
        Self::Sellers(goods.into_iter().collect())
    }

    /// The agents that demand any of `goods`.
    pub fn buyers_of(goods: impl IntoIterator<Item = G>) -> Self {
        Self::Buyers(goods.into_iter().collect())
    }

    /// Whether `service` answers the query: it lists one of the goods, in the side searched, with a positive
    /// quantity.
    pub fn matches(&self, service: &Service<G>) -> bool {
        let (goods, listed) = match self {
            Self::Sellers(goods) => (goods, &service.supplies),
            Self::Buyers(goods) => (goods, &service.demands),
        };
        goods.iter().any(|g| listed.get(g).is_some_and(|&n| n > 0))
    }
}

/// The service directory (TAC's OEF search node): every agent's registered service, by address.
///
/// Who registers is what the transport says (`origin`): an agent registers, replaces and withdraws its own
/// service only. A search never returns the agent searching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directory<G: Ord> {
    services: BTreeMap<Address, Service<G>>,
}

impl<G: Ord> Directory<G> {
    /// An empty directory.
    pub const fn new() -> Self {
        Self {
            services: BTreeMap::new(),
        }
    }

    /// Registers `origin`'s service, replacing the one it registered before (returned).
    pub fn register(&mut self, origin: &Address, service: Service<G>) -> Option<Service<G>> {
        self.services.insert(origin.clone(), service)
    }

    /// Withdraws `origin`'s service (returned, if it had one).
    pub fn unregister(&mut self, origin: &Address) -> Option<Service<G>> {
        self.services.remove(origin)
    }

    /// The service `agent` registered, if any.
    pub fn service(&self, agent: &Address) -> Option<&Service<G>> {
        self.services.get(agent)
    }

    /// The agents, other than `origin`, whose services answer `query`, in address order.
    pub fn search(&self, origin: &Address, query: &Query<G>) -> Vec<Address> {
        self.services
            .iter()
            .filter(|(a, s)| *a != origin && query.matches(s))
            .map(|(a, _)| a.clone())
            .collect()
    }

    /// How many agents have registered.
    pub fn len(&self) -> usize {
        self.services.len()
    }

    /// Whether nobody has registered.
    pub fn is_empty(&self) -> bool {
        self.services.is_empty()
    }
}
