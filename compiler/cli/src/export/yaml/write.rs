//! Writes an [`OaSpec`] in upstream's canonical form, byte for byte what Open Autonomy's own writer prints.
//!
//! Upstream (`autonomy analyse fsm-specs`) turns the app into a `DFA` of sets and a dict keyed by
//! `(state, event)` tuples, converts each key with `str(key).replace("'", "")`, and calls
//! `yaml.safe_dump(..., indent=4)`: keys and lists sorted, block style, lists not indented under their key,
//! the transition mapping indented by four, `[]`/`{}` for empty collections, PyYAML's quoting (see `emit`).
//! Lists and transitions are deduplicated as those sets and that dict would: a repeated `(state, event)`
//! keeps the last target, as YAML loading does.

use super::emit::{Emitter, is_simple_key};
use fsmc_base::source::Name;
use fsmc_driver::yaml::read::KEYS;
use fsmc_driver::yaml::{OaSpec, OaTransition};
use std::collections::{BTreeMap, BTreeSet};

/// The spec as upstream's canonical YAML text (ending in a newline).
pub fn write(spec: &OaSpec) -> String {
    let mut e = Emitter::new();
    for key in KEYS {
        e.write_indent();
        e.scalar(key, true);
        e.write_indicator(":", false, false, false);
        match key {
            "label" => e.scalar(&spec.label.text, false),
            "default_start_state" => e.scalar(&spec.default_start_state.text, false),
            "alphabet_in" => list(&mut e, &spec.alphabet_in),
            "final_states" => list(&mut e, &spec.final_states),
            "start_states" => list(&mut e, &spec.start_states),
            "states" => list(&mut e, &spec.states),
            _ => table(&mut e, &spec.transitions),
        }
    }
    e.finish()
}

/// A sorted set of names: a block sequence at the key's own indentation, or `[]`.
fn list(e: &mut Emitter, names: &[Name]) {
    let set: BTreeSet<&str> = names.iter().map(|n| n.as_str()).collect();
    if set.is_empty() {
        e.write_indicator("[", true, true, false);
        e.write_indicator("]", false, false, false);
        return;
    }
    for name in set {
        e.write_indent();
        e.write_indicator("-", true, false, true);
        e.scalar(name, false);
    }
}

/// The transition table: a block mapping indented by four, or `{}`.
fn table(e: &mut Emitter, transitions: &[OaTransition]) {
    // Upstream's dict: one entry per (state, event), in first-seen order, holding the last target.
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut target: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for t in transitions {
        let pair = (t.from.as_str(), t.event.as_str());
        if target.insert(pair, t.to.as_str()).is_none() {
            order.push(pair);
        }
    }
    // Then keyed by the string form; PyYAML sorts those strings.
    let mut rows: BTreeMap<String, &str> = BTreeMap::new();
    for pair in order {
        if let Some(to) = target.get(&pair) {
            rows.insert(tuple_key(pair.0, pair.1), to);
        }
    }
    if rows.is_empty() {
        e.write_indicator("{", true, true, false);
        e.write_indicator("}", false, false, false);
        return;
    }
    e.indent = 4;
    for (key, to) in rows {
        e.write_indent();
        if is_simple_key(&key) {
            e.scalar(&key, true);
            e.write_indicator(":", false, false, false);
        } else {
            // PyYAML writes keys of 128 characters or more as `? key` then `: value` on the next line.
            e.write_indicator("?", true, false, true);
            e.scalar(&key, false);
            e.write_indent();
            e.write_indicator(":", true, false, true);
        }
        e.scalar(to, false);
    }
    e.indent = 0;
}

/// Python's `str((state, event)).replace("'", "")`: `(State, EVENT)` for names made of word characters.
pub fn tuple_key(state: &str, event: &str) -> String {
    format!("({}, {})", py_repr(state), py_repr(event)).replace('\'', "")
}

/// Python's `repr` of a `str`. Exact for ASCII; for other characters, "printable" follows Python's rule
/// closely but not exactly (Rust has no Unicode category tables), which only matters for names no upstream
/// tool could read back anyway (its key pattern is `\w`).
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        let n = u32::from(c);
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if n < 0x20 || n == 0x7F => out.push_str(&format!("\\x{n:02x}")),
            _ if c.is_ascii() || is_printable(c) => out.push(c),
            _ if n <= 0xFF => out.push_str(&format!("\\x{n:02x}")),
            _ if n <= 0xFFFF => out.push_str(&format!("\\u{n:04x}")),
            _ => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` for one non-ASCII character, approximately: not a control, separator,
/// common format character or private-use character.
fn is_printable(c: char) -> bool {
    let n = u32::from(c);
    let format = matches!(n, 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F)
        || matches!(n, 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB);
    let private = matches!(n, 0xE000..=0xF8FF | 0xF0000..);
    !(c.is_control() || c.is_whitespace() || format || private)
}
