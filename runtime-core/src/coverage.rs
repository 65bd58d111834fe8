//! Spec coverage: which transitions of a spec a run took, and how often.
//!
//! Every generated machine has a `COVERAGE` static, one counter per transition of its spec (its [`Site`]:
//! source, event, target), counted where the transition is taken: in `State::next` for a transition its event
//! decides, in `State::fire` for a guarded one, in the replicated app for a round's decision or timeout (they go
//! through `next`), in the staged environment for a stage's move. [`write_snapshot`] writes what this process
//! counted so far into `$FSMC_COVERAGE_DIR`, one file per process; `fsmc coverage` merges such files and maps
//! each transition to its line of the `.fsm` spec, as LCOV and as a summary table.
//!
//! Off (the `coverage` feature is off, the default), [`Counters`] has no field and [`Counters::hit`] does
//! nothing: the counting calls compile to nothing, and dispatch runs as fast as without them. On, a hit is one
//! load and one store of a relaxed atomic, not a read-modify-write: two threads taking the same transition at
//! the same instant may count it once, never zero times. The first hit of a transition registers its machine
//! for [`write_snapshot`] (once).

#[cfg(feature = "coverage")]
use std::sync::Mutex;
#[cfg(feature = "coverage")]
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One transition of a spec, as coverage names it: `fsmc coverage` finds it in the spec by these names (the
/// `n`-th of the transitions with the same three, for guarded alternatives).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The source state's name in the spec.
    pub from: &'static str,
    /// The event's name; `-` for a staged machine's move, which no event makes.
    pub event: &'static str,
    /// The target state's name.
    pub to: &'static str,
    /// Among the transitions with the same source, event and target, which one (0 for the first written).
    pub n: u32,
}

/// The counters of one machine's transitions: `N` is one more than the sites, the last counter a spare where a
/// hit of an index past the sites counts (a refused event's, in a dense table), so that choosing a counter is a
/// `min`, not a branch a refused event would be mispredicted on.
#[cfg(feature = "coverage")]
pub struct Counters<const N: usize> {
    machine: &'static str,
    sites: &'static [Site],
    counts: [AtomicU64; N],
    registered: AtomicBool,
}

/// The counters of one machine's transitions: with the `coverage` feature off, nothing.
#[cfg(not(feature = "coverage"))]
pub struct Counters<const N: usize>;

/// Every machine whose counters counted something, for [`write_snapshot`].
#[cfg(feature = "coverage")]
static REGISTRY: Mutex<Vec<&'static dyn Report>> = Mutex::new(Vec::new());

/// What the registry reads from a machine's counters, whatever their size.
#[cfg(feature = "coverage")]
trait Report: Sync {
    fn lines(&self, out: &mut String);
}

#[cfg(feature = "coverage")]
impl<const N: usize> Report for Counters<N> {
    fn lines(&self, out: &mut String) {
        for (site, count) in self.counts() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\n",
                self.machine, site.from, site.event, site.to, site.n, count
            ));
        }
    }
}

impl<const N: usize> Counters<N> {
    /// Counters for machine `machine`'s transitions `sites` (`N` is one more), all zero.
    #[cfg(feature = "coverage")]
    pub const fn new(machine: &'static str, sites: &'static [Site]) -> Self {
        Counters {
            machine,
            sites,
            counts: [const { AtomicU64::new(0) }; N],
            registered: AtomicBool::new(false),
        }
    }

    /// Counters for machine `machine`'s transitions: with the feature off, nothing is kept.
    #[cfg(not(feature = "coverage"))]
    pub const fn new(machine: &'static str, sites: &'static [Site]) -> Self {
        let _ = (machine, sites);
        Counters
    }

    /// Counts transition `i` (its index among the sites) once; an index past them counts nowhere visible.
    #[cfg(feature = "coverage")]
    #[inline(always)]
    pub fn hit(&'static self, i: usize) {
        let Some(c) = self.counts.get(i.min(N.saturating_sub(1))) else {
            return;
        };
        let n = c.load(Ordering::Relaxed);
        // A count of a `u64` does not wrap in practice; a wrapping add keeps the hot path to one add.
        c.store(n.wrapping_add(1), Ordering::Relaxed);
        // The machine is registered for snapshots the first time one of its counters leaves zero: the branch tests
        // a value already loaded.
        if n == 0 {
            self.register();
        }
    }

    /// Counts transition `i` once: with the feature off, nothing.
    #[cfg(not(feature = "coverage"))]
    #[inline(always)]
    pub fn hit(&'static self, i: usize) {
        let _ = i;
    }

    #[cfg(feature = "coverage")]
    #[cold]
    fn register(&'static self) {
        if !self.registered.swap(true, Ordering::AcqRel) {
            let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
            registry.push(self);
        }
    }

    /// Each transition with how many times it was taken, in the order of the sites (all zero with the feature
    /// off).
    pub fn counts(&self) -> Vec<(Site, u64)> {
        #[cfg(feature = "coverage")]
        {
            self.sites
                .iter()
                .zip(&self.counts)
                .map(|(s, c)| (*s, c.load(Ordering::Relaxed)))
                .collect()
        }
        #[cfg(not(feature = "coverage"))]
        Vec::new()
    }

    /// Whether this build counts (the `coverage` feature is on).
    pub const fn enabled(&self) -> bool {
        cfg!(feature = "coverage")
    }
}

/// The environment variable naming the directory [`write_snapshot`] writes into.
pub const DIR_VAR: &str = "FSMC_COVERAGE_DIR";

/// Writes what this process counted so far, for every machine that took a transition, into
/// `$FSMC_COVERAGE_DIR/<process id>.fsmcov` (replacing the process's previous snapshot: counts only grow, so the
/// last snapshot holds every earlier one). One line per transition: machine, source, event, target, ordinal and
/// count, separated by tabs. Does nothing when the variable is unset or the feature is off; an error writing is
/// returned.
pub fn write_snapshot() -> std::io::Result<()> {
    #[cfg(feature = "coverage")]
    {
        let Some(dir) = std::env::var_os(DIR_VAR) else {
            return Ok(());
        };
        // The registry stays locked while the file is written: threads of one process write one file in turn.
        let registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::new();
        for counters in registry.iter() {
            counters.lines(&mut text);
        }
        let dir = std::path::Path::new(&dir);
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.fsmcov", std::process::id()));
        // Written aside and renamed, so a reader never sees half a snapshot.
        let tmp = dir.join(format!("{}.fsmcov.tmp", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }
    #[cfg(not(feature = "coverage"))]
    Ok(())
}

#[cfg(all(test, feature = "coverage"))]
mod tests {
    use super::*;

    static SITES: [Site; 2] = [
        Site {
            from: "A",
            event: "GO",
            to: "B",
            n: 0,
        },
        Site {
            from: "B",
            event: "GO",
            to: "A",
            n: 0,
        },
    ];
    static COUNTERS: Counters<3> = Counters::new("M", &SITES);

    #[test]
    fn counts_and_snapshots() {
        COUNTERS.hit(0);
        COUNTERS.hit(0);
        COUNTERS.hit(7);
        assert_eq!(COUNTERS.counts(), vec![(SITES[0], 2), (SITES[1], 0)]);
        let mut text = String::new();
        COUNTERS.lines(&mut text);
        assert_eq!(text, "M\tA\tGO\tB\t0\t2\nM\tB\tGO\tA\t0\t0\n");
    }
}
