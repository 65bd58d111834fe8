//! The price oracle replicated on four agent instances over the simulated network, for several periods.
//!
//! Agent 1's chain client is down, so whenever it is elected keeper it reports failure and a new keeper is
//! elected without it; agent 3 crashes after the first period and restarts later, replaying its own blocks
//! and syncing the rest. Every block prints the transitions it caused and each replica's state and app hash.

use fsmc_examples::oracle::{self, Agent};
use fsmc_sim::{Config, Network};
use std::sync::Arc;

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
    let agents = (0..4)
        .map(|i| {
            let agent = if i == 1 {
                Agent::new(i).chain_down()
            } else {
                Agent::new(i)
            };
            (oracle::agent_id(i), Arc::new(agent))
        })
        .collect();
    let mut net = Network::new(Config::new(seed), agents)?;
    oracle::run_periods(&mut net, 1, 600_000)?;
    net.crash(3);
    net.run_for(20_000)?;
    net.restart(3, Arc::new(Agent::new(3)))?;
    oracle::run_periods(&mut net, 4, 600_000)?;

    for h in net.trace() {
        println!("{}", oracle::format_height(&net, h));
    }
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
        println!(
            "period data: estimate {:?}, reported {:?}, settled by tx {:?}",
            period.estimate, period.last_reported_price, period.final_tx_hash
        );
    }
    println!(
        "now in {} (period {}), participants {:?}, failed keepers this period {:?}",
        app.state(),
        app.period(),
        app.participants(),
        app.failed_keepers()
    );
    Ok(())
}
