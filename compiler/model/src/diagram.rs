//! A machine as a drawing's input ([`fsmc_layout::draw::Diagram`]): what the tool's SVG and HTML exports and
//! the generated module docs draw, read from the model in one place so the three agree.

use crate::spec::{Action, Machine, MachineId, Spec, State, StateId, Transition};
use fsmc_layout::draw::{self, Diagram, StateBox};
use std::time::Duration;

/// One original machine of a composed app, and its states in the composed machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub name: String,
    pub states: Vec<StateId>,
}

/// The original machines of a composed app (`origin` holds, for each state of `machine`, the machine it came
/// from) in order of first appearance (chain order), each with its states; empty for a plain machine.
pub fn clusters(spec: &Spec, machine: &Machine, origin: &[MachineId]) -> Vec<Cluster> {
    let mut out: Vec<(MachineId, Cluster)> = Vec::new();
    for (i, m) in origin.iter().enumerate().take(machine.states.len()) {
        let state = StateId(i as u32);
        match out.iter_mut().find(|(id, _)| id == m) {
            Some((_, c)) => c.states.push(state),
            None => {
                let name = spec
                    .machines
                    .get(m.index())
                    .map_or_else(String::new, |x| x.name.text.to_string());
                out.push((
                    *m,
                    Cluster {
                        name,
                        states: vec![state],
                    },
                ));
            }
        }
    }
    out.into_iter().map(|(_, c)| c).collect()
}

/// The machine to draw, titled with its label; `origin` as for [`clusters`] (empty for a plain machine).
pub fn diagram(spec: &Spec, machine: &Machine, origin: &[MachineId]) -> Diagram {
    let clusters = clusters(spec, machine, origin);
    let mut cluster_of = vec![None; machine.states.len()];
    for (ci, c) in clusters.iter().enumerate() {
        for s in &c.states {
            cluster_of[s.index()] = Some(ci);
        }
    }
    Diagram {
        title: machine.label().to_string(),
        states: machine
            .states
            .iter()
            .zip(cluster_of)
            .map(|(s, cluster)| StateBox {
                name: s.name.text.to_string(),
                caption: state_caption(s),
                start: s.start,
                default_start: s.default_start,
                is_final: s.is_final,
                cluster,
            })
            .collect(),
        transitions: machine
            .transitions
            .iter()
            .map(|t| draw::Transition {
                from: t.from.index(),
                to: t.to.index(),
                label: transition_label(machine, t),
            })
            .collect(),
        clusters: clusters.into_iter().map(|c| c.name).collect(),
    }
}

/// A transition's label, as written in `.fsm` (unescaped): its event with the timeout's duration, guards,
/// actions and a persistence override, e.g. `ROUND_TIMEOUT (30s) if ready do log, notify`.
pub fn transition_label(m: &Machine, t: &Transition) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(e) = t.event.and_then(|e| m.events.get(e.index())) {
        parts.push(match e.timeout {
            Some(timeout) => format!("{} ({})", e.name.text, duration(timeout.duration)),
            None => e.name.text.to_string(),
        });
    }
    for g in &t.guards {
        parts.push(format!(
            "{} {}",
            if g.negated { "unless" } else { "if" },
            g.name.text
        ));
    }
    if !t.actions.is_empty() {
        parts.push(Action::written(&t.actions));
    }
    if let Some((p, _)) = t.persist {
        parts.push(format!("persist {}", p.name()));
    }
    parts.join(" ")
}

/// What kind of state a drawing shows beneath its name: a Genie state's type (`user`, `invoker`).
pub fn state_caption(s: &State) -> Option<&'static str> {
    s.genie().and_then(|g| g.ty).map(|t| t.name())
}

/// A duration as `.fsm` writes it: in the largest whole unit (`2h`, `30m`, `45s`, `1500ms`).
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
