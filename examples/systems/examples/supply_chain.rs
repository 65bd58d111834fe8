//! Runs one episode of the supply-chain environment and prints every step: the stage, the actions of its
//! acting agents, the stage the environment moved to, the rewards, and who observes next. Then shows the
//! environment refusing steps that break the spec, each leaving it as it was.
//!
//! `cargo run -p fsmc-examples --example supply_chain [seed] [num_steps]`

use fsmc_examples::supply_chain::{self, Agent, Env, State, SupplyChain, describe};
use std::collections::BTreeMap;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let num_steps = args.next().and_then(|s| s.parse().ok()).unwrap_or(30);
    let episode = match supply_chain::run(seed, num_steps) {
        Ok(episode) => episode,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "reset(seed {seed}), num_steps {num_steps}: stage {}, {} observe",
        State::DEFAULT_START,
        names(&episode.first_observers)
    );
    for r in &episode.trace {
        let acts: Vec<String> = r
            .actions
            .iter()
            .map(|(&a, &q)| describe(a, r.stage, q))
            .collect();
        let acts = if acts.is_empty() {
            "nobody acts".to_string()
        } else {
            acts.join(", ")
        };
        let rewards: Vec<String> = r
            .rewards
            .iter()
            .map(|(a, x)| format!("{a} {x:+}"))
            .collect();
        let rewards = if rewards.is_empty() {
            "nobody".to_string()
        } else {
            rewards.join(", ")
        };
        let end = match (r.terminated, r.truncated) {
            (true, _) => "  [terminated]",
            (_, true) => "  [truncated: num_steps reached]",
            _ => "",
        };
        println!(
            "step {:>2}  {:<10} {:<42} -> {:<10} rewards: {rewards}; {} observe{end}",
            r.step,
            r.stage.name(),
            acts,
            r.next.name(),
            names(&r.observers)
        );
    }
    let c = &episode.chain;
    println!(
        "after {} days: {} units produced, {} delivered, {} orders open; shop price {}",
        c.day, c.produced, c.delivered, c.open_orders, c.price
    );
    let returns: Vec<String> = episode
        .returns
        .iter()
        .map(|(a, x)| format!("{a} {x:+}"))
        .collect();
    println!("returns: {}", returns.join(", "));

    refusals(seed);
}

/// The steps the environment refuses, each with the state it leaves unchanged.
fn refusals(seed: u64) {
    println!("\nrefused steps (each leaves stage, step and domain as they were):");
    let mut env = Env::new(SupplyChain::default(), 10);
    let _ = env.reset(seed);
    let attempts: [(&str, BTreeMap<Agent, u32>); 3] = [
        (
            "the factory acts in Ordering",
            [(Agent::Customer, 3), (Agent::Shop, 10), (Agent::Factory, 4)].into(),
        ),
        (
            "the shop's action is missing",
            [(Agent::Customer, 3)].into(),
        ),
        ("nobody acts", BTreeMap::new()),
    ];
    for (what, actions) in attempts {
        let before = (
            env.current_stage(),
            env.current_step(),
            env.domain().clone(),
        );
        match env.step(actions) {
            Err(e) => {
                let same = before
                    == (
                        env.current_stage(),
                        env.current_step(),
                        env.domain().clone(),
                    );
                println!("  {what}: {e} (unchanged: {same})");
            }
            Ok(_) => println!("  {what}: accepted"),
        }
    }
}

fn names(agents: &[Agent]) -> String {
    if agents.is_empty() {
        "nobody will".to_string()
    } else {
        agents
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
