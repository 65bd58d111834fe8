//! Composition checks, with upstream `chain`'s rules and messages: at least two machines, each used once, no
//! shared states, mapping keys are finals and values are starts, timeouts agree, and the next machine's
//! pre-conditions hold on every path. The composed result is then checked as an ordinary machine (by `check`,
//! with each of its findings [`wrap`]ped to name the app).

use super::chain;
use super::types;
use crate::spec::{App, Composed, MachineId, Spec, StateId, Timeout};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Span;
use std::collections::BTreeMap;

/// The composition's own checks, and the composed machine (composed whatever they found: problems with the
/// mapping are reported here, and whatever they leave inconsistent the re-check of the result reports).
pub(crate) fn check(spec: &Spec, app: &App) -> (Composed, Vec<Diagnostic>) {
    let mut out = Vec::new();
    machines(spec, app, &mut out);
    let mut shared = Shared {
        spec,
        app,
        keys: BTreeMap::new(),
        owner: BTreeMap::new(),
        events: BTreeMap::new(),
    };
    for (id, _) in dedup(&app.chain) {
        shared.keys(id, &mut out);
        shared.states(id, &mut out);
        shared.events(id, &mut out);
    }
    mappings(spec, app, &mut out);
    // A mapping that did not resolve (reported) leaves the chain short of an edge: what the walk and the
    // re-check would find are consequences of that one mistake.
    if !app.incomplete {
        preconditions(spec, app, &mut out);
    }
    let composed = chain::chain(spec, app);
    // A mapping already reported wrong (from a non-final, into a non-start) drops machines as a consequence.
    if !app.incomplete && !out.iter().any(Diagnostic::is_error) {
        entered(spec, app, &composed, &mut out);
    }
    (composed, out)
}

/// Every chained machine keeps a state in the app. Upstream's `chain` keeps only the states some kept
/// transition leads to, so a mapping past a machine drops all of it without a word: the app then never runs it.
fn entered(spec: &Spec, app: &App, composed: &Composed, out: &mut Vec<Diagnostic>) {
    for (id, span) in dedup(&app.chain) {
        if composed.origin.contains(&id) {
            continue;
        }
        let name = app.name_of(spec, id);
        let mut d = Diagnostic::new(
            Code::MachineNeverEntered,
            format!(
                "machine `{name}` is chained in app `{}`, but no mapping leads into it",
                app.name
            ),
        )
        .at(span, "dropped from the app");
        if let Some(edge) = app.mappings.iter().find(|e| e.to.0 != id && e.from.0 != id) {
            d = d.with(edge.span, "a mapping that leads past it");
        }
        out.push(d.help(format!(
            "map a final state of the machine before it to a start state of `{name}`, or remove `{name}` from the chain"
        )));
    }
}

/// Whether the composed machine is worth checking as an ordinary machine: only a well-formed chain is,
/// otherwise its errors would repeat the ones the composition's checks found.
pub(crate) fn recheck(app: &App, found: &[Diagnostic]) -> bool {
    !app.incomplete && !found.iter().any(Diagnostic::is_error)
}

/// At least two machines, each used once.
fn machines(spec: &Spec, app: &App, out: &mut Vec<Diagnostic>) {
    if app.chain.len() < 2 {
        let count = if app.chain.is_empty() {
            "no machines"
        } else {
            "only one machine"
        };
        out.push(
            Diagnostic::new(
                Code::TooFewMachines,
                format!(
                    "app `{}` chains {count}; a composition needs at least two",
                    app.name
                ),
            )
            .at(app.name.span, "too few machines")
            .help("list the machines in chain order: `chain First, Second;`"),
        );
    }
    let mut used: BTreeMap<MachineId, Span> = BTreeMap::new();
    for (id, span) in &app.chain {
        if let Some(first) = used.insert(*id, *span) {
            out.push(
                Diagnostic::new(
                    Code::MachineUsedTwice,
                    format!(
                        "machine `{}` appears twice in app `{}`",
                        app.name_of(spec, *id),
                        app.name
                    ),
                )
                .at(*span, "used again here")
                .with(first, "first used here")
                .help("a machine can be used only once in a composition"),
            );
            used.insert(*id, first);
        }
    }
}

/// What the chained machines declared so far, by name: each key's type, each state's machine, each event's
/// timeout. The composed app addresses them by name, so one name is one thing in all machines.
struct Shared<'s> {
    spec: &'s Spec,
    app: &'s App,
    /// A key is one field of the composed app's data, written by generated code: one type for all.
    keys: BTreeMap<&'s str, (MachineId, String, Span)>,
    /// States must be unique across machines.
    owner: BTreeMap<&'s str, (MachineId, Span)>,
    events: BTreeMap<&'s str, (MachineId, Option<Timeout>, Span)>,
}

impl<'s> Shared<'s> {
    fn keys(&mut self, id: MachineId, out: &mut Vec<Diagnostic>) {
        let (spec, app) = (self.spec, self.app);
        let (m, mname) = (spec.machine(id), app.name_of(spec, id));
        for k in &m.keys {
            // Compared as E0407 compares types: `std::string::String` is `String`.
            let ty = types::canonical_text(&k.ty.text);
            match self.keys.get(k.name.as_str()) {
            Some((other, first, span)) if *first != ty => out.push(
                Diagnostic::new(
                    Code::KeyTypeMismatch,
                    format!(
                        "key `{}` is `{}` in `{}` but `{}` in `{}`",
                        k.name,
                        first,
                        app.name_of(spec, *other),
                        ty,
                        mname
                    ),
                )
                .at(k.ty.span, "this type")
                .with(*span, "differs from this one")
                .help("composed machines share their data: declare the key with one type in every machine"),
            ),
            Some(_) => {}
            None => {
                self.keys.insert(k.name.as_str(), (id, ty, k.ty.span));
            }
        }
        }
    }

    fn states(&mut self, id: MachineId, out: &mut Vec<Diagnostic>) {
        let (spec, app) = (self.spec, self.app);
        let (m, mname) = (spec.machine(id), app.name_of(spec, id));
        for s in &m.states {
            if let Some((other, span)) = self.owner.get(s.name.as_str()) {
                out.push(
                    Diagnostic::new(
                        Code::SharedState,
                        format!(
                            "state `{}` is in both `{}` and `{}`",
                            s.name,
                            app.name_of(spec, *other),
                            mname
                        ),
                    )
                    .at(s.name.span, format!("in `{mname}`"))
                    .with(*span, format!("in `{}`", app.name_of(spec, *other)))
                    .help("rounds in common between composed machines are not allowed: rename one"),
                );
            } else {
                self.owner.insert(s.name.as_str(), (id, s.name.span));
            }
        }
    }

    fn events(&mut self, id: MachineId, out: &mut Vec<Diagnostic>) {
        let (spec, app) = (self.spec, self.app);
        let (m, mname) = (spec.machine(id), app.name_of(spec, id));
        for e in &m.events {
            match self.events.get(e.name.as_str()) {
                Some((other, timeout, span)) => {
                    let differ = match (timeout, &e.timeout) {
                        (Some(a), Some(b)) => a.duration != b.duration,
                        _ => false,
                    };
                    if differ {
                        let (first, again) = (
                            timeout.map(|t| t.duration).unwrap_or_default(),
                            e.timeout.map(|t| t.duration).unwrap_or_default(),
                        );
                        out.push(
                        Diagnostic::new(
                            Code::TimeoutMismatch,
                            format!(
                                "event `{}` has timeout {} in `{}` but {} in `{}`",
                                e.name,
                                duration(first),
                                app.name_of(spec, *other),
                                duration(again),
                                mname
                            ),
                        )
                        .at(e.timeout.map_or(e.name.span, |t| t.span), "this timeout")
                        .with(timeout.map_or(*span, |t| t.span), "differs from this one")
                        .help("one event has one timeout in a composed app: make them equal or rename one event"),
                    );
                    } else {
                        out.push(
                        Diagnostic::new(Code::SharedEvent, format!("event `{}` is in both `{}` and `{}`; it is treated as one event", e.name, app.name_of(spec, *other), mname))
                            .at(e.name.span, "declared again here")
                            .with(*span, "first declared here")
                            .help("if the two mean different things, rename one; if they mean the same, allow the lint: `#![allow(shared_event)]`"),
                    );
                    }
                }
                None => {
                    self.events
                        .insert(e.name.as_str(), (id, e.timeout, e.name.span));
                }
            }
        }
    }
}

/// Each final state is mapped once, from a final state to a start state.
fn mappings(spec: &Spec, app: &App, out: &mut Vec<Diagnostic>) {
    let mut mapped: BTreeMap<(MachineId, StateId), Span> = BTreeMap::new();
    for edge in &app.mappings {
        let (fm, fs) = edge.from;
        let (tm, ts) = edge.to;
        let from = spec.machine(fm).state(fs);
        let to = spec.machine(tm).state(ts);
        if let Some(first) = mapped.insert(edge.from, edge.from_span) {
            out.push(
                Diagnostic::new(
                    Code::DuplicateMapping,
                    format!("final state `{}` is mapped twice", from.name),
                )
                .at(edge.from_span, "mapped again here")
                .with(first, "first mapped here")
                .help("a final state leads to exactly one start state"),
            );
        }
        if !from.is_final {
            out.push(
                Diagnostic::new(
                    Code::MappingFromNonFinal,
                    format!(
                        "found non-final state `{}` specified in the transition mapping",
                        from.name
                    ),
                )
                .at(
                    edge.from_span,
                    format!("not a final state of `{}`", app.name_of(spec, fm)),
                )
                .with(from.name.span, "declared here")
                .help("only a machine's final states can lead into another machine"),
            );
        }
        if !to.start {
            out.push(
                Diagnostic::new(
                    Code::MappingToNonStart,
                    format!(
                        "found non-initial state `{}` specified in the transition mapping",
                        to.name
                    ),
                )
                .at(
                    edge.to_span,
                    format!("not a start state of `{}`", app.name_of(spec, tm)),
                )
                .with(to.name.span, "declared here")
                .help("a mapping leads into a machine's start state"),
            );
        }
    }
}

/// A duration the way a spec writes it: `30s`, `2m`, `1h`, `1500ms`.
fn duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 || !d.as_nanos().is_multiple_of(1_000_000) {
        return format!("{d:?}");
    }
    match ms {
        _ if ms.is_multiple_of(3_600_000) => format!("{}h", ms / 3_600_000),
        _ if ms.is_multiple_of(60_000) => format!("{}m", ms / 60_000),
        _ if ms.is_multiple_of(1000) => format!("{}s", ms / 1000),
        _ => format!("{ms}ms"),
    }
}

fn dedup(chain: &[(MachineId, Span)]) -> Vec<(MachineId, Span)> {
    let mut seen = std::collections::BTreeSet::new();
    chain
        .iter()
        .copied()
        .filter(|(id, _)| seen.insert(*id))
        .collect()
}

fn preconditions(spec: &Spec, app: &App, out: &mut Vec<Diagnostic>) {
    for entry in chain::walk(spec, app) {
        let m = spec.machine(entry.machine);
        let start = m.state(entry.start);
        let Some(via) = entry.via else { continue };
        let edge = &app.mappings[via];
        let missing: Vec<&str> = start
            .requires
            .iter()
            .map(|(k, _)| m.key(*k).name.as_str())
            .filter(|k| !entry.guaranteed.contains(*k))
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let from = spec.machine(edge.from.0);
            out.push(
                Diagnostic::new(
                    Code::PreconditionUnmet,
                    format!("pre-condition {list} of `{}` is not guaranteed when it is entered from `{}`", app.name_of(spec, entry.machine), from.state(edge.from.1).name),
                )
                .at(edge.span, "entered through this mapping")
                .with(start.name.span, format!("`{}` requires {list}", start.name))
                .help(format!("add {list} to `ensures` of `{}` or of a machine before it on this path", from.state(edge.from.1).name)),
            );
        }
    }
}

/// A diagnostic about the composed machine, pointing at the component where the problem is and naming the app.
/// An error becomes E0510; a lint keeps its code, so the app's lint levels (`#[allow(…)]`, `-A`) apply to it.
pub(crate) fn wrap(app: &App, d: Diagnostic) -> Diagnostic {
    // An app is never a plain machine, so only a lint of every profile keeps its code.
    let code = if d.code.default_level().is_some() {
        d.code
    } else {
        Code::ComposedCheck
    };
    let mut w = Diagnostic::new(
        code,
        format!("in the composed app `{}`: {}", app.name, d.message),
    );
    w.severity = d.severity;
    w.primary = d.primary.clone();
    w.secondary = d.secondary.clone();
    w.secondary.push(fsmc_base::diag::Label {
        span: app.name.span,
        message: "composed here".into(),
    });
    w.help = d.help.clone();
    w.notes = d.notes.clone();
    if code == Code::ComposedCheck {
        w.notes.push(format!(
            "the composed machine fails {} ({}) once the chain is applied",
            d.code.id(),
            d.code.name()
        ));
    } else {
        w.notes
            .push("found in the composed machine once the chain is applied".to_string());
    }
    w
}
