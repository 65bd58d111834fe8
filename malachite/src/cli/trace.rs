//! The trace a node prints on standard output: a line per block it applies (what [`TraceLine`] reads back), and
//! a line whenever its behaviour's work for a round ends without a payload.

use std::fmt::Write as _;

use fsmc_runtime::app::{Acted, App, AppHash, AppSpec, BlockReport};

use crate::launch::TraceLine;
use crate::node::Observer;

/// Prints one trace line per applied block, and one per abstention, panic or cancellation of the behaviour.
pub struct Printer {
    genesis_ms: u64,
}

impl Printer {
    /// A printer whose times count from the genesis time `genesis_ms`.
    pub fn new(genesis_ms: u64) -> Printer {
        Printer { genesis_ms }
    }
}

impl<S: AppSpec> Observer<S> for Printer {
    fn replayed(&mut self, height: u64, app_hash: AppHash) {
        println!("replayed height={height} app_hash={app_hash}");
    }

    fn applied(&mut self, app: &App<S>, report: &BlockReport<S>) {
        let state = report.steps.last().map_or(app.state(), |s| s.to);
        let line = TraceLine {
            height: report.height,
            app_hash: report.app_hash,
            period: app.period(),
            keeper: app.keeper().cloned(),
            state: state.to_string(),
            txs: report.accepted + report.rejected.len(),
            time_ms: report.time_ms.saturating_sub(self.genesis_ms),
        };
        let mut rest = format!("rejected={}", report.rejected.len());
        for step in &report.steps {
            let _ = write!(rest, " {}-{}->{}", step.from, step.event, step.to);
        }
        println!("{}", line.format(&rest));
    }

    fn acted(&mut self, app: &App<S>, acted: &Acted) {
        let (round, what) = match acted {
            Acted::Submitted { .. } => return,
            Acted::Abstained { round, reason } => (round, format!("abstained: {reason}")),
            Acted::Panicked { round, message } => (round, format!("panicked: {message}")),
            Acted::Cancelled { round } => (round, "cancelled: the round ended".to_string()),
        };
        println!(
            "acted height={} round={round} state={} {}",
            app.height(),
            app.state(),
            what.replace('\n', " ")
        );
    }
}
