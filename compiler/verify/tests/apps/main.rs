//! Verifying real apps: the shipped specs, broken variants and their controls, and the Open Autonomy corpus.

mod common;
mod corpus;
mod fixtures;
mod shipped;
