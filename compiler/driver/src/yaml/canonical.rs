//! A fast reader for specs in upstream's canonical layout, tried before the full reader.
//!
//! Nearly every real `fsm_specification.yaml` is exactly what upstream's writer (and [`super::write`]) prints:
//! the seven keys in sorted order, block lists at the key's own indentation or `[]`, the transition table
//! indented by four or `{}`, one `(State, EVENT): Target` line per transition, every name a plain scalar.
//! Such a text needs no YAML parser: this module recognises it line by line in one pass over the bytes and builds
//! the [`OaSpec`] directly, with the spans the full reader would give.
//!
//! The contract: when [`read`] returns a spec, the full reader returns that same spec and no diagnostic for the
//! same text. To keep it, anything this module is not certain about makes it return `None` (and the caller falls
//! back to the full reader): any byte outside a small set in a name (so no quotes, comments, tabs, `\r`, flow
//! collections other than an empty `[]`/`{}`, anchors, aliases, tags, document markers, non-ASCII), any
//! deviation from the layout (spacing, indentation, key order, blank lines, a missing final newline), a name
//! that YAML 1.1 reads as something other than a string (`yes`, `1`, `~`), and a repeated transition (which the
//! full reader reports).

use super::yaml11::implicit_type;
use super::{OaSpec, OaTransition};
use fsmc_base::source::{FileId, Name, Span};
use fsmc_model::hash::FastState;
use indexmap::IndexSet;

/// Bytes of a state or event name inside a transition key: what upstream's key pattern (`\w`) allows, in ASCII.
const WORD: u8 = 1;
/// Bytes allowed after the first in any other name (a dotted `label`, a state with a `-`): in block context a
/// plain scalar made of these is exactly its text, whatever YAML then types it as.
const PLAIN: u8 = 2;

/// The class of each byte: `WORD | PLAIN` for `[A-Za-z0-9_]`, `PLAIN` for `.` and `-`, nothing otherwise.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' {
            t[c] = WORD | PLAIN;
        } else if b == b'.' || b == b'-' {
            t[c] = PLAIN;
        }
        c += 1;
    }
    t
};

/// A transition key longer than this is left to the full reader: YAML caps implicit keys (at 1024 characters),
/// and a key near the cap is no longer worth the risk of differing.
const MAX_KEY: usize = 1000;

/// Reads `text` if it is in the canonical layout (see the module documentation); `None` means "not certain",
/// never "invalid".
pub fn read(file: FileId, text: &str) -> Option<OaSpec> {
    let mut s = Scan {
        b: text.as_bytes(),
        text,
        pos: 0,
        file,
    };
    s.lit(b"alphabet_in:")?;
    let alphabet_in = s.list()?;
    s.lit(b"default_start_state:")?;
    let default_start_state = s.value()?;
    s.lit(b"final_states:")?;
    let final_states = s.list()?;
    s.lit(b"label:")?;
    let label = s.value()?;
    s.lit(b"start_states:")?;
    let start_states = s.list()?;
    s.lit(b"states:")?;
    let states = s.list()?;
    let table_key = s.pos;
    s.lit(b"transition_func:")?;
    let transition_func_span = s.span(table_key, table_key + "transition_func".len());
    let transitions = if s.lit(b" {}\n").is_some() {
        Vec::new()
    } else {
        s.lit(b"\n")?;
        s.table()?
    };
    if s.pos != s.b.len() {
        return None;
    }
    Some(OaSpec {
        label,
        alphabet_in,
        default_start_state,
        final_states,
        start_states,
        states,
        transitions,
        transition_func_span,
        // The full reader's document runs from the first key to the end of the last value: all but the final
        // line break, which `lit` above required.
        span: s.span(0, text.len() - 1),
    })
}

struct Scan<'t> {
    b: &'t [u8],
    text: &'t str,
    pos: usize,
    file: FileId,
}

impl Scan<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// Consumes `lit` if the text continues with it.
    fn lit(&mut self, lit: &[u8]) -> Option<()> {
        let end = self.pos + lit.len();
        (self.b.get(self.pos..end) == Some(lit)).then(|| self.pos = end)
    }

    /// Consumes a run of bytes of class `class`, at least one; returns where it started.
    fn run(&mut self, class: u8) -> Option<usize> {
        let start = self.pos;
        let mut i = start;
        while let Some(&c) = self.b.get(i)
            && CLASS[c as usize] & class != 0
        {
            i += 1;
        }
        self.pos = i;
        (i > start).then_some(start)
    }

    /// A name written as a plain scalar that YAML 1.1 reads as a string, up to (not including) the line break.
    fn name(&mut self) -> Option<Name> {
        // The first byte must be a word byte: a leading `-` or `.` is an indicator or a number's start.
        if CLASS[*self.b.get(self.pos)? as usize] & WORD == 0 {
            return None;
        }
        let start = self.run(PLAIN)?;
        let text = &self.text[start..self.pos];
        if implicit_type(text).is_some() {
            return None;
        }
        Some(Name::new(text, self.span(start, self.pos)))
    }

    /// ` Name\n` after a key.
    fn value(&mut self) -> Option<Name> {
        self.lit(b" ")?;
        let name = self.name()?;
        self.lit(b"\n")?;
        Some(name)
    }

    /// ` []\n`, or a line break and one or more `- Name\n` lines, after a key.
    fn list(&mut self) -> Option<Vec<Name>> {
        if self.lit(b" []\n").is_some() {
            return Some(Vec::new());
        }
        self.lit(b"\n")?;
        let mut names = Vec::new();
        while self.lit(b"- ").is_some() {
            names.push(self.name()?);
            self.lit(b"\n")?;
        }
        // `key:` with nothing under it is a null, which the full reader reports.
        (!names.is_empty()).then_some(names)
    }

    /// The `    (State, EVENT): Target` lines, to the end of the text.
    ///
    /// One thread reads it: splitting the table between two threads was tried, and lost, as the halves must then
    /// be copied into one vector (and a machine whose cores are busy gains nothing from a second thread).
    fn table(&mut self) -> Option<Vec<OaTransition>> {
        let (out, ascending) = self.rows(estimate_lines(&self.b[self.pos..]))?;
        if out.is_empty() || (!ascending && repeats(&out)) {
            // `key:` with nothing under it is a null, and a repeated transition is reported: both are left to the
            // full reader.
            return None;
        }
        Some(out)
    }

    /// The transition lines from `pos` to the end of `b`, and whether their (state, event) pairs are in strictly
    /// ascending order (then none repeats).
    fn rows(&mut self, capacity: usize) -> Option<(Vec<OaTransition>, bool)> {
        let mut out = Vec::with_capacity(capacity);
        let mut ascending = true;
        let mut last: (&str, &str) = ("", "");
        while self.pos < self.b.len() {
            self.lit(b"    (")?;
            let key_start = self.pos - 1;
            let from = self.run(WORD)?..self.pos;
            self.lit(b", ")?;
            let event = self.run(WORD)?..self.pos;
            self.lit(b")")?;
            let key_end = self.pos;
            if key_end - key_start > MAX_KEY {
                return None;
            }
            self.lit(b": ")?;
            let to = self.name()?;
            self.lit(b"\n")?;
            let pair = (&self.text[from.clone()], &self.text[event.clone()]);
            // Names are never empty, so the first pair is greater than `("", "")`.
            ascending &= last < pair;
            last = pair;
            out.push(OaTransition {
                from: Name::new(pair.0, self.span(from.start, from.end)),
                event: Name::new(pair.1, self.span(event.start, event.end)),
                to,
                key_span: self.span(key_start, key_end),
            });
        }
        Some((out, ascending))
    }
}

fn pair(t: &OaTransition) -> (&str, &str) {
    (t.from.as_str(), t.event.as_str())
}

/// Whether some (state, event) pair repeats: only asked of a table out of order (upstream writes it sorted).
fn repeats(out: &[OaTransition]) -> bool {
    let mut seen = IndexSet::with_capacity_and_hasher(out.len(), FastState::default());
    !out.iter().all(|t| seen.insert(pair(t)))
}

/// About the number of lines in `b` (one transition each), or a little more, from the length of its first lines:
/// reserving that once saves regrowing a large table, and costs far less than counting every line. Room reserved
/// and never written is never touched, so it costs no memory.
fn estimate_lines(b: &[u8]) -> usize {
    let sample = &b[..b.len().min(1 << 16)];
    let lines = sample.iter().filter(|&&c| c == b'\n').count();
    if sample.len() == b.len() {
        return lines;
    }
    (b.len() / (sample.len() / lines.max(1)).max(1)) * 21 / 20 + 16
}
