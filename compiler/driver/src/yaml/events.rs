//! YAML text → nodes with byte spans, built from saphyr-parser's events as the reader asks for them.
//!
//! Only the levels a spec uses are built: the top-level mapping, its values, and their items or entries. A
//! collection below that is never valid in a spec, so it is skimmed (its duplicate keys, aliases and tags are
//! still reported) and kept as a span: whatever the input's nesting, a node, and the recursion that builds and
//! drops it, stays three levels deep. saphyr itself parses without recursion and caps flow nesting. The reader
//! streams the large values (the states, the transition table) child by child with [`Events::children`], so a
//! spec of any size is never held as a tree.

use super::keys::duplicate_key;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::{FileId, Span};
use saphyr_parser::{Event, Parser, ScalarStyle, StrInput, Tag};
use std::collections::BTreeMap;

/// Collections at this depth or deeper are skimmed (the top-level mapping is depth 1).
const SKIM_DEPTH: usize = 3;

/// One node of the document.
#[derive(Debug)]
pub(super) struct Node {
    /// The whole node, from its first character (anchor and tag included) to its last.
    pub span: Span,
    pub value: Value,
}

#[derive(Debug)]
pub(super) enum Value {
    /// `plain`: written without quotes or tag, so YAML 1.1 may type it (`yes`, `12`, `~`).
    Scalar { text: String, plain: bool },
    /// Items; empty for a skimmed list.
    Seq(Vec<Node>),
    /// Entries in file order, repeats included; empty for a skimmed mapping.
    Map(Vec<(Node, Node)>),
    /// An alias or a node with an unsupported tag: already reported, so users of the tree skip it silently.
    Rejected,
}

impl Value {
    /// What the node is, for "expected a list, found …" messages.
    pub fn describe(&self) -> String {
        match self {
            Value::Scalar { text, plain: true } => match super::yaml11::implicit_type(text) {
                Some(kind) if text.is_empty() => kind.to_string(),
                Some(kind) => format!("{kind} (`{text}`)"),
                None => "a string".to_string(),
            },
            Value::Scalar { .. } => "a string".to_string(),
            Value::Seq(_) => "a list".to_string(),
            Value::Map(_) => "a mapping".to_string(),
            Value::Rejected => "an unsupported node".to_string(),
        }
    }
}

/// How a node starts, for a reader that streams the large collections of a spec rather than building them.
pub(super) enum Head {
    /// A node read whole: a scalar, an alias, a rejected or a skimmed collection.
    Node(Node),
    /// A collection whose children are still to be read, with `children` or `collection`.
    Collection { is_map: bool, start: Span },
}

/// saphyr reports positions in characters; spans are in bytes.
struct Offsets {
    /// Byte offset of each character, plus the text's length; `None` when the text is ASCII (the same numbers).
    table: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        let table = (!text.is_ascii()).then(|| {
            let mut t: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
            t.push(text.len());
            t
        });
        Offsets {
            table,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.table {
            Some(t) => t.get(char_index).copied().unwrap_or(self.len),
            None => char_index.min(self.len),
        }
    }
}

/// `Err(())` means a syntax error was reported and the document is unusable.
pub(super) type Step<T> = Result<T, ()>;

/// The events of one text, read on demand. Syntax errors, aliases, unsupported tags, a second document and
/// duplicate keys inside skimmed collections are reported as they are met.
pub(super) struct Events<'a, 'd> {
    file: FileId,
    offsets: Offsets,
    parser: Parser<'a, StrInput<'a>>,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'a, 'd> Events<'a, 'd> {
    pub fn new(file: FileId, text: &'a str, diags: &'d mut Vec<Diagnostic>) -> Events<'a, 'd> {
        Events {
            file,
            offsets: Offsets::new(text),
            parser: Parser::new_from_str(text),
            diags,
        }
    }

    fn span(&self, s: saphyr_parser::Span) -> Span {
        Span::new(
            self.file,
            self.offsets.byte(s.start.index()),
            self.offsets.byte(s.end.index()),
        )
    }

    pub fn next(&mut self) -> Step<(Event<'a>, Span)> {
        match self.parser.next_event() {
            Some(Ok((ev, span))) => {
                let span = self.span(span);
                Ok((ev, span))
            }
            Some(Err(e)) => {
                let at = self.offsets.byte(e.marker().index());
                // Point at the offending character (or at the end of the text).
                let end = (at + 1..=self.offsets.len)
                    .find(|&b| {
                        self.offsets
                            .table
                            .as_ref()
                            .is_none_or(|t| t.binary_search(&b).is_ok())
                    })
                    .unwrap_or(at);
                let mut d =
                    Diagnostic::new(Code::YamlSyntax, format!("invalid YAML: {}", e.info()))
                        .at(Span::new(self.file, at, end), "here");
                if e.info().contains("recursion limit") {
                    d = d.help(
                        "flow collections (`[…]`, `{…}`) nest too deep; a spec needs two levels",
                    );
                }
                self.diags.push(d);
                Err(())
            }
            // The parser stops after `StreamEnd`, which `document` never reads past.
            None => Err(()),
        }
    }

    /// Reads up to the document's root: `None` when the text holds no document at all (empty text, or only
    /// comments), else the root's first event.
    pub fn start(&mut self) -> Step<Option<(Event<'a>, Span)>> {
        let (ev, _) = self.next()?;
        if ev != Event::StreamStart {
            return Err(());
        }
        match self.next()? {
            (Event::StreamEnd, _) => return Ok(None),
            (Event::DocumentStart(_), _) => {}
            _ => return Err(()),
        }
        self.next().map(Some)
    }

    /// Reads what follows the root: `false` when a second document follows (reported: the text is then not
    /// usable as a spec).
    pub fn end(&mut self) -> Step<bool> {
        match self.next()? {
            (Event::DocumentEnd, _) => {}
            _ => return Err(()),
        }
        match self.next()? {
            (Event::StreamEnd, _) => Ok(true),
            (_, span) => {
                self.diags.push(
                    Diagnostic::new(Code::YamlSchema, "the file holds more than one YAML document")
                        .at(span, "a second document starts here")
                        .help("an Open Autonomy spec is one document: remove the `---` line and what follows"),
                );
                Ok(false)
            }
        }
    }

    /// Builds the node that starts with `ev`, at `depth` (the top-level node is depth 1).
    pub fn node(&mut self, ev: Event<'a>, span: Span, depth: usize) -> Step<Node> {
        match self.head(ev, span, depth)? {
            Head::Node(node) => Ok(node),
            Head::Collection { is_map, start } => self.collection(is_map, start, depth),
        }
    }

    /// Reads the node that starts with `ev` whole, unless it is a collection to be built: then only its start.
    pub fn head(&mut self, ev: Event<'a>, span: Span, depth: usize) -> Step<Head> {
        let is_map = matches!(ev, Event::MappingStart(..));
        let value = match ev {
            // The text is saphyr's own string, taken as it is: most nodes live only until their entry is read.
            Event::Scalar(text, style, _, tag) => match tag {
                None => Value::Scalar {
                    text: text.into_owned(),
                    plain: style == ScalarStyle::Plain,
                },
                Some(t) if is_core(&t, "str") => Value::Scalar {
                    text: text.into_owned(),
                    plain: false,
                },
                Some(t) => self.reject_tag(&t, span),
            },
            Event::Alias(_) => {
                self.alias(span);
                Value::Rejected
            }
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) => {
                let bad_tag = tag.filter(|t| !is_core(t, if is_map { "map" } else { "seq" }));
                if depth >= SKIM_DEPTH || bad_tag.is_some() {
                    let end = self.skim(is_map)?;
                    let span = span.to(end);
                    return Ok(Head::Node(Node {
                        span,
                        value: match bad_tag {
                            Some(t) => self.reject_tag(&t, span),
                            None if is_map => Value::Map(Vec::new()),
                            None => Value::Seq(Vec::new()),
                        },
                    }));
                }
                return Ok(Head::Collection {
                    is_map,
                    start: span,
                });
            }
            _ => return Err(()),
        };
        Ok(Head::Node(Node { span, value }))
    }

    /// Builds the rest of a collection that [`Events::head`] left open.
    pub fn collection(&mut self, is_map: bool, start: Span, depth: usize) -> Step<Node> {
        let mut items = Vec::new();
        let mut entries = Vec::new();
        let mut key: Option<Node> = None;
        let span = self.children(start, depth, |node| match (is_map, key.take()) {
            (false, _) => items.push(node),
            (true, None) => key = Some(node),
            (true, Some(k)) => entries.push((k, node)),
        })?;
        let value = if is_map {
            Value::Map(entries)
        } else {
            Value::Seq(items)
        };
        Ok(Node { span, value })
    }

    /// Reads the children of a collection that [`Events::head`] left open, handing each to `child` as soon as
    /// it is built (a mapping's keys and values alternate); returns the whole collection's span. Nothing but the
    /// child at hand is kept: a table of any length costs the memory of one entry here.
    pub fn children(
        &mut self,
        start: Span,
        depth: usize,
        mut child: impl FnMut(Node),
    ) -> Step<Span> {
        let mut end = start;
        loop {
            let (ev, span) = self.next()?;
            if matches!(ev, Event::SequenceEnd | Event::MappingEnd) {
                // A block collection ends with an empty event at the next token; a flow one at its bracket.
                if span.start < span.end {
                    end = span;
                }
                break;
            }
            let node = self.node(ev, span, depth + 1)?;
            end = node.span;
            child(node);
        }
        Ok(start.to(end))
    }

    /// Reads to the end of a collection without building it; returns the span of its last event.
    fn skim(&mut self, is_map: bool) -> Step<Span> {
        // For each open collection: `Some(keys seen)` for a mapping, and whether the next node is a key.
        struct Open {
            keys: Option<BTreeMap<String, Span>>,
            at_key: bool,
        }
        let open = |is_map: bool| Open {
            keys: is_map.then(BTreeMap::new),
            at_key: true,
        };
        let mut stack = vec![open(is_map)];
        let mut last = Span::default();
        while let Some(top) = stack.last_mut() {
            let (ev, span) = self.next()?;
            if span.start < span.end {
                last = span;
            }
            let is_map = matches!(ev, Event::MappingStart(..));
            let completed = match ev {
                Event::Scalar(text, _, _, tag) => {
                    if let Some(t) = tag.filter(|t| !is_core(t, "str")) {
                        self.reject_tag(&t, span);
                    }
                    if let (Some(keys), true) = (&mut top.keys, top.at_key) {
                        match keys.get(text.as_ref()) {
                            Some(&first) => self.diags.push(duplicate_key(&text, span, first)),
                            None => {
                                keys.insert(text.into_owned(), span);
                            }
                        }
                    }
                    true
                }
                Event::Alias(_) => {
                    self.alias(span);
                    true
                }
                Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) => {
                    if let Some(t) = tag.filter(|t| !is_core(t, if is_map { "map" } else { "seq" }))
                    {
                        self.reject_tag(&t, span);
                    }
                    stack.push(open(is_map));
                    false
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    stack.pop();
                    true
                }
                _ => return Err(()),
            };
            // A finished node is a key or a value of the mapping around it: the two alternate.
            if let Some(parent) = stack.last_mut().filter(|_| completed) {
                parent.at_key = !parent.at_key;
            }
        }
        Ok(last)
    }

    fn alias(&mut self, span: Span) {
        self.diags.push(
            Diagnostic::new(Code::YamlSchema, "YAML aliases are not supported in a spec")
                .at(span, "alias")
                .help("write the value out in full: Open Autonomy specs never use anchors and aliases"),
        );
    }

    fn reject_tag(&mut self, tag: &Tag, span: Span) -> Value {
        let shown = if tag.is_yaml_core_schema() {
            format!("!!{}", tag.suffix)
        } else {
            format!("{}{}", tag.handle, tag.suffix)
        };
        self.diags.push(
            Diagnostic::new(
                Code::YamlSchema,
                format!("YAML tag `{shown}` is not supported in a spec"),
            )
            .at(span, "tagged here")
            .help(
                "remove the tag: a spec holds only plain strings, lists of strings and one mapping",
            ),
        );
        Value::Rejected
    }
}

fn is_core(tag: &Tag, suffix: &str) -> bool {
    tag.is_yaml_core_schema() && tag.suffix == suffix
}
