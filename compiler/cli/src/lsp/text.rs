//! Positions and addresses: byte offsets ↔ the protocol's line/character positions, and file paths ↔ `file:`
//! URIs.
//!
//! The compiler speaks byte offsets; the protocol speaks lines and characters counted in UTF-16 code units
//! unless the client accepts UTF-8 (then bytes, and no conversion walks the line). Every conversion clamps:
//! a position past a line's end is its end, past the last line the end of the text, inside a character its
//! start, so a stale or hostile position can never index out of the text.

use lsp_types::{Position, Range};
use std::path::{Path, PathBuf};

/// How a position's `character` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Where each line of a text starts.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    /// The position of byte `offset`.
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let offset = floor_char(text, offset.min(text.len()));
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let prefix = text.get(start..offset).unwrap_or("");
        let character = match enc {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
        };
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of a position (clamped into the text, onto a character boundary).
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&next| next.saturating_sub(1));
        let line = text.get(start..end.max(start)).unwrap_or("");
        // A `\r` before the line break belongs to the break: a position past the line's end is before it.
        let line = line.strip_suffix('\r').unwrap_or(line);
        let want = pos.character as usize;
        let within = match enc {
            Encoding::Utf8 => floor_char(line, want.min(line.len())),
            Encoding::Utf16 => {
                let mut units = 0;
                let mut at = line.len();
                for (i, c) in line.char_indices() {
                    // A position inside a character (between the two units of a surrogate pair) is its start.
                    let next = units + c.len_utf16();
                    if next > want {
                        at = i;
                        break;
                    }
                    units = next;
                }
                at
            }
        };
        start + within
    }

    pub fn range(&self, text: &str, span: std::ops::Range<usize>, enc: Encoding) -> Range {
        Range::new(
            self.position(text, span.start, enc),
            self.position(text, span.end, enc),
        )
    }
}

/// The nearest character boundary at or before `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The path a `file:` URI names; `None` for any other scheme.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///path` (empty authority) or `file://localhost/path`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = percent_decode(path)?;
    let text = String::from_utf8(bytes).ok()?;
    Some(PathBuf::from(text))
}

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes_and_clamp() {
        let text = "ab\nx😀é y\n";
        let idx = LineIndex::new(text);
        let y = text.find('y').unwrap();
        assert_eq!(idx.position(text, y, Encoding::Utf16), Position::new(1, 5));
        assert_eq!(idx.position(text, y, Encoding::Utf8), Position::new(1, 8));
        assert_eq!(idx.offset(text, Position::new(1, 5), Encoding::Utf16), y);
        assert_eq!(idx.offset(text, Position::new(1, 8), Encoding::Utf8), y);
        // Inside the emoji: its start. Past the line: its end. Past the text: the end.
        assert_eq!(idx.offset(text, Position::new(1, 2), Encoding::Utf16), 4);
        assert_eq!(idx.offset(text, Position::new(1, 3), Encoding::Utf8), 4);
        assert_eq!(idx.offset(text, Position::new(1, 6), Encoding::Utf8), 8);
        assert_eq!(idx.offset(text, Position::new(0, 99), Encoding::Utf16), 2);
        assert_eq!(
            idx.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        assert_eq!(idx.position(text, 5, Encoding::Utf8), Position::new(1, 1));
        assert_eq!(idx.position(text, 999, Encoding::Utf8), Position::new(2, 0));
        let crlf = "ab\r\ncd";
        let idx = LineIndex::new(crlf);
        assert_eq!(idx.offset(crlf, Position::new(0, 9), Encoding::Utf16), 2);
        assert_eq!(idx.offset(crlf, Position::new(1, 1), Encoding::Utf16), 5);
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/ç#.fsm");
        let uri = path_to_uri(p);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%A7%23.fsm");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(p));
        assert_eq!(
            uri_to_path("file://localhost/x").as_deref(),
            Some(Path::new("/x"))
        );
        assert_eq!(uri_to_path("untitled:Untitled-1"), None);
        assert_eq!(uri_to_path("file:///bad%zz"), None);
    }
}
