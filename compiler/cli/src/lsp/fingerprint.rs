//! The spec fingerprint of `abci` machines and apps, where they are declared: a line of their hover and a code
//! lens above each declaration. It is the value of the `FINGERPRINT` constant generated for the item, what a
//! node on the engine compares with its genesis before it starts, and what `fsmc diff` reports changing.
//!
//! The fingerprint is a digest of the checked model, so it is shown only while the open specs check clean: a
//! spec with errors generates no code, and a value computed from half a model would be nobody's.

use super::index::{MachineRef, Sym};
use super::text::Encoding;
use super::{Analysis, index};
use fsmc_base::source::FileId;
use fsmc_driver::resolve::Syntax;
use fsmc_model::fingerprint::{Fingerprint, fingerprint};
use fsmc_model::spec::Machine;
use fsmc_vocab::Profile;
use lsp_types as lt;

/// What the hover of an `abci` machine or app adds: its fingerprint, or why there is none now. `None` for
/// anything else (a machine of another system, a state).
pub fn hover_line(a: &Analysis, sym: &Sym) -> Option<String> {
    if !replicated(a, sym) {
        return None;
    }
    Some(match of(a, sym) {
        Some(fp) => format!(
            "**Spec fingerprint** `{fp}`: the `FINGERPRINT` constant of its generated code, which a node on the \
             engine checks against its genesis at start; `fsmc diff` says what changes it."
        ),
        None => "**Spec fingerprint**: none while the open specs have errors.".to_string(),
    })
}

/// A lens above each `abci` machine and app declared in `file`, titled with the first 8 bytes of its
/// fingerprint in hexadecimal (as `fsmc diff` prints them). The lenses carry no command: they are read, not
/// clicked.
pub fn code_lenses(a: &Analysis, file: FileId, enc: Encoding) -> Vec<lt::CodeLens> {
    a.index
        .in_file(file)
        .iter()
        .filter(|occ| occ.def && matches!(occ.sym, Sym::Machine(_) | Sym::App { .. }))
        .filter_map(|occ| {
            let fp = of(a, &occ.sym)?;
            Some(lt::CodeLens {
                range: a.range(occ.span, enc),
                command: Some(lt::Command {
                    title: format!("spec fingerprint {}", fp.short(8)),
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            })
        })
        .collect()
}

/// Whether the syntax declares an `abci` machine or an app (apps chain only `abci` machines).
fn replicated(a: &Analysis, sym: &Sym) -> bool {
    match sym {
        Sym::Machine(r) => match index::machine(&a.compilation.units, *r) {
            Some(index::MachineSyntax::Fsm(m)) => m
                .profile
                .as_ref()
                .is_some_and(|p| Profile::parse(&p.text) == Some(Profile::Abci)),
            Some(index::MachineSyntax::Oa(_)) => true,
            None => false,
        },
        Sym::App { .. } => true,
        _ => false,
    }
}

/// The fingerprint of the machine or app `sym` declares, from the checked model; `None` when there is none.
fn of(a: &Analysis, sym: &Sym) -> Option<Fingerprint> {
    let m = model(a, sym)?;
    (m.profile == Profile::Abci).then(|| fingerprint(m))
}

/// The checked model's machine for a machine the syntax declares (matched by its file and name: the model
/// names a YAML app by its label's last segment, as the syntax does), or an app's composed machine.
fn model<'a>(a: &'a Analysis, sym: &Sym) -> Option<&'a Machine> {
    let checked = a.compilation.checked.as_ref()?;
    let spec = checked.spec();
    let units = &a.compilation.units;
    match sym {
        Sym::Machine(MachineRef { unit, index: i }) => {
            let file = units.get(*unit)?.file;
            let name = index::machine(
                units,
                MachineRef {
                    unit: *unit,
                    index: *i,
                },
            )?
            .name();
            spec.machines
                .iter()
                .find(|m| m.name.span.file == file && m.name.text == name)
        }
        Sym::App { unit, index } => {
            let u = units.get(*unit)?;
            let Syntax::Fsm(f) = &u.syntax else {
                return None;
            };
            let name = &f.apps.get(*index)?.name.text;
            let a = spec
                .apps
                .iter()
                .position(|app| app.name.span.file == u.file && app.name.text == *name)?;
            checked.composed().get(a).map(|c| &c.machine)
        }
        _ => None,
    }
}
