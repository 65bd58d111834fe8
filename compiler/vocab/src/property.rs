//! The properties a state or machine body may hold (`reads a, b;`, `payload "u64";`, `done = DONE;`), with the
//! systems each belongs to and the form of its value.

use crate::Profile;

/// Where a property is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// In a state's body: `state S { reads a; }`.
    State,
    /// In a machine's body: `machine M: dialogue { roles buyer, seller; }`.
    Machine,
}

/// The form of a property's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Names of the machine's keys: `reads a, b;`.
    Keys,
    /// Names of the machine's agents (or `none`): `acting a, b;`.
    Agents,
    /// New names: `roles buyer, seller;`, `agents a, b;`.
    Names,
    /// An event of the machine: `done = SUCCESS;`.
    Event,
    /// A string: `payload "u64";`.
    Text,
    /// A whole number: `confirmations 10;`.
    Number,
    /// Nothing: the property's presence is its meaning (`reset;`).
    Flag,
    /// A word of [`crate::genie::OnFailure`], or an event of the machine: `on_failure retry;`,
    /// `on_failure = failed;`.
    Failure,
}

/// One property: its name, where it is written, the systems it belongs to, its value, and a few words on what it
/// says (an editor's completion shows them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    pub name: &'static str,
    pub place: Where,
    pub profiles: &'static [Profile],
    pub value: Value,
    pub detail: &'static str,
}

const ALL: &[Profile] = Profile::ALL;
const ABCI: &[Profile] = &[Profile::Abci];

/// A property of `place`: its name, the systems it belongs to, the form of its value and what it says.
const fn prop(
    place: Where,
    name: &'static str,
    profiles: &'static [Profile],
    value: Value,
    detail: &'static str,
) -> Property {
    Property {
        name,
        place,
        profiles,
        value,
        detail,
    }
}

use Where::{Machine, State};

/// Every property, one per line (a table is easier to read unformatted). The outcome mappings are the `abci`
/// outcomes' names (a test of the crate ties them).
#[rustfmt::skip]
pub(crate) const PROPERTIES: &[Property] = &[
    prop(State, "reads", ALL, Value::Keys, "keys the state reads"),
    prop(State, "writes", ALL, Value::Keys, "keys the state writes"),
    prop(State, "requires", ALL, Value::Keys, "keys required on entry (start states)"),
    prop(State, "ensures", ALL, Value::Keys, "keys guaranteed on exit (final states)"),
    prop(State, "done", ABCI, Value::Event, "maps this outcome to an event"),
    prop(State, "none", ABCI, Value::Event, "maps this outcome to an event"),
    prop(State, "no_majority", ABCI, Value::Event, "maps this outcome to an event"),
    prop(State, "negative", ABCI, Value::Event, "maps this outcome to an event"),
    prop(State, "fail", ABCI, Value::Event, "maps this outcome to an event"),
    prop(State, "reset", ABCI, Value::Flag, "a new period starts after `DONE`"),
    prop(State, "payload", ABCI, Value::Text, "the Rust type agents submit"),
    prop(State, "registration", ABCI, Value::Flag, "registers the agents"),
    prop(State, "elects_keeper", ABCI, Value::Flag, "agrees on the keeper"),
    prop(State, "confirmations", ABCI, Value::Number, "blocks a threshold round waits after its threshold"),
    prop(State, "template", &[Profile::Genie], Value::Text, "the Jinja2 template"),
    prop(State, "runs", &[Profile::Genie], Value::Names, "the work an invoker state runs"),
    prop(State, "on_failure", &[Profile::Genie], Value::Failure, "`retry`, `continue` or `= EVENT` when the work fails"),
    prop(State, "acting", &[Profile::Staged], Value::Agents, "agents acting in the stage"),
    prop(State, "rewarded", &[Profile::Staged], Value::Agents, "agents rewarded in the stage"),
    prop(State, "handler", &[Profile::Staged], Value::Flag, "user code chooses the next stage"),
    prop(Machine, "label", ABCI, Value::Text, "the app's Open Autonomy label"),
    prop(Machine, "roles", &[Profile::Dialogue], Value::Names, "the dialogue's two roles"),
    prop(Machine, "agents", &[Profile::Staged], Value::Names, "the environment's agents"),
    prop(Machine, "on_failure", &[Profile::Genie], Value::Failure, "what invoker states do when their work fails"),
    prop(Machine, "scripted", &[Profile::Staged], Value::Agents, "agents that act on their own"),
];
