//! The properties a spec declares, checked over the explored graph: an `invariant` in every explored state (the
//! first found in breadth-first order is a shortest counterexample), an `eventually` on every fair run (a run
//! that avoids it forever is a way through states where it is false to either a state no block leaves, or a
//! fair cycle of such states; period ends do not stop such a run, so they are steps like any other).

use crate::explore::{Abs, Explored, Step};
use crate::memory::led_in;
use crate::model::Model;
use crate::report::{blocks_of, cycle_in, label_path, path_to, state_span};
use crate::{Counterexample, liveness};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_model::spec::{Claim, ClaimKind, KeyId, Machine, Situation, StateId};

/// One explored state as the claims see it: where the machine is, its keys (none outside `abci` machines), the
/// class of the transition that led in, and the period counted so far.
pub(crate) struct At<'m> {
    pub m: &'m Machine,
    pub state: StateId,
    pub keys: Option<&'m Abs>,
    pub led: u32,
    pub period: u32,
}

impl Situation for At<'_> {
    fn in_state(&self, state: &str) -> bool {
        self.m.state(self.state).name.as_str() == state
    }
    fn has(&self, key: &str) -> bool {
        self.keys.is_some_and(|x| {
            self.m
                .keys
                .iter()
                .position(|k| k.name.as_str() == key)
                .is_some_and(|i| x.has(KeyId(i as u32)))
        })
    }
    fn led_in(&self) -> Option<(&str, Option<&str>)> {
        led_in(self.m, self.led)
    }
    fn period(&self) -> u64 {
        u64::from(self.period)
    }
}

/// Checks every claim of the machine. Returns the diagnostics, and the counterexample of the first broken
/// claim: for an invariant the blocks to a state where it fails, for an `eventually` the run that avoids it (a
/// stem and, when it loops, the loop).
pub(crate) fn check(model: &Model<'_>, ex: &Explored) -> (Vec<Diagnostic>, Option<Counterexample>) {
    let mut diags = Vec::new();
    let mut cex = None;
    for claim in &model.machine.claims {
        let ok: Vec<bool> = (0..ex.states.len() as u32)
            .map(|s| holds(model, ex, claim, s))
            .collect();
        match claim.kind {
            ClaimKind::Invariant => {
                if let Some(at) = ok.iter().position(|h| !h) {
                    diags.push(broken(model, ex, claim, at as u32));
                    cex = cex.or_else(|| {
                        Some(Counterexample {
                            code: Code::InvariantViolated,
                            blocks: blocks_of(model, ex, &path_to(ex, at as u32)),
                            loop_from: None,
                            key: None,
                            entered: None,
                            claim: Some(claim.clone()),
                        })
                    });
                }
            }
            // A search cut short has states it never expanded, which would look like the end of a run.
            ClaimKind::Eventually if !ex.truncated => {
                if let Some((d, run)) = avoided(model, ex, claim, &ok) {
                    diags.push(d);
                    cex = cex.or(Some(run));
                }
            }
            ClaimKind::Eventually => {}
        }
    }
    (diags, cex)
}

/// Whether the claim holds in explored state `s`.
fn holds(model: &Model<'_>, ex: &Explored, claim: &Claim, s: u32) -> bool {
    let x = &ex.states[s as usize];
    claim.formula.holds(&At {
        m: model.machine,
        state: x.state,
        keys: Some(x),
        led: x.led,
        period: x.period,
    })
}

/// Where the machine is and what it holds in state `s`, in words.
fn situation(model: &Model<'_>, ex: &Explored, s: u32) -> String {
    let m = model.machine;
    let x = &ex.states[s as usize];
    let keys: Vec<String> = (0..m.keys.len() as u32)
        .filter(|&k| x.has(KeyId(k)))
        .map(|k| format!("`{}`", m.key(KeyId(k)).name))
        .collect();
    let keys = if keys.is_empty() {
        "none".to_string()
    } else {
        keys.join(", ")
    };
    let cap = model.memory.period_cap;
    let period = match x.period {
        _ if cap == 0 => String::new(),
        p if p == cap => format!(", in period {cap} or later"),
        p => format!(", in period {p}"),
    };
    format!(
        "in `{}`, with keys present: {keys}{period}",
        m.state(x.state).name
    )
}

fn broken(model: &Model<'_>, ex: &Explored, claim: &Claim, at: u32) -> Diagnostic {
    let path = path_to(ex, at);
    let (span, name) = state_span(model, ex, at);
    let d = Diagnostic::new(
        Code::InvariantViolated,
        format!(
            "invariant \"{}\" fails in `{name}` after {}",
            claim.name,
            blocks(path.len())
        ),
    )
    .at(claim.name.span, "this property fails")
    .with(span, "reached here")
    .note(format!("it fails {}", situation(model, ex, at)));
    label_path(model, ex, &path, 0, "", d)
}

/// A fair run that never reaches a state where the claim holds, as a diagnostic and a counterexample; `None`
/// when there is none.
fn avoided(
    model: &Model<'_>,
    ex: &Explored,
    claim: &Claim,
    ok: &[bool],
) -> Option<(Diagnostic, Counterexample)> {
    if ok.first().is_none_or(|h| *h) {
        return None;
    }
    // Breadth first from the start through states where the claim is false.
    let n = ex.states.len();
    let mut parent: Vec<Option<(u32, usize)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[0] = true;
    let mut order = vec![0u32];
    let mut next = 0;
    while next < order.len() {
        let s = order[next];
        next += 1;
        for (i, st) in ex.steps[s as usize].iter().enumerate() {
            if !ok[st.to as usize] && !seen[st.to as usize] {
                seen[st.to as usize] = true;
                parent[st.to as usize] = Some((s, i));
                order.push(st.to);
            }
        }
    }
    let path = |to: u32| {
        let mut out: Vec<(u32, Step)> = Vec::new();
        let mut at = to;
        while let Some((from, i)) = parent[at as usize] {
            out.push((from, ex.steps[from as usize][i].clone()));
            at = from;
        }
        out.reverse();
        out
    };
    let (prefix, cycle) = match order.iter().find(|&&s| ex.steps[s as usize].is_empty()) {
        Some(&end) => (path(end), Vec::new()),
        None => {
            let scc = liveness::fair_cycle_in(ex, order.clone(), false)?;
            let cycle = cycle_in(ex, &scc, false);
            let entry = cycle.first().map_or(scc[0], |(from, _)| *from);
            (path(entry), cycle)
        }
    };
    let last = cycle.first().map_or_else(
        || prefix.last().map_or(0, |(_, st)| st.to),
        |(from, _)| *from,
    );
    let (span, _) = state_span(model, ex, last);
    let d = Diagnostic::new(
        Code::EventuallyViolated,
        format!("a fair run never satisfies eventually \"{}\"", claim.name),
    )
    .at(claim.name.span, "this property is never reached");
    let d = if cycle.is_empty() {
        d.with(span, "the run ends here").note(format!(
            "after {} the run ends {}",
            blocks(prefix.len()),
            situation(model, ex, last)
        ))
    } else {
        d.with(span, "the loop starts here").note(format!(
            "the loop takes {} and repeats forever, with at most the allowed faults, timeouts firing, and honest agents that agree delivering",
            blocks(cycle.len())
        ))
    };
    let d = label_path(model, ex, &prefix, 0, "", d);
    let mut blocks = blocks_of(model, ex, &prefix);
    let stem = blocks.len();
    blocks.extend(blocks_of(model, ex, &cycle));
    let run = Counterexample {
        code: Code::EventuallyViolated,
        blocks,
        loop_from: (!cycle.is_empty()).then_some(stem),
        key: None,
        entered: None,
        claim: Some(claim.clone()),
    };
    Some((
        label_path(model, ex, &cycle, prefix.len(), "loop: ", d),
        run,
    ))
}

fn blocks(n: usize) -> String {
    if n == 1 {
        "1 block".to_string()
    } else {
        format!("{n} blocks")
    }
}
