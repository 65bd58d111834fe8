//! Benchmarks for fsmc (not published): a generator of synthetic specs for timing the checker, the classification
//! of upstream Open Autonomy's spec history by `fsmc diff` (`history`), the trader
//! machine generated at build time for timing dispatch, and the event streams the dispatch benchmark replays.
//!
//! See `README.md` in this directory for what each benchmark measures and how to run it.

pub mod history;
pub mod synth;
pub mod trader;
pub mod walk;
