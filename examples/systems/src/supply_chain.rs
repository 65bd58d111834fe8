//! Phantom staged environment (`specs/supply_chain/supply_chain.fsm`): a supply chain run as a
//! `FiniteStateMachineEnv` would run it, on generated code and the runtime's [`fsmc_runtime::staged::Env`].
//!
//! The spec says which agents act and which are rewarded in each stage, where each stage may go next and
//! which stages have a handler; the runtime enforces all of it. How many customers there are is given when the
//! environment is built ([`Sizes`]), and the regulator, scripted, audits on its own. This module supplies the
//! rest, as a Phantom user would: the domain ([`SupplyChain`], the `Environment` trait's implementation: what
//! each kind of agent observes and does, with its own types, rewards, the handlers' decisions) and the agents'
//! policies ([`policy`]), which turn an observation into an action from outside the environment. All
//! randomness comes from the seed given to `reset`, so an episode is a function of the seed.

fsmc_runtime::include_fsm!("../../specs/supply_chain/supply_chain.fsm");

pub use supply_chain_env::{
    Action, Agent, AgentKind, Env, Environment, Observation, Sizes, State, View,
};

use fsmc_runtime::staged::{Status, StepError};
use std::collections::BTreeMap;

/// The value a customer puts on one unit: above it the customer orders less.
pub const CUSTOMER_VALUE: u32 = 15;
/// What the shop pays the chain for a unit it sells.
pub const WHOLESALE: u32 = 6;
/// What the factory pays to make a unit.
pub const UNIT_COST: u32 = 1;
/// What the warehouse pays per unit it still holds at the end of a production step.
pub const HOLDING_COST: u32 = 1;
/// The shop's fine per unit of price above the regulator's fair price.
pub const FINE_PER_UNIT: u32 = 5;
/// The price the regulator holds fair: twice what the shop pays for a unit.
pub const FAIR_PRICE: u32 = 2 * WHOLESALE;

/// What the factory and the warehouse observe: the stocks along the chain and the orders waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stocks {
    pub shop: u32,
    pub warehouse: u32,
    pub open_orders: u32,
}

/// What the shop observes: its shelves, the orders waiting, its price and the fair one, and the day's demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shelf {
    /// The stage the shop acts in next: it prices in `Ordering` and delivers in `Delivery`.
    pub stage: State,
    pub stock: u32,
    pub open_orders: u32,
    pub price: u32,
    pub fair_price: u32,
    /// How many units all customers want today.
    pub demand: u32,
}

/// What a customer observes: the shop's price and how many units it wants today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub price: u32,
    pub demand: u32,
}

/// What the shop does: set its price (in `Ordering`) or deliver (in `Delivery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShopAction {
    /// The price of a unit from now on.
    SetPrice(u32),
    /// Deliver up to this many units to the open orders.
    Deliver(u32),
}

/// A customer's order, in units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order(pub u32);

/// The batch the warehouse asks the factory for, in units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch(pub u32);

/// How many units the factory can make in a production step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity(pub u32);

/// What moved in the last step of each stage that rewards for it: each stage that pays rewards writes its own
/// field every time it runs, so a reward never reads another step's figure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Moved {
    produced: u32,
    /// Units delivered to each customer.
    delivered: BTreeMap<u32, u32>,
    fine: u32,
}

/// The domain of the environment: the chain's stocks, each customer's open orders and demand, the shop's
/// price, and the seeded generator the demand is drawn from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SupplyChain {
    /// How many customers the chain serves: the size of the group `customers`.
    pub customers: u32,
    pub day: u32,
    pub shop_stock: u32,
    pub warehouse_stock: u32,
    /// Units each customer ordered and has not received.
    pub orders: BTreeMap<u32, u32>,
    /// Units each customer wants today (drawn from the seed at the start of each day).
    pub demand: BTreeMap<u32, u32>,
    pub price: u32,
    pub fair_price: u32,
    /// The batch the warehouse asked for and the factory's capacity in the current production step.
    requested: u32,
    capacity: u32,
    /// Units ever delivered, and ever produced, in this episode.
    pub delivered: u32,
    pub produced: u32,
    moved: Moved,
    rng: SplitMix64,
}

impl SupplyChain {
    /// A chain serving `customers` customers.
    pub fn new(customers: u32) -> SupplyChain {
        SupplyChain {
            customers,
            ..SupplyChain::default()
        }
    }

    /// The sizes of the environment's groups for this chain.
    pub fn sizes(&self) -> Sizes {
        Sizes {
            customers: self.customers,
        }
    }

    /// Units ordered and not delivered, over all customers.
    pub fn open_orders(&self) -> u32 {
        self.orders.values().sum()
    }

    /// Draws today's demand: 1 to 3 units per customer.
    fn new_day(&mut self) {
        self.day += 1;
        for c in 0..self.customers {
            self.demand.insert(c, 1 + (self.rng.next() % 3) as u32);
        }
    }

    /// Ships from the warehouse what the shop is short of to serve the open orders.
    fn ship_shortfall(&mut self) {
        let short = self.open_orders().saturating_sub(self.shop_stock);
        let shipped = short.min(self.warehouse_stock);
        self.warehouse_stock -= shipped;
        self.shop_stock += shipped;
    }

    fn stocks(&self) -> Stocks {
        Stocks {
            shop: self.shop_stock,
            warehouse: self.warehouse_stock,
            open_orders: self.open_orders(),
        }
    }

    /// Delivers up to `n` units, to the customers in their order, each its open orders.
    fn deliver(&mut self, n: u32) {
        let mut left = n.min(self.shop_stock);
        self.moved.delivered.clear();
        for (&c, open) in self.orders.iter_mut() {
            let d = left.min(*open);
            *open -= d;
            left -= d;
            self.shop_stock -= d;
            self.delivered += d;
            self.moved.delivered.insert(c, d);
        }
    }
}

impl Environment for SupplyChain {
    type Info = ();
    type FactoryObservation = Stocks;
    type FactoryAction = Capacity;
    type WarehouseObservation = Stocks;
    type WarehouseAction = Batch;
    type ShopObservation = Shelf;
    type ShopAction = ShopAction;
    type CustomersObservation = Offer;
    type CustomersAction = Order;

    fn reset(&mut self, seed: u64) {
        *self = SupplyChain {
            customers: self.customers,
            shop_stock: 4,
            price: 10,
            fair_price: FAIR_PRICE,
            rng: SplitMix64(seed),
            ..SupplyChain::default()
        };
        self.new_day();
    }

    fn observe_factory(&mut self, _: View) -> Stocks {
        self.stocks()
    }

    fn act_factory(&mut self, Capacity(units): Capacity, _: View) {
        self.capacity = units;
    }

    fn observe_warehouse(&mut self, _: View) -> Stocks {
        self.stocks()
    }

    fn act_warehouse(&mut self, Batch(units): Batch, _: View) {
        self.requested = units;
    }

    fn observe_shop(&mut self, view: View) -> Shelf {
        Shelf {
            stage: view.stage,
            stock: self.shop_stock,
            open_orders: self.open_orders(),
            price: self.price,
            fair_price: self.fair_price,
            demand: self.demand.values().sum(),
        }
    }

    fn act_shop(&mut self, action: ShopAction, _: View) {
        match action {
            ShopAction::SetPrice(p) => self.price = p,
            ShopAction::Deliver(n) => self.deliver(n),
        }
    }

    fn observe_customers(&mut self, index: u32, _: View) -> Offer {
        Offer {
            price: self.price,
            demand: self.demand.get(&index).copied().unwrap_or(0),
        }
    }

    fn act_customers(&mut self, index: u32, Order(units): Order, _: View) {
        *self.orders.entry(index).or_insert(0) += units;
    }

    /// The regulator, scripted: it holds twice the wholesale price fair and fines the shop for every unit of
    /// price above it.
    fn act_regulator(&mut self, _: View) {
        self.fair_price = FAIR_PRICE;
        self.moved.fine = self.price.saturating_sub(self.fair_price) * FINE_PER_UNIT;
    }

    /// Serve from the shelves if they cover the open orders, else restock first.
    fn ordering(&mut self, _: View) -> State {
        if self.shop_stock >= self.open_orders() {
            State::Delivery
        } else {
            State::Restocking
        }
    }

    /// The factory makes what it can of the batch; the warehouse ships what the shop is short of, and keeps
    /// the rest. Deliver once the shop can serve every open order, else produce again.
    fn production(&mut self, _: View) -> State {
        let made = self.requested.min(self.capacity);
        self.produced += made;
        self.warehouse_stock += made;
        self.ship_shortfall();
        self.moved.produced = made;
        if self.shop_stock >= self.open_orders() {
            State::Delivery
        } else {
            State::Production
        }
    }

    /// Restocking ships without anybody deciding; after the audit a new day begins.
    fn resolve(&mut self, view: View) {
        match view.stage {
            State::Restocking => self.ship_shortfall(),
            State::Audit => self.new_day(),
            _ => {}
        }
    }

    fn reward(&mut self, agent: Agent, view: View) -> f64 {
        let moved = &self.moved;
        let delivered: u32 = moved.delivered.values().sum();
        let (price, value) = (i64::from(self.price), i64::from(CUSTOMER_VALUE));
        let r = match (view.stage, agent) {
            (State::Production, Agent::Factory) => -i64::from(moved.produced * UNIT_COST),
            (State::Production, Agent::Warehouse) => {
                -i64::from(self.warehouse_stock * HOLDING_COST)
            }
            (State::Delivery, Agent::Customers(c)) => {
                i64::from(moved.delivered.get(&c).copied().unwrap_or(0)) * (value - price)
            }
            (State::Delivery, Agent::Shop) => i64::from(delivered) * (price - i64::from(WHOLESALE)),
            (State::Delivery, Agent::Warehouse) => i64::from(delivered),
            (State::Delivery, Agent::Factory) => 2 * i64::from(delivered),
            (State::Audit, Agent::Shop) if moved.fine > 0 => -i64::from(moved.fine),
            (State::Audit, Agent::Shop) => 1,
            _ => 0,
        };
        r as f64
    }
}

/// The agents' policies: what an agent does given what it observed, each kind with its own observation and
/// action. Simple rules, so that a run is easy to follow; a learning agent would replace them.
pub fn policy(observation: &Observation<SupplyChain>) -> Action<SupplyChain> {
    match observation {
        // Order the day's demand, half of it when the price is above what a unit is worth.
        Observation::Customers(o) if o.price > CUSTOMER_VALUE - 3 => {
            Action::Customers(Order(o.demand.div_ceil(2)))
        }
        Observation::Customers(o) => Action::Customers(Order(o.demand)),
        Observation::Shop(s) if s.stage == State::Delivery => {
            Action::Shop(ShopAction::Deliver(s.open_orders))
        }
        // Back to the fair price after a fine; otherwise raise the price when the shelves will not cover
        // today's orders, and lower it when they will.
        Observation::Shop(s) if s.price > s.fair_price => {
            Action::Shop(ShopAction::SetPrice(s.fair_price))
        }
        Observation::Shop(s) if s.stock < s.open_orders + s.demand => {
            Action::Shop(ShopAction::SetPrice((s.price + 1).min(CUSTOMER_VALUE)))
        }
        Observation::Shop(s) => Action::Shop(ShopAction::SetPrice(
            s.price.saturating_sub(1).max(WHOLESALE + 1),
        )),
        // Ask for what the shop is short of, and two to keep in stock.
        Observation::Warehouse(s) => Action::Warehouse(Batch(
            (s.open_orders + 2).saturating_sub(s.shop + s.warehouse),
        )),
        // The factory's capacity per production step.
        Observation::Factory(_) => Action::Factory(Capacity(4)),
    }
}

/// What an action means, for the trace: `customers[1] orders 2`, `shop prices at 9`.
pub fn describe(agent: Agent, action: &Action<SupplyChain>) -> String {
    match action {
        Action::Customers(Order(n)) => format!("{agent} orders {n}"),
        Action::Shop(ShopAction::SetPrice(p)) => format!("{agent} prices at {p}"),
        Action::Shop(ShopAction::Deliver(n)) => format!("{agent} delivers {n}"),
        Action::Warehouse(Batch(n)) => format!("{agent} asks for {n}"),
        Action::Factory(Capacity(n)) => format!("{agent} can make {n}"),
    }
}

/// One step of an episode, as the trace shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub step: u64,
    /// The stage the step ran in.
    pub stage: State,
    /// The actions given, by the strategic agents acting in the stage.
    pub actions: BTreeMap<Agent, Action<SupplyChain>>,
    /// The scripted agents that acted in the stage, on their own.
    pub scripted: Vec<Agent>,
    /// The stage the environment moved to.
    pub next: State,
    /// The rewards of the agents rewarded in the stage.
    pub rewards: BTreeMap<Agent, f64>,
    /// The agents that observed, to act in `next`.
    pub observers: Vec<Agent>,
    pub terminated: bool,
    pub truncated: bool,
}

/// A whole episode: the trace and where the chain ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    /// Every agent of the environment, as built.
    pub agents: Vec<Agent>,
    /// The agents that observed at reset.
    pub first_observers: Vec<Agent>,
    pub trace: Vec<Record>,
    pub chain: SupplyChain,
    /// Every agent's total reward.
    pub returns: BTreeMap<Agent, f64>,
}

/// Runs one episode of `num_steps` steps from `seed`, with `customers` customers: each step, the agents that
/// observed at the end of the previous one act by their [`policy`], and the scripted regulator by its own rule.
/// Fails only if the environment refuses a step, which it does not for this domain.
pub fn run(seed: u64, num_steps: u64, customers: u32) -> Result<Episode, StepError<State, Agent>> {
    let chain = SupplyChain::new(customers);
    let mut env = Env::with_sizes(chain.clone(), chain.sizes(), num_steps);
    let reset = env.reset(seed);
    let first_observers = reset.observations.keys().copied().collect();
    let mut observations = reset.observations;
    let mut trace = Vec::new();
    let mut returns = BTreeMap::new();
    while env.status() == Status::Running {
        let stage = env.current_stage();
        // The agents acting now observed at the end of the last step: each acts on its own observation. (One
        // without an observation gives no action, which the environment would refuse.)
        let actions: BTreeMap<Agent, Action<SupplyChain>> = env
            .acting_agents()
            .into_iter()
            .filter_map(|agent| Some((agent, policy(observations.get(&agent)?))))
            .collect();
        let scripted = env
            .scripted_agent_ids()
            .into_iter()
            .filter(|a| stage.acting().contains(&a.kind()))
            .collect();
        let step = env.step(actions.clone())?;
        for (&agent, &r) in &step.rewards {
            *returns.entry(agent).or_insert(0.0) += r;
        }
        trace.push(Record {
            step: env.current_step(),
            stage,
            actions,
            scripted,
            next: env.current_stage(),
            rewards: step.rewards,
            observers: step.observations.keys().copied().collect(),
            terminated: step.terminations.all,
            truncated: step.truncations.all,
        });
        observations = step.observations;
    }
    Ok(Episode {
        agents: env.agent_ids().to_vec(),
        first_observers,
        trace,
        chain: env.into_domain(),
        returns,
    })
}

/// SplitMix64: a small, well-known generator, enough to vary demand; seeded by `reset`, so the episode is a
/// function of its seed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
