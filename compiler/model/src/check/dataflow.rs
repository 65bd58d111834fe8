//! Synchronized data: pre-/post-conditions are where they belong, and every key a state reads (or a final
//! state guarantees) is written on every path that reaches it: definite assignment over the state graph.
//!
//! Every system's states may read and write the machine's keys, so the analysis is generic; how leaving a state
//! changes the data besides its writes (an Open Autonomy reset round starts a period, a decided round writes on
//! `DONE` only) is given to it as an [`Exit`] per state.
//!
//! A forward must-analysis: the keys available on entry to a state are the intersection, over its
//! predecessors, of what they had plus what they wrote; start states begin with their pre-conditions. A reset
//! round starts a new period, after which only cross-period keys carry over. Sets only shrink, so the worklist
//! settles after O((states + transitions) × keys / 64) word operations.

use super::graph::Graph;
use crate::spec::{EventId, KeyId, Machine, Origin, StateId};
use fsmc_base::diag::{Code, Diagnostic};
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

/// How leaving a state changes the data besides its `writes`. The machine's rounds say it (see
/// `abci::Rounds`): states of the other systems only write, on every exit.
#[derive(Clone, Copy, Default)]
pub(crate) struct Exit {
    /// Where the state's writes happen.
    pub writes: On,
    /// Where leaving starts a new period (only cross-period keys carry over); `None`: nowhere.
    pub resets: Option<On>,
}

/// Which of a state's exits something happens on.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum On {
    /// Every exit.
    #[default]
    Every,
    /// Only the transitions on this event (a decided round's `done`).
    Only(EventId),
    /// Every exit but the transitions on this event (a custom round's timeout, which decides nothing).
    AllBut(EventId),
    /// No exit (a round that can never decide `done`).
    Never,
}

impl On {
    fn holds(self, event: Option<EventId>) -> bool {
        match self {
            On::Every => true,
            On::Only(e) => event == Some(e),
            On::AllBut(e) => event != Some(e),
            On::Never => false,
        }
    }
}

/// The data flow of `m`, where `exit` says how leaving each state changes the data besides its writes.
pub(super) fn check(
    m: &Machine,
    g: &Graph,
    exit: &dyn Fn(StateId) -> Exit,
    out: &mut Vec<Diagnostic>,
) {
    conditions(m, out);
    if m.keys.is_empty() {
        return;
    }
    unused_keys(m, out);
    if !m
        .states
        .iter()
        .any(|s| !s.reads.is_empty() || !s.ensures.is_empty())
    {
        return;
    }
    let n = m.keys.len();
    let cross = {
        let mut b = Bits::empty(n);
        for (i, k) in m.keys.iter().enumerate() {
            if k.cross_period {
                b.set(KeyId(i as u32));
            }
        }
        b
    };
    let avail = available(m, g, exit, &cross);
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
                    .help(read_help(m, *k, exit)),
                );
            }
        }
        let leaving = exit_of(m, s, exit(s).resets.is_some(), true, entry.clone(), &cross);
        for (k, span) in &st.ensures {
            if !leaving.has(*k) {
                out.push(
                    Diagnostic::new(
                        Code::PostconditionUnmet,
                        format!("final state `{}` guarantees `{}`, but some path reaches it without writing it", st.name, m.key(*k).name),
                    )
                    .at(*span, "guaranteed here")
                    .help(read_help(m, *k, exit)),
                );
            }
        }
    }
}

/// Keys no state reads, writes, requires or ensures.
fn unused_keys(m: &Machine, out: &mut Vec<Diagnostic>) {
    let mut used = vec![false; m.keys.len()];
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
}

/// The keys definitely available on entry to each state; `None` for a state no path reaches (the lattice's
/// top).
fn available(
    m: &Machine,
    g: &Graph,
    exit: &dyn Fn(StateId) -> Exit,
    cross: &Bits,
) -> Vec<Option<Bits>> {
    let n = m.keys.len();
    let mut avail: Vec<Option<Bits>> = vec![None; m.states.len()];
    let mut queue = VecDeque::new();
    for s in m.start_states() {
        avail[s.index()] = Some(requires_of(m, s, n));
        queue.push_back(s);
    }
    let outgoing = &g.outgoing;
    let mut queued = vec![false; m.states.len()];
    while let Some(s) = queue.pop_front() {
        queued[s.index()] = false;
        let Some(entry) = avail[s.index()].clone() else {
            continue;
        };
        let how = exit(s);
        for &t in outgoing.of(s) {
            let t = t as usize;
            let to = m.transitions[t].to;
            // A round the runtime decides writes (and resets) only when it ends on `DONE`; its other exits
            // (no majority, a timeout) leave the data as it was. A custom round writes whenever it decides.
            let event = m.transitions[t].event;
            let resets = how.resets.is_some_and(|on| on.holds(event));
            let writes = how.writes.holds(event);
            let leaving = exit_of(m, s, resets, writes, entry.clone(), cross);
            let carried = &leaving;
            let changed = match &mut avail[to.index()] {
                slot @ None => {
                    let mut b = (*carried).clone();
                    // A start state re-entered keeps only what both its entry and this edge provide.
                    if m.state(to).start {
                        b.and(&requires_of(m, to, n));
                    }
                    *slot = Some(b);
                    true
                }
                Some(cur) => {
                    let before = cur.clone();
                    cur.and(carried);
                    *cur != before
                }
            };
            if changed && !queued[to.index()] {
                queued[to.index()] = true;
                queue.push_back(to);
            }
        }
    }
    avail
}

fn requires_of(m: &Machine, s: StateId, n: usize) -> Bits {
    let mut b = Bits::empty(n);
    for (k, _) in &m.state(s).requires {
        b.set(*k);
    }
    b
}

fn exit_of(
    m: &Machine,
    s: StateId,
    resets: bool,
    writes: bool,
    mut entry: Bits,
    cross: &Bits,
) -> Bits {
    // A reset round decides, writes its value into the period that ends, and only then starts the new period
    // from the cross-period keys (upstream's `create()` carries those alone): its own writes survive only when
    // cross-period.
    if writes {
        for (k, _) in &m.state(s).writes {
            entry.set(*k);
        }
    }
    if resets {
        entry.and(cross);
    }
    entry
}

fn read_help(m: &Machine, k: KeyId, exit: &dyn Fn(StateId) -> Exit) -> String {
    let key = &m.key(k).name;
    let reset = m.state_ids().any(|s| exit(s).resets.is_some()) && !m.key(k).cross_period;
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
