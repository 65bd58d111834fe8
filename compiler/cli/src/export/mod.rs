//! Exporters: a checked machine or composed app written in another format.
//!
//! `oa` writes Open Autonomy's canonical `fsm_specification.yaml`, `fsm` writes `.fsm` source (what
//! `fsmc import` prints), and `dot`, `mermaid`, `svg` and `html` draw the machine. Every exporter takes a
//! [`Target`]: one machine of the spec, or an app's composed machine together with the machine each of its
//! states came from, so drawings can show a composed app's parts as clusters. All output is deterministic:
//! it follows the model's order (or sorts), never a hash order.
//!
//! Names and docs come from the spec, which may be hostile: every drawing passes them through [`visible`]
//! (control characters, bidirectional overrides and the like become a visible `\u{…}`) and then through the
//! format's own escaping, so no name can break the output's syntax, inject markup or script, or reach a
//! terminal as an escape sequence.

pub mod dot;
pub mod fsm;
pub mod html;
pub mod mermaid;
pub mod svg;
pub mod yaml;

use fsmc_model::spec::{Checked, Item, Machine, MachineId, Spec};

/// What to export: a machine, or an app's composed machine.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub spec: &'a Spec,
    pub machine: &'a Machine,
    /// For a composed app, the machine each state came from ([`fsmc_model::spec::Composed::origin`]); empty
    /// for a plain machine.
    pub origin: &'a [MachineId],
}

pub use fsmc_model::diagram::Cluster;

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
        fsmc_model::diagram::clusters(self.spec, self.machine, self.origin)
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

/// A machine or app an imported file defines, by name: naming one picks it though the entry file does not
/// define it (`graph -m` on an app's spec draws one of its chained machines).
fn imported(spec: &Spec, wanted: &str) -> Option<Item> {
    let machine = spec.machines.iter().position(|m| m.name.as_str() == wanted);
    match machine {
        Some(i) => Some(Item::Machine(MachineId(i as u32))),
        None => spec
            .apps
            .iter()
            .position(|a| a.name.as_str() == wanted)
            .map(Item::App),
    }
}

/// Picks the machine or app to export: the one named (in the entry file first, then in the files it imports),
/// or the entry file's only item.
pub fn select<'a>(checked: &'a Checked, name: Option<&str>) -> Result<Target<'a>, String> {
    let spec = checked.spec();
    let names = item_names(checked);
    let listing = || {
        names
            .iter()
            .map(|n| format!("`{}`", visible(n)))
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
                .map(|(item, _)| *item)
                .or_else(|| imported(spec, wanted));
            match found {
                Some(item) => item,
                None if names.is_empty() => {
                    return Err(format!(
                        "no machine or app named `{}`: the spec defines none",
                        visible(wanted)
                    ));
                }
                None => {
                    let hint = fsmc_base::diag::did_you_mean(wanted, names.iter().copied())
                        .map_or_else(String::new, |h| format!(" ({})", visible(&h)));
                    return Err(format!(
                        "no machine or app named `{}` in the spec{hint}; it defines {}",
                        visible(wanted),
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

/// Which way a drawing flows: transitions go down the page (the default) or across it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    #[default]
    TopToBottom,
    LeftToRight,
}

/// Spec text made safe to show, and escaped for markup: the drawings' own rules, used by every format.
pub use fsmc_layout::draw::{visible, visible_keeping, xml_escape};

pub(crate) use fsmc_model::diagram::{state_caption, transition_label};
