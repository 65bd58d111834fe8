//! Upstream Open Autonomy's hello world skill, ported, on four agent instances over the simulated network.
//!
//! Agent 3 boots late: the others' registrations wait for it, as upstream's registration waits for every agent.
//! Agent 2 crashes for good after the first period; the print round then waits a few blocks for it and goes on
//! without it. Each agent prints its line as upstream's does (the keeper says hello); then every block shows the
//! transitions it caused and each replica's state and app hash.

use fsmc_examples::hello_world::{self, Agent};
use std::sync::Arc;
use std::sync::atomic::Ordering;

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
    let agents: Vec<Arc<Agent>> = (0..4)
        .map(|i| {
            let agent = if i == 3 {
                Agent::booting()
            } else {
                Agent::new()
            };
            Arc::new(agent.echoing())
        })
        .collect();
    let ids = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (hello_world::agent_id(i), Arc::clone(a)))
        .collect();
    let mut net = hello_world::network(seed, ids)?;
    net.run_for(4_000)?;
    net.crash(3);
    agents[3].up.store(true, Ordering::SeqCst);
    net.restart(3, Arc::clone(&agents[3]))?;
    hello_world::run_periods(&mut net, 1, 600_000)?;
    net.crash(2);
    hello_world::run_periods(&mut net, 5, 600_000)?;

    println!();
    for h in net.trace() {
        let steps: Vec<String> = h
            .replicas
            .iter()
            .flatten()
            .take(1)
            .flat_map(|a| a.steps.iter())
            .map(|s| format!("{} -{}-> {}", s.from, s.event, s.to))
            .collect();
        let hashes: Vec<String> = h
            .replicas
            .iter()
            .map(|a| {
                a.as_ref()
                    .map_or("-".to_string(), |a| a.hash.short(4).to_string())
            })
            .collect();
        println!(
            "#{:<3} {:>6.2}s {} txs  [{}]  {}",
            h.height,
            h.time_ms as f64 / 1000.0,
            h.txs,
            hashes.join(" "),
            steps.join(", ")
        );
    }
    net.agreement()
        .map_err(|d| format!("replicas diverged at height {}: {:?}", d.height, d.hashes))?;
    let app = net.app(0).ok_or("agent-0 is down")?;
    println!();
    println!(
        "{} blocks, period {}, participants {:?}; every replica committed the same app hash at every height ({}).",
        net.chain().len(),
        app.period(),
        app.participants(),
        app.app_hash().short(8)
    );
    for period in app.periods().history() {
        println!("printed: {:?}", period.printed_messages);
    }
    Ok(())
}
