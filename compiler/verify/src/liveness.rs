//! Liveness over the explored graph: a fair cycle that never ends its period, found by strongly connected
//! components; and the worst-case length of a period.
//!
//! A cycle is fair when every state on it that fairness constrains has its required steps inside it: a state
//! that recurs forever must eventually take each of its fair steps (see `explore::fairness`), so a component
//! where some state has a fair step leaving it cannot be stayed in forever through that state. Those states are
//! removed and the rest is split into components again (the usual refinement for strong fairness), until a
//! component keeps all its fair steps inside, or none is left.

use crate::explore::Explored;
use std::time::Duration;

/// The graph restricted to `within`, without the steps that end a period when `cut` is set.
fn inner<'a>(
    ex: &'a Explored,
    within: &'a [bool],
    s: u32,
    cut: bool,
) -> impl Iterator<Item = u32> + 'a {
    ex.steps[s as usize]
        .iter()
        .filter(move |st| !(cut && st.goal) && within[st.to as usize])
        .map(|st| st.to)
}

/// The strongly connected components of the graph restricted to `within` (Tarjan's algorithm, iterative).
fn components(ex: &Explored, within: &[bool], cut: bool) -> Vec<Vec<u32>> {
    let n = ex.steps.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0u32;
    for root in 0..n {
        if !within[root] || index[root] != u32::MAX {
            continue;
        }
        // Each frame: a node and the successors still to visit.
        let mut frames: Vec<(u32, Vec<u32>)> = Vec::new();
        let visit = |v: u32, index: &mut Vec<u32>, low: &mut Vec<u32>, counter: &mut u32| {
            index[v as usize] = *counter;
            low[v as usize] = *counter;
            *counter += 1;
        };
        visit(root as u32, &mut index, &mut low, &mut counter);
        stack.push(root as u32);
        on_stack[root] = true;
        frames.push((root as u32, inner(ex, within, root as u32, cut).collect()));
        while let Some((v, rest)) = frames.last_mut() {
            let v = *v;
            if let Some(w) = rest.pop() {
                if index[w as usize] == u32::MAX {
                    visit(w, &mut index, &mut low, &mut counter);
                    stack.push(w);
                    on_stack[w as usize] = true;
                    frames.push((w, inner(ex, within, w, cut).collect()));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some((parent, _)) = frames.last() {
                low[*parent as usize] = low[*parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(scc);
            }
        }
    }
    out
}

/// A set of states the environment can keep the app in forever, fairly, without ending a period; `None` when
/// every fair run ends its periods.
pub(crate) fn fair_cycle(ex: &Explored) -> Option<Vec<u32>> {
    fair_cycle_in(ex, (0..ex.steps.len() as u32).collect(), true)
}

/// A set of states among `set` the environment can keep the app in forever, fairly; with `cut`, without ending a
/// period on the way. States where honest agents disagree are left out: they cannot recur on a fair run.
pub(crate) fn fair_cycle_in(ex: &Explored, set: Vec<u32>, cut: bool) -> Option<Vec<u32>> {
    let n = ex.steps.len();
    let set = set
        .into_iter()
        .filter(|&s| !ex.states[s as usize].honest_disagree())
        .collect();
    let mut work: Vec<Vec<u32>> = vec![set];
    while let Some(set) = work.pop() {
        let mut within = vec![false; n];
        for &s in &set {
            within[s as usize] = true;
        }
        for scc in components(ex, &within, cut) {
            let mut members = vec![false; n];
            for &s in &scc {
                members[s as usize] = true;
            }
            let cyclic = scc.len() > 1 || inner(ex, &members, scc[0], cut).any(|t| t == scc[0]);
            if !cyclic {
                continue;
            }
            let leaves = |s: &u32| {
                ex.steps[*s as usize]
                    .iter()
                    .any(|st| st.fair && ((cut && st.goal) || !members[st.to as usize]))
            };
            let (bad, good): (Vec<u32>, Vec<u32>) = scc.iter().partition(|s| leaves(s));
            if bad.is_empty() {
                return Some(scc);
            }
            if !good.is_empty() {
                work.push(good);
            }
        }
    }
    None
}

/// The longest a period can take, in blocks and in the sum of the timeouts that fire on the way, when honest
/// agents deliver promptly and agree, faulty agents do their worst, and timeouts fire only when the round can
/// no longer decide; `None` when a cycle within a period makes it unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub blocks: u64,
    pub time: Duration,
}

pub(crate) fn period_bound(ex: &Explored) -> Option<Bound> {
    let n = ex.steps.len();
    // A block that changes nothing (waiting for a timeout) is not counted: the timeout's duration is. A decision
    // that re-enters its own round is.
    let counted = |st: &crate::explore::Step, from: u32| {
        (st.to != from || st.fired.is_some()) && (st.prompt || st.fair)
    };
    // Period starts: the initial state and every state a period-ending step leads to.
    let mut starts = vec![0u32];
    for steps in &ex.steps {
        starts.extend(steps.iter().filter(|s| s.goal).map(|s| s.to));
    }
    // Longest path by depth-first search with memory; a state on the current path seen again is a cycle.
    let mut memo: Vec<Option<Bound>> = vec![None; n];
    let mut on_path = vec![false; n];
    let mut best = Bound {
        blocks: 0,
        time: Duration::ZERO,
    };
    for s in starts {
        let b = longest(ex, s, &counted, &mut memo, &mut on_path)?;
        if (b.blocks, b.time) > (best.blocks, best.time) {
            best = b;
        }
    }
    Some(best)
}

fn longest(
    ex: &Explored,
    root: u32,
    counted: &dyn Fn(&crate::explore::Step, u32) -> bool,
    memo: &mut [Option<Bound>],
    on_path: &mut [bool],
) -> Option<Bound> {
    if let Some(b) = memo[root as usize] {
        return Some(b);
    }
    // Iterative: each frame is a state and the index of its next step to follow.
    let mut frames: Vec<(u32, usize)> = vec![(root, 0)];
    on_path[root as usize] = true;
    while let Some(&mut (v, ref mut i)) = frames.last_mut() {
        let steps = &ex.steps[v as usize];
        if let Some(st) = steps.get(*i) {
            *i += 1;
            if !counted(st, v) || st.goal || memo[st.to as usize].is_some() {
                continue;
            }
            if on_path[st.to as usize] {
                return None;
            }
            on_path[st.to as usize] = true;
            frames.push((st.to, 0));
            continue;
        }
        let mut b = Bound {
            blocks: 0,
            time: Duration::ZERO,
        };
        for st in steps.iter().filter(|st| counted(st, v)) {
            let after = if st.goal {
                Bound {
                    blocks: 0,
                    time: Duration::ZERO,
                }
            } else {
                memo[st.to as usize]?
            };
            let here = Bound {
                blocks: after.blocks + 1,
                time: after.time + st.timeout.unwrap_or_default(),
            };
            if (here.blocks, here.time) > (b.blocks, b.time) {
                b = here;
            }
        }
        memo[v as usize] = Some(b);
        on_path[v as usize] = false;
        frames.pop();
    }
    memo[root as usize]
}
