//! `fsmc diff`'s verdicts held against replicas. The build script draws random edits of the price oracle's spec
//! and generates both sides of each pair (`sides.rs` in OUT_DIR: `side_N` modules, the agents' behaviour, the
//! [`Case`]s); this library runs a side on a schedule of the simulated network and records, block by block,
//! what replica 0 decided and the app hash it reached.

use fsmc_runtime::app::{AgentId, AppSpec, Cause, Drive, NoRounds};
use fsmc_sim::{Config, Network};
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/sides.rs"));

/// One pair: the edits that made the new side, `fsmc diff`'s verdict and findings, and how to run each side.
pub struct Case {
    pub edits: &'static str,
    /// The most severe class found (`consensus-breaking`, …), `None` for no change.
    pub verdict: Option<&'static str>,
    pub findings: &'static str,
    pub old: fn(u64) -> Run,
    pub new: fn(u64) -> Run,
}

/// What replica 0 did at one height: what it decided (the state and period after the block, its transitions
/// as states and causes, how many transactions it refused) and the app hash it reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub height: u64,
    pub decided: Decided,
    pub hash: [u8; 32],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub state: &'static str,
    pub period: u64,
    /// Each transition: the state left, the state entered, and why (event names are not decisions).
    pub steps: Vec<(&'static str, &'static str, Cause)>,
    pub rejected: usize,
}

/// A run: replica 0's blocks, in order.
pub type Run = Vec<Block>;

/// The blocks every run covers.
pub const BLOCKS: u64 = 1_000;

/// The schedule of `seed`: four agents on the simulated network; the fourth crashes at block 300 and restarts
/// (replaying its store) at block 400; the run ends at block 1,000. Replica 0 is never down.
pub fn run<S: AppSpec<Logic = NoRounds> + Drive<Agent>>(seed: u64) -> Run {
    let agent = |i: usize| Arc::new(Agent::new(i));
    let mut config = Config::new(seed);
    config.history_depth = 2;
    let agents = (0..4).map(|i| (agent_id(i), agent(i))).collect();
    let mut net: Network<S, Agent> = Network::new(config, agents).expect("the network starts");
    let until = |net: &mut Network<S, Agent>, height: u64| {
        net.run_until(10 * BLOCKS * 1_000, |n| {
            n.app(0).is_some_and(|a| a.height() >= height)
        })
        .expect("the replicas apply every block")
    };
    assert!(until(&mut net, 300), "block 300 is reached");
    net.crash(3);
    assert!(until(&mut net, 400), "block 400 is reached");
    net.restart(3, agent(3)).expect("the fourth agent restarts");
    assert!(until(&mut net, BLOCKS), "block {BLOCKS} is reached");
    net.agreement().expect("the replicas agree");
    net.trace()
        .iter()
        .filter(|h| h.height <= BLOCKS)
        .filter_map(|h| {
            let a = h.replicas.first()?.as_ref()?;
            Some(Block {
                height: h.height,
                decided: Decided {
                    state: a.state,
                    period: a.period,
                    steps: a.steps.iter().map(|s| (s.from, s.to, s.cause)).collect(),
                    rejected: a.rejected,
                },
                hash: a.hash.0,
            })
        })
        .collect()
}

/// The address of agent `i`.
pub fn agent_id(i: usize) -> AgentId {
    format!("agent-{i}")
}

/// One agent: the generated behaviours (in `sides.rs`) draw its payloads from [`Agent::pick`].
pub struct Agent {
    index: u64,
}

impl Agent {
    pub fn new(i: usize) -> Agent {
        Agent { index: i as u64 }
    }

    /// A number every agent computes alike for a round, a period and a salt (the round's method), except
    /// that in a round a threshold decides (`deviates`) an agent now and then picks one of its own.
    pub fn pick(&self, round: u64, period: u64, salt: u64, deviates: bool) -> u64 {
        let common = mix(mix(round, period), salt);
        if deviates && mix(common, self.index).is_multiple_of(5) {
            mix(common, self.index.wrapping_add(1))
        } else {
            common
        }
    }
}

/// SplitMix64's finaliser over two words.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
