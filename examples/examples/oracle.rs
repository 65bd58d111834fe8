//! Runs the price oracle for three periods with four agent instances and prints every decided round.

fn main() {
    match fsmc_examples::oracle::run(3, Some("agent-1")) {
        Ok(run) => {
            for d in &run.decisions {
                println!(
                    "period {} {:<26} -> {}",
                    d.period,
                    d.state.name(),
                    d.event.name()
                );
            }
            let data = run.data.current();
            println!(
                "now in {} (period {}); participants {:?}; last price {:?}",
                run.state.name(),
                run.data.period(),
                data.participants,
                data.last_reported_price
            );
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
