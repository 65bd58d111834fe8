//! Negotiation over FIPA, as the TAC (Trading Agent Competition) skills of the AEA framework run it: messages,
//! dialogues, service registration and search, an agent's ledger and the TAC controller.
//!
//! The protocol itself (performatives, their contents and senders, the reply relation) is generated per spec,
//! as a `dialogue` machine's `State`, `Event`, `Message` and `Role`. What is the same for every negotiation
//! lives here:
//!
//! * [`Envelope`] and [`Header`]: a FIPA message with its performative and typed contents (the generated
//!   `Message`), sender, receiver, [`DialogueReference`], message id and target.
//! * [`Dialogue`]: one party's copy of one dialogue. It takes a message only if its sender plays the role that
//!   sends the performative (a role, or the initiator's or responder's, [`Sender`]), its id follows the last
//!   one, its target is the message it answers, and the protocol allows the performative as a reply; then the
//!   transition fires with its hooks, which see the [`Delivery`] (header, and whether this party sent or
//!   received it) as `t.profile`. A refused message changes nothing.
//! * [`Dialogues`]: one agent's dialogues, keyed by reference, so an agent runs many at once; one peer may keep
//!   only so many open with it.
//! * [`Directory`]: the services agents register (the goods they supply and demand) and search for.
//! * With the `tac` feature: [`AgentLedger`], pending proposals, pending initial acceptances and locked
//!   transactions (TAC's transaction manager), which expire when left unanswered, and the forward-looking
//!   state (holdings with every locked transaction applied); the [`Controller`], which settles a transaction
//!   once both parties sent their own matching [`TransactionRequest`]s (authenticated by who sent them,
//!   identified by a digest of their terms, [`TransactionId`]), charges its fee, and tells both parties when it
//!   refuses one.
//!
//! `docs/dialogue.md` walks through a whole negotiation on generated code.

// The module's docs link the ledger and the controller, which exist only with the `tac` feature: without it
// the links cannot resolve, and are left as text rather than dropped from the docs of a build that has them.
#![cfg_attr(not(feature = "tac"), allow(rustdoc::broken_intra_doc_links))]

// What generated code provides, and what it calls here (the contract with the code generator): a `dialogue`
// machine's `State` implements `Protocol` (its `Role` enum, the start state, each message's performative and
// who sends it, and the transition fired with a `Delivery` as every hook's `t.profile`, whose side gates the
// actions the spec attaches to the sender or the receiver), and the module names `Dialogue`, `Dialogues`,
// `Envelope` and `DialogueError` for its own types in aliases. `Protocol` is hidden from the documentation: the
// dialogues run on it, users do not.

#[cfg(feature = "tac")]
mod controller;
mod directory;
#[cfg(feature = "tac")]
mod ledger;
mod message;
mod protocol;
mod store;
#[cfg(test)]
mod tests;
#[cfg(feature = "tac")]
mod transaction;

#[cfg(feature = "tac")]
pub use controller::{Controller, Notice, Notices, Refusal};
pub use directory::{Directory, Query, Service};
#[cfg(feature = "tac")]
pub use ledger::{AgentLedger, Expired, LedgerError, LedgerStore};
pub use message::{
    Address, Delivery, DialogueReference, Envelope, FIRST_MESSAGE_ID, Header, MessageId, NO_TARGET,
    Side,
};
pub use protocol::{Dialogue, DialogueError, ErrorOf, Protocol, Record, Sender};
pub use store::{DEFAULT_PEER_LIMIT, Dialogues};
#[cfg(feature = "tac")]
pub use transaction::{Holdings, Tick, TransactionId, TransactionRequest};
