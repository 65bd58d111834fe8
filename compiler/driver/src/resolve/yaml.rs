//! Lowers an Open Autonomy `fsm_specification.yaml` into a machine with the `abci` profile, reporting what
//! upstream's checker reports (names not in `states` or `alphabet_in`, a default start that is not a start).

use super::duplicate_name;
use crate::yaml::OaSpec;
use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::Name;
use fsmc_model::hash::{FastMap, NameMap};
use fsmc_model::spec::abci::Round;
use fsmc_model::spec::*;
use fsmc_vocab::Profile;
use fsmc_vocab::abci::RoundKind;

pub(super) fn lower(oa: &OaSpec, diags: &mut Vec<Diagnostic>) -> Machine {
    let name = Name::new(oa.name(), oa.label.span);
    let mut m = Machine::new(name, Profile::Abci, Origin::OaYaml, oa.span);
    m.label = Some(oa.label.clone());
    // Name → index maps keep lowering linear: specs can have hundreds of thousands of transitions. They are only
    // looked up, never iterated, so hash maps order nothing.
    let events = declare_events(oa, &mut m, diags);
    let states = declare_states(oa, &mut m, diags);
    mark_starts_and_finals(oa, &mut m, &states, diags);
    transitions(oa, &mut m, &states, &events, diags);
    m
}

/// `alphabet_in`: every event once, a repeat reported.
fn declare_events<'a>(
    oa: &'a OaSpec,
    m: &mut Machine,
    diags: &mut Vec<Diagnostic>,
) -> NameMap<'a, EventId> {
    let mut events: NameMap<EventId> = NameMap::with_capacity(oa.alphabet_in.len());
    m.events.reserve_exact(oa.alphabet_in.len());
    for e in &oa.alphabet_in {
        match events.insert_new(e.as_str(), EventId(m.events.len() as u32)) {
            Some(first) => diags.push(duplicate_name(
                Code::DuplicateEvent,
                "event",
                e,
                m.event(first).name.span,
            )),
            None => {
                m.events.push(Event {
                    name: e.clone(),
                    docs: Vec::new(),
                    timeout: None,
                    fields: Vec::new(),
                    role: None,
                    turn: None,
                    role_span: None,
                });
            }
        }
    }
    events
}

/// `states`: every state once, a repeat reported.
fn declare_states<'a>(
    oa: &'a OaSpec,
    m: &mut Machine,
    diags: &mut Vec<Diagnostic>,
) -> NameMap<'a, StateId> {
    let mut states: NameMap<StateId> = NameMap::with_capacity(oa.states.len());
    m.states.reserve_exact(oa.states.len());
    for s in &oa.states {
        match states.insert_new(s.as_str(), StateId(m.states.len() as u32)) {
            Some(first) => diags.push(duplicate_name(
                Code::DuplicateState,
                "state",
                s,
                m.state(first).name.span,
            )),
            None => {
                m.states.push(State {
                    name: s.clone(),
                    ..State::default()
                });
            }
        }
    }
    states
}

/// `start_states`, `default_start_state` and `final_states`; then each state's round, which YAML does not give.
fn mark_starts_and_finals(
    oa: &OaSpec,
    m: &mut Machine,
    states: &NameMap<StateId>,
    diags: &mut Vec<Diagnostic>,
) {
    for s in &oa.start_states {
        if let Some(id) = listed(m, states, s, "start_states", diags) {
            m.states[id.index()].start = true;
        }
    }
    if let Some(id) = listed(
        m,
        states,
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
        if let Some(id) = listed(m, states, s, "final_states", diags) {
            m.states[id.index()].is_final = true;
        }
    }
    // Rounds carry no kind in YAML: finals are degenerate (upstream requires it), the rest are opaque.
    for s in &mut m.states {
        let kind = Some(if s.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        });
        s.system = StateData::Abci(Round {
            kind,
            ..Round::default()
        });
    }
}

/// `transition_func`: each entry's names looked up (on several threads for a large table), the last of a
/// repeated key kept as YAML keeps it, what is unknown reported in table order.
fn transitions(
    oa: &OaSpec,
    m: &mut Machine,
    states: &NameMap<StateId>,
    events: &NameMap<EventId>,
    diags: &mut Vec<Diagnostic>,
) {
    // Tables list a state's transitions together (upstream sorts them), so a source state that is the previous
    // one's is not looked up again.
    let ids: Vec<(Option<StateId>, Option<StateId>, Option<EventId>)> =
        fsmc_base::par::map_slices(&oa.transitions, |slice, out| {
            let mut previous: Option<(&str, Option<StateId>)> = None;
            out.extend(slice.iter().map(|t| {
                let from = match previous {
                    Some((name, id)) if name == t.from.as_str() => id,
                    _ => {
                        let id = states.get(t.from.as_str());
                        previous = Some((t.from.as_str(), id));
                        id
                    }
                };
                (
                    from,
                    states.get(t.to.as_str()),
                    events.get(t.event.as_str()),
                )
            }))
        });
    m.transitions.reserve_exact(oa.transitions.len());
    let keep = last_of_each_key(oa, &ids);
    for (i, t) in oa.transitions.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let (from, to, event) = ids[i];
        let from = state_in_table(m, from, &t.from, diags);
        let to = state_in_table(m, to, &t.to, diags);
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
                guards: ThinVec::new(),
                actions: ThinVec::new(),
                persist: None,
                docs: ThinVec::new(),
                span: t.key_span.to(t.to.span),
                event_span: t.event.span,
                to_span: t.to.span,
            });
        }
    }
}

fn listed(
    m: &Machine,
    index: &NameMap<StateId>,
    s: &Name,
    list: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<StateId> {
    let id = index.get(s.text.as_str());
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

/// YAML keeps the last of two equal keys; the reader reported the repeat, so keep YAML's meaning here: whether
/// each transition is the last of its `(State, EVENT)` key.
///
/// Names that resolved are compared by id (one id per distinct name), in a sorted list rather than a map keyed
/// by strings: on large tables that is most of lowering's time. A key with an unknown name can only equal a key
/// with the same unknown name, so those few are compared as strings.
fn last_of_each_key(
    oa: &OaSpec,
    ids: &[(Option<StateId>, Option<StateId>, Option<EventId>)],
) -> Vec<bool> {
    let mut keep = vec![true; oa.transitions.len()];
    let mut resolved: Vec<(u32, u32, usize)> = Vec::with_capacity(ids.len());
    let mut unresolved: FastMap<(&str, &str), usize> = FastMap::default();
    for (i, (t, &(from, _, event))) in oa.transitions.iter().zip(ids).enumerate() {
        match (from, event) {
            (Some(from), Some(event)) => resolved.push((from.0, event.0, i)),
            _ => {
                if let Some(prev) = unresolved.insert((t.from.as_str(), t.event.as_str()), i)
                    && let Some(k) = keep.get_mut(prev)
                {
                    *k = false;
                }
            }
        }
    }
    resolved.sort_unstable();
    for run in resolved.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        if let [earlier @ .., _] = run {
            for &(_, _, i) in earlier {
                if let Some(k) = keep.get_mut(i) {
                    *k = false;
                }
            }
        }
    }
    keep
}

/// `id` is the state `s` names, if `states` lists it; otherwise this reports it.
fn state_in_table(
    m: &Machine,
    id: Option<StateId>,
    s: &Name,
    diags: &mut Vec<Diagnostic>,
) -> Option<StateId> {
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
