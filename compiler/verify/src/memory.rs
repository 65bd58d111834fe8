//! What the search remembers of a run for the declared properties, beyond the state it is in: the transition
//! that led into the state (by class) and the period number (up to a cap).

use fsmc_model::spec::{Formula, Machine, Situation};
use std::collections::BTreeMap;

/// What the search remembers of a run for the claims, beyond the state it is in: the transition that led into
/// the state, and the period number. Both only when a claim speaks of them, so that the states explored do not
/// multiply for every app.
///
/// The transition is remembered by its class: transitions that every `after` and `outcome` condition of the
/// claims judges alike are one class (most transitions fall in the class no condition holds of, which is also
/// the class of a run's start), so a state is told apart only as far as the claims can tell.
///
/// The period is counted up to `period_cap`, one past the largest constant a claim compares it with: every
/// period from there on satisfies the same comparisons, so counting further would tell apart states no claim
/// can, and the search stays finite.
pub(crate) struct Memory {
    /// For each transition of the machine, its class: 0 when no condition holds of it, else one more than the
    /// first transition of its class.
    pub led: Vec<u32>,
    pub period_cap: u32,
}

impl Memory {
    pub fn new(m: &Machine) -> Memory {
        let mut atoms = Vec::new();
        for c in &m.claims {
            transition_atoms(&c.formula, &mut atoms);
        }
        let mut first: BTreeMap<Vec<bool>, u32> = BTreeMap::new();
        let led = (0..m.transitions.len())
            .map(|t| {
                let at = Led {
                    m,
                    led: t as u32 + 1,
                };
                let sig: Vec<bool> = atoms.iter().map(|a| a.holds(&at)).collect();
                if sig.iter().all(|h| !h) {
                    0
                } else {
                    *first.entry(sig).or_insert(t as u32 + 1)
                }
            })
            .collect();
        let bound = m
            .claims
            .iter()
            .filter_map(|c| c.formula.period_bound())
            .max();
        Memory {
            led,
            period_cap: bound.map_or(0, |b| u32::try_from(b + 1).unwrap_or(u32::MAX)),
        }
    }
}

/// The `after` and `outcome` conditions of a formula.
fn transition_atoms<'f>(f: &'f Formula, out: &mut Vec<&'f Formula>) {
    match f {
        Formula::After(_) | Formula::Outcome(_) => out.push(f),
        Formula::Not(g) => transition_atoms(g, out),
        Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|g| transition_atoms(g, out)),
        Formula::In(_) | Formula::Has(_) | Formula::Missing(_) | Formula::Period(..) => {}
    }
}

/// Only the transition that led into a state (`led`: one more than its index, 0 for none), for classing
/// transitions by the conditions that hold of them.
struct Led<'m> {
    m: &'m Machine,
    led: u32,
}

impl Situation for Led<'_> {
    fn in_state(&self, _: &str) -> bool {
        false
    }
    fn has(&self, _: &str) -> bool {
        false
    }
    fn led_in(&self) -> Option<(&str, Option<&str>)> {
        led_in(self.m, self.led)
    }
    fn period(&self) -> u64 {
        0
    }
}

/// The state left and the event of transition `led` (one more than its index; 0: none).
pub(crate) fn led_in(m: &Machine, led: u32) -> Option<(&str, Option<&str>)> {
    let t = m.transitions.get(led.checked_sub(1)? as usize)?;
    Some((
        m.state(t.from).name.as_str(),
        t.event.map(|e| m.event(e).name.as_str()),
    ))
}
