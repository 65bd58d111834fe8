pub use fsmc_diag::{diag, source};
pub mod check;
pub mod codegen;
pub mod compose;
pub mod ident;
pub mod model;
pub mod par;
