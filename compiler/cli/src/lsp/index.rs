//! What each name written in a compilation's files refers to: every definition and every use of a machine,
//! state, event, key, app and imported file, with its span.
//!
//! It is built from the syntax trees (`Compilation::units`), not from the model: a file with syntax errors has a
//! partial tree but no part in the model, and an editor needs its names most while it is broken. Names are bound
//! as the resolver binds them — states, events and keys within their machine, machines through the file's own
//! items and its imports (renamed by `as`), an app's mappings through its chain — but without diagnostics: a name
//! that binds to nothing is simply not in the index.

use fsmc_base::source::{FileId, Name, SourceMap, Span};
use fsmc_driver::resolve::{Syntax, Unit};
use fsmc_driver::yaml::OaSpec;
use fsmc_syntax::ast::{self, Named, PropValue};
use fsmc_vocab::abci::OutcomeKind;
use std::collections::BTreeMap;

/// A machine: the unit (file) that defines it and its place among that file's machines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MachineRef {
    pub unit: usize,
    pub index: usize,
}

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sym {
    Machine(MachineRef),
    State(MachineRef, String),
    Event(MachineRef, String),
    Key(MachineRef, String),
    App {
        unit: usize,
        index: usize,
    },
    /// An imported file (the unit it was loaded as).
    File(usize),
}

/// One place a name is written.
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub span: Span,
    pub sym: Sym,
    /// The name is defined here (a declaration), rather than used.
    pub def: bool,
}

/// A machine's syntax, whichever format it was written in.
#[derive(Clone, Copy, Debug)]
pub enum MachineSyntax<'a> {
    Fsm(&'a ast::Machine),
    Oa(&'a OaSpec),
}

impl<'a> MachineSyntax<'a> {
    pub fn name(&self) -> &'a str {
        match self {
            MachineSyntax::Fsm(m) => &m.name.text,
            MachineSyntax::Oa(o) => o.name(),
        }
    }

    pub fn state_names(&self) -> Vec<&'a Name> {
        match self {
            MachineSyntax::Fsm(m) => m.states.iter().map(|s| &s.name).collect(),
            MachineSyntax::Oa(o) => o.states.iter().collect(),
        }
    }

    pub fn event_names(&self) -> Vec<&'a Name> {
        match self {
            MachineSyntax::Fsm(m) => m.events.iter().map(|e| &e.name).collect(),
            MachineSyntax::Oa(o) => o.alphabet_in.iter().collect(),
        }
    }

    pub fn key_names(&self) -> Vec<&'a Name> {
        match self {
            MachineSyntax::Fsm(m) => m.keys.iter().map(|k| &k.name).collect(),
            MachineSyntax::Oa(_) => Vec::new(),
        }
    }

    fn has_state(&self, name: &str) -> bool {
        self.state_names().iter().any(|n| n.text == name)
    }
}

/// The symbol a name in a declared property's formula refers to, in machine `r`.
fn named_sym(r: MachineRef, n: &Name, named: Named) -> Sym {
    let name = n.text.to_string();
    match named {
        Named::State => Sym::State(r, name),
        Named::Key => Sym::Key(r, name),
        Named::Event => Sym::Event(r, name),
    }
}

/// The machine `r` names, if its unit has it.
pub fn machine(units: &[Unit], r: MachineRef) -> Option<MachineSyntax<'_>> {
    match &units.get(r.unit)?.syntax {
        Syntax::Fsm(f) => f.machines.get(r.index).map(MachineSyntax::Fsm),
        Syntax::Oa(o) if r.index == 0 => Some(MachineSyntax::Oa(o)),
        Syntax::Oa(_) => None,
    }
}

/// The machines a unit can name: its own, then those it imports (all of a file's, or the one an `as` renames).
pub fn scope(units: &[Unit], unit: usize) -> BTreeMap<String, MachineRef> {
    let mut scope = BTreeMap::new();
    let Some(u) = units.get(unit) else {
        return scope;
    };
    let Syntax::Fsm(file) = &u.syntax else {
        return scope;
    };
    for (index, m) in file.machines.iter().enumerate() {
        scope
            .entry(m.name.text.to_string())
            .or_insert(MachineRef { unit, index });
    }
    for (imp, target) in file.imports.iter().zip(&u.imports) {
        let Some(target) = *target else { continue };
        let machines = machines_of(units, target);
        match &imp.alias {
            Some(alias) => {
                if let [(only, _)] = machines.as_slice() {
                    scope.entry(alias.text.to_string()).or_insert(*only);
                }
            }
            None => {
                for (r, name) in machines {
                    scope.entry(name.to_string()).or_insert(r);
                }
            }
        }
    }
    scope
}

/// Every machine a unit defines, with its name.
pub fn machines_of(units: &[Unit], unit: usize) -> Vec<(MachineRef, &str)> {
    match units.get(unit).map(|u| &u.syntax) {
        Some(Syntax::Fsm(f)) => f
            .machines
            .iter()
            .enumerate()
            .map(|(index, m)| (MachineRef { unit, index }, m.name.text.as_str()))
            .collect(),
        Some(Syntax::Oa(o)) => vec![(MachineRef { unit, index: 0 }, o.name())],
        None => Vec::new(),
    }
}

/// The index of one compilation.
#[derive(Debug, Default)]
pub struct Index {
    /// Sorted by file, then position.
    occurrences: Vec<Occurrence>,
    /// The unit of each file.
    unit_of: BTreeMap<FileId, usize>,
}

impl Index {
    pub fn build(units: &[Unit], sources: &SourceMap) -> Index {
        let mut b = Builder {
            units,
            out: Vec::new(),
        };
        for (u, unit) in units.iter().enumerate() {
            match &unit.syntax {
                Syntax::Fsm(file) => b.fsm_file(u, file),
                Syntax::Oa(oa) => b.oa_file(u, oa, sources),
            }
        }
        let mut occurrences = b.out;
        occurrences.retain(|o| o.span.end > o.span.start);
        occurrences.sort_by(|a, b| {
            (a.span.file, a.span.start, a.span.end).cmp(&(b.span.file, b.span.start, b.span.end))
        });
        let unit_of = units.iter().enumerate().map(|(i, u)| (u.file, i)).collect();
        Index {
            occurrences,
            unit_of,
        }
    }

    pub fn unit_of(&self, file: FileId) -> Option<usize> {
        self.unit_of.get(&file).copied()
    }

    /// The name at byte `offset` of `file` (a cursor right after a name is on it).
    pub fn at(&self, file: FileId, offset: usize) -> Option<&Occurrence> {
        let offset = offset as u32;
        let first = self
            .occurrences
            .partition_point(|o| (o.span.file, o.span.end) < (file, offset));
        self.occurrences[first..]
            .iter()
            .take_while(|o| o.span.file == file && o.span.start <= offset)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of `sym`, definitions first, each group in file order.
    pub fn occurrences_of<'s>(&'s self, sym: &'s Sym) -> Vec<&'s Occurrence> {
        let mut all: Vec<&Occurrence> = self.occurrences.iter().filter(|o| o.sym == *sym).collect();
        all.sort_by_key(|o| !o.def);
        all
    }

    /// The occurrences in one file, in order.
    pub fn in_file(&self, file: FileId) -> &[Occurrence] {
        let a = self.occurrences.partition_point(|o| o.span.file < file);
        let b = self.occurrences.partition_point(|o| o.span.file <= file);
        &self.occurrences[a..b]
    }
}

struct Builder<'u> {
    units: &'u [Unit],
    out: Vec<Occurrence>,
}

impl Builder<'_> {
    fn push(&mut self, span: Span, sym: Sym, def: bool) {
        self.out.push(Occurrence { span, sym, def });
    }

    fn fsm_file(&mut self, u: usize, file: &ast::File) {
        let units = self.units;
        for (index, m) in file.machines.iter().enumerate() {
            let r = MachineRef { unit: u, index };
            self.push(m.name.span, Sym::Machine(r), true);
            for s in &m.states {
                self.push(s.name.span, Sym::State(r, s.name.text.to_string()), true);
                for p in &s.properties {
                    self.property(r, p);
                }
            }
            for e in &m.events {
                self.push(e.name.span, Sym::Event(r, e.name.text.to_string()), true);
            }
            for k in &m.keys {
                self.push(k.name.span, Sym::Key(r, k.name.text.to_string()), true);
            }
            for t in &m.transitions {
                self.push(t.from.span, Sym::State(r, t.from.text.to_string()), false);
                if let Some(e) = &t.event {
                    self.push(e.span, Sym::Event(r, e.text.to_string()), false);
                }
                self.push(t.to.span, Sym::State(r, t.to.text.to_string()), false);
            }
            for c in &m.claims {
                for (n, named) in c.formula.names() {
                    self.push(n.span, named_sym(r, n, named), false);
                }
            }
        }
        let Some(unit) = units.get(u) else { return };
        for (imp, target) in file.imports.iter().zip(&unit.imports) {
            let Some(target) = *target else { continue };
            self.push(imp.path_span, Sym::File(target), false);
            if let (Some(alias), [(only, _)]) = (&imp.alias, machines_of(units, target).as_slice())
            {
                self.push(alias.span, Sym::Machine(*only), false);
            }
        }
        let scope = scope(units, u);
        // `refines Base` names a machine in scope: hover and go-to-definition reach the imported app.
        for m in &file.machines {
            if let Some(base) = &m.refines
                && let Some(&r) = scope.get(base.text.as_str())
            {
                self.push(base.span, Sym::Machine(r), false);
            }
        }
        for (index, a) in file.apps.iter().enumerate() {
            self.push(a.name.span, Sym::App { unit: u, index }, true);
            let chain: Vec<MachineRef> = a
                .chain
                .iter()
                .filter_map(|n| {
                    let r = scope.get(n.text.as_str()).copied()?;
                    self.push(n.span, Sym::Machine(r), false);
                    Some(r)
                })
                .collect();
            for mapping in &a.mappings {
                for side in [&mapping.from, &mapping.to] {
                    let owner = match &side.machine {
                        Some(mn) => {
                            let r = scope.get(mn.text.as_str()).copied();
                            if let Some(r) = r {
                                self.push(mn.span, Sym::Machine(r), false);
                            }
                            r
                        }
                        None => chain.iter().copied().find(|r| {
                            machine(units, *r).is_some_and(|m| m.has_state(&side.state.text))
                        }),
                    };
                    if let Some(r) = owner {
                        self.push(
                            side.state.span,
                            Sym::State(r, side.state.text.to_string()),
                            false,
                        );
                    }
                }
            }
            // An app's properties name states, keys and events of its chained machines (an event shared by
            // several, as `DONE` is, refers to the first that declares it).
            for c in &a.claims {
                for (n, named) in c.formula.names() {
                    let owner = chain.iter().copied().find(|r| {
                        machine(units, *r).is_some_and(|m| match named {
                            Named::State => m.has_state(&n.text),
                            Named::Key => m.key_names().iter().any(|k| k.text == n.text),
                            Named::Event => m.event_names().iter().any(|e| e.text == n.text),
                        })
                    });
                    if let Some(r) = owner {
                        self.push(n.span, named_sym(r, n, named), false);
                    }
                }
            }
        }
    }

    /// Keys a state reads or writes, events it maps its outcomes to.
    fn property(&mut self, r: MachineRef, p: &ast::Property) {
        match (p.name.as_str(), &p.value) {
            ("reads" | "writes" | "requires" | "ensures", PropValue::List(keys)) => {
                for k in keys {
                    self.push(k.span, Sym::Key(r, k.text.to_string()), false);
                }
            }
            (name, PropValue::Assign(e)) if OutcomeKind::parse(name).is_some() => {
                self.push(e.span, Sym::Event(r, e.text.to_string()), false);
            }
            _ => {}
        }
    }

    fn oa_file(&mut self, u: usize, oa: &OaSpec, sources: &SourceMap) {
        let r = MachineRef { unit: u, index: 0 };
        // The machine is named by the label's last dotted segment: that is the part to point at.
        let label = &oa.label;
        let name = oa.name();
        let written = sources.get(label.span.file).map(|f| f.slice(label.span));
        let span = match written {
            Some(text) if text.ends_with(name) && label.span.end as usize >= name.len() => {
                Span::new(
                    label.span.file,
                    label.span.end as usize - name.len(),
                    label.span.end as usize,
                )
            }
            _ => label.span,
        };
        self.push(span, Sym::Machine(r), true);
        for s in &oa.states {
            self.push(s.span, Sym::State(r, s.text.to_string()), true);
        }
        for e in &oa.alphabet_in {
            self.push(e.span, Sym::Event(r, e.text.to_string()), true);
        }
        let refs = std::iter::once(&oa.default_start_state)
            .chain(&oa.start_states)
            .chain(&oa.final_states);
        for s in refs {
            self.push(s.span, Sym::State(r, s.text.to_string()), false);
        }
        for t in &oa.transitions {
            self.push(t.from.span, Sym::State(r, t.from.text.to_string()), false);
            self.push(t.event.span, Sym::Event(r, t.event.text.to_string()), false);
            self.push(t.to.span, Sym::State(r, t.to.text.to_string()), false);
        }
    }
}
