//! Upstream Open Autonomy's hello world skill, ported (`specs/hello_world/`), as one OS process per agent
//! instance over the Malachite BFT engine: the same generated app, the same behaviours and the same
//! `PrintMessageRound` as on the simulation (`fsmc_examples::hello_world`), only the engine differs. Each agent
//! prints its line of every period to standard output, among the node's trace. The command line is the engine
//! adapter's (`hello-world-node --help`):
//!
//! ```text
//! hello-world-node run --nodes 4 --periods 5     keys, genesis and configs in a fresh directory, then 4 nodes
//! hello-world-node testnet --nodes 4 --dir D     only write D/node-0 … D/node-3
//! hello-world-node start --home D/node-0         one node
//! hello-world-node inspect --home D/node-0       who the node is, and the heights and app hashes in its store
//! ```

use fsmc_examples::hello_world::{Agent, Spec, rounds};
use fsmc_malachite::cli::NodeCli;

fn main() -> std::process::ExitCode {
    NodeCli::<Spec, Agent>::with_rounds(rounds(), |_node, _| Ok(Agent::new().echoing()))
        .name("hello-world-node")
        .main()
}
