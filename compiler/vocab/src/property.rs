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
    /// Nothing: the property's presence is its meaning (`reset;`).
    Flag,
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

const fn state(
    name: &'static str,
    profiles: &'static [Profile],
    value: Value,
    detail: &'static str,
) -> Property {
    Property {
        name,
        place: Where::State,
        profiles,
        value,
        detail,
    }
}

const fn machine(
    name: &'static str,
    profiles: &'static [Profile],
    value: Value,
    detail: &'static str,
) -> Property {
    Property {
        name,
        place: Where::Machine,
        profiles,
        value,
        detail,
    }
}

/// Every property. The outcome mappings are the `abci` outcomes' names (a test of the crate ties them).
pub(crate) const PROPERTIES: &[Property] = &[
    state("reads", ALL, Value::Keys, "keys the state reads"),
    state("writes", ALL, Value::Keys, "keys the state writes"),
    state(
        "requires",
        ALL,
        Value::Keys,
        "keys required on entry (start states)",
    ),
    state(
        "ensures",
        ALL,
        Value::Keys,
        "keys guaranteed on exit (final states)",
    ),
    state("done", ABCI, Value::Event, "maps this outcome to an event"),
    state("none", ABCI, Value::Event, "maps this outcome to an event"),
    state(
        "no_majority",
        ABCI,
        Value::Event,
        "maps this outcome to an event",
    ),
    state(
        "negative",
        ABCI,
        Value::Event,
        "maps this outcome to an event",
    ),
    state("fail", ABCI, Value::Event, "maps this outcome to an event"),
    state(
        "reset",
        ABCI,
        Value::Flag,
        "a new period starts after `DONE`",
    ),
    state("payload", ABCI, Value::Text, "the Rust type agents submit"),
    state("registration", ABCI, Value::Flag, "registers the agents"),
    state("elects_keeper", ABCI, Value::Flag, "agrees on the keeper"),
    state(
        "template",
        &[Profile::Genie],
        Value::Text,
        "the Jinja2 template",
    ),
    state(
        "acting",
        &[Profile::Staged],
        Value::Agents,
        "agents acting in the stage",
    ),
    state(
        "rewarded",
        &[Profile::Staged],
        Value::Agents,
        "agents rewarded in the stage",
    ),
    state(
        "handler",
        &[Profile::Staged],
        Value::Flag,
        "user code chooses the next stage",
    ),
    machine("label", ABCI, Value::Text, "the app's Open Autonomy label"),
    machine(
        "roles",
        &[Profile::Dialogue],
        Value::Names,
        "the dialogue's two roles",
    ),
    machine(
        "agents",
        &[Profile::Staged],
        Value::Names,
        "the environment's agents",
    ),
];
