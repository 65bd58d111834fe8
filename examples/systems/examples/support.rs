//! Runs four support conversations through Genie sessions, as a web front end would, and prints every
//! request with what came back: the rendered output, the next actions (only `poll` while an invoker works, with
//! its progress), refusals, a session saved mid-task and resumed, and invoker failures met by each state's
//! policy: a summary retried, a classifier gone on without, an unreadable upload abandoned, a drafting model that
//! stays down handing the customer over to a person. The conversations are `fsmc_examples::support::stories`, which the tests run too.
//!
//! `cargo run -p fsmc-examples --example support`

use std::time::Duration;

use fsmc_examples::support::{render_story, stories};

#[tokio::main]
async fn main() {
    match stories(Duration::from_millis(20)).await {
        Ok(stories) => {
            let printed: Vec<String> = stories.iter().map(render_story).collect();
            print!("{}", printed.join("\n"));
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
