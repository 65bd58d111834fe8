//! Phantom staged environment (`specs/supply_chain/supply_chain.fsm`): a supply chain run as a
//! `FiniteStateMachineEnv` would run it, on generated code and the runtime's [`fsmc_runtime::staged::Env`].
//!
//! The spec says which agents act and which are rewarded in each stage, where each stage may go next and
//! which stages have a handler; the runtime enforces all of it. This module supplies the rest, as a Phantom
//! user would: the domain ([`SupplyChain`], the `Environment` trait's implementation: what actions do, what
//! agents observe, rewards, the handlers' decisions) and the agents' policies ([`policy`]), which turn an
//! observation into an action from outside the environment. All randomness comes from the seed given to
//! `reset`, so an episode is a function of the seed.

fsmc_runtime::include_fsm!("../../specs/supply_chain/supply_chain.fsm");

pub use supply_chain_env::{Agent, Env, Environment, State, View};

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

/// What an agent sees before it acts: the chain's public state, and the demand of the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The stage the agent acts in next.
    pub stage: State,
    pub shop_stock: u32,
    pub warehouse_stock: u32,
    pub open_orders: u32,
    pub price: u32,
    /// How many units the customers want today (drawn from the seed at the start of each day).
    pub demand: u32,
    /// The price the regulator last held fair.
    pub fair_price: u32,
}

/// What moved in the last step of each stage that rewards for it: each stage that pays rewards writes its own
/// field every time it runs, so a reward never reads another step's figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Moved {
    produced: u32,
    delivered: u32,
    fine: u32,
}

/// The domain of the environment: the chain's stocks, the open orders, the shop's price, the day's demand,
/// and the seeded generator the demand is drawn from. An action is a quantity whose meaning depends on the
/// agent and the stage (see [`describe`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SupplyChain {
    pub day: u32,
    pub shop_stock: u32,
    pub warehouse_stock: u32,
    pub open_orders: u32,
    pub price: u32,
    pub demand: u32,
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
    /// Draws today's demand: 2 to 6 units.
    fn new_day(&mut self) {
        self.day += 1;
        self.demand = 2 + (self.rng.next() % 5) as u32;
    }

    /// Ships from the warehouse what the shop is short of to serve the open orders.
    fn ship_shortfall(&mut self) {
        let short = self.open_orders.saturating_sub(self.shop_stock);
        let shipped = short.min(self.warehouse_stock);
        self.warehouse_stock -= shipped;
        self.shop_stock += shipped;
    }
}

impl Environment for SupplyChain {
    type Observation = Observation;
    type Action = u32;
    type Info = ();

    fn reset(&mut self, seed: u64) {
        *self = SupplyChain {
            shop_stock: 4,
            price: 10,
            fair_price: 12,
            rng: SplitMix64(seed),
            ..SupplyChain::default()
        };
        self.new_day();
    }

    fn observe(&mut self, _: Agent, view: View) -> Observation {
        Observation {
            stage: view.stage,
            shop_stock: self.shop_stock,
            warehouse_stock: self.warehouse_stock,
            open_orders: self.open_orders,
            price: self.price,
            demand: self.demand,
            fair_price: self.fair_price,
        }
    }

    fn act(&mut self, agent: Agent, quantity: u32, view: View) {
        match (view.stage, agent) {
            (State::Ordering, Agent::Customer) => self.open_orders += quantity,
            (State::Ordering, Agent::Shop) => self.price = quantity,
            (State::Production, Agent::Warehouse) => self.requested = quantity,
            (State::Production, Agent::Factory) => self.capacity = quantity,
            (State::Delivery, Agent::Shop) => {
                let n = quantity.min(self.open_orders).min(self.shop_stock);
                self.shop_stock -= n;
                self.open_orders -= n;
                self.delivered += n;
                self.moved.delivered = n;
            }
            (State::Audit, Agent::Regulator) => {
                self.fair_price = quantity;
                self.moved.fine = self.price.saturating_sub(quantity) * FINE_PER_UNIT;
            }
            // The spec lets no other agent act in these stages: the environment refuses their actions before
            // they get here.
            _ => {}
        }
    }

    /// Serve from the shelves if they cover the open orders, else restock first.
    fn ordering(&mut self, _: View) -> State {
        if self.shop_stock >= self.open_orders {
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
        if self.shop_stock >= self.open_orders {
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
        let Moved {
            produced,
            delivered,
            fine,
        } = self.moved;
        let r = match (view.stage, agent) {
            (State::Production, Agent::Factory) => -i64::from(produced * UNIT_COST),
            (State::Production, Agent::Warehouse) => {
                -i64::from(self.warehouse_stock * HOLDING_COST)
            }
            (State::Delivery, Agent::Customer) => {
                i64::from(delivered) * (i64::from(CUSTOMER_VALUE) - i64::from(self.price))
            }
            (State::Delivery, Agent::Shop) => {
                i64::from(delivered) * (i64::from(self.price) - i64::from(WHOLESALE))
            }
            (State::Delivery, Agent::Warehouse) => i64::from(delivered),
            (State::Delivery, Agent::Factory) => 2 * i64::from(delivered),
            (State::Audit, Agent::Shop) if fine > 0 => -i64::from(fine),
            (State::Audit, Agent::Shop) => 1,
            _ => 0,
        };
        r as f64
    }
}

/// The agents' policies: what `agent` does in `stage` given what it observed. Simple rules, so that a run is
/// easy to follow; a learning agent would replace them.
pub fn policy(agent: Agent, stage: State, o: &Observation) -> u32 {
    match (stage, agent) {
        // Order the day's demand, half of it when the price is above what a unit is worth.
        (State::Ordering, Agent::Customer) if o.price > CUSTOMER_VALUE - 3 => o.demand.div_ceil(2),
        (State::Ordering, Agent::Customer) => o.demand,
        // Back to the fair price after a fine; otherwise raise the price when the shelves will not cover
        // today's orders, and lower it when they will.
        (State::Ordering, Agent::Shop) if o.price > o.fair_price => o.fair_price,
        (State::Ordering, Agent::Shop) if o.shop_stock < o.open_orders + o.demand => {
            (o.price + 1).min(CUSTOMER_VALUE)
        }
        (State::Ordering, Agent::Shop) => o.price.saturating_sub(1).max(WHOLESALE + 1),
        // Ask for what the shop is short of, and two to keep in stock.
        (State::Production, Agent::Warehouse) => {
            (o.open_orders + 2).saturating_sub(o.shop_stock + o.warehouse_stock)
        }
        // The factory's capacity per production step.
        (State::Production, Agent::Factory) => 4,
        (State::Delivery, Agent::Shop) => o.open_orders,
        (State::Audit, Agent::Regulator) => 12,
        _ => 0,
    }
}

/// What a quantity means for `agent` acting in `stage`, for the trace.
pub fn describe(agent: Agent, stage: State, quantity: u32) -> String {
    let what = match (stage, agent) {
        (State::Ordering, Agent::Customer) => "orders",
        (State::Ordering, Agent::Shop) => "prices at",
        (State::Production, Agent::Warehouse) => "asks for",
        (State::Production, Agent::Factory) => "can make",
        (State::Delivery, Agent::Shop) => "delivers",
        (State::Audit, Agent::Regulator) => "holds fair",
        _ => "gives",
    };
    format!("{agent} {what} {quantity}")
}

/// One step of an episode, as the trace shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub step: u64,
    /// The stage the step ran in.
    pub stage: State,
    /// The actions given, by the agents acting in the stage.
    pub actions: BTreeMap<Agent, u32>,
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
    /// The agents that observed at reset.
    pub first_observers: Vec<Agent>,
    pub trace: Vec<Record>,
    pub chain: SupplyChain,
    /// Every agent's total reward.
    pub returns: BTreeMap<Agent, f64>,
}

/// Runs one episode of `num_steps` steps from `seed`: each step, the agents that observed at the end of the
/// previous one act by their [`policy`]. Fails only if the environment refuses a step, which it does not for
/// this domain.
pub fn run(seed: u64, num_steps: u64) -> Result<Episode, StepError<State, Agent>> {
    let mut env = Env::new(SupplyChain::default(), num_steps);
    let reset = env.reset(seed);
    let first_observers = reset.observations.keys().copied().collect();
    let mut observations = reset.observations;
    let mut trace = Vec::new();
    let mut returns = BTreeMap::new();
    while env.status() == Status::Running {
        let stage = env.current_stage();
        // The agents acting now observed at the end of the last step: each acts on its own observation. (One
        // without an observation gives no action, which the environment would refuse.)
        let actions: BTreeMap<Agent, u32> = env
            .acting_agents()
            .into_iter()
            .filter_map(|agent| Some((agent, policy(agent, stage, observations.get(&agent)?))))
            .collect();
        let step = env.step(actions.clone())?;
        for (&agent, &r) in &step.rewards {
            *returns.entry(agent).or_insert(0.0) += r;
        }
        trace.push(Record {
            step: env.current_step(),
            stage,
            actions,
            next: env.current_stage(),
            rewards: step.rewards,
            observers: step.observations.keys().copied().collect(),
            terminated: step.terminations.all,
            truncated: step.truncations.all,
        });
        observations = step.observations;
    }
    Ok(Episode {
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
