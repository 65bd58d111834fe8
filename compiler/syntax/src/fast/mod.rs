pub(crate) mod chunk;
mod simple;
