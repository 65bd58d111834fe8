//! Lowers an Open Autonomy `fsm_specification.yaml` into a machine with the `abci` profile, reporting what
//! upstream's checker reports (names not in `states` or `alphabet_in`, a default start that is not a start).

use super::duplicate_name;
use crate::diag::{Code, Diagnostic, did_you_mean};
use crate::model::*;
use crate::oa::OaSpec;
use crate::source::Name;
use std::collections::BTreeMap;

pub(super) fn lower(oa: &OaSpec, diags: &mut Vec<Diagnostic>) -> Machine {
    let name = Name::new(oa.name(), oa.label.span);
    let mut m = Machine::new(name, Profile::Abci, Origin::OaYaml, oa.span);
    m.label = Some(oa.label.clone());

    // Name → index maps keep lowering linear: specs can have hundreds of thousands of transitions.
    let mut events: BTreeMap<&str, EventId> = BTreeMap::new();
    let mut states: BTreeMap<&str, StateId> = BTreeMap::new();
    for e in &oa.alphabet_in {
        match events.get(e.text.as_str()).copied() {
            Some(first) => diags.push(duplicate_name(
                Code::DuplicateEvent,
                "event",
                e,
                m.event(first).name.span,
            )),
            None => {
                events.insert(e.text.as_str(), EventId(m.events.len() as u32));
                m.events.push(Event {
                    name: e.clone(),
                    docs: Vec::new(),
                    timeout: None,
                    fields: Vec::new(),
                    role: None,
                    role_span: None,
                });
            }
        }
    }
    for s in &oa.states {
        match states.get(s.text.as_str()).copied() {
            Some(first) => diags.push(duplicate_name(
                Code::DuplicateState,
                "state",
                s,
                m.state(first).name.span,
            )),
            None => {
                states.insert(s.text.as_str(), StateId(m.states.len() as u32));
                m.states.push(State {
                    name: s.clone(),
                    ..State::default()
                });
            }
        }
    }
    for s in &oa.start_states {
        if let Some(id) = listed(&m, &states, s, "start_states", diags) {
            m.states[id.index()].start = true;
        }
    }
    if let Some(id) = listed(
        &m,
        &states,
        &oa.default_start_state,
        "default_start_state",
        diags,
    ) {
        if !m.state(id).start {
            diags.push(
                Diagnostic::new(
                    Code::DefaultNotStart,
                    format!(
                        "default start state `{}` is not among the start states",
                        oa.default_start_state
                    ),
                )
                .at(oa.default_start_state.span, "not listed in `start_states`")
                .help(format!(
                    "add `{}` to `start_states`",
                    oa.default_start_state
                )),
            );
        }
        // Treated as the start state it is meant to be, so the checks do not also call it unreachable.
        m.states[id.index()].start = true;
        m.states[id.index()].default_start = true;
    }
    for s in &oa.final_states {
        if let Some(id) = listed(&m, &states, s, "final_states", diags) {
            m.states[id.index()].is_final = true;
        }
    }
    // Rounds carry no kind in YAML: finals are degenerate (upstream requires it), the rest are opaque.
    for s in &mut m.states {
        s.round = Some(if s.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        });
    }

    // YAML keeps the last of two equal keys; the reader reported the repeat, so keep YAML's meaning here.
    let mut last: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (i, t) in oa.transitions.iter().enumerate() {
        last.insert((t.from.as_str(), t.event.as_str()), i);
    }
    for (i, t) in oa.transitions.iter().enumerate() {
        if last.get(&(t.from.as_str(), t.event.as_str())) != Some(&i) {
            continue;
        }
        let from = state_in_table(&m, &states, &t.from, diags);
        let to = state_in_table(&m, &states, &t.to, diags);
        let event = events.get(t.event.text.as_str()).copied();
        if event.is_none() {
            let mut d = Diagnostic::new(
                Code::UnknownEvent,
                format!("event `{}` is not in `alphabet_in`", t.event),
            )
            .at(t.event.span, "used here");
            d = match did_you_mean(&t.event.text, m.events.iter().map(|e| e.name.as_str())) {
                Some(h) => d.help(h),
                None => d.help(format!("add `{}` to `alphabet_in`", t.event)),
            };
            diags.push(d);
        }
        if from.is_none() || to.is_none() || event.is_none() {
            m.incomplete = true;
        }
        if let (Some(from), Some(to), Some(event)) = (from, to, event) {
            m.transitions.push(Transition {
                from,
                event: Some(event),
                to,
                guards: Vec::new(),
                actions: Vec::new(),
                persist: None,
                docs: Vec::new(),
                span: t.key_span.to(t.to.span),
                event_span: t.event.span,
                to_span: t.to.span,
            });
        }
    }
    m
}

fn listed(
    m: &Machine,
    index: &BTreeMap<&str, StateId>,
    s: &Name,
    list: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<StateId> {
    let id = index.get(s.text.as_str()).copied();
    if id.is_none() {
        let mut d = Diagnostic::new(
            Code::UnlistedState,
            format!("`{s}` in `{list}` is not in `states`"),
        )
        .at(s.span, "not listed in `states`");
        d = match did_you_mean(&s.text, m.states.iter().map(|x| x.name.as_str())) {
            Some(h) => d.help(h),
            None => d.help(format!("add `{s}` to `states`")),
        };
        diags.push(d);
    }
    id
}

fn state_in_table(
    m: &Machine,
    index: &BTreeMap<&str, StateId>,
    s: &Name,
    diags: &mut Vec<Diagnostic>,
) -> Option<StateId> {
    let id = index.get(s.text.as_str()).copied();
    if id.is_none() {
        let mut d = Diagnostic::new(
            Code::UnknownState,
            format!("state `{s}` is not in `states`"),
        )
        .at(s.span, "used in `transition_func`");
        d = match did_you_mean(&s.text, m.states.iter().map(|x| x.name.as_str())) {
            Some(h) => d.help(h),
            None => d.help(format!("add `{s}` to `states`")),
        };
        diags.push(d);
    }
    id
}
