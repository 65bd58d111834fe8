//! The price oracle (`specs/oracle/oracle.fsm`) as one OS process per agent instance, replicated over the
//! Malachite BFT engine: the same generated app and the same behaviours as the simulation in `fsmc-examples`,
//! only the engine differs.
//!
//! ```text
//! oracle-node run --nodes 4                  keys, genesis and configs in a fresh directory, then 4 nodes
//! oracle-node testnet --nodes 4 --dir D      only write D/node-0 … D/node-3
//! oracle-node start --home D/node-0          one node
//! oracle-node start --home D/node-0 --price-source http://127.0.0.1:PORT/price
//!                                            one node fetching its observations over HTTP
//! oracle-node inspect --home D/node-0        the heights and app hashes in a node's block store
//! ```

use clap::{Parser, Subcommand};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use fsmc_examples::oracle::Agent;
use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_examples::oracle::sources::{PriceFeed, TIMEOUT_MS};
use fsmc_malachite::config::{Home, TestnetOptions, write_testnet};
use fsmc_malachite::launch::{NodeProcess, TraceLine};
use fsmc_malachite::{Observer, run_node, stored_hashes};
use fsmc_runtime::app::NoRounds;
use fsmc_runtime::app::{Acted, App, AppHash, BlockReport};
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "oracle-node",
    about = "The oracle app replicated over the Malachite BFT engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct NetArgs {
    /// How many nodes (agent instances).
    #[arg(long, default_value_t = 4)]
    nodes: usize,
    /// The least time a height takes, in milliseconds (0: as fast as consensus goes).
    #[arg(long, default_value_t = 500)]
    block_interval_ms: u64,
    /// How long a round waits for its proposal, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    timeout_propose_ms: u64,
    /// The first of N consecutive ports on 127.0.0.1 (default: free ports chosen by the system).
    #[arg(long)]
    base_port: Option<u16>,
    /// The chain id.
    #[arg(long, default_value = "fsmc-oracle")]
    chain_id: String,
}

impl NetArgs {
    fn options(&self) -> TestnetOptions {
        TestnetOptions {
            nodes: self.nodes,
            chain_id: self.chain_id.clone(),
            block_interval_ms: self.block_interval_ms,
            timeout_propose_ms: self.timeout_propose_ms,
            base_port: self.base_port,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Writes keys, a genesis and configurations for local nodes on 127.0.0.1 into DIR/node-0 … .
    Testnet {
        #[command(flatten)]
        net: NetArgs,
        /// Where to write the nodes' home directories.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Runs one node: replays its block store, then follows consensus, printing a line per block.
    Start {
        /// The node's home directory.
        #[arg(long)]
        home: PathBuf,
        /// This crate's log level on standard error (error, warn, info, debug, trace).
        #[arg(long, default_value = "info")]
        log: tracing::Level,
        /// Fetch this agent's observations over HTTP from the price source at this URL
        /// (`http://IP:PORT/price`, as `--example price_sources` serves) instead of the simulated feed; the agent
        /// abstains when the source fails or does not answer in time.
        #[arg(long)]
        price_source: Option<String>,
    },
    /// Writes a local network and runs every node as its own process, printing their traces live.
    Run {
        #[command(flatten)]
        net: NetArgs,
        /// Where to put the nodes' home directories (default: a new directory under the system's temp dir).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Stops once every node has completed this many periods (default: runs until interrupted).
        #[arg(long)]
        periods: Option<u64>,
        /// The nodes' log level (their logs go to each home's stderr.N.log).
        #[arg(long, default_value = "info")]
        log: tracing::Level,
    },
    /// Prints the height and app hash of every block in a node's store.
    Inspect {
        /// The node's home directory.
        #[arg(long)]
        home: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Testnet { net, dir } => testnet(&net, &dir),
        Command::Start {
            home,
            log,
            price_source,
        } => start(&home, log, price_source.as_deref()),
        Command::Run {
            net,
            dir,
            periods,
            log,
        } => run(&net, dir, periods, log),
        Command::Inspect { home } => inspect(&home),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn testnet(net: &NetArgs, dir: &Path) -> Result<()> {
    let homes = write_testnet(dir, &net.options())?;
    for home in homes {
        println!("{}", home.display());
    }
    Ok(())
}

/// Prints one trace line per applied block.
struct Printer {
    genesis_ms: u64,
}

impl Observer<Spec> for Printer {
    fn replayed(&mut self, height: u64, app_hash: AppHash) {
        println!("replayed height={height} app_hash={app_hash}");
    }

    fn applied(&mut self, app: &App<Spec>, report: &BlockReport<Spec>) {
        let state = report.steps.last().map_or(app.state(), |s| s.to);
        let line = TraceLine {
            height: report.height,
            app_hash: report.app_hash,
            period: app.period(),
            keeper: app.keeper().cloned(),
            state: state.to_string(),
            txs: report.accepted + report.rejected.len(),
        };
        let mut rest = format!(
            "time=+{:.2}s rejected={}",
            report.time_ms.saturating_sub(self.genesis_ms) as f64 / 1000.0,
            report.rejected.len()
        );
        for step in &report.steps {
            let _ = write!(rest, " {}-{}->{}", step.from, step.event, step.to);
        }
        println!("{}", line.format(&rest));
    }

    fn acted(&mut self, _: &App<Spec>, acted: &Acted) {
        match acted {
            Acted::Submitted { .. } => {}
            Acted::Abstained { round, reason } => {
                println!("acted round={round} abstained: {reason}")
            }
            Acted::Panicked { round, message } => {
                println!("acted round={round} panicked: {message}")
            }
            Acted::Cancelled { round } => println!("acted round={round} cancelled"),
        }
    }
}

fn start(home: &Path, log: tracing::Level, price_source: Option<&str>) -> Result<()> {
    fsmc_malachite::init_logging(log);
    let config = Home::load(home)?;
    // The same behaviour as in the simulation: agent i of the service, observing the simulated feed or an HTTP
    // source (its requests run on the engine's runtime, where the node polls behaviours).
    let mut agent = Agent::new(config.settings.index);
    if let Some(url) = price_source {
        agent = agent.with_feed(PriceFeed::new(url, Duration::from_millis(TIMEOUT_MS))?);
    }
    let agent = Arc::new(agent);
    let mut printer = Printer {
        genesis_ms: config.genesis.genesis_time_ms,
    };
    run_node::<Spec, Agent>(home, agent, Arc::new(NoRounds), &mut printer)?;
    Ok(())
}

fn inspect(home: &Path) -> Result<()> {
    for (height, hash) in stored_hashes(home)? {
        println!("height={height} app_hash={hash}");
    }
    Ok(())
}

/// Follows a node's trace file as it grows.
struct Tail {
    name: String,
    reader: Option<BufReader<std::fs::File>>,
    path: PathBuf,
    last: Option<TraceLine>,
}

impl Tail {
    fn poll(&mut self, out: &mut impl FnMut(&str, &str)) {
        if self.reader.is_none() {
            self.reader = std::fs::File::open(&self.path).ok().map(BufReader::new);
        }
        let Some(reader) = self.reader.as_mut() else {
            return;
        };
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if !line.ends_with('\n') => {
                    // A line still being written: read it again whole next time.
                    let back = i64::try_from(line.len()).unwrap_or(0);
                    let _ = reader.seek(SeekFrom::Current(-back));
                    return;
                }
                Ok(_) => {
                    let text = line.trim_end();
                    if let Some(t) = TraceLine::parse(text) {
                        self.last = Some(t);
                    }
                    out(&self.name, text);
                }
            }
        }
    }
}

/// A human line for a trace line: `#12 +3.20s period 1 4 txs State -EVENT-> State ab12cd34`.
fn pretty(line: &str) -> String {
    let Some(t) = TraceLine::parse(line) else {
        return line.to_string();
    };
    let field = |name: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .unwrap_or("")
            .to_string()
    };
    let steps: Vec<&str> = line
        .split_whitespace()
        .filter(|w| w.contains("->"))
        .collect();
    format!(
        "#{:<5} {:>9}  period {:<3} {:>2} txs  {:<34} {}",
        t.height,
        field("time"),
        t.period,
        t.txs,
        if steps.is_empty() {
            format!("({})", t.state)
        } else {
            steps.join(", ")
        },
        t.app_hash.short(4)
    )
}

fn run(
    net: &NetArgs,
    dir: Option<PathBuf>,
    periods: Option<u64>,
    log: tracing::Level,
) -> Result<()> {
    let dir = match dir {
        Some(dir) => dir,
        None => {
            let stamp = fsmc_malachite::config::now_ms();
            std::env::temp_dir().join(format!("fsmc-oracle-{}-{stamp}", std::process::id()))
        }
    };
    let homes = write_testnet(&dir, &net.options())?;
    println!(
        "{} nodes in {} (logs in each node's stderr.0.log)",
        homes.len(),
        dir.display()
    );
    let binary = std::env::current_exe()?;
    // Dropping the processes kills them: on an error, on the end of the run, and on Ctrl-C (which the
    // terminal also sends to the children).
    let mut nodes = Vec::new();
    for home in &homes {
        let level = log.to_string();
        let node = NodeProcess::start(&binary, home, &["--log", &level])?;
        println!(
            "started {} (pid {})",
            home.display(),
            node.pid().unwrap_or_default()
        );
        nodes.push(node);
    }
    let mut tails: Vec<Tail> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| Tail {
            name: format!("node-{i}"),
            reader: None,
            path: n.stdout.clone(),
            last: None,
        })
        .collect();
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        for tail in &mut tails {
            tail.poll(&mut |name, line| println!("{name}  {}", pretty(line)));
        }
        for (i, node) in nodes.iter_mut().enumerate() {
            if let Some(status) = node.exited() {
                let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                return Err(format!(
                    "node-{i} exited ({status}); last log lines:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
                .into());
            }
        }
        if let Some(periods) = periods {
            let done = tails
                .iter()
                .all(|t| t.last.as_ref().is_some_and(|l| l.period >= periods));
            if done {
                let heights: Vec<u64> = tails
                    .iter()
                    .filter_map(|t| t.last.as_ref().map(|l| l.height))
                    .collect();
                let top = heights.iter().copied().max().unwrap_or(0);
                let secs = started.elapsed().as_secs_f64();
                println!(
                    "every node completed {periods} periods: height {top} in {secs:.1}s ({:.2} heights/s)",
                    top as f64 / secs
                );
                return Ok(());
            }
        }
    }
}
