//! Negotiation over FIPA, as the TAC (Trading Agent Competition) skills of the AEA framework run it: messages,
//! dialogues, an agent's ledger and the TAC controller.
//!
//! The protocol itself (performatives, their contents and sending roles, the reply relation) is generated
//! per spec, as a `dialogue` machine's `State`, `Event`, `Message` and `Role`. What is the same for every
//! negotiation lives here:
//!
//! * [`Envelope`] and [`Header`]: a FIPA message with its performative and typed contents (the generated
//!   `Message`), sender, receiver, [`DialogueReference`], message id and target.
//! * [`Dialogue`]: one party's copy of one dialogue. It takes a message only if its sender plays the role that
//!   sends the performative, its id follows the last one, its target is the message it answers, and the
//!   protocol allows the performative as a reply; then the transition fires with its hooks, which see the
//!   [`Delivery`] (header, and whether this party sent or received it) as `t.profile`. A refused message
//!   changes nothing.
//! * [`Dialogues`]: one agent's dialogues, keyed by reference, so an agent runs many at once.
//! * [`AgentLedger`]: pending proposals, pending initial acceptances and locked transactions (TAC's
//!   transaction manager), and the forward-looking state (holdings with every locked transaction applied).
//! * [`Controller`]: settles a transaction once both parties sent their own matching
//!   [`TransactionRequest`]s, and tells both parties when it refuses one.
//!
//! `docs/dialogue.md` walks through a whole negotiation on generated code.

// What generated code provides, and what it calls here (the contract with the code generator): a `dialogue`
// machine's `State` implements `Protocol` (its `Role` enum, the start state, each message's performative and
// the role sending it, and the transition fired with a `Delivery` as every hook's `t.profile`), and the module
// names `Dialogue`, `Dialogues`, `Envelope` and `DialogueError` for its own types in aliases. `Protocol` is
// hidden from the documentation: the dialogues run on it, users do not.

mod controller;
mod ledger;
mod message;
mod protocol;
mod store;
#[cfg(test)]
mod tests;

pub use controller::{Controller, Notice, Refusal};
pub use ledger::{
    AgentLedger, Holdings, LedgerError, LedgerStore, TransactionId, TransactionRequest,
};
pub use message::{
    Address, Delivery, DialogueReference, Envelope, FIRST_MESSAGE_ID, Header, MessageId, NO_TARGET,
    Side,
};
pub use protocol::{Dialogue, DialogueError, ErrorOf, Protocol, Record};
pub use store::Dialogues;
