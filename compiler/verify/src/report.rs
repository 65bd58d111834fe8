//! Violations as diagnostics: the spec lines along the counterexample are labelled with the blocks that took
//! them, and a note lists the blocks one by one.

use crate::explore::{Explored, Step, Violation};
use crate::model::{Model, Role};
use crate::round::{A, B, HONEST, NONE};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Span;
use std::collections::BTreeMap;

/// The steps from the start to state `to`.
pub(crate) fn path_to(ex: &Explored, to: u32) -> Vec<(u32, Step)> {
    let mut out = Vec::new();
    let mut at = to;
    while let Some(Some((from, i))) = ex.parent.get(at as usize) {
        out.push((*from, ex.steps[*from as usize][*i].clone()));
        at = *from;
    }
    out.reverse();
    out
}

/// A fair loop through `scc` from its first state back to it: every fair step of a state it passes is taken
/// (they all stay in the component), and shortest paths inside the component join them up. With `cut`, no step
/// that ends a period is taken.
pub(crate) fn cycle_in(ex: &Explored, scc: &[u32], cut: bool) -> Vec<(u32, Step)> {
    let members: std::collections::BTreeSet<u32> = scc.iter().copied().collect();
    let Some(&start) = scc.iter().min() else {
        return Vec::new();
    };
    let inside = |st: &Step| !(cut && st.goal) && members.contains(&st.to);
    let mut taken = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let mut at = start;
    for _ in 0..scc.len().saturating_mul(8).saturating_add(16) {
        let fair = ex.steps[at as usize]
            .iter()
            .enumerate()
            .find(|(i, st)| st.fair && inside(st) && !taken.contains(&(at, *i)));
        let (i, st) = match fair {
            Some(found) => found,
            None if at == start && !out.is_empty() => break,
            None => match toward(ex, &members, at, start, cut) {
                Some(i) => (i, &ex.steps[at as usize][i]),
                None => break,
            },
        };
        taken.insert((at, i));
        out.push((at, st.clone()));
        at = st.to;
    }
    out
}

/// The first step of a shortest path from `from` to `to` inside `members`.
fn toward(
    ex: &Explored,
    members: &std::collections::BTreeSet<u32>,
    from: u32,
    to: u32,
    cut: bool,
) -> Option<usize> {
    let mut first: BTreeMap<u32, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::new();
    for (i, st) in ex.steps[from as usize].iter().enumerate() {
        if !(cut && st.goal) && members.contains(&st.to) && !first.contains_key(&st.to) {
            first.insert(st.to, i);
            queue.push_back(st.to);
        }
    }
    while let Some(v) = queue.pop_front() {
        if v == to {
            return first.get(&v).copied();
        }
        let via = first[&v];
        for st in &ex.steps[v as usize] {
            if !(cut && st.goal) && members.contains(&st.to) && !first.contains_key(&st.to) {
                first.insert(st.to, via);
                queue.push_back(st.to);
            }
        }
    }
    None
}

/// What a block did, in words.
pub(crate) fn describe(model: &Model<'_>, from: u32, ex: &Explored, st: &Step) -> String {
    let m = model.machine;
    let state = &m.state(ex.states[from as usize].state).name;
    let mut parts = Vec::new();
    if st.timeout.is_some() {
        parts.push(format!("`{state}` times out"));
    }
    for &(g, c, n) in &st.sends {
        let who = if g == HONEST { "honest" } else { "faulty" };
        let what = match c {
            A => "the first value",
            B => "another value",
            NONE => "an empty payload",
            _ => "a payload",
        };
        parts.push(format!("{n} {who} send {what}"));
    }
    if st.timeout.is_none() && st.sends.is_empty() {
        parts.push("no payload arrives".to_string());
    }
    match st.fired {
        Some((t, outcome)) if st.timeout.is_none() => {
            let tr = &m.transitions[t];
            let why = outcome.map_or("decides".to_string(), |o| format!("decides `{o}`"));
            parts.push(format!("`{state}` {why} -> `{}`", m.state(tr.to).name));
        }
        _ => {}
    }
    parts.join(", ")
}

/// Labels the transitions `steps` took (numbered from `first`), one label per transition.
pub(crate) fn label_path(
    model: &Model<'_>,
    ex: &Explored,
    steps: &[(u32, Step)],
    first: usize,
    tag: &str,
    mut d: Diagnostic,
) -> Diagnostic {
    let mut by_transition: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, (_, st)) in steps.iter().enumerate() {
        if let Some((t, _)) = st.fired {
            by_transition.entry(t).or_default().push(first + i + 1);
        }
    }
    for (t, blocks) in by_transition {
        let list: Vec<String> = blocks.iter().map(usize::to_string).collect();
        let what = if blocks.len() == 1 { "block" } else { "blocks" };
        d = d.with(
            model.machine.transitions[t].span,
            format!("{tag}{what} {}", list.join(", ")),
        );
    }
    for (i, (from, st)) in steps.iter().enumerate() {
        d = d.note(format!(
            "{tag}block {}: {}",
            first + i + 1,
            describe(model, *from, ex, st)
        ));
    }
    d
}

pub(crate) fn state_span(model: &Model<'_>, ex: &Explored, at: u32) -> (Span, String) {
    let st = model.machine.state(ex.states[at as usize].state);
    (st.name.span, st.name.to_string())
}

/// The diagnostic of a safety violation at state `at`.
pub(crate) fn violation(model: &Model<'_>, ex: &Explored, at: u32, v: &Violation) -> Diagnostic {
    let path = path_to(ex, at);
    let (span, name) = state_span(model, ex, at);
    let blocks = path.len();
    let d = match v {
        Violation::Stuck => Diagnostic::new(
            Code::VerifyStuck,
            format!("`{name}` can be reached in a state no block leaves, after {blocks} blocks"),
        )
        .at(span, "the app stays here forever")
        .help("give the round a timeout, or a transition for every outcome it can decide with the agents it has"),
        Violation::Keeper => Diagnostic::new(
            Code::VerifyKeeperNotLive,
            format!("keeper round `{name}` runs without a live keeper, after {blocks} blocks"),
        )
        .at(span, "no keeper that has not failed this period is elected here")
        .help("lead every failure and timeout of a keeper round to an `elects_keeper;` round before the next keeper round"),
        Violation::Key(k, read) => {
            let key = &model.machine.key(*k).name;
            Diagnostic::new(
                Code::VerifyKeyMissing,
                format!("`{name}` needs `{key}` on entry, but it can be missing after {blocks} blocks"),
            )
            .at(*read, "needed here")
            .with(span, "entered without it")
            .help(format!(
                "write `{key}` on every path to `{name}`, or make it `cross_period` if it must survive a reset"
            ))
        }
    };
    label_path(model, ex, &path, 0, "", d)
}

/// The diagnostic of a fair cycle that never ends its period: the way to it, then the loop.
pub(crate) fn livelock(model: &Model<'_>, ex: &Explored, scc: &[u32]) -> Diagnostic {
    let cycle = cycle_in(ex, scc, true);
    let entry = cycle.first().map_or(scc[0], |(from, _)| *from);
    let prefix = path_to(ex, entry);
    let (span, name) = state_span(model, ex, entry);
    let d = Diagnostic::new(
        Code::VerifyPeriodNeverEnds,
        format!(
            "a period can loop through `{name}` forever without reaching a reset round or a final state"
        ),
    )
    .at(span, "the loop starts here")
    .help("give the loop an exit the environment cannot avoid: a timeout or outcome that leads to a reset round")
    .note(format!(
        "the loop takes {} and repeats forever, with at most the allowed faults, timeouts firing, and honest agents that agree delivering",
        if cycle.len() == 1 { "1 block".to_string() } else { format!("{} blocks", cycle.len()) }
    ));
    let d = label_path(model, ex, &prefix, 0, "", d);
    label_path(model, ex, &cycle, prefix.len(), "loop: ", d)
}

pub(crate) fn blocks_of(
    model: &Model<'_>,
    ex: &Explored,
    steps: &[(u32, Step)],
) -> Vec<crate::CexBlock> {
    steps
        .iter()
        .map(|(from, st)| {
            let x = &ex.states[*from as usize];
            // Before the service starts, how many of the agents the replay names faulty are still to send.
            let faulty = if !x.started && model.state(x.state).role == Role::Registration {
                ex.faults.saturating_sub(x.round.sent(HONEST))
            } else {
                0
            };
            crate::CexBlock {
                state: model.machine.state(x.state).name.to_string(),
                timeout: st.timeout,
                sends: sends_of(st, faulty),
            }
        })
        .collect()
}

/// A block's payloads as (honest, class, how many), in the replay's terms: its last agents are the faulty ones.
/// Until the service starts every agent is honest, and the faulty agents are picked among those the first
/// registration registers: the first `faulty` of its senders in this block are agents the replay names faulty,
/// sending as the others do.
fn sends_of(st: &Step, mut faulty: u8) -> Vec<(bool, u8, u8)> {
    let mut out = Vec::new();
    for &(g, c, n) in &st.sends {
        let class = c as u8;
        let named_faulty = if g == HONEST { n.min(faulty) } else { 0 };
        faulty -= named_faulty;
        if named_faulty > 0 {
            out.push((false, class, named_faulty));
        }
        if n > named_faulty {
            out.push((g == HONEST, class, n - named_faulty));
        }
    }
    out
}

/// The counterexample of a safety violation at `at`.
pub(crate) fn counterexample(
    model: &Model<'_>,
    ex: &Explored,
    at: u32,
    v: &Violation,
) -> crate::Counterexample {
    let (code, key) = match v {
        Violation::Stuck => (Code::VerifyStuck, None),
        Violation::Keeper => (Code::VerifyKeeperNotLive, None),
        Violation::Key(k, _) => (
            Code::VerifyKeyMissing,
            Some(model.machine.key(*k).name.to_string()),
        ),
    };
    crate::Counterexample {
        code,
        blocks: blocks_of(model, ex, &path_to(ex, at)),
        loop_from: None,
        key,
        entered: Some(state_span(model, ex, at).1),
        claim: None,
    }
}

/// The counterexample of a fair cycle: the way to it, then the loop.
pub(crate) fn lasso(model: &Model<'_>, ex: &Explored, scc: &[u32]) -> crate::Counterexample {
    let cycle = cycle_in(ex, scc, true);
    let entry = cycle.first().map_or(scc[0], |(from, _)| *from);
    let mut blocks = blocks_of(model, ex, &path_to(ex, entry));
    let loop_from = blocks.len();
    blocks.extend(blocks_of(model, ex, &cycle));
    crate::Counterexample {
        code: Code::VerifyPeriodNeverEnds,
        blocks,
        loop_from: Some(loop_from),
        key: None,
        entered: None,
        claim: None,
    }
}
