//! `run`: a local network of this very program, one process per node, their traces followed live, and at the
//! end how long the app's periods took by the nodes' own block times.

use clap::Args;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{CliError, NetArgs};
use crate::config::{now_ms, write_testnet};
use crate::launch::{NodeProcess, Periods, TraceLine, read_trace};

/// `run`'s flags.
#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub net: NetArgs,
    /// Where to put the nodes' home directories (default: a new directory under the system's temp dir).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Stops once every node has completed this many periods (default: runs until interrupted).
    #[arg(long)]
    pub periods: Option<u64>,
    /// Fails if the run has not ended after this many seconds.
    #[arg(long)]
    pub timeout: Option<u64>,
    /// The nodes' log level (their logs go to each home's stderr.N.log).
    #[arg(long, default_value = "info")]
    pub log: tracing::Level,
    /// Only the summary and errors, not every node's trace.
    #[arg(long)]
    pub quiet: bool,
    /// Arguments for every node's `start` (the app's own flags), after `--`.
    #[arg(last = true)]
    pub start_args: Vec<OsString>,
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

/// A human line for a trace line: `#12     +3.204s  period 1   4 txs  State-EVENT->State  ab12cd34`; any
/// other line as it is.
fn pretty(line: &str) -> String {
    let Some(t) = TraceLine::parse(line) else {
        return line.to_string();
    };
    let steps: Vec<&str> = line
        .split_whitespace()
        .filter(|w| w.contains("->"))
        .collect();
    format!(
        "#{:<5} {:>5}.{:03}s  period {:<3} {:>2} txs  {:<34} {}",
        t.height,
        format!("+{}", t.time_ms / 1000),
        t.time_ms % 1000,
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

/// Writes the network, starts the nodes (`program START… --home HOME --log LEVEL START_ARGS…`), follows them.
/// The genesis names the app's spec fingerprint `fingerprint`.
pub(super) fn run(
    name: &str,
    start: &[OsString],
    args: &RunArgs,
    fingerprint: [u8; 32],
) -> Result<(), CliError> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("{name}-{}-{}", std::process::id(), now_ms())),
    };
    let homes = write_testnet(&dir, &args.net.options(name, fingerprint))?;
    println!(
        "{} nodes in {} (logs in each node's stderr.0.log)",
        homes.len(),
        dir.display()
    );
    let program = std::env::current_exe()?;
    // Dropping the processes kills them: on an error, at the end of the run, and on Ctrl-C (which the
    // terminal also sends to the children).
    let mut nodes = Vec::new();
    for home in &homes {
        let mut command = Command::new(&program);
        command
            .args(start)
            .arg("--home")
            .arg(home)
            .arg("--log")
            .arg(args.log.to_string())
            .args(&args.start_args);
        let node = NodeProcess::spawn(command, home)?;
        if !args.quiet {
            println!(
                "started {} (pid {})",
                home.display(),
                node.pid().unwrap_or_default()
            );
        }
        nodes.push(node);
    }
    let tails = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| Tail {
            name: format!("node-{i}"),
            reader: None,
            path: n.stdout.clone(),
            last: None,
        })
        .collect();
    follow(&mut nodes, tails, args)
}

/// Prints the nodes' traces until every node has completed `args.periods` periods, a node exits, or the
/// timeout passes.
fn follow(nodes: &mut [NodeProcess], mut tails: Vec<Tail>, args: &RunArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let mut out = std::io::stdout();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let mut closed = false;
        for tail in &mut tails {
            tail.poll(&mut |name, line| {
                if !args.quiet && !closed {
                    closed = writeln!(out, "{name}  {}", pretty(line)).is_err();
                }
            });
        }
        if closed {
            // Whoever read the traces stopped reading (`| head`): the run ends with them.
            return Ok(());
        }
        for (i, node) in nodes.iter_mut().enumerate() {
            if let Some(status) = node.exited() {
                let log = std::fs::read_to_string(&node.stderr).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                return Err(format!(
                    "node-{i} exited ({status}); last log lines:\n{}",
                    tail.join("\n")
                )
                .into());
            }
        }
        if let Some(periods) = args.periods {
            let done = tails
                .iter()
                .all(|t| t.last.as_ref().is_some_and(|l| l.period >= periods));
            if done {
                summary(nodes, periods, started.elapsed());
                return Ok(());
            }
        }
        if let Some(limit) = args.timeout
            && started.elapsed() >= Duration::from_secs(limit)
        {
            return Err(format!("the run did not end within {limit} s").into());
        }
    }
}

/// Heights, wall time, and the periods by node-0's block times.
fn summary(nodes: &[NodeProcess], periods: u64, wall: Duration) {
    let traces: Vec<Vec<TraceLine>> = nodes
        .iter()
        .map(|n| read_trace(std::slice::from_ref(&n.stdout)))
        .collect();
    let top = traces
        .iter()
        .filter_map(|t| t.last().map(|l| l.height))
        .max()
        .unwrap_or(0);
    let secs = wall.as_secs_f64();
    println!(
        "every node completed {periods} periods: height {top} in {secs:.1}s ({:.2} heights/s)",
        top as f64 / secs
    );
    let timed = Periods::of(traces.first().map_or(&[][..], Vec::as_slice));
    if let (Some(heights), Some(ms), Some(per_height)) = (
        timed.median_heights(),
        timed.median_ms(),
        timed.median_height_ms(),
    ) {
        println!(
            "periods after the first, by node-0's block times: {} timed; median {heights} heights and {ms} ms \
             a period, {per_height} ms a height",
            timed.heights.len()
        );
    }
}
