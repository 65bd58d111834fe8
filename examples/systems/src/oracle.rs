//! Open Autonomy FSM app (`specs/oracle/oracle.fsm`): the price oracle, replicated.
//!
//! Every agent instance runs its own replica of the generated app, fed the same ordered blocks by a
//! consensus layer (here the simulated network of `fsmc-sim`; a BFT engine plugs into the same seam). This
//! file holds only what a user writes: the agents' behaviours — what each agent submits in each round. The
//! rest comes from the spec and the runtime: which round collects what, how each decides, what it writes
//! into the synchronized data, timeouts on block time, registration, keeper election and replacement,
//! periods, rejection of transactions that do not fit, and the app hash every replica agrees on.
//!
//! An agent observes the price either from a simulated feed (a function of the round, so that runs are a
//! function of the seed) or over real HTTP from a price source ([`sources`]), abstaining when its source fails.

pub mod sources;

fsmc_runtime::include_fsm!("../../specs/oracle/oracle.fsm");

use fsmc_runtime::app::{Abstain, Acted, AgentId};
use fsmc_sim::{Config, Height, Network, SimError};
use oracle_abci_app::{Behaviour, Context, Spec, State};
use sha2::{Digest, Sha256};
use sources::{PriceFeed, Sources};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The asset the service reports on: every agent registers with it.
pub const ASSET: &str = "ETH/USD";

/// The smallest move (in cents) worth a new on-chain report; smaller moves end in `NONE`.
pub const MIN_MOVE: u64 = 25;

/// The address of agent `i`.
pub fn agent_id(i: usize) -> AgentId {
    format!("agent-{i}")
}

/// One agent instance: its own price source and its own chain client.
#[derive(Debug)]
pub struct Agent {
    /// How far this agent's simulated price feed is off the market, in cents: sources disagree a little.
    pub bias: i64,
    /// Whether its chain client works; a keeper whose client fails reports failure. Shared with the test or
    /// operator that breaks it, while the agent runs.
    pub chain_ok: AtomicBool,
    /// Its HTTP price source, if it has one; otherwise it observes the simulated feed.
    feed: Option<PriceFeed>,
}

impl Agent {
    /// Agent `i` of a service, with a working chain client, observing the simulated feed.
    pub fn new(i: usize) -> Agent {
        Agent {
            bias: i64::try_from(i % 5).unwrap_or(0) * 3 - 6,
            chain_ok: AtomicBool::new(true),
            feed: None,
        }
    }

    /// The same agent, observing the price over HTTP from `feed`'s source instead. Its behaviour must then be
    /// polled where a Tokio runtime is entered.
    pub fn with_feed(mut self, feed: PriceFeed) -> Agent {
        self.feed = Some(feed);
        self
    }

    /// The same agent, with its chain client down.
    pub fn chain_down(self) -> Agent {
        self.chain_ok.store(false, Ordering::SeqCst);
        self
    }

    /// The market price (in cents) this agent's source shows in round `round`. The market moves with time,
    /// which the app only knows as rounds: the same round shows every source the same market.
    fn observe(&self, round: u64) -> u64 {
        let market = 200_000 + (round.wrapping_mul(7_919) % 4_000);
        market.saturating_add_signed(self.bias)
    }
}

/// The hash of the transaction that reports `estimate` in `period` (a stand-in for building a real one).
pub fn report_tx(estimate: u64, period: u64) -> String {
    let digest = Sha256::digest(format!("report {estimate} in period {period}"));
    digest.iter().take(8).fold(String::from("0x"), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl Behaviour for Agent {
    async fn registration_startup_round(&self, _: Context) -> Result<String, Abstain> {
        Ok(ASSET.to_string())
    }

    async fn registration_round(&self, _: Context) -> Result<String, Abstain> {
        Ok(ASSET.to_string())
    }

    /// From an HTTP source: the price at the round's start (a block time, the same for every agent); a source
    /// that fails, errs or is too slow makes the agent abstain rather than invent a number.
    async fn collect_observation_round(&self, ctx: Context) -> Result<u64, Abstain> {
        let Some(feed) = &self.feed else {
            return Ok(self.observe(ctx.round_count()));
        };
        let asset = ctx
            .data()
            .asset
            .as_deref()
            .ok_or_else(|| Abstain::new("no asset registered"))?;
        Ok(feed.price(asset, ctx.round_started_ms()).await?)
    }

    /// The median of the observations the round collected: the same on every replica.
    async fn estimate_consensus_round(&self, ctx: Context) -> Result<Option<u64>, Abstain> {
        let Some(observations) = ctx.data().observations.as_ref() else {
            return Ok(None);
        };
        let mut prices: Vec<u64> = observations.values().copied().collect();
        prices.sort_unstable();
        Ok(prices.get(prices.len() / 2).copied())
    }

    /// No transaction when the price moved less than [`MIN_MOVE`] since the last report.
    async fn tx_hash_round(&self, ctx: Context) -> Result<Option<String>, Abstain> {
        let Some(estimate) = ctx.data().estimate else {
            return Ok(None);
        };
        if let Some(last) = ctx.data().last_reported_price
            && estimate.abs_diff(last) < MIN_MOVE
        {
            return Ok(None);
        }
        Ok(Some(report_tx(estimate, ctx.period())))
    }

    /// Randomness every agent computes alike from replicated facts, never from local entropy.
    async fn randomness_round(&self, ctx: Context) -> Result<[u8; 32], Abstain> {
        let mut h = Sha256::new();
        h.update(ctx.period().to_le_bytes());
        h.update(ctx.round_count().to_le_bytes());
        h.update(ctx.data().estimate.unwrap_or(0).to_le_bytes());
        Ok(h.finalize().into())
    }

    async fn select_keeper_round(&self, ctx: Context) -> Result<String, Abstain> {
        let seed = ctx.data().most_voted_randomness.unwrap_or([0; 32]);
        ctx.next_keeper(&seed)
            .ok_or_else(|| Abstain::new("no participant may be elected"))
    }

    /// The keeper sends the transaction; it reports the settled hash and the price, or failure.
    async fn submit_price_round(&self, ctx: Context) -> Result<Option<(String, u64)>, Abstain> {
        if !self.chain_ok.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let data = ctx.data();
        let (Some(tx), Some(estimate)) = (data.tx_hash.as_ref(), data.estimate) else {
            return Ok(None);
        };
        Ok(Some((format!("{tx}-settled"), estimate)))
    }

    /// Each agent checks the chain itself: the settled transaction must be the agreed report.
    async fn validate_price_round(&self, ctx: Context) -> Result<Option<bool>, Abstain> {
        let data = ctx.data();
        let (Some(settled), Some(tx), Some(estimate)) = (
            data.final_tx_hash.as_ref(),
            data.tx_hash.as_ref(),
            data.estimate,
        ) else {
            return Ok(None);
        };
        Ok(Some(
            *settled == format!("{tx}-settled") && data.last_reported_price == Some(estimate),
        ))
    }

    async fn reset_and_pause_round(&self, ctx: Context) -> Result<u64, Abstain> {
        Ok(ctx.period())
    }
}

/// The agents of an `n`-agent service.
pub fn agents(n: usize) -> Vec<(AgentId, Arc<Agent>)> {
    (0..n)
        .map(|i| (agent_id(i), Arc::new(Agent::new(i))))
        .collect()
}

/// A simulated network of `n` agents running the oracle, seeded.
pub fn network(seed: u64, n: usize) -> Result<Network<Spec, Agent>, SimError> {
    Network::new(Config::new(seed), agents(n))
}

/// The run `--example oracle` prints, with prices over HTTP from `sources`: four agents, agent `i` asking
/// `sources.for_agent(i)`, agent 1's chain client down; after the first period agent 3 crashes, and restarts
/// twenty seconds later; then the run goes on until every replica has completed `periods` periods (or an hour of
/// block time passed). The simulation waits for the HTTP calls (`Config::real_io`), which must be polled where a
/// Tokio runtime is entered: call this inside one.
pub fn run_with_http_sources(
    seed: u64,
    sources: &Sources,
    periods: u64,
) -> Result<Network<Spec, Agent>, SimError> {
    let agent = |i: usize| Agent::new(i).with_feed(sources.feed(i));
    let agents = (0..4)
        .map(|i| {
            let agent = if i == 1 {
                agent(i).chain_down()
            } else {
                agent(i)
            };
            (agent_id(i), Arc::new(agent))
        })
        .collect();
    let mut config = Config::new(seed);
    config.real_io = true;
    let mut net = Network::new(config, agents)?;
    run_periods(&mut net, 1, 3_600_000)?;
    net.crash(3);
    net.run_for(20_000)?;
    net.restart(3, Arc::new(agent(3)))?;
    run_periods(&mut net, periods, 3_600_000)?;
    Ok(net)
}

/// Runs until every live replica has completed `periods` periods, or `limit_ms` of simulated time pass.
pub fn run_periods<B: Behaviour>(
    net: &mut Network<Spec, B>,
    periods: u64,
    limit_ms: u64,
) -> Result<bool, SimError> {
    net.run_until(limit_ms, |net| {
        (0..net.len())
            .filter_map(|i| net.app(i))
            .all(|app| app.period() >= periods)
    })
}

/// One line per block, then each replica's state and short app hash (`-` if it has not applied the block).
pub fn format_height<B>(net: &Network<Spec, B>, h: &Height) -> String {
    let mut out = String::new();
    let event = h
        .replicas
        .iter()
        .flatten()
        .find(|a| !a.steps.is_empty())
        .map(|a| {
            a.steps
                .iter()
                .map(|s| format!("{} -{}-> {}", s.from, s.event, s.to))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|| "(no transition)".to_string());
    let period = h
        .replicas
        .iter()
        .flatten()
        .map(|a| a.period)
        .max()
        .unwrap_or(0);
    let proposer = net.id(h.proposer).map_or("?", String::as_str);
    let _ = write!(
        out,
        "#{:<4} {:>7.2}s  period {period}  {} txs by {proposer:<8} {event}",
        h.height,
        h.time_ms as f64 / 1000.0,
        h.txs,
    );
    out.push_str("\n      ");
    for (i, a) in h.replicas.iter().enumerate() {
        let id = net.id(i).map_or("?", String::as_str);
        match a {
            Some(a) => {
                let _ = write!(out, " {id} {:<30} {}", a.state, a.hash.short(4));
            }
            None => {
                let _ = write!(out, " {id} {:<30} {:8}", "-", "-");
            }
        }
    }
    out
}

/// The whole run: a line per block as [`format_height`] writes it, and under it what the agents' behaviours did
/// meanwhile other than submit a payload: abstain (with the reason), panic, or be cancelled when their round
/// ended before they returned.
pub fn format_trace<B>(net: &Network<Spec, B>) -> String {
    let mut acted: Vec<(u64, usize, &Acted)> = (0..net.len())
        .flat_map(|i| net.acted(i).iter().map(move |(t, a)| (*t, i, a)))
        .collect();
    acted.sort_by_key(|&(t, i, _)| (t, i));
    let mut pending = acted.into_iter().peekable();
    let mut out = String::new();
    let heights = net.trace();
    for (k, h) in heights.iter().enumerate() {
        if k == 0 {
            write_acted(net, &mut out, &mut pending, h.time_ms);
        }
        out.push_str(&format_height(net, h));
        out.push('\n');
        let next = heights.get(k + 1).map_or(u64::MAX, |n| n.time_ms);
        write_acted(net, &mut out, &mut pending, next);
    }
    out
}

/// Writes the behaviours' doings before `until`.
fn write_acted<'a, B>(
    net: &Network<Spec, B>,
    out: &mut String,
    pending: &mut std::iter::Peekable<impl Iterator<Item = (u64, usize, &'a Acted)>>,
    until: u64,
) {
    while let Some((t, i, acted)) = pending.next_if(|&(t, _, _)| t < until) {
        let id = net.id(i).map_or("?", String::as_str);
        let what = match acted {
            Acted::Abstained { round, reason } => format!("abstained in round {round}: {reason}"),
            Acted::Panicked { round, message } => format!("panicked in round {round}: {message}"),
            Acted::Cancelled { round } => format!("was cancelled: round {round} ended first"),
            // Submissions show as the next block's transactions.
            Acted::Submitted { .. } => continue,
        };
        let _ = writeln!(out, "      {:>7.2}s  {id} {what}", t as f64 / 1000.0);
    }
}

/// Whether `state` is the keeper's round: used to make an agent's keeper silent in tests.
pub fn is_submit(state: State) -> bool {
    state == State::SubmitPriceRound
}
