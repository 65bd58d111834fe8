pub mod diag;
pub mod source;
