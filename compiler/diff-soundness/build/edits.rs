//! Random edits of a resolved spec: each changes one thing a spec author could change (a name, an order, a
//! target, a timeout, a round's part, docs, a label), in the model, so that the edited spec is checked and
//! compiled as any other. An edit returns what it did, or `None` when the spec has nothing it applies to.

use fsmc_base::source::{Name, SmolStr};
use fsmc_model::spec::{Event, EventId, Key, KeyId, Machine, MachineId, Spec, StateData, StateId};
use fsmc_vocab::abci::RoundKind;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

/// One edit, drawn among all of them.
pub fn random(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    const EDITS: &[fn(&mut Spec, &mut ChaCha8Rng) -> Option<String>] = &[
        rename_state,
        rename_event,
        rename_key,
        swap_states,
        swap_events,
        swap_keys,
        retarget,
        timeout,
        cross_period,
        state_docs,
        label,
        reset,
        add_event,
        explicit_outcome,
        reverse_transitions,
        round_kind,
        start_flag,
        rename_app,
        drop_read,
        add_key,
        payload,
        rotate_keys,
        transition_docs,
    ];
    let edit = EDITS[below(rng, EDITS.len())];
    edit(spec, rng)
}

fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

/// A machine of the spec, at random.
fn machine<'s>(spec: &'s mut Spec, rng: &mut ChaCha8Rng) -> (MachineId, &'s mut Machine) {
    let i = below(rng, spec.machines.len());
    (MachineId(i as u32), &mut spec.machines[i])
}

fn rename_state(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let name = &mut m.states.get_mut(s)?.name;
    let old = name.text.clone();
    name.text = format!("{}RenamedRound", old.trim_end_matches("Round")).into();
    Some(format!("rename state {old}"))
}

fn rename_event(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let e = below(rng, m.events.len());
    let name = &mut m.events.get_mut(e)?.name;
    let old = name.text.clone();
    name.text = format!("{old}_RENAMED").into();
    Some(format!("rename event {old}"))
}

fn rename_key(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let k = below(rng, m.keys.len());
    let name = &mut m.keys.get_mut(k)?.name;
    let old = name.text.clone();
    name.text = format!("{old}_renamed").into();
    Some(format!("rename key {old}"))
}

/// Two states trade places in their machine's list; every reference follows.
fn swap_states(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (id, m) = machine(spec, rng);
    let (i, j) = (below(rng, m.states.len()), below(rng, m.states.len()));
    if i == j {
        return None;
    }
    m.states.swap(i, j);
    let swap = |s: StateId| match s.index() {
        x if x == i => StateId(j as u32),
        x if x == j => StateId(i as u32),
        _ => s,
    };
    for t in &mut m.transitions {
        t.from = swap(t.from);
        t.to = swap(t.to);
    }
    let names = format!("{} and {}", m.states[i].name, m.states[j].name);
    for app in &mut spec.apps {
        for edge in &mut app.mappings {
            for end in [&mut edge.from, &mut edge.to] {
                if end.0 == id {
                    end.1 = swap(end.1);
                }
            }
        }
    }
    Some(format!("swap states {names}"))
}

/// Two events trade places; transitions and outcome mappings follow.
fn swap_events(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let (i, j) = (below(rng, m.events.len()), below(rng, m.events.len()));
    if i == j {
        return None;
    }
    m.events.swap(i, j);
    let swap = |e: EventId| match e.index() {
        x if x == i => EventId(j as u32),
        x if x == j => EventId(i as u32),
        _ => e,
    };
    for t in &mut m.transitions {
        t.event = t.event.map(swap);
    }
    for s in &mut m.states {
        if let StateData::Abci(r) = &mut s.system {
            for (_, e, _) in r.outcomes.iter_mut() {
                *e = swap(*e);
            }
        }
    }
    Some(format!(
        "swap events {} and {}",
        m.events[i].name, m.events[j].name
    ))
}

fn swap_keys(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let (i, j) = (below(rng, m.keys.len()), below(rng, m.keys.len()));
    if i == j {
        return None;
    }
    m.keys.swap(i, j);
    renumber_keys(m, |k| match k.index() {
        x if x == i => KeyId(j as u32),
        x if x == j => KeyId(i as u32),
        _ => k,
    });
    Some(format!(
        "swap keys {} and {}",
        m.keys[i].name, m.keys[j].name
    ))
}

/// The last key becomes the first.
fn rotate_keys(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let n = m.keys.len();
    if n < 2 {
        return None;
    }
    m.keys.rotate_right(1);
    renumber_keys(m, |k| KeyId(((k.index() + 1) % n) as u32));
    Some(format!("move key {} first", m.keys[0].name))
}

fn renumber_keys(m: &mut Machine, f: impl Fn(KeyId) -> KeyId) {
    for s in &mut m.states {
        for list in [&mut s.reads, &mut s.writes, &mut s.requires, &mut s.ensures] {
            for (k, _) in list.iter_mut() {
                *k = f(*k);
            }
        }
    }
}

fn retarget(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let t = below(rng, m.transitions.len());
    let to = StateId(below(rng, m.states.len()) as u32);
    let tr = m.transitions.get_mut(t)?;
    if tr.to == to {
        return None;
    }
    tr.to = to;
    Some(format!(
        "retarget a transition to {}",
        m.states[to.index()].name
    ))
}

fn timeout(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let e = m.events.iter_mut().filter(|e| e.timeout.is_some()).last()?;
    let t = e.timeout.as_mut()?;
    t.duration *= 2;
    Some(format!("double the timeout of {}", e.name))
}

fn cross_period(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let k = below(rng, m.keys.len());
    let key = m.keys.get_mut(k)?;
    key.cross_period = !key.cross_period;
    Some(format!("toggle cross_period on {}", key.name))
}

fn state_docs(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let st = m.states.get_mut(s)?;
    st.docs.push("Edited docs.".to_string());
    Some(format!("document {}", st.name))
}

fn transition_docs(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let t = below(rng, m.transitions.len());
    m.transitions
        .get_mut(t)?
        .docs
        .push("Edited docs.".to_string());
    Some("document a transition".to_string())
}

fn label(spec: &mut Spec, _: &mut ChaCha8Rng) -> Option<String> {
    let app = spec.apps.first_mut()?;
    app.label = Some(Name::new(
        "packages.valory.skills.oracle.OracleAbciApp",
        app.name.span,
    ));
    Some("label the app".to_string())
}

fn rename_app(spec: &mut Spec, _: &mut ChaCha8Rng) -> Option<String> {
    let app = spec.apps.first_mut()?;
    app.name.text = SmolStr::new("RenamedOracleAbciApp");
    Some("rename the app".to_string())
}

fn reset(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let st = m.states.get_mut(s)?;
    let StateData::Abci(r) = &mut st.system else {
        return None;
    };
    if st.is_final {
        return None;
    }
    r.reset = !r.reset;
    Some(format!("toggle reset on {}", st.name))
}

fn add_event(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let span = m.name.span;
    m.events.push(Event {
        name: Name::new("EXTRA_EVENT", span),
        docs: vec!["An event nothing sends.".to_string()],
        timeout: None,
        fields: Vec::new(),
        role: None,
        turn: None,
        role_span: None,
    });
    Some(format!("add an event to {}", m.name))
}

/// Maps an outcome explicitly to the event convention already maps it to: nothing changes.
fn explicit_outcome(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = StateId(below(rng, m.states.len()) as u32);
    let kind = m.state(s).round_kind();
    let (o, _) = *kind.outcomes().first()?;
    let e = m.find_event(o.default_event())?;
    let span = m.state(s).name.span;
    let StateData::Abci(r) = &mut m.states[s.index()].system else {
        return None;
    };
    if r.mapped_event(o).is_some() {
        return None;
    }
    r.outcomes.push((o, e, span));
    Some(format!(
        "map {o} explicitly in {}",
        m.states[s.index()].name
    ))
}

fn reverse_transitions(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    m.transitions.reverse();
    Some(format!("reverse the transitions of {}", m.name))
}

fn round_kind(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    const KINDS: &[RoundKind] = &[
        RoundKind::CollectSameUntilThreshold,
        RoundKind::CollectDifferentUntilThreshold,
        RoundKind::CollectSameUntilAll,
        RoundKind::Voting,
    ];
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let k = KINDS[below(rng, KINDS.len())];
    let st = m.states.get_mut(s)?;
    let StateData::Abci(r) = &mut st.system else {
        return None;
    };
    if st.is_final || r.kind == Some(k) {
        return None;
    }
    r.kind = Some(k);
    // A voting round's payload is its ballot.
    if k == RoundKind::Voting {
        st.attributes.retain(|(n, _)| n.text != "payload");
        st.writes.clear();
    }
    Some(format!("make {} a {k} round", st.name))
}

fn start_flag(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let st = m.states.get_mut(s)?;
    if st.default_start || st.is_final {
        return None;
    }
    st.start = !st.start;
    Some(format!("toggle start on {}", st.name))
}

fn drop_read(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let st = m.states.get_mut(s)?;
    st.reads.pop()?;
    Some(format!("drop a read of {}", st.name))
}

fn add_key(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let span = m.name.span;
    m.keys.push(Key {
        name: Name::new("extra_key", span),
        docs: vec!["A key no round writes.".to_string()],
        ty: Name::new("u64", span),
        cross_period: false,
    });
    Some(format!("add a key to {}", m.name))
}

fn payload(spec: &mut Spec, rng: &mut ChaCha8Rng) -> Option<String> {
    let (_, m) = machine(spec, rng);
    let s = below(rng, m.states.len());
    let st = m.states.get_mut(s)?;
    let (_, value) = st
        .attributes
        .iter_mut()
        .find(|(n, v)| n.text == "payload" && v.as_deref() == Some("u64"))?;
    *value = Some("u32".to_string());
    Some(format!("make the payload of {} a u32", st.name))
}
