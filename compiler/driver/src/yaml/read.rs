//! Reads an Open Autonomy `fsm_specification.yaml` (or its JSON twin) into an [`OaSpec`] with exact spans.
//!
//! The schema is upstream's: seven keys, all required, no others; five lists of strings, two strings, and a
//! mapping from `"(State, EVENT)"` to a state. Beyond upstream, every duplicate key is reported (YAML keeps the
//! last one silently), and a repeated transition key keeps all its entries so the checks can report conflicts.
//!
//! Most files are exactly what upstream's writer prints; [`parse`] first tries `canonical`, a line scanner that
//! reads that layout, and only texts it declines reach the YAML parser. Its contract: whenever it accepts a text,
//! the result is exactly the full reader's (the same spec, spans included, and no diagnostic); it declines
//! anything it is not certain about, so the two paths can only differ in speed.

use super::events::{Events, Head, Node, Step, Value};
use super::keys::{KeyAt, OtherKey, Table, TableKeys, duplicate_key, split_key};
use super::{OaSpec, OaTransition};
use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::{FileId, Name, Span};
use saphyr_parser::Event;
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
    if let Some(d) = second_byte_order_mark(file, text) {
        return (None, vec![d]);
    }
    // A text in upstream's canonical layout is read without a YAML parser, to the same result.
    if let Some(spec) = super::canonical::read(file, text) {
        return (Some(spec), Vec::new());
    }
    parse_full(file, text)
}

/// A byte order mark right after the one a text starts with. PyYAML skips only the first: it reads a second as
/// the first character of the document (`\u{FEFF}alphabet_in`, a key upstream's checker does not know), while
/// saphyr takes any number of them as marks between documents.
fn second_byte_order_mark(file: FileId, text: &str) -> Option<Diagnostic> {
    const BOM: &str = "\u{FEFF}";
    let rest = text.strip_prefix(BOM)?;
    rest.starts_with(BOM).then(|| {
        Diagnostic::new(
            Code::YamlSyntax,
            "invalid YAML: a byte order mark must not appear inside a document",
        )
        .at(
            Span::new(file, BOM.len(), 2 * BOM.len()),
            "a second byte order mark",
        )
        .help("remove it: a file starts with at most one")
    })
}

/// [`parse`] without the fast path for canonical texts: what that path must agree with.
pub fn parse_full(file: FileId, text: &str) -> (Option<OaSpec>, Vec<Diagnostic>) {
    if let Some(d) = second_byte_order_mark(file, text) {
        return (None, vec![d]);
    }
    let mut diags = Vec::new();
    let mut reader = Reader {
        text,
        diags: Vec::new(),
    };
    let mut events = Events::new(file, text, &mut diags);
    let spec = match events.start() {
        Ok(Some((ev, span))) => match reader.document(&mut events, ev, span) {
            Ok(spec) => match events.end() {
                Ok(true) => Some(spec),
                // A second document, or a syntax error after the first: unusable.
                Ok(false) | Err(()) => None,
            },
            Err(()) => None,
        },
        Ok(None) => {
            let end = text.len();
            reader.diags.push(
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
            Some(None)
        }
        Err(()) => None,
    };
    // The reader's findings stand only for a document that was read to its end: in an unusable one, what the
    // loading reported (syntax, aliases, tags) is all there is to say.
    match spec {
        Some(spec) => {
            diags.append(&mut reader.diags);
            (spec, diags)
        }
        None => (None, diags),
    }
}

struct Reader<'t> {
    text: &'t str,
    /// What reading found, kept apart from what loading reports (see `parse`).
    diags: Vec<Diagnostic>,
}

/// One of the seven keys as last written: YAML keeps the last value of a repeated key.
struct Slot {
    key_span: Span,
    value: Field,
    /// What reading the value found: reported if this value is the one kept.
    read: Vec<Diagnostic>,
    /// What is reported of the value if a later one replaces it: its repeated keys, as for any value not read.
    unread: Unread,
}

enum Field {
    Name(Option<Name>),
    List(Option<Vec<Name>>),
    Table(Option<Vec<OaTransition>>),
}

enum Unread {
    Diags(Vec<Diagnostic>),
    /// A streamed table keeps what its keys' texts need (see [`TableKeys::raw_duplicates`]).
    Table(TableKeys),
}

impl Reader<'_> {
    fn document<'a>(
        &mut self,
        events: &mut Events<'a, '_>,
        ev: Event<'a>,
        span: Span,
    ) -> Step<Option<OaSpec>> {
        let start = match events.head(ev, span, 1)? {
            Head::Collection {
                is_map: true,
                start,
            } => start,
            Head::Collection {
                is_map: false,
                start,
            } => {
                let root = events.collection(false, start, 1)?;
                self.not_a_mapping(&root);
                return Ok(None);
            }
            Head::Node(root) => {
                self.not_a_mapping(&root);
                return Ok(None);
            }
        };
        // The top-level mapping is read entry by entry, and each value as it comes: the large ones (the
        // states, the transitions) are never built as a tree.
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        let mut fields: BTreeMap<&'static str, Slot> = BTreeMap::new();
        let mut first_key = None;
        let mut end = start;
        loop {
            let (ev, span) = events.next()?;
            if matches!(ev, Event::MappingEnd | Event::SequenceEnd) {
                // A block collection ends with an empty event at the next token; a flow one at its bracket.
                if span.start < span.end {
                    end = span;
                }
                break;
            }
            let key = events.node(ev, span, 2)?;
            first_key.get_or_insert(key.span);
            let (ev, span) = events.next()?;
            let head = events.head(ev, span, 2)?;
            end = self.entry(events, key, head, &mut seen, &mut fields)?;
        }
        let root_span = start.to(end);
        // Where the top-level mapping starts: missing keys are reported there.
        let head = first_key.unwrap_or(root_span);
        let head = if self.text.as_bytes().get(root_span.start as usize) == Some(&b'{') {
            Span::new(
                root_span.file,
                root_span.start as usize,
                root_span.start as usize + 1,
            )
        } else {
            head
        };
        for k in KEYS {
            if !fields.contains_key(k) {
                self.diags.push(
                    Diagnostic::new(Code::YamlSchema, format!("'{k}' is a required property"))
                        .at(head, format!("this spec has no `{k}` key")),
                );
            }
        }

        let mut label = None;
        let mut default_start = None;
        let mut alphabet_in = None;
        let mut final_states = None;
        let mut start_states = None;
        let mut states = None;
        let mut table = None;
        let mut table_span = head;
        for (k, slot) in fields {
            self.diags.extend(slot.read);
            match (k, slot.value) {
                ("label", Field::Name(v)) => label = v,
                ("default_start_state", Field::Name(v)) => default_start = v,
                ("alphabet_in", Field::List(v)) => alphabet_in = v,
                ("final_states", Field::List(v)) => final_states = v,
                ("start_states", Field::List(v)) => start_states = v,
                ("states", Field::List(v)) => states = v,
                (_, Field::Table(v)) => {
                    table_span = slot.key_span;
                    table = v;
                }
                _ => {}
            }
        }
        Ok((|| {
            Some(OaSpec {
                label: label?,
                alphabet_in: alphabet_in?,
                default_start_state: default_start?,
                final_states: final_states?,
                start_states: start_states?,
                states: states?,
                transitions: table?,
                transition_func_span: table_span,
                span: root_span,
            })
        })())
    }

    /// A document whose root is not a mapping.
    fn not_a_mapping(&mut self, root: &Node) {
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
    }

    /// Reads one entry of the top-level mapping; returns the value's span.
    fn entry(
        &mut self,
        events: &mut Events,
        key: Node,
        head: Head,
        seen: &mut BTreeMap<&str, Span>,
        fields: &mut BTreeMap<&'static str, Slot>,
    ) -> Step<Span> {
        let Some(name) = self.key_text(&key, "spec keys") else {
            return self.unread(events, head);
        };
        let Some(k) = KEYS.iter().copied().find(|k| *k == name) else {
            self.diags.push(
                Diagnostic::new(
                    Code::YamlSchema,
                    format!("Additional properties are not allowed ('{name}' was unexpected)"),
                )
                .at(key.span, "not a spec key")
                .help(did_you_mean(name, KEYS).unwrap_or_else(|| {
                    let keys = KEYS.map(|k| format!("`{k}`")).join(", ");
                    format!("a spec has exactly the keys {keys}")
                })),
            );
            return self.unread(events, head);
        };
        match seen.get(k) {
            Some(&first) => self.diags.push(duplicate_key(k, key.span, first)),
            None => {
                seen.insert(k, key.span);
            }
        }
        // What reading finds is set aside with the value: a later value of the same key replaces both.
        let outer = std::mem::take(&mut self.diags);
        let (value, span, unread) = match k {
            "transition_func" => {
                let (table, span, unread) = self.table(events, head)?;
                (Field::Table(table), span, unread)
            }
            "label" | "default_start_state" => {
                let node = build(events, head)?;
                let unread = self.duplicates_of(&node);
                let what = if k == "label" {
                    "`label`"
                } else {
                    "`default_start_state`"
                };
                let span = node.span;
                (Field::Name(self.string(node, what)), span, unread)
            }
            _ => {
                let (list, span, unread) = self.list(events, head, k)?;
                (Field::List(list), span, unread)
            }
        };
        let read = std::mem::replace(&mut self.diags, outer);
        let slot = Slot {
            key_span: key.span,
            value,
            read,
            unread,
        };
        if let Some(old) = fields.insert(k, slot) {
            // The earlier value is not read after all: only its repeated keys are reported.
            match old.unread {
                Unread::Diags(d) => self.diags.extend(d),
                Unread::Table(keys) => {
                    if let Field::Table(Some(t)) = &old.value {
                        self.diags.extend(keys.raw_duplicates(t));
                    }
                }
            }
        }
        Ok(span)
    }

    /// Reads a value nobody reads, reporting its repeated keys; returns its span.
    fn unread(&mut self, events: &mut Events, head: Head) -> Step<Span> {
        let node = build(events, head)?;
        self.check_duplicates(&node);
        Ok(node.span)
    }

    /// What [`Reader::check_duplicates`] reports of `node`, set aside.
    fn duplicates_of(&mut self, node: &Node) -> Unread {
        let outer = std::mem::take(&mut self.diags);
        self.check_duplicates(node);
        Unread::Diags(std::mem::replace(&mut self.diags, outer))
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
    fn string(&mut self, node: Node, what: &str) -> Option<Name> {
        match &node.value {
            Value::Scalar { text, plain }
                if !*plain || super::yaml11::implicit_type(text).is_none() =>
            {
                // A copy of exactly the text's length: saphyr's string has room to spare (a hundred bytes and
                // more), and a spec keeps hundreds of thousands of names.
                Some(Name::new(text.as_str(), self.content_span(&node, text)))
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
                self.check_duplicates(&node);
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

    /// A list of strings, streamed item by item; also its span, and what is reported of it if a later value
    /// replaces it.
    fn list(
        &mut self,
        events: &mut Events,
        head: Head,
        key: &str,
    ) -> Step<(Option<Vec<Name>>, Span, Unread)> {
        let what = format!("each item of `{key}`");
        if let Head::Collection {
            is_map: false,
            start,
        } = head
        {
            let mut names = Vec::new();
            let span = events.children(start, 2, |item| {
                names.extend(self.string(item, &what));
            })?;
            return Ok((Some(names), span, Unread::Diags(Vec::new())));
        }
        let node = build(events, head)?;
        let unread = self.duplicates_of(&node);
        self.check_duplicates(&node);
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
        Ok((None, node.span, unread))
    }

    /// The transition table, streamed entry by entry; also its span, and what is reported of it if a later
    /// table replaces it.
    fn table(
        &mut self,
        events: &mut Events,
        head: Head,
    ) -> Step<(Option<Vec<OaTransition>>, Span, Unread)> {
        let Head::Collection {
            is_map: true,
            start,
        } = head
        else {
            let node = build(events, head)?;
            let unread = self.duplicates_of(&node);
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
            return Ok((None, node.span, unread));
        };
        let mut out = Vec::new();
        let mut keys = TableKeys::default();
        let mut key = None;
        let span = events.children(start, 2, |node| match key.take() {
            None => key = Some(node),
            Some(k) => self.transition(k, node, &mut out, &mut keys),
        })?;
        out.shrink_to_fit();
        Ok((Some(out), span, Unread::Table(keys)))
    }

    /// Reads one `(State, EVENT): Destination` entry into `out`, or reports why it cannot be read; reports a key
    /// written before.
    fn transition(
        &mut self,
        key: Node,
        value: Node,
        out: &mut Vec<OaTransition>,
        keys: &mut TableKeys,
    ) {
        let before = out.len();
        let Some(text) = self.key_text(&key, "transition keys") else {
            // Not a string; a scalar (`12`) can still repeat as written.
            if let Value::Scalar { text, .. } = key.value {
                keys.others.push(OtherKey {
                    before,
                    text,
                    span: key.span,
                    string: false,
                });
            }
            return;
        };
        let parts = split_key(text);
        let to = match &parts {
            Some(_) => self.string(value, "a transition's target"),
            None => {
                self.diags.push(
                    Diagnostic::new(Code::YamlTransitionKey, format!("transition key `{text}` is not of the form `(State, EVENT)`"))
                        .at(key.span, "expected `(State, EVENT)`")
                        .help("a key is a state and an event in parentheses, e.g. `(RegistrationRound, DONE)`; this entry is skipped"),
                );
                None
            }
        };
        let at = match to {
            Some(_) => KeyAt::Transition(before),
            None => KeyAt::Other(keys.others.len()),
        };
        let identity = match &parts {
            Some((f, e)) => (&text[f.clone()], Some(&text[e.clone()])),
            None => (text, None),
        };
        let table = Table {
            transitions: out,
            others: &keys.others,
        };
        if let Some(first) = keys.repeats.seen(identity, at, table) {
            let shown = match identity {
                (f, Some(e)) => format!("({f}, {e})"),
                (text, None) => text.to_string(),
            };
            self.diags.push(duplicate_key(&shown, key.span, first).help(
                "YAML silently keeps only the last of two equal keys, so upstream tools see only the last \
                 target; remove one",
            ));
        }
        let (Some((from, event)), Some(to)) = (parts, to) else {
            keys.others.push(OtherKey {
                before,
                text: text.to_string(),
                span: key.span,
                string: true,
            });
            return;
        };
        // Upstream writes `(State, EVENT)`; any other spelling is kept, for comparing keys as written.
        let canonical = from.start == 1
            && text.get(from.end..event.start) == Some(", ")
            && event.end + 1 == text.len();
        if !canonical {
            keys.spelled.push((before, text.to_string()));
        }
        // Sub-spans exist only when the key's text appears verbatim in the file (no escapes or folding).
        let content = self.content_span(&key, text);
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

/// A node read whole, whatever [`Events::head`] left open.
fn build(events: &mut Events, head: Head) -> Step<Node> {
    match head {
        Head::Node(node) => Ok(node),
        Head::Collection { is_map, start } => events.collection(is_map, start, 2),
    }
}
