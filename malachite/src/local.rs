//! A local network of node processes under a test's or a demonstration's control: written into a fresh
//! directory, nodes started, killed with SIGKILL and restarted one by one, their traces read back, waits with
//! deadlines, and the committed hash sequences compared. Dropping it kills every node; the directory is removed
//! then, unless the thread is panicking, when every node's last log lines are printed and the directory is
//! kept for a look.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fsmc_runtime::app::AppHash;

use crate::config::{ConfigError, TestnetOptions, now_ms, write_testnet};
use crate::launch::{NodeProcess, TraceLine, read_trace, trace_files};

/// Tells apart the networks one process writes in the same millisecond.
static NETWORKS: AtomicU64 = AtomicU64::new(0);

/// Node processes of one program on 127.0.0.1.
pub struct LocalNet {
    dir: PathBuf,
    program: PathBuf,
    start: Vec<OsString>,
    homes: Vec<PathBuf>,
    nodes: Vec<Option<NodeProcess>>,
    started: Instant,
    budget: Duration,
}

impl LocalNet {
    /// Writes a network laid out by `options` into a new directory under the system's temporary directory
    /// (named after `name`), for the node program `program`, whose nodes start with `start` (`["start"]` for a
    /// `NodeCli` program) followed by `--home HOME`. Every wait fails once `budget` has passed since now.
    pub fn new(
        name: &str,
        program: &Path,
        start: &[&str],
        options: &TestnetOptions,
        budget: Duration,
    ) -> Result<LocalNet, ConfigError> {
        let n = NETWORKS.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("{name}-{}-{}-{n}", std::process::id(), now_ms()));
        let homes = write_testnet(&dir, options)?;
        Ok(LocalNet {
            dir,
            program: program.to_path_buf(),
            start: start.iter().map(OsString::from).collect(),
            nodes: homes.iter().map(|_| None).collect(),
            homes,
            started: Instant::now(),
            budget,
        })
    }

    /// The nodes' home directories, node-0 first.
    pub fn homes(&self) -> &[PathBuf] {
        &self.homes
    }

    /// Node `i`'s process, while it runs.
    pub fn node(&mut self, i: usize) -> Option<&mut NodeProcess> {
        self.nodes.get_mut(i).and_then(Option::as_mut)
    }

    /// Starts node `i` with `extra` arguments after its home.
    pub fn start(&mut self, i: usize, extra: &[&str]) -> std::io::Result<()> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.start)
            .arg("--home")
            .arg(&self.homes[i])
            .args(extra);
        self.spawn(i, command)
    }

    /// Starts `command` as node `i` (a node of another program, say): it must run the node at `homes()[i]`.
    pub fn spawn(&mut self, i: usize, command: Command) -> std::io::Result<()> {
        self.nodes[i] = Some(NodeProcess::spawn(command, &self.homes[i])?);
        Ok(())
    }

    /// Starts every node.
    pub fn start_all(&mut self) -> std::io::Result<()> {
        (0..self.homes.len()).try_for_each(|i| self.start(i, &[]))
    }

    /// `kill -9` of node `i`'s own process (nothing when it is not running); it is reaped.
    pub fn kill(&mut self, i: usize) -> std::io::Result<()> {
        match self.nodes[i].take() {
            Some(mut node) => node.kill(),
            None => Ok(()),
        }
    }

    /// Kills every node.
    pub fn stop_all(&mut self) {
        for node in self.nodes.iter_mut().filter_map(Option::take) {
            drop(node);
        }
    }

    /// Every block node `i` printed, across its restarts, in order.
    pub fn trace(&self, i: usize) -> Vec<TraceLine> {
        read_trace(&trace_files(&self.homes[i]))
    }

    /// The last block node `i` printed.
    pub fn last(&self, i: usize) -> Option<TraceLine> {
        self.trace(i).pop()
    }

    /// The height node `i` last printed (0 before any).
    pub fn height(&self, i: usize) -> u64 {
        self.last(i).map_or(0, |l| l.height)
    }

    /// The period node `i`'s app was in at its last block.
    pub fn period(&self, i: usize) -> u64 {
        self.last(i).map_or(0, |l| l.period)
    }

    /// Polls `done` every 100 ms until it holds, and returns how long that took; an error when a running node
    /// exits, after `limit`, or once the network's budget is spent.
    pub fn wait(
        &mut self,
        what: &str,
        limit: Duration,
        mut done: impl FnMut(&LocalNet) -> bool,
    ) -> Result<Duration, String> {
        let start = Instant::now();
        let limit = limit.min(self.budget.saturating_sub(self.started.elapsed()));
        loop {
            for (i, node) in self.nodes.iter_mut().enumerate() {
                if let Some(status) = node.as_mut().and_then(NodeProcess::exited) {
                    return Err(format!(
                        "node-{i} exited ({status}) while waiting until {what}"
                    ));
                }
            }
            if done(self) {
                return Ok(start.elapsed());
            }
            if start.elapsed() >= limit {
                let heights: Vec<u64> = (0..self.homes.len()).map(|i| self.height(i)).collect();
                return Err(format!(
                    "timed out after {limit:?} waiting until {what}; heights {heights:?}"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The seconds since the network was written, for progress lines.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Prints the last `lines` lines of every log file of every node on standard error.
    pub fn print_logs(&self, lines: usize) {
        for home in &self.homes {
            let mut logs: Vec<PathBuf> = std::fs::read_dir(home)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "log"))
                .collect();
            logs.sort();
            for path in logs {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let all: Vec<&str> = text.lines().collect();
                let tail = all.len().saturating_sub(lines);
                eprintln!("===== {} (last {} lines)", path.display(), all.len() - tail);
                for line in &all[tail..] {
                    eprintln!("{line}");
                }
            }
        }
    }
}

impl Drop for LocalNet {
    fn drop(&mut self) {
        self.stop_all();
        if std::thread::panicking() {
            self.print_logs(40);
            eprintln!("kept {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A node's committed (height, app hash) sequence from its trace lines (or its store's), checked: it starts at
/// 1, has no gap, and no height twice with two hashes. `who` names the node in the error.
pub fn sequence(lines: &[TraceLine], who: &str) -> Result<BTreeMap<u64, AppHash>, String> {
    let seq = hashes(lines, who)?;
    let first = seq.first_key_value().map(|(&h, _)| h);
    let last = seq.last_key_value().map(|(&h, _)| h);
    if first.is_some_and(|h| h != 1) || last.is_some_and(|h| h != seq.len() as u64) {
        return Err(format!("{who}: heights are not 1, 2, 3, … without gaps"));
    }
    Ok(seq)
}

/// The (height, app hash) pairs of a node's trace lines (or its store's), checked only that no height comes
/// twice with two hashes: the heights of a node whose history starts at a snapshot, or whose store pruned the
/// blocks below one. `who` names the node in the error.
pub fn hashes(lines: &[TraceLine], who: &str) -> Result<BTreeMap<u64, AppHash>, String> {
    let mut seq = BTreeMap::new();
    for l in lines {
        if let Some(old) = seq.insert(l.height, l.app_hash)
            && old != l.app_hash
        {
            return Err(format!(
                "{who} committed height {} twice with two hashes",
                l.height
            ));
        }
    }
    Ok(seq)
}

/// Checks that every pair of sequences agrees wherever both have a height; returns how many heights all of
/// them have.
pub fn agree(seqs: &[BTreeMap<u64, AppHash>]) -> Result<usize, String> {
    for (i, a) in seqs.iter().enumerate() {
        for (j, b) in seqs.iter().enumerate().skip(i + 1) {
            for (h, hash) in a {
                if b.get(h).is_some_and(|other| other != hash) {
                    return Err(format!("node-{i} and node-{j} differ at height {h}"));
                }
            }
        }
    }
    Ok(seqs.iter().map(BTreeMap::len).min().unwrap_or(0))
}

/// The (height, app hash) pairs of a node's store as trace lines, for [`sequence`].
pub fn stored_lines(stored: &[(u64, AppHash)]) -> Vec<TraceLine> {
    stored
        .iter()
        .map(|&(height, app_hash)| TraceLine {
            height,
            app_hash,
            period: 0,
            keeper: None,
            state: String::new(),
            txs: 0,
            time_ms: 0,
        })
        .collect()
}
