//! Starting node processes and keeping track of them: each node is the node binary run directly (so its PID
//! is the node's own, and `kill -9` reaches the node, not a wrapper), with its output in files, killed when
//! its handle is dropped.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use fsmc_runtime::app::AppHash;

/// A node process. Dropping it kills the process (SIGKILL) and reaps it, so no test or supervisor leaves one
/// behind, even when it fails.
pub struct NodeProcess {
    child: Option<Child>,
    /// The node's home directory.
    pub home: PathBuf,
    /// Its standard output (the trace).
    pub stdout: PathBuf,
    /// Its standard error (the log).
    pub stderr: PathBuf,
}

impl NodeProcess {
    /// Starts `binary start --home HOME` plus `extra` arguments: see [`NodeProcess::spawn`].
    pub fn start(binary: &Path, home: &Path, extra: &[&str]) -> std::io::Result<NodeProcess> {
        let mut command = Command::new(binary);
        command.arg("start").arg("--home").arg(home).args(extra);
        Self::spawn(command, home)
    }

    /// Starts `command`, the node whose home is `home` (whatever its program's command line), its output
    /// appended to `HOME/stdout.N.log` and `HOME/stderr.N.log`, N counting the starts of this node.
    pub fn spawn(mut command: Command, home: &Path) -> std::io::Result<NodeProcess> {
        let run = (0..)
            .find(|n| !home.join(format!("stdout.{n}.log")).exists())
            .unwrap_or(0);
        let stdout = home.join(format!("stdout.{run}.log"));
        let stderr = home.join(format!("stderr.{run}.log"));
        let child = command
            .stdin(Stdio::null())
            .stdout(File::create(&stdout)?)
            .stderr(File::create(&stderr)?)
            .spawn()?;
        Ok(NodeProcess {
            child: Some(child),
            home: home.to_path_buf(),
            stdout,
            stderr,
        })
    }

    /// The process id: the node's own.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the process with SIGKILL (no chance to clean up, like a crash) and reaps it.
    pub fn kill(&mut self) -> std::io::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }

    /// The exit status if the process has ended.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        child.try_wait().ok().flatten()
    }

    /// Waits up to `limit` for the process to end by itself.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.exited() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// One line of a node's trace: a block it applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// The height.
    pub height: u64,
    /// The app hash after it.
    pub app_hash: AppHash,
    /// The period the app is in.
    pub period: u64,
    /// The keeper elected in this period, if any (its address).
    pub keeper: Option<String>,
    /// The app's state.
    pub state: String,
    /// How many transactions the block held.
    pub txs: usize,
    /// The block's time, in milliseconds after the genesis time.
    pub time_ms: u64,
}

impl TraceLine {
    /// Formats a trace line: `applied height=H app_hash=HEX period=P keeper=K state=S txs=N time=+1.234s`,
    /// then free text.
    pub fn format(&self, rest: &str) -> String {
        format!(
            "applied height={} app_hash={} period={} keeper={} state={} txs={} time=+{}.{:03}s {rest}",
            self.height,
            self.app_hash,
            self.period,
            self.keeper.as_deref().unwrap_or("-"),
            self.state,
            self.txs,
            self.time_ms / 1000,
            self.time_ms % 1000
        )
    }

    /// Parses a line written by [`TraceLine::format`]; `None` for any other line.
    pub fn parse(line: &str) -> Option<TraceLine> {
        let rest = line.strip_prefix("applied ")?;
        let field = |name: &str| {
            rest.split_whitespace()
                .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        };
        let hash = crate::signing::unhex(field("app_hash")?)?;
        Some(TraceLine {
            height: field("height")?.parse().ok()?,
            app_hash: AppHash(<[u8; 32]>::try_from(hash.as_slice()).ok()?),
            period: field("period")?.parse().ok()?,
            keeper: field("keeper").filter(|k| *k != "-").map(str::to_string),
            state: field("state")?.to_string(),
            txs: field("txs")?.parse().ok()?,
            time_ms: parse_seconds(field("time")?)?,
        })
    }
}

/// `+1.234s` in milliseconds.
fn parse_seconds(text: &str) -> Option<u64> {
    let (secs, ms) = text.strip_prefix('+')?.strip_suffix('s')?.split_once('.')?;
    if ms.len() != 3 {
        return None;
    }
    secs.parse::<u64>()
        .ok()?
        .checked_mul(1000)?
        .checked_add(ms.parse().ok()?)
}

/// How long the periods of a trace took: the heights and the block time from the first block of each period to
/// the first block of the next, for every period that began and ended in the trace (the first, which
/// includes registration, and a period without a next one are left out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Periods {
    /// Heights per period, in order.
    pub heights: Vec<u64>,
    /// Block time per period, in milliseconds, in order.
    pub ms: Vec<u64>,
    /// The block time from each height of those periods to the next, in milliseconds.
    pub height_ms: Vec<u64>,
}

impl Periods {
    /// The periods of `lines` (one node's trace, in order).
    pub fn of(lines: &[TraceLine]) -> Periods {
        let mut starts: Vec<&TraceLine> = Vec::new();
        for line in lines {
            if starts.last().is_none_or(|s| line.period > s.period) {
                starts.push(line);
            }
        }
        let mut periods = Periods::default();
        // The first start is the app's own beginning (registration), not a period boundary.
        for pair in starts.windows(2).skip(1) {
            if let [a, b] = pair {
                periods.heights.push(b.height.saturating_sub(a.height));
                periods.ms.push(b.time_ms.saturating_sub(a.time_ms));
            }
        }
        if let (Some(first), Some(last)) = (starts.get(1), starts.last()) {
            let timed: Vec<&TraceLine> = lines
                .iter()
                .filter(|l| l.height >= first.height && l.height <= last.height)
                .collect();
            for pair in timed.windows(2) {
                if let [a, b] = pair {
                    periods.height_ms.push(b.time_ms.saturating_sub(a.time_ms));
                }
            }
        }
        periods
    }

    /// The median heights per period (the upper one of an even count).
    pub fn median_heights(&self) -> Option<u64> {
        median(&self.heights)
    }

    /// The median period, in milliseconds.
    pub fn median_ms(&self) -> Option<u64> {
        median(&self.ms)
    }

    /// The median time from one height to the next, in milliseconds.
    pub fn median_height_ms(&self) -> Option<u64> {
        median(&self.height_ms)
    }
}

fn median(values: &[u64]) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied()
}

/// Every trace line in the files `paths`, in order.
pub fn read_trace(paths: &[PathBuf]) -> Vec<TraceLine> {
    let mut lines = Vec::new();
    for path in paths {
        let Ok(file) = File::open(path) else {
            continue;
        };
        lines.extend(
            BufReader::new(file)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| TraceLine::parse(&l)),
        );
    }
    lines
}

/// The trace files of the node at `home`, across its restarts, in order.
pub fn trace_files(home: &Path) -> Vec<PathBuf> {
    (0..)
        .map(|n| home.join(format!("stdout.{n}.log")))
        .take_while(|p| p.exists())
        .collect()
}
