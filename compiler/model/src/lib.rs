//! fsmc's model of a spec, its checks, the composition of apps and the Rust code generator.
//!
//! One of the packages the compiler is built in (see ARCHITECTURE.md); it compiles beside `fsmc-syntax`, which
//! it does not need. Use it through `fsmc`, which re-exports its modules (`fsmc::model`, `fsmc::check`,
//! `fsmc::codegen`, …). `diag` and `source` are re-exported here so that its paths are the ones it has inside
//! `fsmc`.

use fsmc_diag::par;
pub use fsmc_diag::{diag, source};
pub mod check;
pub mod codegen;
pub mod compose;
pub mod ident;
pub mod model;
