//! The price oracle (`specs/oracle/oracle.fsm`) as one OS process per agent instance, replicated over the
//! Malachite BFT engine: the same generated app and the same behaviours as the simulation in `fsmc-examples`,
//! only the engine differs. The command line is the engine adapter's (`oracle-node --help`), plus the oracle's
//! own `--price-source`:
//!
//! ```text
//! oracle-node run --nodes 4 --periods 5      keys, genesis and configs in a fresh directory, then 4 nodes
//! oracle-node testnet --nodes 4 --dir D      only write D/node-0 … D/node-3
//! oracle-node start --home D/node-0          one node
//! oracle-node start --home D/node-0 --price-source http://127.0.0.1:PORT/price
//!                                            one node fetching its observations over HTTP
//! oracle-node inspect --home D/node-0        who the node is, and the heights and app hashes in its store
//! ```

use std::time::Duration;

use fsmc_examples::oracle::Agent;
use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_examples::oracle::sources::{PriceFeed, TIMEOUT_MS};
use fsmc_malachite::cli::NodeCli;

/// The oracle's own `start` flags.
#[derive(clap::Args, Clone, Debug)]
struct Flags {
    /// Fetch this agent's observations over HTTP from the price source at this URL (`http://IP:PORT/price`, as
    /// `--example price_sources` serves) instead of the simulated feed; the agent abstains when the source fails
    /// or does not answer in time.
    #[arg(long)]
    price_source: Option<String>,
}

fn main() -> std::process::ExitCode {
    NodeCli::<Spec, Agent, Flags>::new(|node, flags| {
        // The same behaviour as in the simulation: agent i of the service, observing the simulated feed or an
        // HTTP source (its requests run on the engine's runtime, where the node polls behaviours).
        let mut agent = Agent::new(node.index);
        if let Some(url) = &flags.price_source {
            agent = agent.with_feed(PriceFeed::new(url, Duration::from_millis(TIMEOUT_MS))?);
        }
        Ok(agent)
    })
    .name("oracle-node")
    .main()
}
