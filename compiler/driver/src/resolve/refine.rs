//! `machine A: abci refines Base { … }`: an imported Open Autonomy app (`Base`) with its rounds given kinds,
//! payloads, writes and the rest, and its events given timeouts. The base's states, events and transitions are
//! kept as they are: the refinement is merged into one syntax tree with them, which is then lowered as any
//! `.fsm` machine is, so a refined round means exactly what the same round written out in full means.

use super::{Syntax, Unit, duplicate_name, machine};
use crate::yaml::OaSpec;
use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::{Name, Span};
use fsmc_model::spec::Machine;
use fsmc_syntax::ast::{self, PropValue, ThinVec};
use std::collections::BTreeMap;

/// Lowers `m`, which refines `base`, a machine named in the scope of unit `ui`.
pub(super) fn lower(
    m: &ast::Machine,
    base: &Name,
    units: &[Unit],
    ui: usize,
    file: &ast::File,
    diags: &mut Vec<Diagnostic>,
) -> Machine {
    let not_abci = m.profile.as_ref().map(|p| p.as_str()) != Some("abci");
    let found = if not_abci {
        let at = m.profile.as_ref().map_or(m.name.span, |p| p.span);
        Err(Box::new(
            Diagnostic::new(
                Code::BadRefinement,
                format!(
                    "`{}` refines an Open Autonomy app but is not an `abci` machine",
                    m.name
                ),
            )
            .at(at, "not an `abci` machine")
            .help(format!(
                "write `machine {}: abci refines {base} {{ … }}`",
                m.name
            )),
        ))
    } else {
        find_base(base, units, ui, file)
    };
    match found {
        Ok(oa) => machine::lower(&merge(m, oa, diags), diags),
        Err(d) => {
            diags.push(*d);
            // Without its base the machine has neither start states nor transitions: its own states are left
            // out (and the machine marked incomplete), so the checks do not report what the base would give.
            let head = ast::Machine {
                states: Vec::new(),
                transitions: Vec::new(),
                ..m.clone()
            };
            let mut out = machine::lower(&head, diags);
            out.incomplete = true;
            out
        }
    }
}

/// The Open Autonomy app `base` names in the scope of unit `ui`: an imported `fsm_specification.yaml`, under its
/// alias or its label's name. A `.fsm` machine of that name is refused: its rounds already have their kinds.
fn find_base<'a>(
    base: &Name,
    units: &'a [Unit],
    ui: usize,
    file: &ast::File,
) -> Result<&'a OaSpec, Box<Diagnostic>> {
    let not_yaml = |span: Span| {
        Box::new(Diagnostic::new(
            Code::BadRefinement,
            format!("`{base}` is not an imported Open Autonomy app"),
        )
        .at(base.span, "refined here")
        .with(span, "a `.fsm` machine, defined here")
        .help("only an imported `fsm_specification.yaml` can be refined; edit a `.fsm` machine itself"))
    };
    let mut known: Vec<String> = Vec::new();
    for (imp, target) in file.imports.iter().zip(&units[ui].imports) {
        let Some(target) = *target else { continue };
        match &units[target].syntax {
            Syntax::Oa(oa) => {
                let name = imp.alias.as_ref().map_or(oa.name(), |a| a.as_str());
                if name == base.as_str() {
                    return Ok(oa);
                }
                known.push(name.to_string());
            }
            Syntax::Fsm(f) => {
                let alias = imp.alias.as_ref().filter(|_| f.machines.len() == 1);
                for fm in &f.machines {
                    let name = alias.map_or(fm.name.as_str(), |a| a.as_str());
                    if name == base.as_str() {
                        return Err(not_yaml(fm.name.span));
                    }
                }
            }
        }
    }
    if let Some(own) = file
        .machines
        .iter()
        .find(|x| x.name.as_str() == base.as_str())
    {
        return Err(not_yaml(own.name.span));
    }
    let mut d = Diagnostic::new(
        Code::UnknownMachine,
        format!("no imported Open Autonomy app is named `{base}`"),
    )
    .at(base.span, "not imported in this file");
    d = match did_you_mean(&base.text, known.iter().map(String::as_str)) {
        Some(h) => d.help(h),
        None => d.help(format!(
            "import its `fsm_specification.yaml`: `import \"…/fsm_specification.yaml\" as {base};`"
        )),
    };
    Err(Box::new(d))
}

/// The refinement and its base as one machine: the base's events (with the refinement's timeouts and roles), its
/// states in its order (each with the refinement's kind and properties, or `custom`/`degenerate` when not
/// refined), its transitions; the refinement's keys and properties, and the base's label unless one is given.
fn merge(m: &ast::Machine, oa: &OaSpec, diags: &mut Vec<Diagnostic>) -> ast::Machine {
    let mut out = m.clone();
    for t in &m.transitions {
        diags.push(
            changes(t.span, "a refinement cannot add transitions")
                .help("the transitions are the base's; to change them, edit the imported app"),
        );
    }
    out.events = merge_events(m, oa, diags);
    out.states = merge_states(m, oa, diags);
    // The last of a repeated key, as the YAML reader keeps it (it reported the repeat).
    let mut last: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (i, t) in oa.transitions.iter().enumerate() {
        last.insert((t.from.as_str(), t.event.as_str()), i);
    }
    out.transitions = oa
        .transitions
        .iter()
        .enumerate()
        .filter(|(i, t)| last.get(&(t.from.as_str(), t.event.as_str())) == Some(i))
        .map(|(_, t)| ast::Transition {
            docs: ThinVec::new(),
            from: t.from.clone(),
            event: Some(t.event.clone()),
            to: t.to.clone(),
            guards: ThinVec::new(),
            actions: ThinVec::new(),
            persist: None,
            span: t.key_span.to(t.to.span),
        })
        .collect();
    if !m.properties.iter().any(|p| p.name.as_str() == "label") {
        out.properties.push(ast::Property {
            docs: Vec::new(),
            name: Name::new("label", oa.label.span),
            value: PropValue::Text(oa.label.clone()),
            groups: Vec::new(),
            span: oa.label.span,
        });
    }
    out
}

fn merge_events(m: &ast::Machine, oa: &OaSpec, diags: &mut Vec<Diagnostic>) -> Vec<ast::Event> {
    let mut given: BTreeMap<&str, &ast::Event> = BTreeMap::new();
    for e in &m.events {
        if !oa.alphabet_in.iter().any(|b| b.as_str() == e.name.as_str()) {
            diags.push(not_in_base("event", &e.name, oa, oa.alphabet_in.iter()));
        } else if let Some(first) = given.insert(e.name.as_str(), e) {
            diags.push(duplicate_name(
                Code::DuplicateEvent,
                "event",
                &e.name,
                first.name.span,
            ));
        }
    }
    oa.alphabet_in
        .iter()
        .map(|b| match given.get(b.as_str()) {
            Some(e) => (*e).clone(),
            None => ast::Event {
                docs: Vec::new(),
                name: b.clone(),
                span: b.span,
                fields: Vec::new(),
                timeout: None,
                role: None,
            },
        })
        .collect()
}

fn merge_states(m: &ast::Machine, oa: &OaSpec, diags: &mut Vec<Diagnostic>) -> Vec<ast::State> {
    let mut given: BTreeMap<&str, &ast::State> = BTreeMap::new();
    for s in &m.states {
        if !oa.states.iter().any(|b| b.as_str() == s.name.as_str()) {
            diags.push(not_in_base("state", &s.name, oa, oa.states.iter()));
        } else if let Some(first) = given.insert(s.name.as_str(), s) {
            diags.push(duplicate_name(
                Code::DuplicateState,
                "state",
                &s.name,
                first.name.span,
            ));
        }
    }
    let mut states: Vec<ast::State> = oa
        .states
        .iter()
        .map(|b| {
            let listed = |list: &[Name]| list.iter().any(|x| x.as_str() == b.as_str());
            let is_final = listed(&oa.final_states);
            let mut modifiers = Vec::new();
            if listed(&oa.start_states) || oa.default_start_state.as_str() == b.as_str() {
                modifiers.push(Name::new("start", b.span));
            }
            if oa.default_start_state.as_str() == b.as_str() {
                modifiers.push(Name::new("default", b.span));
            }
            if is_final {
                modifiers.push(Name::new("final", b.span));
            }
            match given.get(b.as_str()) {
                Some(s) => {
                    same_modifiers(s, &modifiers, diags);
                    ast::State {
                        modifiers,
                        ..(*s).clone()
                    }
                }
                None => ast::State {
                    docs: Vec::new(),
                    modifiers,
                    name: b.clone(),
                    kind: Some(Name::new(
                        if is_final { "degenerate" } else { "custom" },
                        b.span,
                    )),
                    properties: Vec::new(),
                    span: b.span,
                },
            }
        })
        .collect();
    // The order a `.fsm` file lists them in (and `fsmc export` writes): the default start, the other starts, the
    // rest, the finals; otherwise the base's.
    let has = |s: &ast::State, m: &str| s.modifiers.iter().any(|x| x.as_str() == m);
    states.sort_by_key(|s| (!has(s, "default"), !has(s, "start"), has(s, "final")));
    states
}

/// A refined state may repeat the base's `start`, `default` and `final`, never change them.
fn same_modifiers(s: &ast::State, base: &[Name], diags: &mut Vec<Diagnostic>) {
    if s.modifiers.is_empty() {
        return;
    }
    let mut written: Vec<&str> = s.modifiers.iter().map(|x| x.as_str()).collect();
    let mut kept: Vec<&str> = base.iter().map(|x| x.as_str()).collect();
    written.sort_unstable();
    kept.sort_unstable();
    if written != kept {
        let at = s.modifiers[0]
            .span
            .to(s.modifiers[s.modifiers.len() - 1].span);
        let base_has = if kept.is_empty() {
            "none".to_string()
        } else {
            kept.join(" ")
        };
        diags.push(
            changes(
                at,
                "a refinement cannot change which states start or end the app",
            )
            .help(format!(
                "the base's modifiers for `{}`: {base_has}; drop these",
                s.name
            )),
        );
    }
}

fn changes(span: Span, label: &str) -> Diagnostic {
    Diagnostic::new(
        Code::RefinementChangesBase,
        "a refinement changes the structure of its base",
    )
    .at(span, label)
}

fn not_in_base<'a>(
    what: &str,
    name: &Name,
    oa: &OaSpec,
    known: impl Iterator<Item = &'a Name>,
) -> Diagnostic {
    let mut d = Diagnostic::new(
        Code::RefinementChangesBase,
        format!("{what} `{name}` is not in the refined app `{}`", oa.name()),
    )
    .at(name.span, format!("`{}` has no such {what}", oa.name()));
    d = match did_you_mean(&name.text, known.map(|n| n.as_str())) {
        Some(h) => d.help(h),
        None => d.help(format!(
            "a refinement gives kinds to the base's {what}s; it cannot add one"
        )),
    };
    d
}
