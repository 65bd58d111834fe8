//! The methods of a machine's generated `Hooks` trait, named in one place: code generation writes them and the
//! name check (E0111) makes sure no two of them, nor a guard or an action, share a name.
//!
//! The names follow Genie Flow's transition steps: `before_transition` and `before_<event>`,
//! `on_exit_state` and `on_exit_<state>`, `on_transition` and `on_<event>`, `on_enter_state` and
//! `on_enter_<state>`, `after_transition` and `after_<event>`, plus `validate`.

use crate::ident;
use crate::spec::{EventId, Machine, StateId};

/// The hooks every `Hooks` trait has, whatever the machine: its validator and the transition-wide hooks.
pub const FIXED: &[&str] = &[
    "validate",
    "before_transition",
    "on_exit_state",
    "on_transition",
    "on_enter_state",
    "after_transition",
];

/// The three hooks of an event, in running order: `before_<event>`, `on_<event>`, `after_<event>`.
pub fn event_hooks(event: &str) -> [String; 3] {
    ["before", "on", "after"].map(|prefix| method(prefix, event))
}

/// `on_exit_<state>`.
pub fn exit_hook(state: &str) -> String {
    method("on_exit", state)
}

/// `on_enter_<state>`.
pub fn enter_hook(state: &str) -> String {
    method("on_enter", state)
}

/// `<prefix>_<name in snake case>`, with runs of underscores made one: `_x` and `a__b` would otherwise give
/// `on__x` and `on_a__b`, which are not snake case to rustc. Hooks are named so, and so are a staged machine's
/// `observe_<agent>` and `act_<agent>`.
pub fn method(prefix: &str, name: &str) -> String {
    let snake = ident::snake(name);
    let mut out = String::with_capacity(prefix.len() + 1 + snake.len());
    for c in prefix.chars().chain(['_']).chain(snake.chars()) {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

/// Whether the machine gets a `Hooks` trait and `fire`: it has events (a staged machine moves without).
pub fn has_hooks(m: &Machine) -> bool {
    !m.events.is_empty()
}

/// The states a transition on an event can leave (each gets an exit hook), in spec order.
pub fn exited(m: &Machine) -> Vec<StateId> {
    states_where(m, |t| t.from)
}

/// The states a transition on an event can enter (each gets an enter hook), in spec order.
pub fn entered(m: &Machine) -> Vec<StateId> {
    states_where(m, |t| t.to)
}

fn states_where(m: &Machine, end: impl Fn(&crate::spec::Transition) -> StateId) -> Vec<StateId> {
    let mut seen = vec![false; m.states.len()];
    for t in m.transitions.iter().filter(|t| t.event.is_some()) {
        if let Some(flag) = seen.get_mut(end(t).index()) {
            *flag = true;
        }
    }
    m.state_ids().filter(|s| seen[s.index()]).collect()
}

/// The events that carry data, in spec order: each gets a struct in `messages` and a `Message` variant that
/// holds it.
pub fn events_with_data(m: &Machine) -> Vec<EventId> {
    (0..m.events.len() as u32)
        .map(EventId)
        .filter(|e| !m.event(*e).fields.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_names_are_snake_case_with_single_underscores() {
        assert_eq!(
            event_hooks("NO_MAJORITY"),
            ["before_no_majority", "on_no_majority", "after_no_majority"]
        );
        assert_eq!(exit_hook("RegistrationRound"), "on_exit_registration_round");
        assert_eq!(enter_hook("_x"), "on_enter_x");
        assert_eq!(event_hooks("a__b")[1], "on_a_b");
        // A keyword keeps the underscore `snake` adds; the hook name is not a keyword anyway.
        assert_eq!(event_hooks("type")[0], "before_type_");
        // A staged machine's agent methods are named the same way.
        assert_eq!(method("act", "_x"), "act_x");
        assert_eq!(method("observe", "Traders"), "observe_traders");
    }
}
