//! Exporters: a checked machine or composed app written in another format.
//!
//! `oa` writes Open Autonomy's canonical `fsm_specification.yaml`, `fsm` writes `.fsm` source (what
//! `fsmc import` prints), and `dot`, `mermaid`, `svg` and `html` draw the machine. Every exporter takes a
//! [`Target`]: one machine of the spec, or an app's composed machine together with the machine each of its
//! states came from, so drawings can show a composed app's parts as clusters. All output is deterministic:
//! it follows the model's order (or sorts), never a hash order.

mod canvas;
pub mod dot;
pub mod fsm;
pub mod html;
mod layout;
pub mod mermaid;
pub mod oa;
pub mod svg;

use crate::model::{Checked, Item, Machine, MachineId, Spec, StateId};

/// What to export: a machine, or an app's composed machine.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub spec: &'a Spec,
    pub machine: &'a Machine,
    /// For a composed app, the machine each state came from ([`crate::compose::Composed::origin`]); empty
    /// for a plain machine.
    pub origin: &'a [MachineId],
}

/// One original machine of a composed app, and its states in the composed machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub name: String,
    pub states: Vec<StateId>,
}

impl<'a> Target<'a> {
    /// A single machine, drawn without clusters.
    pub fn machine(spec: &'a Spec, machine: &'a Machine) -> Target<'a> {
        Target {
            spec,
            machine,
            origin: &[],
        }
    }

    /// The original machines of a composed app in order of first appearance (chain order), each with its
    /// states; empty for a plain machine.
    pub fn clusters(&self) -> Vec<Cluster> {
        let mut out: Vec<(MachineId, Cluster)> = Vec::new();
        for (i, m) in self
            .origin
            .iter()
            .enumerate()
            .take(self.machine.states.len())
        {
            let state = StateId(i as u32);
            match out.iter_mut().find(|(id, _)| id == m) {
                Some((_, c)) => c.states.push(state),
                None => {
                    let name = self
                        .spec
                        .machines
                        .get(m.index())
                        .map_or_else(String::new, |x| x.name.text.clone());
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

    /// For each state, the index of its cluster in [`Target::clusters`] (all `None` for a plain machine).
    pub fn cluster_of(&self) -> Vec<Option<usize>> {
        let mut of = vec![None; self.machine.states.len()];
        for (ci, c) in self.clusters().iter().enumerate() {
            for s in &c.states {
                of[s.index()] = Some(ci);
            }
        }
        of
    }
}

/// The names of the entry file's machines and apps, in the order written.
pub fn item_names(checked: &Checked) -> Vec<&str> {
    let spec = checked.spec();
    spec.entry_items
        .iter()
        .filter_map(|item| match item {
            Item::Machine(id) => spec.machines.get(id.index()).map(|m| m.name.as_str()),
            Item::App(i) => spec.apps.get(*i).map(|a| a.name.as_str()),
        })
        .collect()
}

/// Picks the machine or app to export: the one named, or the entry file's only item.
pub fn select<'a>(checked: &'a Checked, name: Option<&str>) -> Result<Target<'a>, String> {
    let spec = checked.spec();
    let names = item_names(checked);
    let listing = || {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let item = match name {
        Some(wanted) => {
            let found = spec
                .entry_items
                .iter()
                .zip(&names)
                .find(|(_, n)| **n == wanted)
                .map(|(item, _)| *item);
            match found {
                Some(item) => item,
                None if names.is_empty() => {
                    return Err(format!(
                        "no machine or app named `{wanted}`: the spec defines none"
                    ));
                }
                None => {
                    let hint = crate::diag::did_you_mean(wanted, names.iter().copied())
                        .map_or_else(String::new, |h| format!(" ({h})"));
                    return Err(format!(
                        "no machine or app named `{wanted}` in the spec{hint}; it defines {}",
                        listing()
                    ));
                }
            }
        }
        None => match spec.entry_items.as_slice() {
            [only] => *only,
            [] => return Err("the spec defines no machine or app (only imports?)".to_string()),
            _ => {
                return Err(format!(
                    "the spec defines several machines and apps; choose one with `--machine NAME`: {}",
                    listing()
                ));
            }
        },
    };
    match item {
        Item::Machine(id) => spec
            .machines
            .get(id.index())
            .map(|m| Target::machine(spec, m))
            .ok_or_else(|| "internal: unknown machine".to_string()),
        Item::App(i) => checked
            .composed()
            .get(i)
            .map(|c| Target {
                spec,
                machine: &c.machine,
                origin: &c.origin,
            })
            .ok_or_else(|| "internal: unknown app".to_string()),
    }
}

/// Text for an XML/HTML attribute or element body.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A transition's label: its event (if any) and guards, as written in `.fsm`.
pub(crate) fn transition_label(m: &Machine, t: &crate::model::Transition) -> String {
    let mut label = t
        .event
        .and_then(|e| m.events.get(e.index()))
        .map_or_else(String::new, |e| e.name.text.clone());
    for g in &t.guards {
        if !label.is_empty() {
            label.push(' ');
        }
        label.push_str(if g.negated { "unless " } else { "if " });
        label.push_str(&g.name.text);
    }
    label
}
