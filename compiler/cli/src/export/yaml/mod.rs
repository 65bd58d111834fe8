//! A machine (or a composed app's machine) as Open Autonomy's `fsm_specification.yaml`, written byte for byte
//! as upstream writes it ([`write`]).
//!
//! The YAML format has one target per `(state, event)` and only event-driven transitions, so a machine with
//! direct (handler-chosen) transitions, or with guarded alternatives leading to different states, cannot be
//! written: that is an error naming the first offending transition, never a silently lossy file.

use fsmc_base::source::{Name, Span};
use fsmc_driver::yaml::{OaSpec, OaTransition};
use fsmc_model::spec::Machine;
use std::collections::BTreeMap;

mod emit;
mod write;

pub use write::{tuple_key, write};

/// The machine as an [`OaSpec`]: label as written, every state and event, starts, finals and the default.
pub fn to_oa(m: &Machine) -> Result<OaSpec, String> {
    let name = |text: &str| Name::new(text, Span::default());
    let state = |id: fsmc_model::spec::StateId| {
        m.states
            .get(id.index())
            .map(|s| s.name.as_str())
            .unwrap_or_default()
    };
    let mut targets: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    let mut transitions = Vec::new();
    for t in &m.transitions {
        let (from, to) = (state(t.from), state(t.to));
        let Some(event) = t.event.and_then(|e| m.events.get(e.index())) else {
            return Err(format!(
                "`{}` has a direct transition `{from} -> {to}`, which an Open Autonomy spec cannot express (it has only `(State, EVENT)` transitions)",
                m.name
            ));
        };
        let event = event.name.as_str();
        match targets.insert((from, event), to) {
            Some(prev) if prev != to => {
                return Err(format!(
                    "`{}` has guarded transitions on `({from}, {event})` to both `{prev}` and `{to}`, which an Open Autonomy spec cannot express (one target per state and event)",
                    m.name
                ));
            }
            Some(_) => {}
            None => transitions.push(OaTransition {
                from: name(from),
                event: name(event),
                to: name(to),
                key_span: Span::default(),
            }),
        }
    }
    let default = m
        .default_start()
        .map(|s| state(s).to_string())
        .unwrap_or_default();
    Ok(OaSpec {
        label: name(m.label()),
        alphabet_in: m.events.iter().map(|e| name(e.name.as_str())).collect(),
        default_start_state: name(&default),
        final_states: m.final_states().map(|s| name(state(s))).collect(),
        start_states: m.start_states().map(|s| name(state(s))).collect(),
        states: m.states.iter().map(|s| name(s.name.as_str())).collect(),
        transitions,
        transition_func_span: Span::default(),
        span: Span::default(),
    })
}

/// The machine as upstream's canonical `fsm_specification.yaml` text.
pub fn write_machine(m: &Machine) -> Result<String, String> {
    to_oa(m).map(|spec| write(&spec))
}
