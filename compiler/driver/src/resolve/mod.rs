//! Stage 2: syntax trees (of `.fsm` files and Open Autonomy YAML) → the resolved [`model`](fsmc_model::spec).
//!
//! Every name is bound here; an unknown name is an error with a did-you-mean. Resolution never stops early:
//! a bad transition is reported and skipped, and the rest of the machine is still built and checked.

mod claims;
mod machine;
mod parties;
mod refine;
mod types;
mod yaml;

use crate::yaml::OaSpec;
use fsmc_base::diag::{Code, Diagnostic, Level, LintLevels, did_you_mean};
use fsmc_base::source::{FileId, Name, Span};
use fsmc_model::spec::{App, Item, Machine, MachineId, MappingEdge, Spec};
use fsmc_syntax::ast;
use std::collections::BTreeMap;

/// A parsed file, as the loader hands it over.
#[derive(Clone, Debug)]
pub struct Unit {
    pub file: FileId,
    pub syntax: Syntax,
    /// For each `import` of an `.fsm` file (in order), the unit it names, if it could be loaded.
    pub imports: Vec<Option<usize>>,
    /// The reader skipped entries it could not read (and reported them), e.g. a malformed transition key of
    /// an Open Autonomy spec: the machine is then incomplete, like one whose transitions name unknown states.
    pub lossy: bool,
}

#[derive(Clone, Debug)]
pub enum Syntax {
    Fsm(ast::File),
    Oa(OaSpec),
}

/// Lowers every unit. `entry` is the unit whose items are the compilation's own (the rest were imported).
pub fn resolve(units: &[Unit], entry: usize, cli: &LintLevels) -> (Spec, Vec<Diagnostic>) {
    resolve_entries(units, &[entry], cli)
}

/// Lowers every unit once, with several entry units (checking a directory): the items of each are the
/// compilation's own.
pub fn resolve_entries(
    units: &[Unit],
    entries: &[usize],
    cli: &LintLevels,
) -> (Spec, Vec<Diagnostic>) {
    let mut is_entry = vec![false; units.len()];
    for &e in entries {
        if let Some(flag) = is_entry.get_mut(e) {
            *flag = true;
        }
    }
    let mut spec = Spec::default();
    let mut diags = Vec::new();
    // Machines each unit defines, by name, in order.
    let mut defined: Vec<Vec<MachineId>> = Vec::with_capacity(units.len());
    let mut file_lints: Vec<LintLevels> = Vec::with_capacity(units.len());
    for (ui, unit) in units.iter().enumerate() {
        let mut own = Vec::new();
        match &unit.syntax {
            Syntax::Fsm(file) => {
                let lints = lint_levels(&file.lints, &LintLevels::default(), &mut diags);
                for m in &file.machines {
                    let mut machine = match &m.refines {
                        Some(base) => refine::lower(m, base, units, ui, file, &mut diags),
                        None => machine::lower(m, &mut diags),
                    };
                    machine.lints = lint_levels(&m.lints, &lints, &mut diags).overlay(cli);
                    own.push(MachineId(spec.machines.len() as u32));
                    spec.machines.push(machine);
                }
                file_lints.push(lints);
            }
            Syntax::Oa(oa) => {
                // Upstream treats its naming conventions as errors; so do we for its own format.
                let mut lints = LintLevels::default();
                lints.set(Code::StateNaming, Level::Deny);
                lints.set(Code::AppNaming, Level::Deny);
                let mut machine = yaml::lower(oa, &mut diags);
                machine.incomplete |= unit.lossy;
                machine.lints = lints.overlay(cli);
                own.push(MachineId(spec.machines.len() as u32));
                spec.machines.push(machine);
                file_lints.push(lints);
            }
        }
        defined.push(own);
    }

    for (ui, unit) in units.iter().enumerate() {
        let Syntax::Fsm(file) = &unit.syntax else {
            continue;
        };
        let scope = scope(&spec, units, &defined, ui, &mut diags);
        for a in &file.apps {
            let lost = lost_imports(file, &unit.imports);
            let (mut app, complete) = lower_app(&spec, &scope, a, &lost, &mut diags);
            app.lints = lint_levels(&a.lints, &file_lints[ui], &mut diags).overlay(cli);
            // An app whose chain names an unknown machine is not composed: the composition of the machines
            // that remain would only report consequences of that one mistake (too few machines, dangling
            // mappings, a broken composed machine).
            if !complete {
                continue;
            }
            if is_entry[ui] {
                spec.entry_items.push(Item::App(spec.apps.len()));
            }
            spec.apps.push(app);
        }
        if is_entry[ui] {
            spec.entry_items
                .extend(defined[ui].iter().map(|&m| Item::Machine(m)));
        }
    }
    for &entry in entries {
        if let Some(Syntax::Oa(_)) = units.get(entry).map(|u| &u.syntax) {
            spec.entry_items
                .extend(defined[entry].iter().map(|&m| Item::Machine(m)));
        }
    }
    // Keep the entry's items in the order written: machines were appended after apps above.
    let position = |item: &Item| match item {
        Item::Machine(m) => (spec.machine(*m).span.file, spec.machine(*m).span.start, 0),
        Item::App(a) => (spec.apps[*a].span.file, spec.apps[*a].span.start, 1),
    };
    let mut items: Vec<_> = spec.entry_items.iter().map(|i| (position(i), *i)).collect();
    items.sort_by_key(|(p, _)| *p);
    spec.entry_items = items.into_iter().map(|(_, i)| i).collect();
    (spec, diags)
}

/// The machines a unit can name: its own, then imported ones (all of an imported file's machines, or the one
/// machine an `import … as Name` renames). Two machines with one name in a scope is an error.
fn scope(
    spec: &Spec,
    units: &[Unit],
    defined: &[Vec<MachineId>],
    ui: usize,
    diags: &mut Vec<Diagnostic>,
) -> BTreeMap<String, MachineId> {
    let mut scope: BTreeMap<String, (MachineId, Span)> = BTreeMap::new();
    fn add(
        scope: &mut BTreeMap<String, (MachineId, Span)>,
        name: &str,
        span: Span,
        id: MachineId,
        diags: &mut Vec<Diagnostic>,
    ) {
        if let Some((prev, prev_span)) = scope.get(name) {
            if *prev != id {
                diags.push(
                    Diagnostic::new(Code::DuplicateItem, format!("the name `{name}` is defined more than once"))
                        .at(span, format!("`{name}` defined again here"))
                        .with(*prev_span, "first defined here")
                        .help("rename one of them, or import the file under another name with `import \"…\" as Name;`"),
                );
            }
            return;
        }
        scope.insert(name.to_string(), (id, span));
    }
    for &m in &defined[ui] {
        let machine = spec.machine(m);
        add(&mut scope, &machine.name.text, machine.name.span, m, diags);
    }
    if let Syntax::Fsm(file) = &units[ui].syntax {
        for a in &file.apps {
            // Apps share the namespace with machines so generated modules cannot collide.
            if let Some((_, prev_span)) = scope.get(a.name.text.as_str()) {
                diags.push(
                    Diagnostic::new(
                        Code::DuplicateItem,
                        format!("the name `{}` is defined more than once", a.name),
                    )
                    .at(a.name.span, format!("`{}` defined again here", a.name))
                    .with(*prev_span, "first defined here"),
                );
            }
        }
        for (imp, target) in file.imports.iter().zip(&units[ui].imports) {
            let Some(target) = *target else { continue };
            match &imp.alias {
                Some(alias) => {
                    if let [only] = defined[target].as_slice() {
                        add(&mut scope, &alias.text, alias.span, *only, diags);
                    } else {
                        diags.push(
                            Diagnostic::new(
                                Code::ImportAmbiguous,
                                format!("`import … as {alias}` needs a file with exactly one machine, but it defines {}", defined[target].len()),
                            )
                            .at(imp.span, "imported here")
                            .help("drop `as …` to import every machine of the file under its own name"),
                        );
                    }
                }
                None => {
                    for &m in &defined[target] {
                        add(
                            &mut scope,
                            &spec.machine(m).name.text,
                            imp.path_span,
                            m,
                            diags,
                        );
                    }
                }
            }
        }
    }
    scope.into_iter().map(|(k, (id, _))| (k, id)).collect()
}

/// The imports of a file that could not be loaded (already reported): the names they would have brought into
/// scope are unknown, and an app naming one of them reports nothing more.
struct LostImports {
    /// An import without an alias was lost: any name may have been in its file.
    any: bool,
    /// The aliases of lost imports.
    aliases: Vec<String>,
}

impl LostImports {
    fn may_define(&self, name: &str) -> bool {
        self.any || self.aliases.iter().any(|a| a == name)
    }
}

fn lost_imports(file: &ast::File, loaded: &[Option<usize>]) -> LostImports {
    let mut lost = LostImports {
        any: false,
        aliases: Vec::new(),
    };
    for (import, unit) in file.imports.iter().zip(loaded) {
        if unit.is_none() {
            match &import.alias {
                Some(alias) => lost.aliases.push(alias.text.to_string()),
                None => lost.any = true,
            }
        }
    }
    lost
}

/// Lowers an app; the flag is false when a machine of its chain could not be found (reported, here or as the
/// import that would have defined it).
fn lower_app(
    spec: &Spec,
    scope: &BTreeMap<String, MachineId>,
    a: &ast::App,
    lost: &LostImports,
    diags: &mut Vec<Diagnostic>,
) -> (App, bool) {
    let mut app = App {
        name: a.name.clone(),
        docs: a.docs.clone(),
        label: None,
        chain: Vec::new(),
        chain_names: Vec::new(),
        mappings: Vec::new(),
        claims: Vec::new(),
        lints: LintLevels::default(),
        span: a.span,
        incomplete: false,
    };
    for p in &a.properties {
        match (p.name.as_str(), &p.value) {
            ("label", ast::PropValue::Text(t)) => app.label = Some(t.clone()),
            ("label", _) => diags.push(bad_value(p, "a string: `label \"MyAbciApp\";`")),
            _ => diags.push(unknown_property(p, &["label"], "an app")),
        }
    }
    for name in &a.chain {
        match scope.get(name.text.as_str()) {
            Some(&id) => {
                app.chain.push((id, name.span));
                app.chain_names.push(name.clone());
            }
            // The import that failed is the mistake; that its machine is missing follows from it.
            None if lost.may_define(&name.text) => {}
            None => {
                let mut d = Diagnostic::new(
                    Code::UnknownMachine,
                    format!("no machine named `{name}` is in scope"),
                )
                .at(name.span, "not defined or imported in this file");
                d = match did_you_mean(&name.text, scope.keys().map(String::as_str)) {
                    Some(h) => d.help(h),
                    None => {
                        d.help("define it in this file or import its file with `import \"path\";`")
                    }
                };
                diags.push(d);
            }
        }
    }
    let complete = app.chain.len() == a.chain.len();
    for m in &a.mappings {
        let from = find_in_chain(spec, scope, &app, &m.from, complete, diags);
        let to = find_in_chain(spec, scope, &app, &m.to, complete, diags);
        if let (Some(from), Some(to)) = (from, to) {
            app.mappings.push(MappingEdge {
                from,
                to,
                from_span: m.from.state.span,
                to_span: m.to.state.span,
                span: m.span,
            });
        } else {
            app.incomplete = true;
        }
    }
    // An app's claims name the states, keys and events of its chained machines (states are unique across them).
    let chained: Vec<&Machine> = app.chain.iter().map(|(id, _)| spec.machine(*id)).collect();
    let claims = claims::lower(&a.claims, &claims::Scope::of(&chained), diags);
    app.claims = claims;
    (app, complete)
}

/// Finds a mapping's state among the chained machines (or in the named one, for `Machine::State`). With an
/// incomplete chain (a machine not found, already reported) a name found nowhere may belong to the missing
/// machine, so it is not reported again.
fn find_in_chain(
    spec: &Spec,
    scope: &BTreeMap<String, MachineId>,
    app: &App,
    q: &ast::Qualified,
    complete: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<(MachineId, fsmc_model::spec::StateId)> {
    let candidates: Vec<MachineId> = match &q.machine {
        Some(mname) => {
            // A qualifier names a chained machine as the chain writes it (an import alias) or by its name.
            let found: Vec<MachineId> = app
                .chain
                .iter()
                .zip(&app.chain_names)
                .filter(|((id, _), written)| {
                    written.text == mname.text || spec.machine(*id).name.text == mname.text
                })
                .map(|((id, _), _)| *id)
                .collect();
            if found.is_empty() && !complete {
                return None;
            }
            if found.is_empty() {
                let names: Vec<&str> = app.chain_names.iter().map(|n| n.as_str()).collect();
                let mut d = Diagnostic::new(
                    Code::UnknownMachine,
                    format!("`{mname}` is not one of the chained machines"),
                )
                .at(mname.span, "not in this app's `chain`");
                if let Some(h) = did_you_mean(&mname.text, names.iter().copied()) {
                    d = d.help(h);
                }
                diags.push(d);
                return None;
            }
            found
        }
        None => app.chain.iter().map(|(id, _)| *id).collect(),
    };
    for id in &candidates {
        if let Some(s) = spec.machine(*id).find_state(&q.state.text) {
            return Some((*id, s));
        }
    }
    // Only report when the chain resolved; otherwise the unknown machine was already reported.
    if !app.chain.is_empty() && (complete || q.machine.is_some()) {
        let all: Vec<&str> = candidates
            .iter()
            .flat_map(|id| spec.machine(*id).states.iter().map(|s| s.name.as_str()))
            .collect();
        let mut d = Diagnostic::new(
            Code::UnknownState,
            format!("no chained machine has a state `{}`", q.state),
        )
        .at(
            q.state.span,
            "not a state of any machine in this app's `chain`",
        );
        // A machine in scope (defined or imported) but left out of the chain is the likelier mistake.
        let unchained = scope.iter().find(|(_, id)| {
            !app.chain.iter().any(|(c, _)| c == *id)
                && spec.machine(**id).find_state(&q.state.text).is_some()
        });
        if let Some((name, _)) = unchained {
            d = d.help(format!(
                "`{}` is a state of `{name}`, which is in scope but not chained: add it to `chain`",
                q.state
            ));
        } else if let Some(h) = did_you_mean(&q.state.text, all.iter().copied()) {
            d = d.help(h);
        }
        diags.push(d);
    }
    None
}

/// Reads `#[allow(…)]`-style attributes into levels layered over `base`; unknown lints are errors.
fn lint_levels(
    attrs: &[ast::LintAttr],
    base: &LintLevels,
    diags: &mut Vec<Diagnostic>,
) -> LintLevels {
    let mut levels = base.clone();
    for attr in attrs {
        let Some(level) = Level::parse(&attr.level.text) else {
            let mut d = Diagnostic::new(
                Code::UnknownLint,
                format!("unknown attribute `{}`", attr.level),
            )
            .at(attr.level.span, "expected `allow`, `warn` or `deny`");
            if let Some(h) = did_you_mean(&attr.level.text, ["allow", "warn", "deny"]) {
                d = d.help(h);
            }
            diags.push(d);
            continue;
        };
        for lint in &attr.lints {
            match Code::lookup(&lint.text) {
                Some(code) if code.is_lint() => levels.set(code, level),
                Some(code) => diags.push(
                    Diagnostic::new(
                        Code::UnknownLint,
                        format!(
                            "`{}` ({}) is an error, not a lint: it cannot be allowed or denied",
                            lint,
                            code.id()
                        ),
                    )
                    .at(lint.span, "not a lint"),
                ),
                None => {
                    let mut d =
                        Diagnostic::new(Code::UnknownLint, format!("unknown lint `{lint}`"))
                            .at(lint.span, "no lint has this name or code");
                    let lints = Code::ALL.iter().filter(|c| c.is_lint()).map(|c| c.name());
                    d = match did_you_mean(&lint.text, lints) {
                        Some(h) => d.help(h),
                        None => d.help("`fsmc explain` lists the lints"),
                    };
                    diags.push(d);
                }
            }
        }
    }
    levels
}

pub(crate) fn unknown_property(p: &ast::Property, known: &[&str], what: &str) -> Diagnostic {
    let mut d = Diagnostic::new(
        Code::UnknownProperty,
        format!("unknown property `{}` for {what}", p.name),
    )
    .at(p.name.span, "not known here");
    d = match did_you_mean(&p.name.text, known.iter().copied()) {
        Some(h) => d.help(h),
        None if known.is_empty() => d.help(format!("{what} takes no properties")),
        None => d.help(format!(
            "known properties: {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    };
    d
}

pub(crate) fn bad_value(p: &ast::Property, expected: &str) -> Diagnostic {
    Diagnostic::new(
        Code::BadPropertyValue,
        format!("property `{}` has a value of the wrong shape", p.name),
    )
    .at(p.span, format!("expected {expected}"))
}

pub(crate) fn duplicate_name(code: Code, what: &str, name: &Name, first: Span) -> Diagnostic {
    Diagnostic::new(code, format!("{what} `{name}` is declared more than once"))
        .at(name.span, format!("`{name}` declared again here"))
        .with(first, "first declared here")
        .help("remove one of the declarations or rename it")
}

#[cfg(test)]
mod tests;
// The bases are Open Autonomy YAML, which only the `yaml` feature reads.
#[cfg(all(test, feature = "yaml"))]
mod refine_tests;
