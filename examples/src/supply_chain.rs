//! Phantom staged environment (`specs/phantom/supply_chain.fsm`): stages, acting and rewarded agents,
//! handlers that choose the next stage, checked against the spec at run time.

fsmc_runtime::include_fsm!("../specs/phantom/supply_chain.fsm");

use supply_chain_env::{Agent, Handlers, State, step};

/// The simulated world: stock at each level of the chain and orders waiting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct World {
    pub shop_stock: u32,
    pub warehouse_stock: u32,
    pub open_orders: u32,
    pub delivered: u32,
    /// Reward per agent, in the order of [`Agent`].
    pub rewards: [i64; 5],
    /// Day number, used to vary demand deterministically.
    pub day: u32,
}

impl Handlers for World {
    /// Customers order; if the shop can serve them, deliver, else restock first.
    fn ordering(&mut self) -> State {
        self.day += 1;
        self.open_orders += 2 + self.day % 3;
        if self.shop_stock >= self.open_orders {
            State::Delivery
        } else {
            State::Restocking
        }
    }

    /// The factory produces a batch; another one until the warehouse can cover the orders.
    fn production(&mut self) -> State {
        // Batches are whole: what the shop does not need today stays on its shelves for the next days.
        self.warehouse_stock += 4;
        self.shop_stock += std::mem::take(&mut self.warehouse_stock);
        if self.shop_stock >= self.open_orders {
            State::Delivery
        } else {
            State::Production
        }
    }
}

impl World {
    /// Work done on entering a stage without a handler.
    fn act(&mut self, stage: State) {
        match stage {
            State::Delivery => {
                let n = self.open_orders.min(self.shop_stock);
                self.shop_stock -= n;
                self.open_orders -= n;
                self.delivered += n;
                for a in stage.rewarded() {
                    self.rewards[*a as usize] += i64::from(n);
                }
            }
            State::Audit => {
                for a in stage.rewarded() {
                    self.rewards[*a as usize] += 1;
                }
            }
            _ => {}
        }
    }
}

/// One step of the episode: the stage, who acted in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub stage: State,
    pub acting: Vec<Agent>,
}

/// Runs `steps` steps from the default start stage; the trace lists each stage and its acting agents.
pub fn run(steps: usize) -> Result<(Vec<Step>, World), fsmc_runtime::InvalidTarget<State>> {
    let mut world = World::default();
    let mut stage = State::DEFAULT_START;
    let mut trace = Vec::new();
    for _ in 0..steps {
        trace.push(Step {
            stage,
            acting: stage.acting().to_vec(),
        });
        world.act(stage);
        stage = step(stage, &mut world)?;
    }
    Ok((trace, world))
}
