//! Synchronized data: pre-/post-conditions are where they belong, and every key a state reads (or a final
//! state guarantees) is written on every path that reaches it: definite assignment over the state graph.
//!
//! A forward must-analysis: the keys available on entry to a state are the intersection, over its
//! predecessors, of what they had plus what they wrote; start states begin with their pre-conditions. A reset
//! round starts a new period, after which only cross-period keys carry over. Sets only shrink, so the worklist
//! settles after O((states + transitions) × keys / 64) word operations.

use super::graph::Graph;
use crate::spec::{KeyId, Machine, Origin, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::Profile;
use fsmc_vocab::abci::OutcomeKind;
use fsmc_vocab::abci::RoundKind;
use std::collections::VecDeque;

#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn empty(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, k: KeyId) {
        self.0[k.index() / 64] |= 1 << (k.index() % 64);
    }
    fn has(&self, k: KeyId) -> bool {
        self.0[k.index() / 64] & (1 << (k.index() % 64)) != 0
    }
    fn and(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }
}

pub(super) fn check(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    conditions(m, out);
    keeper(m, g, out);
    if m.keys.is_empty() {
        return;
    }
    let n = m.keys.len();
    let mut used = vec![false; n];
    for s in &m.states {
        for (k, _) in s
            .reads
            .iter()
            .chain(&s.writes)
            .chain(&s.requires)
            .chain(&s.ensures)
        {
            used[k.index()] = true;
        }
    }
    for (i, k) in m.keys.iter().enumerate() {
        if !used[i] {
            out.push(
                Diagnostic::new(
                    Code::UnusedKey,
                    format!("key `{}` is never read, written or guaranteed", k.name),
                )
                .at(k.name.span, "unused key")
                .help("use it in a state's `reads`/`writes`, or remove it"),
            );
        }
    }
    if !m
        .states
        .iter()
        .any(|s| !s.reads.is_empty() || !s.ensures.is_empty())
    {
        return;
    }

    let cross = {
        let mut b = Bits::empty(n);
        for (i, k) in m.keys.iter().enumerate() {
            if k.cross_period {
                b.set(KeyId(i as u32));
            }
        }
        b
    };
    // avail[s]: keys definitely available on entry to s; `None` until a path reaches s (the lattice's top).
    let mut avail: Vec<Option<Bits>> = vec![None; m.states.len()];
    let mut queue = VecDeque::new();
    for s in m.start_states() {
        let mut b = Bits::empty(n);
        for (k, _) in &m.state(s).requires {
            b.set(*k);
        }
        avail[s.index()] = Some(b);
        queue.push_back(s);
    }
    let outgoing = &g.outgoing;
    let mut queued = vec![false; m.states.len()];
    while let Some(s) = queue.pop_front() {
        queued[s.index()] = false;
        let Some(entry) = avail[s.index()].clone() else {
            continue;
        };
        let exit = exit_of(m, s, entry.clone(), &cross);
        let on_done = done_only(m, s);
        for &t in outgoing.of(s) {
            let t = t as usize;
            let to = m.transitions[t].to;
            // A round the runtime decides writes (and resets) only when it ends on `DONE`; its other exits
            // (no majority, a timeout) leave the data as it was.
            let exit = match on_done {
                Some(done) if m.transitions[t].event != Some(done) => &entry,
                _ => &exit,
            };
            let changed = match &mut avail[to.index()] {
                slot @ None => {
                    let mut b = (*exit).clone();
                    // A start state re-entered keeps only what both its entry and this edge provide.
                    if m.state(to).start {
                        b.and(&requires_of(m, to, n));
                    }
                    *slot = Some(b);
                    true
                }
                Some(cur) => {
                    let before = cur.clone();
                    cur.and(exit);
                    *cur != before
                }
            };
            if changed && !queued[to.index()] {
                queued[to.index()] = true;
                queue.push_back(to);
            }
        }
    }
    for s in m.state_ids() {
        let st = m.state(s);
        let Some(entry) = &avail[s.index()] else {
            continue;
        };
        if !g.reachable[s.index()] {
            continue;
        }
        for (k, span) in &st.reads {
            if !entry.has(*k) {
                out.push(
                    Diagnostic::new(
                        Code::ReadBeforeWrite,
                        format!(
                            "state `{}` reads `{}`, which some path reaches without writing",
                            st.name,
                            m.key(*k).name
                        ),
                    )
                    .at(*span, "read here")
                    .with(m.key(*k).name.span, "declared here")
                    .help(read_help(m, *k)),
                );
            }
        }
        let exit = exit_of(m, s, entry.clone(), &cross);
        for (k, span) in &st.ensures {
            if !exit.has(*k) {
                out.push(
                    Diagnostic::new(
                        Code::PostconditionUnmet,
                        format!("final state `{}` guarantees `{}`, but some path reaches it without writing it", st.name, m.key(*k).name),
                    )
                    .at(*span, "guaranteed here")
                    .help(read_help(m, *k)),
                );
            }
        }
    }
}

/// Every `only_keeper_sends` round is entered with a keeper elected in the current period: the same
/// definite-assignment analysis, for the keeper. Only the transition on an election's `done` event elects;
/// a reset round's `done` starts a period without one. Checked only in machines that elect keepers at all:
/// a machine whose keeper is elected in another machine of its app is checked once composed.
fn keeper(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    if !m.states.iter().any(|s| s.elects_keeper.is_some()) {
        return;
    }
    let outgoing = &g.outgoing;
    let done: Vec<Option<crate::spec::EventId>> = m
        .state_ids()
        .map(|s| m.outcome_event(s, OutcomeKind::Done))
        .collect();
    // elected[s]: a keeper is elected on every path into s; `None` until a path reaches s.
    let mut elected: Vec<Option<bool>> = vec![None; m.states.len()];
    let mut queue: VecDeque<StateId> = m.start_states().collect();
    for s in &queue {
        elected[s.index()] = Some(false);
    }
    while let Some(s) = queue.pop_front() {
        let Some(entry) = elected[s.index()] else {
            continue;
        };
        let st = m.state(s);
        for &t in outgoing.of(s) {
            let tr = &m.transitions[t as usize];
            let on_done = tr.event.is_some() && tr.event == done[s.index()];
            let exit = if on_done && st.reset {
                false
            } else if on_done && st.elects_keeper.is_some() {
                true
            } else {
                entry
            };
            let slot = &mut elected[tr.to.index()];
            let next = match *slot {
                None => exit,
                Some(cur) => cur && exit,
            };
            if *slot != Some(next) {
                *slot = Some(next);
                queue.push_back(tr.to);
            }
        }
    }
    for s in m.state_ids() {
        let st = m.state(s);
        if st.round == Some(RoundKind::OnlyKeeperSends)
            && g.reachable[s.index()]
            && elected[s.index()] == Some(false)
        {
            out.push(
                Diagnostic::new(
                    Code::KeeperNotElected,
                    format!(
                        "keeper round `{}` can be reached without a keeper elected in this period",
                        st.name
                    ),
                )
                .at(
                    st.kind_span.unwrap_or(st.name.span),
                    "only the keeper sends here",
                )
                .help("put a round with `elects_keeper;` on every path to it, after every reset"),
            );
        }
    }
}

fn requires_of(m: &Machine, s: StateId, n: usize) -> Bits {
    let mut b = Bits::empty(n);
    for (k, _) in &m.state(s).requires {
        b.set(*k);
    }
    b
}

/// For a round whose outcome the runtime decides (an `abci` state with a round kind), the event of its `done`
/// outcome: only the transition on it carries the round's writes. `None` for states whose writes hold on every
/// exit (custom rounds, other profiles).
fn done_only(m: &Machine, s: StateId) -> Option<crate::spec::EventId> {
    let st = m.state(s);
    if m.profile != Profile::Abci || matches!(st.kind(), RoundKind::Custom | RoundKind::Degenerate)
    {
        return None;
    }
    m.outcome_event(s, OutcomeKind::Done)
}

fn exit_of(m: &Machine, s: StateId, mut entry: Bits, cross: &Bits) -> Bits {
    let st = m.state(s);
    if st.reset {
        entry.and(cross);
    }
    for (k, _) in &st.writes {
        entry.set(*k);
    }
    entry
}

fn read_help(m: &Machine, k: KeyId) -> String {
    let key = &m.key(k).name;
    let reset = m.states.iter().any(|s| s.reset) && !m.key(k).cross_period;
    // In a composed app only the first machine's pre-conditions hold on entry; the later machines' `requires`
    // were checked along the chain and cannot help here.
    if m.origin == Origin::Composed {
        return if reset {
            format!(
                "a reset round starts a new period on the way here: make `{key}` `cross_period`, or write it again after the reset"
            )
        } else {
            format!("write `{key}` on every path of the app to this state")
        };
    }
    if reset {
        format!(
            "write `{key}` on every path to this state, require it on entry (`requires {key};`), or make it `cross_period` if it must survive a reset"
        )
    } else {
        format!(
            "write `{key}` on every path to this state, or require it on entry with `requires {key};` on the start state"
        )
    }
}

/// Pre-conditions only on start states, post-conditions only on finals, never the same key in both, and never
/// a default key.
fn conditions(m: &Machine, out: &mut Vec<Diagnostic>) {
    let mut pre = std::collections::BTreeMap::new();
    let mut post = std::collections::BTreeMap::new();
    for st in &m.states {
        for (k, span) in &st.requires {
            if !st.start {
                out.push(
                    Diagnostic::new(
                        Code::ConditionOnWrongState,
                        format!("`requires` on `{}`, which is not a start state", st.name),
                    )
                    .at(*span, "pre-conditions apply on entry to the machine")
                    .help("move it to a start state, or use `reads`"),
                );
            }
            pre.entry(*k).or_insert(*span);
        }
        for (k, span) in &st.ensures {
            if !st.is_final {
                out.push(
                    Diagnostic::new(
                        Code::ConditionOnWrongState,
                        format!("`ensures` on `{}`, which is not a final state", st.name),
                    )
                    .at(*span, "post-conditions apply on exit from the machine")
                    .help("move it to a final state"),
                );
            }
            post.entry(*k).or_insert(*span);
        }
    }
    for (k, span) in &post {
        if let Some(pre_span) = pre.get(k) {
            out.push(
                Diagnostic::new(
                    Code::ConditionOverlap,
                    format!(
                        "key `{}` is both a pre-condition and a post-condition",
                        m.key(*k).name
                    ),
                )
                .at(*span, "post-condition")
                .with(*pre_span, "pre-condition")
                .help("a key required on entry is still there on exit: drop it from `ensures`"),
            );
        }
    }
    for (k, span) in pre.iter().chain(&post) {
        let name = &m.key(*k).name;
        if fsmc_vocab::abci::DEFAULT_KEYS.contains(&name.as_str()) {
            out.push(
                Diagnostic::new(
                    Code::DefaultKeyAsCondition,
                    format!("`{name}` is a default key and cannot be a condition"),
                )
                .at(*span, "always present")
                .help("default keys are always available: remove it from the condition"),
            );
        }
    }
}
