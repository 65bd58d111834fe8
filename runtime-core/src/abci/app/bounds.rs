//! What the types a spec names must implement, as one trait per use whose supertraits are the bounds. The
//! `fsm!` and `include_fsm!` macros assert it once per type, where the spec names it: a type missing a bound
//! gets one error that names the type, the state or key and the spec's line. The generated impls that handle
//! the type assume the trait (`where for<'fsmc> T: Payload`), and through its supertraits every bound, so
//! neither they nor the runtime's code under them report it again.
//!
//! Implement them with derives: `#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord,
//! fsmc_runtime::borsh::BorshSerialize, fsmc_runtime::borsh::BorshDeserialize)]` and
//! `#[borsh(crate = "fsmc_runtime::borsh")]` (the runtime re-exports borsh with its derives, so a crate needs
//! no borsh of its own).

use borsh::{BorshDeserialize, BorshSerialize};
use std::fmt::Debug;

/// A round's payload: cloned into the round, shown in its `Debug`, kept in sorted maps and counted by value
/// (`Ord`, which the encoding of every round's collection needs too, a custom round's included), encoded into
/// the transaction and the app hash (`BorshSerialize`, `BorshDeserialize`), and handed between the node's
/// tasks (`Send`, `Sync`, `'static`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a round's payload: a payload is `Clone + Debug + Ord + BorshSerialize + BorshDeserialize + Send + Sync + 'static`",
    label = "used as a round's payload here",
    note = "derive them (`Ord` needs `PartialEq`, `Eq` and `PartialOrd` too); borsh's derives are `fsmc_runtime::borsh::{{BorshSerialize, BorshDeserialize}}` with `#[borsh(crate = \"fsmc_runtime::borsh\")]`"
)]
pub trait Payload:
    Clone + Debug + Ord + BorshSerialize + BorshDeserialize + Send + Sync + 'static
{
}

impl<T: Clone + Debug + Ord + BorshSerialize + BorshDeserialize + Send + Sync + 'static> Payload
    for T
{
}

/// The type of a key of the synchronized data: cloned into each period, shown in `Debug`, hashed into the app
/// hash and read back from a snapshot (`BorshSerialize`, `BorshDeserialize`), and read by behaviours on the
/// node's tasks (`Send`, `Sync`, `'static`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a key's type: a key is `Clone + Debug + BorshSerialize + BorshDeserialize + Send + Sync + 'static`",
    label = "used as a key's type here",
    note = "derive them; borsh's derives are `fsmc_runtime::borsh::{{BorshSerialize, BorshDeserialize}}` with `#[borsh(crate = \"fsmc_runtime::borsh\")]`"
)]
pub trait Key: Clone + Debug + BorshSerialize + BorshDeserialize + Send + Sync + 'static {}

impl<T: Clone + Debug + BorshSerialize + BorshDeserialize + Send + Sync + 'static> Key for T {}
