//! Open Autonomy's hello world skill, ported (`specs/hello_world/hello_world.fsm`): upstream's
//! `fsm_specification.yaml`, unchanged, refined with the kinds of upstream's round classes.
//!
//! What a porter writes is what upstream's `behaviours.py` and the one bespoke `end_block` of its `rounds.py`
//! hold: [`Agent`] is the behaviours (asynchronous, as upstream's `async_act` generators are), and
//! [`HelloWorldRounds`] decides `PrintMessageRound`. The rest comes from the spec and the runtime. To run the app
//! on a consensus engine rather than the simulation, hand the engine adapter [`Spec`], an [`Agent`] and
//! [`rounds`] (an `Arc<dyn Rounds>`).

// With the tests generated from the spec (`hello_world_abci_app_tests`), which take this app's round logic and
// the payloads that decide `PrintMessageRound` from a fixture (`tests/generated.rs`).
fsmc_runtime::include_fsm!("../../specs/hello_world/hello_world.fsm", tests);

pub use hello_world_abci_app::{
    Behaviour, Context, Deciding, PrintMessageRoundOutcome, PrintMessageRoundWrites, Rounds, Spec,
    State,
};

use fsmc_runtime::app::{Abstain, AgentId};
use fsmc_sim::{Config, Network, SimError};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the keeper prints (upstream's `hello_world_string` parameter).
pub const HELLO_WORLD: &str = "HELLO_WORLD!";

/// What every other agent prints.
pub const NOTHING_TO_SAY: &str = ":|";

/// How many blocks `PrintMessageRound` waits, once a threshold of participants printed, for the rest.
pub const PRINT_GRACE_BLOCKS: u64 = 3;

/// The address of agent `i`.
pub fn agent_id(i: usize) -> AgentId {
    format!("agent-{i}")
}

/// One agent instance: upstream's behaviours, and the console it prints to.
#[derive(Debug, Default)]
pub struct Agent {
    /// Whether the agent is up: one that is not yet abstains from everything (a machine still booting).
    pub up: AtomicBool,
    /// Every line this agent printed, in order.
    pub printed: Mutex<Vec<String>>,
    /// Whether to print to standard output as well (the example does; tests only keep the lines).
    pub echo: bool,
}

impl Agent {
    /// An agent that is up.
    pub fn new() -> Agent {
        Agent {
            up: AtomicBool::new(true),
            ..Agent::default()
        }
    }

    /// An agent that is not up yet.
    pub fn booting() -> Agent {
        Agent::default()
    }

    /// The same agent, echoing what it prints to standard output.
    pub fn echoing(mut self) -> Agent {
        self.echo = true;
        self
    }

    /// The lines this agent printed so far.
    pub fn lines(&self) -> Vec<String> {
        self.printed.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn ready(&self) -> Result<(), Abstain> {
        match self.up.load(Ordering::SeqCst) {
            true => Ok(()),
            false => Err(Abstain::new("not up yet")),
        }
    }
}

/// The randomness of a period. Upstream fetches it from the drand beacon over HTTP; every agent must send the
/// same value, so here it is drawn from what every replica agrees on.
pub fn randomness(period: u64, round_count: u64) -> String {
    let digest = Sha256::digest(format!("hello world randomness {period} {round_count}"));
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl Behaviour for Agent {
    /// Upstream's `RegistrationBehaviour`: every agent sends the same registration.
    async fn registration_round(&self, _: Context) -> Result<String, Abstain> {
        self.ready()?;
        Ok("HelloWorldAbciApp".to_string())
    }

    async fn collect_randomness_round(&self, ctx: Context) -> Result<String, Abstain> {
        self.ready()?;
        Ok(randomness(ctx.period(), ctx.round_count()))
    }

    /// Upstream's `SelectKeeperBehaviour`: a participant drawn from the agreed randomness.
    async fn select_keeper_round(&self, ctx: Context) -> Result<AgentId, Abstain> {
        self.ready()?;
        let seed = ctx
            .data()
            .most_voted_randomness
            .clone()
            .ok_or_else(|| Abstain::new("no randomness was agreed"))?;
        ctx.next_keeper(seed.as_bytes())
            .ok_or_else(|| Abstain::new("no participant may be elected"))
    }

    /// Upstream's `PrintMessageBehaviour`: the keeper says hello, the others have nothing to say; each prints
    /// its line and sends it.
    async fn print_message_round(&self, ctx: Context) -> Result<String, Abstain> {
        self.ready()?;
        let message = if ctx.is_keeper() {
            HELLO_WORLD
        } else {
            NOTHING_TO_SAY
        };
        let line = format!(
            "Agent {} in period {} says: {message}",
            ctx.me(),
            ctx.period()
        );
        if self.echo {
            println!("{line}");
        }
        if let Ok(mut printed) = self.printed.lock() {
            printed.push(line.clone());
        }
        Ok(line)
    }

    /// Upstream's `ResetAndPauseBehaviour`: the agents agree on the period that ends.
    async fn reset_and_pause_round(&self, ctx: Context) -> Result<u64, Abstain> {
        self.ready()?;
        Ok(ctx.period())
    }
}

/// The app's own round logic: `PrintMessageRound`'s `end_block`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HelloWorldRounds;

impl Rounds for HelloWorldRounds {
    /// Upstream's round (a collect-different-until-all round) ends once every participant printed, with the
    /// lines sorted. A participant that stopped would hold the period until the timeout sends the service back
    /// to registration, which then waits for every agent; so once a threshold printed the round waits
    /// [`PRINT_GRACE_BLOCKS`] blocks for the rest and then ends with what it has. Only `round` is read: every
    /// replica decides alike.
    fn print_message_round(
        &self,
        round: &Deciding<'_, String>,
    ) -> Option<(PrintMessageRoundOutcome, PrintMessageRoundWrites)> {
        let everyone = round.payloads().len() == round.eligible().len();
        let waited = round.threshold_reached() && round.blocks() >= PRINT_GRACE_BLOCKS;
        if !everyone && !waited {
            return None;
        }
        // The payloads are by agent, in a `BTreeMap`: their order is already the same everywhere, and the
        // sort is upstream's.
        let mut printed_messages: Vec<String> = round.payloads().values().cloned().collect();
        printed_messages.sort();
        Some((
            PrintMessageRoundOutcome::Done,
            PrintMessageRoundWrites { printed_messages },
        ))
    }
}

/// The round logic as the simulation and the engine adapter take it.
pub fn rounds() -> Arc<dyn Rounds> {
    Arc::new(HelloWorldRounds)
}

/// A simulated network of the given agents running hello world, seeded.
pub fn network(
    seed: u64,
    agents: Vec<(AgentId, Arc<Agent>)>,
) -> Result<Network<Spec, Agent>, SimError> {
    Network::with_rounds(Config::new(seed), agents, rounds())
}

/// Runs until every live replica has completed `periods` periods, or `limit_ms` of simulated time pass.
pub fn run_periods(
    net: &mut Network<Spec, Agent>,
    periods: u64,
    limit_ms: u64,
) -> Result<bool, SimError> {
    net.run_until(limit_ms, |net| {
        (0..net.len())
            .filter_map(|i| net.app(i))
            .all(|app| app.period() >= periods)
    })
}
