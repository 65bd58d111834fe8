//! A node binary for any app: the command line that turns a generated app, its behaviour and its round logic
//! into one program that writes configurations, runs a node, runs a local network and inspects a store.
//!
//! ```text
//! NODE init --home DIR --index I --listen ADDR [--peer ADDR]…   one node's key and configuration
//! NODE genesis --validator KEY… --out FILE                       the genesis every node shares (with the app's
//!                                                                spec fingerprint, which `start` checks)
//! NODE testnet --nodes 4 --dir DIR                               keys, genesis and configurations for DIR/node-0 …
//! NODE testnet --hosts FILE --dir DIR                            … for one node per host of FILE (or --host H…)
//! NODE start --home DIR [--metrics ADDR] [--status ADDR] [your flags]
//!                                                                one node (with its metrics and status
//!                                                                endpoints)
//! NODE run --nodes 4 [--periods P] [-- your flags]               a local network, one process per node
//! NODE inspect --home DIR                                        the heights and app hashes in a node's store
//! ```
//!
//! [`NodeCli`] is the whole program (`main` parses the command line); a binary with a command line of its own
//! puts [`Command`] among its subcommands with `#[command(flatten)]` and hands it to [`NodeCli::run`]. The
//! behaviour is built per node, from [`NodeInfo`] (which agent of the genesis it is) and the app's own `start`
//! flags (`X`, any [`clap::Args`]; [`NoArgs`] when there are none).

mod run;
#[cfg(test)]
mod tests;
mod trace;

use clap::{Args, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use fsmc_runtime::app::{AgentId, AppSpec, Drive, NoRounds};

use crate::config::{Genesis, now_ms, save_key};
use crate::config::{Home, NodeSettings, TestnetOptions, write_json, write_testnet};
use crate::node::{run_home, stored_hashes};
use crate::signing::{PrivateKey, hex};
pub use run::RunArgs;
pub use trace::Printer;

/// An error on the way to running a node, worded for the person at the terminal.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

/// Which node a behaviour is built for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    /// Its index among the nodes of the network (`config.json`'s `index`): node-0, node-1, ….
    pub index: usize,
    /// Its agent's name in the app: the validator address of its key.
    pub agent: AgentId,
    /// Every agent of the genesis, in the app's order.
    pub agents: Vec<AgentId>,
    /// Its home directory.
    pub home: PathBuf,
}

/// The flags of an app without flags of its own.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct NoArgs {}

/// The node's commands. `X` is the app's own flags, accepted by `start` (and passed on by `run`).
#[derive(Subcommand, Clone, Debug)]
pub enum Command<X: Args> {
    /// Writes one node's key and configuration into a new home directory and prints its public key.
    Init(InitArgs),
    /// Writes the genesis every node shares, from the validators' public keys and this program's spec
    /// fingerprint.
    Genesis(GenesisArgs),
    /// Writes keys, a genesis and configurations into DIR/node-0 …: for local nodes on 127.0.0.1, or for one
    /// node per host (`--host`, `--hosts`; copy DIR/node-I to host I).
    Testnet {
        #[command(flatten)]
        net: NetArgs,
        #[command(flatten)]
        hosts: HostArgs,
        /// Where to write the nodes' home directories.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Runs one node: replays its block store, then follows consensus, printing a line per block.
    Start(StartArgs<X>),
    /// Writes a local network and runs every node as its own process, printing their traces.
    Run(RunArgs),
    /// Prints who a node is, the spec fingerprint its genesis names, and the height and app hash of every block
    /// in its store.
    Inspect {
        /// The node's home directory.
        #[arg(long)]
        home: PathBuf,
    },
}

/// `start`'s flags.
#[derive(Args, Clone, Debug)]
pub struct StartArgs<X: Args> {
    /// The node's home directory.
    #[arg(long)]
    pub home: PathBuf,
    /// The engine adapter's log level on standard error (error, warn, info, debug, trace).
    #[arg(long, default_value = "info")]
    pub log: tracing::Level,
    /// Serves Prometheus metrics at /metrics on PORT (127.0.0.1) or IP:PORT (over config.json's
    /// `metrics_addr`).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    /// Serves the node's status as JSON at /status on PORT (127.0.0.1) or IP:PORT (over config.json's
    /// `status_addr`).
    #[arg(long, value_name = "ADDR")]
    pub status: Option<String>,
    /// The app's own flags.
    #[command(flatten)]
    pub app: X,
}

/// `init`'s flags.
#[derive(Args, Clone, Debug)]
pub struct InitArgs {
    /// The new home directory (it must not hold a key yet).
    #[arg(long)]
    pub home: PathBuf,
    /// The node's index among the nodes (its behaviour may depend on it).
    #[arg(long)]
    pub index: usize,
    /// Where it listens, as a multiaddress (`/ip4/10.0.0.5/tcp/27000`).
    #[arg(long)]
    pub listen: String,
    /// Another node's address; repeat for each.
    #[arg(long = "peer")]
    pub peers: Vec<String>,
    /// The least time a height takes, in milliseconds (0: as fast as consensus goes).
    #[arg(long, default_value_t = 500)]
    pub block_interval_ms: u64,
}

/// `genesis`'s flags.
#[derive(Args, Clone, Debug)]
pub struct GenesisArgs {
    /// A validator's public key, as `init` printed it; repeat for each.
    #[arg(long = "validator", required = true)]
    pub validators: Vec<String>,
    /// The chain id.
    #[arg(long)]
    pub chain_id: String,
    /// Where to write it (copy it into every home as `genesis.json`).
    #[arg(long)]
    pub out: PathBuf,
    /// Periods of synchronized data each replica keeps.
    #[arg(long, default_value_t = 3)]
    pub history_depth: usize,
}

/// How to lay out a local network (`testnet`, `run`).
#[derive(Args, Clone, Debug)]
pub struct NetArgs {
    /// How many nodes (agent instances) on 127.0.0.1; `testnet` with hosts writes one per host instead.
    #[arg(long, default_value_t = 4)]
    pub nodes: usize,
    /// The least time a height takes, in milliseconds (0: as fast as consensus goes).
    #[arg(long, default_value_t = 500)]
    pub block_interval_ms: u64,
    /// How long a round waits for its proposal, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    pub timeout_propose_ms: u64,
    /// At block interval 0, the longest the next proposer waits for the payloads of a new round, in milliseconds.
    #[arg(long, default_value_t = NodeSettings::DEFAULT_TX_WAIT_MS)]
    pub tx_wait_ms: u64,
    /// The first of N consecutive ports on 127.0.0.1 (default: free ports chosen by the system).
    #[arg(long)]
    pub base_port: Option<u16>,
    /// The chain id (default: the program's name).
    #[arg(long)]
    pub chain_id: Option<String>,
}

/// `testnet`'s flags for a network of several hosts.
#[derive(Args, Clone, Debug, Default)]
pub struct HostArgs {
    /// A node's host as HOST or HOST:PORT (an IPv4 address, [IPv6] or a DNS name; the port defaults to
    /// --base-port, or 27000); repeat for each node, in order. The network then has one node per host.
    #[arg(long = "host", value_name = "HOST[:PORT]")]
    pub hosts: Vec<String>,
    /// A file of hosts, one HOST[:PORT] a line (blank lines and lines from `#` on ignored), after any --host.
    #[arg(long = "hosts", value_name = "FILE")]
    pub hosts_file: Option<PathBuf>,
    /// Every node listens on all its interfaces (0.0.0.0), as in a container, rather than on its host's own
    /// address.
    #[arg(long)]
    pub listen_any: bool,
}

impl HostArgs {
    /// The hosts of `--host` and of the `--hosts` file, in order.
    fn hosts(&self) -> Result<Vec<String>, CliError> {
        let mut hosts = self.hosts.clone();
        if let Some(path) = &self.hosts_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the hosts file {}: {e}", path.display()))?;
            hosts.extend(
                text.lines()
                    .map(|l| l.split('#').next().unwrap_or_default().trim())
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned),
            );
        }
        Ok(hosts)
    }
}

impl NetArgs {
    fn options(&self, name: &str, spec_fingerprint: [u8; 32]) -> TestnetOptions {
        TestnetOptions {
            spec_fingerprint,
            nodes: self.nodes,
            chain_id: self.chain_id.clone().unwrap_or_else(|| name.to_string()),
            block_interval_ms: self.block_interval_ms,
            timeout_propose_ms: self.timeout_propose_ms,
            tx_wait_ms: self.tx_wait_ms,
            base_port: self.base_port,
            hosts: Vec::new(),
            listen_any: false,
        }
    }
}

// The whole command line of a program that has none of its own.
#[derive(Parser)]
struct Cli<X: Args> {
    #[command(subcommand)]
    command: Command<X>,
}

type Factory<B, X> = dyn Fn(&NodeInfo, &X) -> Result<B, CliError>;

/// A node program for the app `S` with the behaviour `B`: `NodeCli::<Spec, Agent>::new(…).main()`.
pub struct NodeCli<S: AppSpec, B, X: Args = NoArgs> {
    name: String,
    logic: Arc<S::Logic>,
    behaviour: Box<Factory<B, X>>,
    start: Vec<OsString>,
}

impl<S: Drive<B> + AppSpec<Logic = NoRounds>, B: Send + Sync + 'static, X: Args> NodeCli<S, B, X> {
    /// A program for an app without custom rounds; `behaviour` builds each node's behaviour.
    pub fn new(
        behaviour: impl Fn(&NodeInfo, &X) -> Result<B, CliError> + 'static,
    ) -> NodeCli<S, B, X> {
        NodeCli::with_rounds(Arc::new(NoRounds), behaviour)
    }
}

impl<S: Drive<B>, B: Send + Sync + 'static, X: Args> NodeCli<S, B, X> {
    /// A program for an app whose custom rounds `logic` decides (the same logic on every node).
    pub fn with_rounds(
        logic: Arc<S::Logic>,
        behaviour: impl Fn(&NodeInfo, &X) -> Result<B, CliError> + 'static,
    ) -> NodeCli<S, B, X> {
        let name = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| S::NAME.to_string());
        NodeCli {
            name,
            logic,
            behaviour: Box::new(behaviour),
            start: vec!["start".into()],
        }
    }

    /// The program's name in help and errors, and the default chain id (default: the executable's name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The arguments that reach `start` in this program, for `run` to start its nodes with (default
    /// `["start"]`; `["node", "start"]` when [`Command`] sits under a `node` subcommand of the program's own).
    pub fn start_command(mut self, args: &[&str]) -> Self {
        self.start = args.iter().map(OsString::from).collect();
        self
    }

    /// Parses the process's command line and runs the command; errors go to standard error.
    pub fn main(self) -> ExitCode {
        self.main_from(std::env::args_os())
    }

    /// Parses `args` (the program's name first) and runs the command.
    pub fn main_from(self, args: impl IntoIterator<Item = OsString>) -> ExitCode {
        let about = format!(
            "A node of the app {} on the Malachite BFT engine (Tendermint consensus)",
            S::NAME
        );
        let command = <Cli<X> as clap::CommandFactory>::command()
            .bin_name(self.name.clone())
            .about(about);
        let parsed = command
            .try_get_matches_from(args)
            .and_then(|m| Cli::<X>::from_arg_matches(&m));
        match parsed {
            Ok(cli) => self.report(self.run(cli.command)),
            Err(e) => {
                let _ = e.print();
                ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
            }
        }
    }

    fn report(&self, result: Result<(), CliError>) -> ExitCode {
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: error: {e}", self.name);
                ExitCode::FAILURE
            }
        }
    }

    /// Runs one command.
    pub fn run(&self, command: Command<X>) -> Result<(), CliError> {
        match command {
            Command::Init(args) => init(&args),
            Command::Genesis(args) => genesis(&args, S::FINGERPRINT),
            Command::Testnet { net, hosts, dir } => {
                let mut options = net.options(&self.name, S::FINGERPRINT);
                options.hosts = hosts.hosts()?;
                options.listen_any = hosts.listen_any;
                for home in write_testnet(&dir, &options)? {
                    println!("{}", home.display());
                }
                Ok(())
            }
            Command::Start(args) => self.start(&args),
            Command::Run(args) => run::run(&self.name, &self.start, &args, S::FINGERPRINT),
            Command::Inspect { home } => inspect(&home, &S::FINGERPRINT),
        }
    }

    /// Runs the node at `args.home` until it halts or is killed: loads its home, builds its behaviour, prints a
    /// line per block.
    pub fn start(&self, args: &StartArgs<X>) -> Result<(), CliError> {
        crate::init_logging(args.log);
        let mut home = Home::load(&args.home)?;
        if args.metrics.is_some() {
            home.settings.metrics_addr.clone_from(&args.metrics);
        }
        if args.status.is_some() {
            home.settings.status_addr.clone_from(&args.status);
        }
        let info = NodeInfo {
            index: home.settings.index,
            agent: home.key.public_key().address().to_string(),
            agents: home.agents()?,
            home: args.home.clone(),
        };
        let behaviour = (self.behaviour)(&info, &args.app)?;
        let mut printer = Printer::new(home.genesis.genesis_time_ms);
        run_home::<S, B>(
            &home,
            Arc::new(behaviour),
            Arc::clone(&self.logic),
            &mut printer,
        )?;
        Ok(())
    }
}

/// `init`: a key and a configuration; the genesis comes later, from every node's public key.
fn init(args: &InitArgs) -> Result<(), CliError> {
    let key_path = args.home.join("node_key.json");
    if key_path.exists() {
        return Err(format!("{} exists already; choose a new home", key_path.display()).into());
    }
    std::fs::create_dir_all(&args.home)
        .map_err(|e| format!("cannot create {}: {e}", args.home.display()))?;
    let key = PrivateKey::generate().map_err(|e| format!("no randomness for a key: {e}"))?;
    let mut settings =
        NodeSettings::local(args.index, 0, args.peers.clone(), args.block_interval_ms);
    settings.listen_addr.clone_from(&args.listen);
    settings.engine_config()?;
    save_key(&key_path, &key)?;
    write_json(&args.home.join("config.json"), &settings)?;
    println!("public_key={}", hex(&key.public_key().0));
    println!("address={}", key.public_key().address());
    Ok(())
}

/// `genesis`: the validators' public keys and the chain's name, checked, starting now, for the app whose spec
/// fingerprint is `fingerprint` (this program's).
fn genesis(args: &GenesisArgs, fingerprint: [u8; 32]) -> Result<(), CliError> {
    let genesis = Genesis {
        chain_id: args.chain_id.clone(),
        genesis_time_ms: now_ms(),
        validators: args.validators.clone(),
        history_depth: args.history_depth,
        spec_fingerprint: Some(hex(&fingerprint)),
    };
    genesis.check()?;
    write_json(&args.out, &genesis)?;
    println!("{}", args.out.display());
    Ok(())
}

/// `inspect`: who the node is and the spec fingerprint its genesis names, then `height=H app_hash=HASH` per
/// stored block. A genesis of another spec than this program's (`fingerprint`) is said on standard error: the
/// store is still shown, but `start` would refuse it. Output cut short by its reader (`| head`) is not an
/// error.
fn inspect(home: &std::path::Path, fingerprint: &[u8; 32]) -> Result<(), CliError> {
    let loaded = Home::load(home)?;
    let hashes = stored_hashes(home)?;
    if let Err(mismatch) = loaded.genesis.check_spec(fingerprint) {
        eprintln!("note: `start` would refuse this home: {mismatch}");
    }
    let mut out = std::io::stdout().lock();
    let written = writeln!(
        out,
        "node={} index={} chain_id={} validators={} spec_fingerprint={}",
        loaded.key.public_key().address(),
        loaded.settings.index,
        loaded.genesis.chain_id,
        loaded.genesis.validators.len(),
        loaded.genesis.spec_fingerprint.as_deref().unwrap_or("none")
    )
    .and_then(|()| {
        hashes
            .iter()
            .try_for_each(|(height, hash)| writeln!(out, "height={height} app_hash={hash}"))
    });
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
