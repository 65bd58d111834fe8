//! Runs one episode of the supply-chain environment and prints every step: the stage, the actions of its
//! acting agents (the customers, as many as asked for, and the scripted regulator, who acts on its own), the
//! stage the environment moved to, the rewards, and who observes next. Then shows the environment refusing
//! steps that break the spec, each leaving it as it was.
//!
//! `cargo run -p fsmc-examples --example supply_chain [seed] [num_steps] [customers]`

use fsmc_examples::supply_chain::{
    self, Action, Agent, Env, Order, ShopAction, State, SupplyChain, describe,
};
use std::collections::BTreeMap;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let num_steps = args.next().and_then(|s| s.parse().ok()).unwrap_or(30);
    let customers = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let episode = match supply_chain::run(seed, num_steps, customers) {
        Ok(episode) => episode,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "built with {customers} customers: agents {}",
        names(&episode.agents)
    );
    println!(
        "reset(seed {seed}), num_steps {num_steps}: stage {}, {} observe",
        State::DEFAULT_START,
        names(&episode.first_observers)
    );
    for r in &episode.trace {
        let mut acts: Vec<String> = r.actions.iter().map(|(&a, x)| describe(a, x)).collect();
        acts.extend(r.scripted.iter().map(|a| format!("{a} audits")));
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
            "step {:>2}  {:<10} {:<60} -> {:<10} rewards: {rewards}; {} observe{end}",
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
        c.day,
        c.produced,
        c.delivered,
        c.open_orders(),
        c.price
    );
    let returns: Vec<String> = episode
        .returns
        .iter()
        .map(|(a, x)| format!("{a} {x:+}"))
        .collect();
    println!("returns: {}", returns.join(", "));

    refusals(seed, customers);
}

/// The steps the environment refuses, each with the state it leaves unchanged.
fn refusals(seed: u64, customers: u32) {
    println!("\nrefused steps (each leaves stage, step and domain as they were):");
    let chain = SupplyChain::new(customers);
    let mut env = Env::with_sizes(chain.clone(), chain.sizes(), 10);
    let _ = env.reset(seed);
    let ordering = |extra: Vec<(Agent, Action<SupplyChain>)>| {
        let mut actions: BTreeMap<Agent, Action<SupplyChain>> = (0..customers)
            .map(|i| (Agent::Customers(i), Action::Customers(Order(1))))
            .collect();
        actions.insert(Agent::Shop, Action::Shop(ShopAction::SetPrice(10)));
        actions.extend(extra);
        actions
    };
    let attempts = [
        (
            "the factory acts in Ordering",
            ordering(vec![(
                Agent::Factory,
                Action::Factory(supply_chain::Capacity(4)),
            )]),
        ),
        ("the shop's action is missing", {
            let mut a = ordering(vec![]);
            a.remove(&Agent::Shop);
            a
        }),
        (
            "a customer the environment was not built with orders",
            ordering(vec![(
                Agent::Customers(customers),
                Action::Customers(Order(1)),
            )]),
        ),
        (
            "the shop gives a customer's action",
            ordering(vec![(Agent::Shop, Action::Customers(Order(3)))]),
        ),
        (
            "the regulator is given an action",
            ordering(vec![(
                Agent::Regulator,
                Action::Shop(ShopAction::SetPrice(12)),
            )]),
        ),
    ];
    for (what, actions) in attempts {
        let before = (
            env.current_stage(),
            env.current_step(),
            env.domain().clone(),
        );
        match env.step(actions) {
            Err(e) => {
                let after = (
                    env.current_stage(),
                    env.current_step(),
                    env.domain().clone(),
                );
                println!("  {what}: {e} (unchanged: {})", before == after);
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
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
