//! Formatting and code actions.
//!
//! Formatting is [`crate::fmt`], answered as one edit covering only what changed (so the editor keeps the
//! cursor and folds outside it). The code actions are the fixes the checker already knows: a diagnostic whose
//! help or label says `did you mean `X`?` is fixed by writing `X` over its span, and a round outcome without a
//! transition (E0401) by adding one, to the round itself or to a state the round already leads to.

use super::Analysis;
use super::index::Sym;
use super::text::Encoding;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use fsmc_driver::resolve::Syntax;
use fsmc_syntax::ast;
use lsp_types as lt;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

/// At most this many targets are offered for a missing round transition.
const MAX_TARGETS: usize = 5;

/// The edits that format the file; `None` when it does not parse (there is nothing sound to format).
pub fn format(a: &Analysis, file: FileId, enc: Encoding) -> Option<Vec<lt::TextEdit>> {
    let unit = a.index.unit_of(file)?;
    if !matches!(a.compilation.units.get(unit)?.syntax, Syntax::Fsm(_)) {
        return None;
    }
    let old = a.text(file);
    let new = crate::fmt::format(file, old).ok()?;
    Some(minimal_edit(a, file, old, &new, enc).into_iter().collect())
}

/// One edit turning `old` into `new`: the text between their common prefix and common suffix.
fn minimal_edit(
    a: &Analysis,
    file: FileId,
    old: &str,
    new: &str,
    enc: Encoding,
) -> Option<lt::TextEdit> {
    if old == new {
        return None;
    }
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(x, y)| x == y)
        .count();
    while !(old.is_char_boundary(prefix) && new.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    while !(old.is_char_boundary(old.len() - suffix) && new.is_char_boundary(new.len() - suffix)) {
        suffix -= 1;
    }
    Some(lt::TextEdit {
        range: a.range(Span::new(file, prefix, old.len() - suffix), enc),
        new_text: new[prefix..new.len() - suffix].to_string(),
    })
}

/// The quick fixes for the diagnostics of `file` that touch `range`.
pub fn code_actions(
    a: &Analysis,
    file: FileId,
    range: Range<usize>,
    uri: &str,
    versions: &BTreeMap<PathBuf, (String, i32)>,
    enc: Encoding,
) -> Vec<lt::CodeActionOrCommand> {
    let Ok(uri) = uri.parse::<lt::Uri>() else {
        return Vec::new();
    };
    let version = a.path(file).and_then(|p| versions.get(p)).map(|(_, v)| *v);
    let edit = |edits: Vec<lt::TextEdit>| lt::WorkspaceEdit {
        document_changes: Some(lt::DocumentChanges::Edits(vec![lt::TextDocumentEdit {
            text_document: lt::OptionalVersionedTextDocumentIdentifier {
                uri: uri.clone(),
                version,
            },
            edits: edits.into_iter().map(lt::OneOf::Left).collect(),
        }])),
        ..Default::default()
    };
    let mut out = Vec::new();
    for d in &a.compilation.diagnostics {
        let Some(primary) = &d.primary else { continue };
        let span = primary.span;
        // A diagnostic touching the range: the cursor anywhere on it, or a selection across it.
        if span.file != file
            || (span.end as usize) < range.start
            || (span.start as usize) > range.end
        {
            continue;
        }
        let shown = a.diagnostic(d, enc);
        let action = |title: String, edits: Vec<lt::TextEdit>, preferred: bool| {
            lt::CodeActionOrCommand::CodeAction(lt::CodeAction {
                title,
                kind: Some(lt::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![shown.clone()]),
                edit: Some(edit(edits)),
                is_preferred: Some(preferred),
                ..Default::default()
            })
        };
        if let Some(fix) = did_you_mean(d) {
            let written = a.text(file).get(span.range()).unwrap_or("");
            if is_word(written) && is_word(&fix) && written != fix {
                out.push(action(
                    format!("Replace `{written}` with `{fix}`"),
                    vec![lt::TextEdit {
                        range: a.range(span, enc),
                        new_text: fix,
                    }],
                    true,
                ));
            }
        }
        // E0510 carries a composed app's E0401 (its help names the transition the same way): the fix is the
        // same, in the machine the round comes from.
        let composed_e0401 = d.code == Code::ComposedCheck
            && d.notes
                .iter()
                .any(|n| n.contains(Code::MissingRoundEvent.id()));
        if d.code == Code::MissingRoundEvent || composed_e0401 {
            for (title, e, preferred) in missing_transition(a, file, d, enc) {
                // The machine's E0401 and the app's E0510 for the same round: one fix each.
                let offered = out.iter().any(|c| match c {
                    lt::CodeActionOrCommand::CodeAction(c) => c.title == title,
                    lt::CodeActionOrCommand::Command(_) => false,
                });
                if !offered {
                    out.push(action(title, vec![e], preferred));
                }
            }
        }
    }
    out
}

/// The name a diagnostic suggests, from its `did you mean `X`?` (in its help or its primary label).
fn did_you_mean(d: &Diagnostic) -> Option<String> {
    let texts = d.help.iter().chain(d.primary.as_ref().map(|l| &l.message));
    for t in texts {
        if let Some(rest) = t.split("did you mean `").nth(1)
            && let Some((name, _)) = rest.split_once("`?")
        {
            return Some(name.to_string());
        }
    }
    None
}

/// A name, number or duration: what a did-you-mean replaces (never a span holding anything else).
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// The round and event of an E0401 that names its missing transition: its help is
/// ``add `(Round, EVENT) -> NextRound;` ``.
fn round_and_event(d: &Diagnostic) -> Option<(String, String)> {
    let help = d.help.as_deref()?;
    let inner = help
        .strip_prefix("add `(")?
        .strip_suffix(") -> NextRound;`")?;
    let (round, event) = inner.split_once(", ")?;
    (super::nav::is_name(round) && super::nav::is_name(event))
        .then(|| (round.to_string(), event.to_string()))
}

/// For an E0401 in an `.fsm` file: one edit per target state, adding `(Round, EVENT) -> Target;` after the
/// round's last transition (or the machine's last, or at the end of the machine).
/// The round itself is the preferred target: retrying is the usual answer to an outcome such as `NO_MAJORITY`.
fn missing_transition(
    a: &Analysis,
    file: FileId,
    d: &Diagnostic,
    enc: Encoding,
) -> Vec<(String, lt::TextEdit, bool)> {
    let Some((round, event)) = round_and_event(d) else {
        return Vec::new();
    };
    let Some(primary) = &d.primary else {
        return Vec::new();
    };
    // The machine the round belongs to, from the index: the state's definition at the diagnostic's span.
    let owner = a.index.in_file(file).iter().find_map(|o| match &o.sym {
        Sym::State(r, n) if o.def && o.span == primary.span && *n == round => Some(*r),
        _ => None,
    });
    let Some(r) = owner else { return Vec::new() };
    let Some(super::index::MachineSyntax::Fsm(m)) = super::index::machine(&a.compilation.units, r)
    else {
        return Vec::new();
    };
    let text = a.text(file);
    // Targets: the round itself (retrying it is what a round does when its agents disagree), then the states
    // it already leads to, then the machine's final states.
    let mut targets: Vec<(&str, &str)> = vec![(round.as_str(), "self")];
    for t in m.transitions.iter().filter(|t| t.from.text == round) {
        targets.push((t.to.as_str(), "where the round already leads"));
    }
    for s in &m.states {
        if s.modifiers.iter().any(|n| n.text == "final") {
            targets.push((s.name.as_str(), "a final state"));
        }
    }
    let mut seen = Vec::new();
    targets.retain(|(t, _)| {
        let new = !seen.contains(t);
        seen.push(*t);
        new
    });
    targets.truncate(MAX_TARGETS);
    let Some((at, indent)) = insertion_point(m, &round, text) else {
        return Vec::new();
    };
    targets
        .into_iter()
        .map(|(target, why)| {
            let line = format!("({round}, {event}) -> {target};");
            let edit = lt::TextEdit {
                range: a.range(Span::new(file, at, at), enc),
                new_text: format!("\n{indent}{line}"),
            };
            (format!("Add `{line}` ({why})"), edit, target == round)
        })
        .collect()
}

/// Where a new transition of `round` goes (the end of the line of the round's last transition, else of the
/// machine's last transition, else of the last line before the machine's `}`), and its indentation.
fn insertion_point(m: &ast::Machine, round: &str, text: &str) -> Option<(usize, String)> {
    let own = m.transitions.iter().rfind(|t| t.from.text == round);
    match own.or(m.transitions.last()).map(|t| t.span) {
        Some(span) => {
            let end = line_end(text, span.end as usize);
            Some((end, indentation(text, span.start as usize)))
        }
        None => {
            // Before the machine's closing brace: at the end of the line above it, indented one level in.
            let close = (m.span.end as usize).checked_sub(1)?;
            if text.get(close..close + 1) != Some("}") {
                return None;
            }
            let before = text[..close].trim_end_matches([' ', '\t']);
            let at = if before.ends_with('\n') {
                before.len() - 1
            } else {
                before.len()
            };
            let indent = format!("{}    ", indentation(text, m.span.start as usize));
            Some((at, indent))
        }
    }
}

/// The end of the line holding `pos` (before its line break).
fn line_end(text: &str, pos: usize) -> usize {
    let pos = pos.min(text.len());
    text[pos..].find('\n').map_or(text.len(), |n| {
        let end = pos + n;
        // A `\r\n` line break: insert before the `\r`.
        if text[..end].ends_with('\r') {
            end - 1
        } else {
            end
        }
    })
}

/// The whitespace at the start of the line holding `pos`.
fn indentation(text: &str, pos: usize) -> String {
    let pos = pos.min(text.len());
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsmc_base::diag::Code;

    #[test]
    fn suggestions_are_read_from_help_or_label() {
        let d = Diagnostic::new(Code::UnknownState, "unknown state `Aa`").help("did you mean `A`?");
        assert_eq!(did_you_mean(&d).as_deref(), Some("A"));
        let span = Span::new(FileId(0), 0, 2);
        let d = Diagnostic::new(Code::Syntax, "x").at(span, "did you mean `state`?");
        assert_eq!(did_you_mean(&d).as_deref(), Some("state"));
        let d = Diagnostic::new(Code::UnknownState, "x").help("declare it with `state A;`");
        assert_eq!(did_you_mean(&d), None);
        assert!(is_word("30s") && is_word("A_1") && !is_word("a b") && !is_word(""));
    }

    #[test]
    fn the_missing_round_transition_is_read_from_the_checker() {
        let text = "machine M: abci {\n    event DONE, NO_MAJORITY;\n    \
                    start default state A: collect_same_until_threshold;\n    final state B;\n    \
                    (A, DONE) -> B;\n}\n";
        let c = fsmc_driver::compile_str(
            "m.fsm",
            text,
            std::path::Path::new("."),
            &Default::default(),
        );
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == Code::MissingRoundEvent)
            .expect("E0401");
        assert_eq!(
            round_and_event(d),
            Some(("A".to_string(), "NO_MAJORITY".to_string()))
        );
        let Syntax::Fsm(f) = &c.units[0].syntax else {
            panic!("an .fsm unit")
        };
        let (at, indent) = insertion_point(&f.machines[0], "A", text).unwrap();
        assert_eq!(
            &text[..at],
            text.split_inclusive('\n')
                .take(5)
                .collect::<String>()
                .trim_end()
        );
        assert_eq!(indent, "    ");
        // No transition at all: before the machine's `}`.
        let bare = "machine M {\n    state A;\n}";
        let f = fsmc_syntax::parse(FileId(0), bare).0.unwrap();
        let (at, indent) = insertion_point(&f.machines[0], "A", bare).unwrap();
        assert_eq!(
            (&bare[..at], indent.as_str()),
            ("machine M {\n    state A;", "    ")
        );
    }

    #[test]
    fn line_ends_and_indentation() {
        assert_eq!(line_end("ab\r\ncd", 1), 2);
        assert_eq!(line_end("ab", 0), 2);
        assert_eq!(indentation("x\n\t  y", 5), "\t  ");
    }
}
