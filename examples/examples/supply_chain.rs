//! Runs the supply-chain environment for a few weeks and prints each stage.

fn main() {
    match fsmc_examples::supply_chain::run(20) {
        Ok((trace, world)) => {
            for (i, step) in trace.iter().enumerate() {
                let acting: Vec<&str> = step.acting.iter().map(|a| a.name()).collect();
                println!(
                    "step {i:2}: {:<10} acting: {}",
                    step.stage.name(),
                    acting.join(", ")
                );
            }
            println!(
                "delivered {} goods; rewards {:?}",
                world.delivered, world.rewards
            );
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
