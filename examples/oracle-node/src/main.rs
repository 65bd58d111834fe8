//! The price oracle (`specs/oracle/oracle.fsm`) as one OS process per agent instance, replicated over the
//! Malachite BFT engine: the same generated app and the same behaviours as the simulation in `fsmc-examples`,
//! only the engine differs. The command line is the engine adapter's (`oracle-node --help`):
//!
//! ```text
//! oracle-node run --nodes 4 --periods 5      keys, genesis and configs in a fresh directory, then 4 nodes
//! oracle-node testnet --nodes 4 --dir D      only write D/node-0 … D/node-3
//! oracle-node start --home D/node-0          one node
//! oracle-node inspect --home D/node-0        who the node is, and the heights and app hashes in its store
//! ```

use fsmc_examples::oracle::Agent;
use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_malachite::cli::{NoArgs, NodeCli};

fn main() -> std::process::ExitCode {
    // The same behaviour as in the simulation: agent i of the service.
    NodeCli::<Spec, Agent, NoArgs>::new(|node, _| Ok(Agent::new(node.index)))
        .name("oracle-node")
        .main()
}
