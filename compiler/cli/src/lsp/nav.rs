//! Hover, go to definition, find references and rename: all read the name under the cursor from the index.

use super::index::{self, MachineSyntax, Sym};
use super::text::Encoding;
use super::{Analysis, fingerprint, text};
use fsmc_base::diag::render;
use fsmc_base::source::FileId;
use fsmc_driver::resolve::Syntax;
use fsmc_vocab::Profile;
use fsmc_vocab::abci::{Need, OutcomeKind, RoundKind};

use fsmc_syntax::ast::{self, PropValue};
use lsp_types as lt;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Lists in a hover stop after this many entries (a state of a large spec can have hundreds of transitions in).
const HOVER_LIST: usize = 25;

pub fn hover(a: &Analysis, file: FileId, offset: usize, enc: Encoding) -> Option<lt::Hover> {
    let occ = a.index.at(file, offset)?;
    let value = describe(a, &occ.sym)?;
    Some(lt::Hover {
        contents: lt::HoverContents::Markup(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value,
        }),
        range: Some(a.range(occ.span, enc)),
    })
}

pub fn definition(
    a: &Analysis,
    file: FileId,
    offset: usize,
    enc: Encoding,
) -> Option<lt::GotoDefinitionResponse> {
    let occ = a.index.at(file, offset)?;
    if let Sym::File(unit) = occ.sym {
        let target = a.compilation.units.get(unit)?.file;
        let start = fsmc_base::source::Span::new(target, 0, 0);
        return a
            .location(start, enc)
            .map(lt::GotoDefinitionResponse::Scalar);
    }
    let defs: Vec<lt::Location> = a
        .index
        .occurrences_of(&occ.sym)
        .into_iter()
        .filter(|o| o.def)
        .filter_map(|o| a.location(o.span, enc))
        .collect();
    match defs.len() {
        0 => None,
        1 => defs
            .into_iter()
            .next()
            .map(lt::GotoDefinitionResponse::Scalar),
        _ => Some(lt::GotoDefinitionResponse::Array(defs)),
    }
}

pub fn references(
    a: &Analysis,
    file: FileId,
    offset: usize,
    include_declaration: bool,
    enc: Encoding,
) -> Vec<lt::Location> {
    let Some(occ) = a.index.at(file, offset) else {
        return Vec::new();
    };
    a.index
        .occurrences_of(&occ.sym)
        .into_iter()
        .filter(|o| include_declaration || !o.def)
        .filter_map(|o| a.location(o.span, enc))
        .collect()
}

/// What a rename at the cursor renames: a state, event or key, its name as written, and its machine.
struct Renaming<'a> {
    sym: &'a Sym,
    old: &'a str,
    what: &'static str,
    machine: MachineSyntax<'a>,
}

/// What a rename at `offset` would rename: `Ok(None)` where there is nothing to rename (not a state, event or
/// key), and an error where that name cannot be renamed whatever the new name is. `prepareRename` and `rename`
/// both ask here, so the editor never offers a rename that is then refused for the name it started from.
fn renaming(a: &Analysis, file: FileId, offset: usize) -> Result<Option<Renaming<'_>>, String> {
    let Some(occ) = a.index.at(file, offset) else {
        return Ok(None);
    };
    let (r, old, what) = match &occ.sym {
        Sym::State(r, n) => (*r, n.as_str(), "state"),
        Sym::Event(r, n) => (*r, n.as_str(), "event"),
        Sym::Key(r, n) => (*r, n.as_str(), "key"),
        _ => return Ok(None),
    };
    let machine =
        index::machine(&a.compilation.units, r).ok_or("the machine of this name is not loaded")?;
    if what == "event" && is_abci(machine) {
        outcome_event(old)?;
    }
    for o in a.index.occurrences_of(&occ.sym) {
        if a.text(o.span.file).get(o.span.range()) != Some(old) {
            return Err(format!(
                "`{old}` is written differently in `{}` (quoted or escaped); rename it there by hand",
                a.path(o.span.file)
                    .map_or(String::new(), |p| render::inert(&p.display().to_string())
                        .into_owned())
            ));
        }
    }
    Ok(Some(Renaming {
        sym: &occ.sym,
        old,
        what,
        machine,
    }))
}

fn is_abci(m: MachineSyntax<'_>) -> bool {
    matches!(m, MachineSyntax::Oa(_))
        || matches!(m, MachineSyntax::Fsm(f) if f.profile.as_ref().is_some_and(|p| p.text == "abci"))
}

/// Rounds emit the events named after their outcomes (`DONE`, `NO_MAJORITY`, …) unless a state maps the
/// outcome: renaming one of those, or to one of those, would change which event a round emits.
fn outcome_event(name: &str) -> Result<(), String> {
    match OutcomeKind::ALL.iter().find(|o| o.default_event() == name) {
        Some(o) => Err(format!(
            "rounds emit `{name}` for their `{}` outcome by convention; renaming it would change what they emit \
             (map the outcome instead: `{} = EVENT;` in each round)",
            o.name(),
            o.name()
        )),
        None => Ok(()),
    }
}

pub fn prepare_rename(
    a: &Analysis,
    file: FileId,
    offset: usize,
    enc: Encoding,
) -> Result<Option<lt::PrepareRenameResponse>, String> {
    if renaming(a, file, offset)?.is_none() {
        return Ok(None);
    }
    let Some(occ) = a.index.at(file, offset) else {
        return Ok(None);
    };
    Ok(a.text(file).get(occ.span.range()).map(|placeholder| {
        lt::PrepareRenameResponse::RangeWithPlaceholder {
            range: a.range(occ.span, enc),
            placeholder: placeholder.to_string(),
        }
    }))
}

/// Why `new` cannot replace the name `r` renames, by the checker's rules: not a name, a name of underscores
/// only, a name that becomes `Self` (or `crate`, `super` for a state), or one that is another name of its kind
/// once turned into the Rust identifiers the generated code uses (`Open` and `OPEN` are both the variant `Open`).
fn refuse_new_name(r: &Renaming<'_>, new: &str) -> Result<(), String> {
    use fsmc_model::ident::{camel, snake};
    if !is_name(new) {
        return Err(format!(
            "`{new}` is not a name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    let what = r.what;
    if new.bytes().all(|c| c == b'_') {
        return Err(format!(
            "`{new}` cannot name a {what}: a name of underscores only"
        ));
    }
    if (what != "key" && camel(new) == "Self")
        || (what == "state" && matches!(new, "crate" | "super"))
    {
        return Err(format!(
            "`{new}` cannot name a {what}: it is reserved in generated Rust"
        ));
    }
    let (names, camel_too, snake_too) = match what {
        "state" => (r.machine.state_names(), true, true),
        "event" => (r.machine.event_names(), true, false),
        _ => (r.machine.key_names(), false, true),
    };
    for other in names.iter().filter(|n| n.text != r.old) {
        let o = other.text.as_str();
        if o == new {
            return Err(format!(
                "machine `{}` already has a {what} `{new}`",
                r.machine.name()
            ));
        }
        let rust = if camel_too && camel(o) == camel(new) {
            Some(camel(new))
        } else if snake_too && snake(o) == snake(new) {
            Some(snake(new))
        } else {
            None
        };
        if let Some(rust) = rust {
            return Err(format!(
                "`{new}` and the {what} `{o}` would both be `{rust}` in generated Rust"
            ));
        }
    }
    if what == "event" && is_abci(r.machine) {
        outcome_event(new)?;
    }
    Ok(())
}

/// Every occurrence of the name under the cursor, in every file of the workspace, replaced by `new_name`.
/// Refused (with the reason) for anything but a state, event or key, for a new name the checker would reject,
/// and where renaming would change what the spec means.
pub fn rename(
    a: &Analysis,
    file: FileId,
    offset: usize,
    new_name: &str,
    versions: &BTreeMap<PathBuf, (String, i32)>,
    enc: Encoding,
) -> Result<lt::WorkspaceEdit, String> {
    let r = renaming(a, file, offset)?.ok_or("only states, events and keys can be renamed")?;
    if new_name != r.old {
        refuse_new_name(&r, new_name)?;
    }
    let mut by_file: BTreeMap<FileId, Vec<lt::TextEdit>> = BTreeMap::new();
    for o in a.index.occurrences_of(r.sym) {
        by_file.entry(o.span.file).or_default().push(lt::TextEdit {
            range: a.range(o.span, enc),
            new_text: new_name.to_string(),
        });
    }
    let mut changes = Vec::new();
    for (f, mut edits) in by_file {
        edits.sort_by_key(|e| (e.range.start.line, e.range.start.character));
        edits.dedup_by(|x, y| x.range == y.range);
        let Some(path) = a.path(f) else { continue };
        let (uri, version) = match versions.get(path) {
            Some((uri, v)) => (uri.clone(), Some(*v)),
            None => (text::path_to_uri(path), None),
        };
        let Ok(uri) = uri.parse::<lt::Uri>() else {
            continue;
        };
        changes.push(lt::TextDocumentEdit {
            text_document: lt::OptionalVersionedTextDocumentIdentifier { uri, version },
            edits: edits.into_iter().map(lt::OneOf::Left).collect(),
        });
    }
    Ok(lt::WorkspaceEdit {
        document_changes: Some(lt::DocumentChanges::Edits(changes)),
        ..Default::default()
    })
}

/// The grammar's `ident`.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The hover text of a name: what it is, its doc comment, and how it is used.
fn describe(a: &Analysis, sym: &Sym) -> Option<String> {
    let units = &a.compilation.units;
    match sym {
        Sym::Machine(r) => {
            let mut s = machine_text(index::machine(units, *r)?);
            if let Some(line) = fingerprint::hover_line(a, sym) {
                let _ = write!(s, "\n\n{line}");
            }
            Some(s)
        }
        Sym::State(r, name) => Some(match index::machine(units, *r)? {
            MachineSyntax::Fsm(m) => fsm_state(m, name)?,
            MachineSyntax::Oa(o) => oa_state(o, name),
        }),
        Sym::Event(r, name) => Some(match index::machine(units, *r)? {
            MachineSyntax::Fsm(m) => fsm_event(m, name)?,
            MachineSyntax::Oa(o) => {
                let uses = o
                    .transitions
                    .iter()
                    .filter(|t| t.event.text == *name)
                    .count();
                format!(
                    "```fsm\nevent {name}\n```\nAn event of the Open Autonomy app `{}`: used by {}.",
                    o.name(),
                    count(uses, "transition")
                )
            }
        }),
        Sym::Key(r, name) => match index::machine(units, *r)? {
            MachineSyntax::Fsm(m) => fsm_key(m, name),
            MachineSyntax::Oa(_) => None,
        },
        Sym::App { unit, index } => {
            let Syntax::Fsm(f) = &units.get(*unit)?.syntax else {
                return None;
            };
            let app = f.apps.get(*index)?;
            let mut s = format!("```fsm\napp {}\n```\n", app.name);
            docs(&mut s, &app.docs);
            let chain: Vec<String> = app.chain.iter().map(|n| format!("`{n}`")).collect();
            let _ = write!(s, "Chains {}.", chain.join(" → "));
            if let Some(line) = fingerprint::hover_line(a, sym) {
                let _ = write!(s, "\n\n{line}");
            }
            Some(s)
        }
        Sym::File(unit) => {
            let file = units.get(*unit)?.file;
            let path = a.path(file)?;
            let machines: Vec<String> = index::machines_of(units, *unit)
                .into_iter()
                .map(|(_, n)| format!("`{n}`"))
                .collect();
            Some(format!(
                "`{}`\n\nDefines {}.",
                path.display(),
                if machines.is_empty() {
                    "no machine".to_string()
                } else {
                    machines.join(", ")
                }
            ))
        }
    }
}

fn docs(s: &mut String, docs: &[String]) {
    if !docs.is_empty() {
        s.push_str(&docs.join("\n"));
        s.push_str("\n\n");
    }
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `a`, `b`, … and N more.
fn names(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let mut s = all
        .iter()
        .take(HOVER_LIST)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > HOVER_LIST {
        let _ = write!(s, " and {} more", all.len() - HOVER_LIST);
    }
    s
}

fn machine_text(m: MachineSyntax<'_>) -> String {
    match m {
        MachineSyntax::Fsm(m) => {
            let profile = m
                .profile
                .as_ref()
                .map_or(String::new(), |p| format!(": {p}"));
            let mut s = format!("```fsm\nmachine {}{profile}\n```\n", m.name);
            docs(&mut s, &m.docs);
            let _ = write!(
                s,
                "{}, {}, {}, {}.",
                count(m.states.len(), "state"),
                count(m.events.len(), "event"),
                count(m.transitions.len(), "transition"),
                count(m.keys.len(), "key")
            );
            s
        }
        MachineSyntax::Oa(o) => format!(
            "```fsm\nmachine {}: abci\n```\nAn Open Autonomy app (`{}`): {}, {}, {}.",
            o.name(),
            o.label,
            count(o.states.len(), "state"),
            count(o.alphabet_in.len(), "event"),
            count(o.transitions.len(), "transition")
        ),
    }
}

fn fsm_state(m: &ast::Machine, name: &str) -> Option<String> {
    let st = m.states.iter().find(|s| s.name.text == name)?;
    let mut head: Vec<&str> = st.modifiers.iter().map(|n| n.as_str()).collect();
    head.push("state");
    let kind = st.kind.as_ref().map_or(String::new(), |k| format!(": {k}"));
    let mut s = format!("```fsm\n{} {name}{kind}\n```\n", head.join(" "));
    docs(&mut s, &st.docs);
    let profile = m.profile.as_ref().and_then(|p| Profile::parse(&p.text));
    let is_final = st.modifiers.iter().any(|n| n.text == "final");
    if profile == Some(Profile::Abci) {
        let kind = match &st.kind {
            Some(k) => RoundKind::parse(&k.text),
            None if is_final => Some(RoundKind::Degenerate),
            None => Some(RoundKind::Custom),
        };
        if let Some(k) = kind {
            let outcomes: Vec<String> = k
                .outcomes()
                .iter()
                .map(|(o, need)| {
                    format!(
                        "`{}`{}",
                        o.name(),
                        if *need == Need::Required {
                            ""
                        } else {
                            " (optional)"
                        }
                    )
                })
                .collect();
            // "An `only_keeper_sends` round", "A `voting` round".
            let article = if k.name().starts_with(['a', 'e', 'i', 'o', 'u']) {
                "An"
            } else {
                "A"
            };
            let _ = write!(s, "{article} `{}` round of machine `{}`", k.name(), m.name);
            if !outcomes.is_empty() {
                let _ = write!(s, "; outcomes {}", outcomes.join(", "));
            }
            s.push_str(".\n\n");
        }
    } else {
        let _ = write!(s, "A state of machine `{}`.\n\n", m.name);
    }
    let incoming: Vec<&ast::Transition> =
        m.transitions.iter().filter(|t| t.to.text == name).collect();
    let outgoing: Vec<&ast::Transition> = m
        .transitions
        .iter()
        .filter(|t| t.from.text == name)
        .collect();
    let event = |t: &ast::Transition| t.event.as_ref().map_or(String::new(), |e| format!(", {e}"));
    let _ = writeln!(
        s,
        "**In** ({}): {}  ",
        incoming.len(),
        names(
            incoming
                .iter()
                .map(|t| format!("`({}{})`", t.from, event(t)))
        )
    );
    let _ = writeln!(
        s,
        "**Out** ({}): {}  ",
        outgoing.len(),
        names(outgoing.iter().map(|t| format!(
            "`{}-> {}`",
            t.event.as_ref().map_or(String::new(), |e| format!("{e} ")),
            t.to
        )))
    );
    for (label, prop) in [
        ("Reads", "reads"),
        ("Writes", "writes"),
        ("Requires", "requires"),
        ("Ensures", "ensures"),
    ] {
        let keys: Vec<String> = st
            .properties
            .iter()
            .filter(|p| p.name.text == prop)
            .flat_map(|p| match &p.value {
                PropValue::List(l) => l.iter().map(|k| format!("`{k}`")).collect(),
                _ => Vec::new(),
            })
            .collect();
        if !keys.is_empty() {
            let _ = writeln!(s, "**{label}**: {}  ", keys.join(", "));
        }
    }
    Some(s.trim_end().to_string())
}

fn oa_state(o: &fsmc_driver::yaml::OaSpec, name: &str) -> String {
    let mut head = Vec::new();
    if o.start_states.iter().any(|s| s.text == name) {
        head.push("start");
    }
    if o.default_start_state.text == name {
        head.push("default");
    }
    if o.final_states.iter().any(|s| s.text == name) {
        head.push("final");
    }
    head.push("state");
    let incoming: Vec<String> = o
        .transitions
        .iter()
        .filter(|t| t.to.text == name)
        .map(|t| format!("`({}, {})`", t.from, t.event))
        .collect();
    let outgoing: Vec<String> = o
        .transitions
        .iter()
        .filter(|t| t.from.text == name)
        .map(|t| format!("`{} -> {}`", t.event, t.to))
        .collect();
    format!(
        "```fsm\n{} {name}\n```\nA round of the Open Autonomy app `{}`.\n\n**In** ({}): {}  \n**Out** ({}): {}",
        head.join(" "),
        o.name(),
        incoming.len(),
        names(incoming.into_iter()),
        outgoing.len(),
        names(outgoing.into_iter())
    )
}

fn fsm_event(m: &ast::Machine, name: &str) -> Option<String> {
    let e = m.events.iter().find(|e| e.name.text == name)?;
    let mut decl = format!("event {name}");
    if !e.fields.is_empty() {
        let fields: Vec<String> = e
            .fields
            .iter()
            .map(|f| format!("{}: {}", f.name, f.ty))
            .collect();
        let _ = write!(decl, "({})", fields.join(", "));
    }
    if let Some(t) = &e.timeout {
        let _ = write!(decl, " timeout {t}");
    }
    if let Some(r) = &e.role {
        let _ = write!(decl, " by {r}");
    }
    let mut s = format!("```fsm\n{decl}\n```\n");
    docs(&mut s, &e.docs);
    match &e.timeout {
        Some(t) => {
            let _ = write!(s, "A timeout event: fires after **{t}**. ");
        }
        None => s.push_str("An event. "),
    }
    let uses = m
        .transitions
        .iter()
        .filter(|t| t.event.as_ref().is_some_and(|n| n.text == name))
        .count();
    let _ = write!(
        s,
        "Used by {} of machine `{}`.",
        count(uses, "transition"),
        m.name
    );
    let mapped: Vec<String> = m
        .states
        .iter()
        .flat_map(|st| {
            st.properties.iter().filter_map(move |p| match &p.value {
                PropValue::Assign(ev) if ev.text == name => {
                    Some(format!("`{}` ({})", st.name, p.name))
                }
                _ => None,
            })
        })
        .collect();
    if !mapped.is_empty() {
        let _ = write!(
            s,
            "\n\nEmitted for an outcome by {}.",
            names(mapped.into_iter())
        );
    }
    Some(s)
}

fn fsm_key(m: &ast::Machine, name: &str) -> Option<String> {
    let k = m.keys.iter().find(|k| k.name.text == name)?;
    let cross = if k.cross_period { "cross_period " } else { "" };
    let mut s = format!("```fsm\n{cross}key {name}: {}\n```\n", k.ty);
    docs(&mut s, &k.docs);
    let _ = write!(
        s,
        "{} of machine `{}`.\n\n",
        if k.cross_period {
            "Synchronized data kept across periods"
        } else {
            "Synchronized data"
        },
        m.name
    );
    for (label, prop) in [
        ("Read by", "reads"),
        ("Written by", "writes"),
        ("Required by", "requires"),
        ("Ensured by", "ensures"),
    ] {
        let states: Vec<String> = m
            .states
            .iter()
            .filter(|st| {
                st.properties.iter().any(|p| {
                    p.name.text == prop
                        && matches!(&p.value, PropValue::List(l) if l.iter().any(|n| n.text == name))
                })
            })
            .map(|st| format!("`{}`", st.name))
            .collect();
        if !states.is_empty() {
            let _ = writeln!(s, "**{label}**: {}  ", names(states.into_iter()));
        }
    }
    Some(s.trim_end().to_string())
}
