//! Unit tests of name resolution.
