//! The Open Autonomy (`abci`) system: how an agent service of Open Autonomy runs an FSM app, written once for
//! every spec.
//!
//! * [`rounds`](crate::rounds): the round kinds that turn the agents' payloads into one outcome.
//! * [`data`](crate::data): the synchronized data, split into periods, and the key checks behind pre- and
//!   post-conditions.
//! * [`app`](crate::app): the replicated app, one replica per agent fed the same ordered blocks by a
//!   consensus engine, and the seam to that engine.
//!
//! The three are public at the crate's root (`fsmc_runtime::rounds`, `::data`, `::app`), the paths generated
//! code names; this module only keeps them together.

#[cfg(feature = "app")]
pub mod app;
pub mod data;
#[cfg(feature = "app")]
pub mod rounds;
