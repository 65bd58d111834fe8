//! The spec fingerprint of an `abci` machine or composed app, as a constant of its module: what a node compares
//! with the fingerprint its chain was started with, before it replays a block.

use crate::fingerprint::fingerprint;
use crate::spec::Machine;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `FINGERPRINT`, documented with its value in hexadecimal.
pub(super) fn generate(m: &Machine) -> TokenStream {
    let fp = fingerprint(m);
    let bytes = fp.0.iter().map(|b| Literal::u8_unsuffixed(*b));
    let value = format!(" `{fp}`");
    quote! {
        /// The spec fingerprint: the SHA-256 of the canonical encoding of what a replica of this app computes
        /// (its rounds, their kinds, parts, payload types and writes, where each outcome and timeout leads,
        /// the synchronized data's keys and the state names and round order under the app hash). Two builds
        /// whose fingerprints differ compute different states or app hashes for the same blocks, so they must
        /// not run on one chain; `fsmc diff` says why two specs' fingerprints differ. Its value:
        ///
        #[doc = #value]
        pub const FINGERPRINT: [u8; 32] = [#(#bytes),*];
    }
}
