pub use fsmc_diag::{diag, source};
pub mod syntax;
