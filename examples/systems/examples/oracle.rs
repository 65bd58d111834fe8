//! The price oracle replicated on four agent instances over the simulated network, for several periods, with
//! its prices fetched over real HTTP.
//!
//! Three price sources serve on 127.0.0.1: one answers at once (agents 0 and 3), one slowly and every third
//! time too slowly for the agents' timeout (agent 1), one fails with `503` (agent 2). An agent whose source
//! fails abstains, so agent 2 never sends an observation, and when agent 1's request stalls too, the
//! observation round has too few payloads and ends by its timeout. Agent 1's chain client is down as well, so
//! whenever it is elected keeper it reports failure and a new keeper is elected without it; agent 3 crashes
//! after the first period and restarts later, replaying its own blocks and syncing the rest. Every block prints
//! the transitions it caused and each replica's state and app hash, and under it the agents' abstentions.

use fsmc_examples::oracle::sources::{SLOW_OFFSET_CENTS, Sources, market_price};
use fsmc_examples::oracle::{self, agent_id};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args()
        .nth(1)
        .map_or(Ok(7), |s| s.parse::<u64>())?;
    // The sources serve on this runtime, and the agents' HTTP calls run on it: it is entered where the
    // simulation polls the behaviours.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let sources = Sources::start(runtime.handle())?;
    println!(
        "price sources: normal {}, slow {} (+{SLOW_OFFSET_CENTS} cents), failing {}",
        sources.normal.url(),
        sources.slow.url(),
        sources.failing.url()
    );
    let net = {
        let _io = runtime.enter();
        oracle::run_with_http_sources(seed, &sources, 4)?
    };

    print!("{}", oracle::format_trace(&net));
    net.agreement()
        .map_err(|d| format!("replicas diverged at height {}: {:?}", d.height, d.hashes))?;
    let app = net.app(0).ok_or("agent-0 is down")?;
    println!();
    println!(
        "{} blocks; every replica committed the same app hash at every height ({}).",
        net.chain().len(),
        app.app_hash().short(8)
    );
    for period in app.periods().history() {
        // The block time the agents asked the sources for: where the market's price is agent 0's quote.
        let asked = period
            .observations
            .as_ref()
            .and_then(|o| o.get(&agent_id(0)))
            .and_then(|&p| net.chain().iter().find(|b| market_price(b.time_ms) == p))
            .map(|b| format!("{:.2}s", b.time_ms as f64 / 1000.0));
        println!(
            "period data: observations {:?} (the market at {}), estimate {:?}, reported {:?}, settled by tx {:?}",
            period.observations,
            asked.as_deref().unwrap_or("-"),
            period.estimate,
            period.last_reported_price,
            period.final_tx_hash
        );
    }
    println!(
        "requests to the price sources: normal {}, slow {}, failing {}",
        sources.normal.requests(),
        sources.slow.requests(),
        sources.failing.requests()
    );
    println!(
        "now in {} (period {}), participants {:?}, failed keepers this period {:?}",
        app.state(),
        app.period(),
        app.participants(),
        app.failed_keepers()
    );
    Ok(())
}
