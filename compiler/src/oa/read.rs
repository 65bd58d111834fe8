//! Reads an Open Autonomy `fsm_specification.yaml` (or its JSON twin) into an [`OaSpec`] with exact spans.
//!
//! The schema is upstream's: seven keys, all required, no others; five lists of strings, two strings, and a
//! mapping from `"(State, EVENT)"` to a state. Beyond upstream, every duplicate key is reported (YAML keeps the
//! last one silently), and a repeated transition key keeps all its entries so the checks can report conflicts.

use super::events::{self, Doc, Node, Value};
use super::{OaSpec, OaTransition};
use crate::diag::{Code, Diagnostic, did_you_mean};
use crate::source::{FileId, Name, Span};
use indexmap::IndexMap;
use indexmap::map::Entry;
use std::collections::BTreeMap;

/// The seven keys, in upstream's (sorted) order.
pub const KEYS: [&str; 7] = [
    "alphabet_in",
    "default_start_state",
    "final_states",
    "label",
    "start_states",
    "states",
    "transition_func",
];

/// Parses one spec. Returns `None` when the document cannot be used (a syntax error, not a mapping, a key
/// missing or of the wrong type); a spec whose only problems are bad entries comes back without those entries.
pub fn parse(file: FileId, text: &str) -> (Option<OaSpec>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let spec = match events::load(file, text, &mut diags) {
        Doc::Root(root) => Reader {
            text,
            diags: &mut diags,
        }
        .spec(root),
        Doc::Empty => {
            let end = text.len();
            diags.push(
                Diagnostic::new(Code::YamlSchema, "the spec is empty")
                    .at(
                        Span::new(file, end, end),
                        "expected a mapping with the seven spec keys",
                    )
                    .help(format!(
                        "a spec has the keys {}",
                        KEYS.map(|k| format!("`{k}`")).join(", ")
                    )),
            );
            None
        }
        Doc::Unusable => None,
    };
    (spec, diags)
}

/// The duplicate-key report, shared with the skimming of deep collections in `events`.
pub(super) fn duplicate_key(key: &str, repeat: Span, first: Span) -> Diagnostic {
    Diagnostic::new(Code::YamlDuplicateKey, format!("duplicate key `{key}`"))
        .at(repeat, "repeated here")
        .with(first, "first written here")
        .help("YAML silently keeps only the last of two equal keys, so upstream tools never see the first; remove one")
}

struct Reader<'t, 'd> {
    text: &'t str,
    diags: &'d mut Vec<Diagnostic>,
}

impl Reader<'_, '_> {
    fn spec(&mut self, root: Node) -> Option<OaSpec> {
        let Value::Map(entries) = root.value else {
            if let Value::Seq(items) = &root.value {
                items.iter().for_each(|item| self.check_duplicates(item));
            }
            if !matches!(root.value, Value::Rejected) {
                self.diags.push(
                    Diagnostic::new(
                        Code::YamlSchema,
                        format!("a spec must be a mapping, found {}", root.value.describe()),
                    )
                    .at(root.span, "expected a mapping with the seven spec keys"),
                );
            }
            return None;
        };
        // Where the top-level mapping starts: missing keys are reported there.
        let head = entries.first().map_or(root.span, |(k, _)| k.span);
        let head = if self.text.as_bytes().get(root.span.start as usize) == Some(&b'{') {
            Span::new(
                root.span.file,
                root.span.start as usize,
                root.span.start as usize + 1,
            )
        } else {
            head
        };

        // YAML keeps the last value of a repeated key; so do we, after reporting the repeat.
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        let mut fields: BTreeMap<&'static str, (Span, Node)> = BTreeMap::new();
        let mut unread = Vec::new();
        for (key, value) in entries {
            let Some(name) = self.key_text(&key, "spec keys") else {
                unread.push(value);
                continue;
            };
            let name = name.to_string();
            match KEYS.iter().find(|k| **k == name) {
                None => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::YamlSchema,
                            format!(
                                "Additional properties are not allowed ('{name}' was unexpected)"
                            ),
                        )
                        .at(key.span, "not a spec key")
                        .help(did_you_mean(&name, KEYS).unwrap_or_else(|| {
                            let keys = KEYS.map(|k| format!("`{k}`")).join(", ");
                            format!("a spec has exactly the keys {keys}")
                        })),
                    );
                    unread.push(value);
                }
                Some(k) => {
                    match seen.get(k) {
                        Some(&first) => self.diags.push(duplicate_key(k, key.span, first)),
                        None => {
                            seen.insert(k, key.span);
                        }
                    }
                    if let Some((_, old)) = fields.insert(k, (key.span, value)) {
                        unread.push(old);
                    }
                }
            }
        }
        // Mappings nobody reads still must not hide repeated keys.
        for node in &unread {
            self.check_duplicates(node);
        }
        for k in KEYS {
            if !fields.contains_key(k) {
                self.diags.push(
                    Diagnostic::new(Code::YamlSchema, format!("'{k}' is a required property"))
                        .at(head, format!("this spec has no `{k}` key")),
                );
            }
        }

        let label = fields
            .get("label")
            .and_then(|(_, v)| self.string(v, "`label`"));
        let default_start = fields
            .get("default_start_state")
            .and_then(|(_, v)| self.string(v, "`default_start_state`"));
        let mut list = |key: &str| fields.get(key).and_then(|(_, v)| self.list(v, key));
        let alphabet_in = list("alphabet_in");
        let final_states = list("final_states");
        let start_states = list("start_states");
        let states = list("states");
        let (table_span, transitions) = match fields.get("transition_func") {
            Some((span, v)) => (*span, self.table(v)),
            None => (head, None),
        };
        Some(OaSpec {
            label: label?,
            alphabet_in: alphabet_in?,
            default_start_state: default_start?,
            final_states: final_states?,
            start_states: start_states?,
            states: states?,
            transitions: transitions?,
            transition_func_span: table_span,
            span: root.span,
        })
    }

    /// The text of a mapping key, which must be a string.
    fn key_text<'n>(&mut self, key: &'n Node, what: &str) -> Option<&'n str> {
        match &key.value {
            Value::Scalar { text, plain }
                if !*plain || super::yaml11::implicit_type(text).is_none() =>
            {
                Some(text)
            }
            Value::Rejected => None,
            other => {
                self.check_duplicates(key);
                self.diags.push(
                    Diagnostic::new(
                        Code::YamlSchema,
                        format!("{what} must be strings, found {}", other.describe()),
                    )
                    .at(key.span, "expected a string key"),
                );
                None
            }
        }
    }

    /// A string value; `what` names it in the message.
    fn string(&mut self, node: &Node, what: &str) -> Option<Name> {
        match &node.value {
            Value::Scalar { text, plain }
                if !*plain || super::yaml11::implicit_type(text).is_none() =>
            {
                Some(Name::new(text.clone(), self.content_span(node, text)))
            }
            Value::Rejected => None,
            Value::Scalar { text, .. } => {
                let found = node.value.describe();
                let d = Diagnostic::new(
                    Code::YamlSchema,
                    format!("{what} must be a string, found {found}"),
                )
                .at(node.span, "expected a string");
                let d = if text.is_empty() {
                    d
                } else {
                    d.help(format!("quote it to make it a string: `\"{text}\"`"))
                };
                self.diags.push(d);
                None
            }
            other => {
                self.check_duplicates(node);
                self.diags.push(
                    Diagnostic::new(
                        Code::YamlSchema,
                        format!("{what} must be a string, found {}", other.describe()),
                    )
                    .at(node.span, "expected a string"),
                );
                None
            }
        }
    }

    fn list(&mut self, node: &Node, key: &str) -> Option<Vec<Name>> {
        let Value::Seq(items) = &node.value else {
            self.check_duplicates(node);
            if !matches!(node.value, Value::Rejected) {
                let mut d = Diagnostic::new(
                    Code::YamlSchema,
                    format!(
                        "`{key}` must be a list of strings, found {}",
                        node.value.describe()
                    ),
                )
                .at(node.span, "expected a list");
                if matches!(&node.value, Value::Scalar { text, plain: true } if text.is_empty()) {
                    d = d.help(format!("write `{key}: []` for an empty list"));
                }
                self.diags.push(d);
            }
            return None;
        };
        let what = format!("each item of `{key}`");
        Some(
            items
                .iter()
                .filter_map(|item| self.string(item, &what))
                .collect(),
        )
    }

    fn table(&mut self, node: &Node) -> Option<Vec<OaTransition>> {
        let Value::Map(entries) = &node.value else {
            if !matches!(node.value, Value::Rejected) {
                self.diags.push(
                    Diagnostic::new(
                        Code::YamlSchema,
                        format!(
                            "`transition_func` must be a mapping from `(State, EVENT)` to a state, found {}",
                            node.value.describe()
                        ),
                    )
                    .at(node.span, "expected a mapping"),
                );
            }
            return None;
        };
        let mut out = Vec::with_capacity(entries.len());
        // Keys are compared as (state, event) pairs: `(A, B)` and `(A,B)` are one transition to upstream. A key
        // that is no such pair is compared as written (`None`); it never equals a pair's `(A, B)`, which is one.
        // The map is only looked up, never iterated, and borrows the names: one lookup per transition.
        let mut seen: IndexMap<(&str, Option<&str>), Span> = IndexMap::with_capacity(entries.len());
        for (key, value) in entries {
            let Some(text) = self.key_text(key, "transition keys") else {
                continue;
            };
            let parts = split_key(text);
            let identity = match &parts {
                Some((f, e)) => (&text[f.clone()], Some(&text[e.clone()])),
                None => (text, None),
            };
            match seen.entry(identity) {
                Entry::Occupied(first) => {
                    let shown = match identity {
                        (f, Some(e)) => format!("({f}, {e})"),
                        (text, None) => text.to_string(),
                    };
                    self.diags.push(duplicate_key(&shown, key.span, *first.get()).help(
                        "YAML silently keeps only the last of two equal keys, so upstream tools see only the \
                         last target; remove one",
                    ));
                }
                Entry::Vacant(slot) => {
                    slot.insert(key.span);
                }
            }
            let Some((from, event)) = parts else {
                self.diags.push(
                    Diagnostic::new(Code::YamlTransitionKey, format!("transition key `{text}` is not of the form `(State, EVENT)`"))
                        .at(key.span, "expected `(State, EVENT)`")
                        .help("a key is a state and an event in parentheses, e.g. `(RegistrationRound, DONE)`; this entry is skipped"),
                );
                continue;
            };
            let Some(to) = self.string(value, "a transition's target") else {
                continue;
            };
            // Sub-spans exist only when the key's text appears verbatim in the file (no escapes or folding).
            let content = self.content_span(key, text);
            let verbatim = self.slice(content) == text;
            let sub = |r: std::ops::Range<usize>| {
                if verbatim {
                    let start = content.start as usize;
                    Span::new(key.span.file, start + r.start, start + r.end)
                } else {
                    key.span
                }
            };
            out.push(OaTransition {
                from: Name::new(&text[from.clone()], sub(from)),
                event: Name::new(&text[event.clone()], sub(event)),
                to,
                key_span: key.span,
            });
        }
        Some(out)
    }

    /// Reports repeated keys in a mapping that is not otherwise read (nested mappings were checked when skimmed).
    fn check_duplicates(&mut self, node: &Node) {
        let Value::Map(entries) = &node.value else {
            return;
        };
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        for (key, _) in entries {
            if let Value::Scalar { text, .. } = &key.value {
                match seen.get(text.as_str()) {
                    Some(&first) => self.diags.push(duplicate_key(text, key.span, first)),
                    None => {
                        seen.insert(text, key.span);
                    }
                }
            }
        }
    }

    fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// The span of a scalar's text without its quotes, anchor or tag, when the text appears verbatim; else the
    /// whole node.
    fn content_span(&self, node: &Node, text: &str) -> Span {
        let raw = self.slice(node.span);
        // Most scalars are plain, their node nothing but their text: no need to search for it.
        let found = if raw == text {
            Some(0)
        } else {
            raw.rfind(text)
        };
        match found {
            Some(at) if !text.is_empty() => {
                let s = node.span.start as usize + at;
                Span::new(node.span.file, s, s + text.len())
            }
            _ => node.span,
        }
    }
}

/// Splits `(State, EVENT)` into the byte ranges of the two names. Spaces around the names are optional;
/// names are word characters, as in upstream's `\((\w*),\s(\w*)\)` (which also requires one space after the
/// comma, and accepts empty names: fsmc is lenient on spacing and strict on names).
pub(super) fn split_key(key: &str) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let open = key.find(|c: char| !c.is_whitespace())?;
    let close = key.rfind(|c: char| !c.is_whitespace())?;
    if !key[open..].starts_with('(') || !key[close..].starts_with(')') || close <= open {
        return None;
    }
    let inner = open + 1..close;
    let comma = inner.start + key[inner.clone()].find(',')?;
    let name = |r: std::ops::Range<usize>| {
        let s = &key[r.clone()];
        let start = r.start + (s.len() - s.trim_start_matches([' ', '\t']).len());
        let end = r.end - (s.len() - s.trim_end_matches([' ', '\t']).len());
        let ok = start < end
            && key[start..end]
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_');
        ok.then_some(start..end)
    };
    Some((name(inner.start..comma)?, name(comma + 1..inner.end)?))
}
