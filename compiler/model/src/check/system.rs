//! The part a system plays in the checks of one machine. Each system's module implements [`System`] (Open
//! Autonomy in `abci`, Genie Flow in `genie`, FIPA dialogues in `dialogue`, staged environments in `staged`;
//! a plain machine is [`Plain`]), and `check` picks the machine's by its profile.
//!
//! The generic passes never name a system: the structure pass asks the machine's [`System`] what its
//! transitions and final states may be, and the graph pass takes the [`Quiet`] the system built.

use super::graph::{Graph, Quiet};
use crate::spec::{Machine, Spec};
use fsmc_base::diag::Diagnostic;

pub(crate) trait System: Sync {
    /// Whether `final` is itself an error in this system (Phantom has no final stage; the system reports it):
    /// what a final state may not do is then not reported besides.
    fn refuses_finals(&self) -> bool {
        false
    }

    /// Whether transitions move without events (a stage's handler picks the next stage). In every other system a
    /// transition names its event.
    fn moves_directly(&self) -> bool {
        false
    }

    /// The facts of the graph pass this system reports in its own words, or that follow from one of its errors,
    /// on machine `m` with graph `g`. Asked once the graph is built, before the pass reports.
    fn quiet(&self, _m: &Machine, _g: &Graph) -> Quiet {
        Quiet::default()
    }

    /// The names this system reserves in generated code, besides the names every machine's code takes.
    fn names(&self, _m: &Machine, _out: &mut Vec<Diagnostic>) {}

    /// The system's own rules, given the machine's graph.
    fn check(&self, _m: &Machine, _g: &Graph, _out: &mut Vec<Diagnostic>) {}

    /// Rules about what the loader read for the machine (the files a Genie machine's templates name).
    fn files(&self, _m: &Machine, _spec: &Spec, _out: &mut Vec<Diagnostic>) {}

    /// Conventions, checked only once nothing else is wrong so that a broken spec is not buried in their
    /// noise.
    fn conventions(&self, _m: &Machine, _out: &mut Vec<Diagnostic>) {}
}

/// A plain machine: the generic checks, and nothing more.
pub(crate) struct Plain;

impl System for Plain {}
