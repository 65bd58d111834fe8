//! Composition: chaining machines into one app with Open Autonomy's `chain` semantics.
//!
//! The result is computed exactly as upstream does: start states come from the first machine; mapped final
//! states are dropped and every transition into one is redirected through the mapping; a state is kept only if a
//! kept transition points at it or it is the default start (a one-step prune, not full reachability); the final
//! states are the unmapped finals still pointed at; timeouts and cross-period keys are unioned (timeouts of events
//! no longer used are dropped). The checks of the composition itself are in `compose`; the result is then
//! checked again as an ordinary machine.

use crate::spec::{
    App, Composed, EventId, KeyId, Machine, MachineId, Origin, Spec, State, StateId, Transition,
};
use fsmc_base::source::Span;
use std::collections::{BTreeMap, BTreeSet};
use thin_vec::ThinVec;

/// Every (machine, state) that is not a mapped final, with its transitions redirected (by name).
struct Potential<'a> {
    machine: MachineId,
    state: &'a State,
    transitions: Vec<(&'a Transition, &'a str)>,
}

/// Chains the app's machines. Never fails: problems with the mapping are reported by `compose`, and whatever
/// they leave inconsistent the re-check of the result reports.
pub(super) fn chain(spec: &Spec, app: &App) -> Composed {
    let machines: Vec<(MachineId, &Machine)> = app
        .chain
        .iter()
        .map(|(id, _)| (*id, spec.machine(*id)))
        .collect();
    let mut out = Machine::new(
        app.name.clone(),
        machines
            .first()
            .map_or(fsmc_vocab::Profile::Abci, |m| m.1.profile),
        Origin::Composed,
        app.span,
    );
    out.docs = app.docs.clone();
    out.label = app.label.clone();
    out.lints = app.lints.clone();
    out.claims = app.claims.clone();

    // Mapping by state name: upstream keys it by round class, and states are unique across composed machines.
    let mapping: BTreeMap<&str, &str> = app
        .mappings
        .iter()
        .map(|m| {
            (
                spec.machine(m.from.0).state(m.from.1).name.as_str(),
                spec.machine(m.to.0).state(m.to.1).name.as_str(),
            )
        })
        .collect();
    let potential = potentials(&machines, &mapping);
    let destinations: BTreeSet<&str> = potential
        .iter()
        .flat_map(|p| p.transitions.iter().map(|(_, to)| *to))
        .collect();
    let first = machines.first().map(|(_, m)| *m);
    let default_start = first.and_then(|m| m.default_start().map(|s| m.state(s).name.as_str()));
    let kept: Vec<&Potential<'_>> = potential
        .iter()
        .filter(|p| {
            destinations.contains(p.state.name.as_str())
                || Some(p.state.name.as_str()) == default_start
        })
        .collect();
    let (origin, state_index) = states(&mut out, first, &potential, &kept, &destinations);
    let key_index = keys(&mut out, &machines);
    let event_index = transitions(&mut out, spec, &kept, &state_index);
    // Re-index per-state references (keys, outcome events) into the composed machine's tables.
    for (i, s) in out.states.iter_mut().enumerate() {
        let m = spec.machine(origin[i]);
        let rekey = |list: &mut ThinVec<(KeyId, Span)>| {
            list.retain_mut(|(k, _)| match key_index.get(m.key(*k).name.as_str()) {
                Some(&nk) => {
                    *k = nk;
                    true
                }
                None => false,
            });
        };
        rekey(&mut s.reads);
        rekey(&mut s.writes);
        rekey(&mut s.requires);
        rekey(&mut s.ensures);
        s.system
            .compose(|e| event_index.get(m.event(e).name.as_str()).copied());
    }
    // A composed final keeps the post-conditions written on it. Upstream also lists what the chain accumulated
    // before it, but across a reset round those keys are gone; the re-check's data flow proves what really
    // holds, so claiming more here would only produce errors about guarantees nobody wrote.
    Composed {
        machine: out,
        origin,
    }
}

/// Every state of the chained machines but the mapped finals, each once (a state shared between machines is an
/// error reported by `compose`; the first is kept), in chain order, with its transitions redirected.
fn potentials<'a>(
    machines: &[(MachineId, &'a Machine)],
    mapping: &BTreeMap<&'a str, &'a str>,
) -> Vec<Potential<'a>> {
    let mut potential: Vec<Potential<'_>> = Vec::new();
    let mut seen_state: BTreeSet<&str> = BTreeSet::new();
    for (mid, m) in machines {
        let outgoing = m.outgoing();
        for sid in m.state_ids() {
            let s = m.state(sid);
            if mapping.contains_key(s.name.as_str()) || !seen_state.insert(s.name.as_str()) {
                continue;
            }
            let transitions = outgoing[sid.index()]
                .iter()
                .map(|&ti| {
                    let t = &m.transitions[ti];
                    (t, redirect(mapping, m.state(t.to).name.as_str()))
                })
                .collect();
            potential.push(Potential {
                machine: *mid,
                state: s,
                transitions,
            });
        }
    }
    potential
}

/// The states of the result: kept sources, every destination of a kept transition, and the first machine's
/// start states (upstream keeps them as start states even when pruned; the re-check then reports them). Emitted
/// in chain order (machine by machine, spec order), so output follows the spec. Returns the machine each came
/// from, and the states by name.
fn states<'a>(
    out: &mut Machine,
    first: Option<&'a Machine>,
    potential: &[Potential<'a>],
    kept: &[&Potential<'a>],
    destinations: &BTreeSet<&str>,
) -> (Vec<MachineId>, BTreeMap<&'a str, StateId>) {
    let default_start = first.and_then(|m| m.default_start().map(|s| m.state(s).name.as_str()));
    let first_starts: BTreeSet<&str> = first.map_or(BTreeSet::new(), |m| {
        m.start_states().map(|s| m.state(s).name.as_str()).collect()
    });
    let mut names: BTreeSet<&str> = kept.iter().map(|p| p.state.name.as_str()).collect();
    names.extend(
        kept.iter()
            .flat_map(|p| p.transitions.iter().map(|(_, to)| *to)),
    );
    names.extend(first_starts.iter().copied());
    let mut origin = Vec::new();
    let mut state_index: BTreeMap<&str, StateId> = BTreeMap::new();
    let mut emitted: BTreeSet<&str> = BTreeSet::new();
    for p in potential {
        let name = p.state.name.as_str();
        if !names.contains(name) || !emitted.insert(name) {
            continue;
        }
        let mut s = p.state.clone();
        s.start = first_starts.contains(name);
        s.default_start = Some(name) == default_start;
        // Finals of the result: unmapped finals still pointed at by a transition.
        s.is_final = p.state.is_final && destinations.contains(name);
        // Only the first machine's pre-conditions hold for the app; later ones were checked along the chain.
        if !s.start {
            s.requires.clear();
        }
        // Keys, outcomes and roles are re-indexed by `chain`.
        state_index.insert(name, StateId(out.states.len() as u32));
        out.states.push(s);
        origin.push(p.machine);
    }
    (origin, state_index)
}

/// The keys of every machine, one per name, with cross-period unioned; returns them by name.
fn keys(out: &mut Machine, machines: &[(MachineId, &Machine)]) -> BTreeMap<String, KeyId> {
    let mut key_index: BTreeMap<String, KeyId> = BTreeMap::new();
    for (_, m) in machines {
        for k in &m.keys {
            match key_index.get(k.name.as_str()) {
                Some(&id) => {
                    // Cross-period keys are unioned.
                    out.keys[id.index()].cross_period |= k.cross_period;
                }
                None => {
                    key_index.insert(k.name.text.to_string(), KeyId(out.keys.len() as u32));
                    out.keys.push(k.clone());
                }
            }
        }
    }
    key_index
}

/// The kept transitions, and their events: one per name, in first-use order; the first declaration's timeout
/// and docs win (a conflicting timeout is reported by `compose`). Returns the events by name.
fn transitions(
    out: &mut Machine,
    spec: &Spec,
    kept: &[&Potential<'_>],
    state_index: &BTreeMap<&str, StateId>,
) -> BTreeMap<String, EventId> {
    let mut event_index: BTreeMap<String, EventId> = BTreeMap::new();
    for p in kept {
        let m = spec.machine(p.machine);
        let from = state_index[p.state.name.as_str()];
        for (t, to) in &p.transitions {
            let event = t.event.map(|e| {
                let ev = m.event(e);
                *event_index
                    .entry(ev.name.text.to_string())
                    .or_insert_with(|| {
                        out.events.push(ev.clone());
                        EventId(out.events.len() as u32 - 1)
                    })
            });
            let Some(&to) = state_index.get(to) else {
                continue;
            };
            out.transitions.push(Transition {
                from,
                event,
                to,
                ..(*t).clone()
            });
        }
    }
    event_index
}

/// One step of the app-level walk: entering `machine` at `start` with the keys guaranteed so far.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub machine: MachineId,
    pub start: StateId,
    pub guaranteed: BTreeSet<String>,
    /// The mapping edge that led here, if any.
    pub via: Option<usize>,
}

/// Walks the app as upstream's `get_paths` does (from the first machine's default start, following every final
/// through the mapping, never re-entering a machine already on the path), yielding every entry with the keys
/// guaranteed along that path: the first machine's pre-conditions plus the post-conditions of every final taken.
/// The work is bounded: a machine entry already seen with a subset of the keys adds nothing new.
pub(super) fn walk(spec: &Spec, app: &App) -> Vec<Entry> {
    let Some(&(first, _)) = app.chain.first() else {
        return Vec::new();
    };
    let fm = spec.machine(first);
    let Some(start) = fm.default_start() else {
        return Vec::new();
    };
    let names = |m: &Machine, ks: &[(KeyId, Span)]| -> BTreeSet<String> {
        ks.iter()
            .map(|(k, _)| m.key(*k).name.text.to_string())
            .collect()
    };
    let initial = names(fm, &fm.state(start).requires);
    let mut out = Vec::new();
    let mut stack = vec![(
        Entry {
            machine: first,
            start,
            guaranteed: initial,
            via: None,
        },
        vec![first],
    )];
    // Subsumption: re-entering (machine, start) with a superset of keys already explored cannot fail where the
    // smaller set did not, so the walk stays polynomial on apps with many paths.
    let mut explored: BTreeMap<(MachineId, StateId), Vec<BTreeSet<String>>> = BTreeMap::new();
    while let Some((entry, path)) = stack.pop() {
        let seen = explored.entry((entry.machine, entry.start)).or_default();
        if seen.iter().any(|s| s.is_subset(&entry.guaranteed)) {
            continue;
        }
        seen.push(entry.guaranteed.clone());
        let m = spec.machine(entry.machine);
        for f in m.final_states() {
            let Some((mi, edge)) = app
                .mappings
                .iter()
                .enumerate()
                .find(|(_, e)| e.from == (entry.machine, f))
            else {
                continue;
            };
            let next = edge.to.0;
            if path[..path.len() - 1].contains(&next) {
                continue;
            }
            let mut guaranteed = entry.guaranteed.clone();
            guaranteed.extend(names(m, &m.state(f).ensures));
            let mut next_path = path.clone();
            next_path.push(next);
            stack.push((
                Entry {
                    machine: next,
                    start: edge.to.1,
                    guaranteed,
                    via: Some(mi),
                },
                next_path,
            ));
        }
        out.push(entry);
    }
    out
}

/// Where a transition into `name` goes once mapped finals are replaced by the start states they map to.
fn redirect<'a>(mapping: &BTreeMap<&'a str, &'a str>, name: &'a str) -> &'a str {
    mapping.get(name).copied().unwrap_or(name)
}
