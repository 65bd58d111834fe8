//! The parts of PyYAML's emitter that upstream's `yaml.safe_dump(spec, indent=4)` exercises, transcribed.
//!
//! Upstream writes specs with PyYAML, so "canonical" means whatever PyYAML prints: which scalars it quotes and
//! how, where it folds a long scalar, when a key becomes a `? ` complex key. Rather than approximate that, this
//! module follows `emitter.py` step by step (same state: column, indent, `whitespace`, `indention`), with the
//! settings `safe_dump` uses: width 80, no unicode (non-ASCII is escaped), block style, flow level 0 for
//! every scalar. Columns count characters, as Python does.

use fsmc_driver::yaml::yaml11::implicit_type;

const BEST_WIDTH: usize = 80;

/// Line breaks as PyYAML knows them.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The characters PyYAML treats as "whitespace or end" around indicators.
fn is_space_or_end(c: char) -> bool {
    matches!(c, '\0' | ' ' | '\t' | '\r') || is_break(c)
}

/// The result of `analyze_scalar`, reduced to what block context needs.
struct Analysis {
    empty: bool,
    multiline: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

fn analyze(s: &[char]) -> Analysis {
    if s.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let text: String = s.iter().collect();
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_ws = true;
    let mut followed_by_ws = s.len() == 1 || is_space_or_end(s[1]);
    for (i, &c) in s.iter().enumerate() {
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) || (matches!(c, '?' | ':' | '-') && followed_by_ws) {
                block_indicators = true;
            }
        } else if (c == ':' && followed_by_ws) || (c == '#' && preceded_by_ws) {
            block_indicators = true;
        }
        line_breaks |= is_break(c);
        // Without `allow_unicode`, everything outside printable ASCII (bar `\n`) needs double quotes.
        special |= !(c == '\n' || (' '..='~').contains(&c));
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == s.len() - 1;
            break_space |= previous_break;
            (previous_space, previous_break) = (true, false);
        } else if is_break(c) {
            leading_break |= i == 0;
            trailing_break |= i == s.len() - 1;
            space_break |= previous_space;
            (previous_space, previous_break) = (false, true);
        } else {
            (previous_space, previous_break) = (false, false);
        }
        preceded_by_ws = is_space_or_end(c);
        followed_by_ws = s.get(i + 2).is_none_or(|&n| is_space_or_end(n));
    }
    let mut allow_block_plain =
        !(leading_space || leading_break || trailing_space || trailing_break);
    let mut allow_single_quoted = true;
    if break_space || space_break || special {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators {
        allow_block_plain = false;
    }
    Analysis {
        empty: false,
        multiline: line_breaks,
        allow_block_plain,
        allow_single_quoted,
    }
}

/// Whether PyYAML writes `text` as a simple `key:` rather than a `? key` complex key.
pub(super) fn is_simple_key(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let a = analyze(&chars);
    // PyYAML counts the tag it would write (`!!str`, five characters) even though it then omits it.
    chars.len() + "!!str".len() < 128 && !a.empty && !a.multiline
}

/// Emitter state, named as in `emitter.py`.
pub(super) struct Emitter {
    out: String,
    column: usize,
    /// The current block indent.
    pub indent: usize,
    whitespace: bool,
    indention: bool,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            out: String::new(),
            column: 0,
            indent: 0,
            whitespace: true,
            indention: true,
        }
    }

    /// Ends the document as PyYAML does (a final line break) and returns the text.
    pub fn finish(mut self) -> String {
        self.indent = 0;
        self.write_indent();
        self.out
    }

    fn write(&mut self, s: &str) {
        self.column += s.chars().count();
        self.out.push_str(s);
    }

    pub fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        whitespace: bool,
        indention: bool,
    ) {
        if !self.whitespace && need_whitespace {
            self.write(" ");
        }
        self.write(indicator);
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
    }

    pub fn write_indent(&mut self) {
        let indent = self.indent;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            self.write(&" ".repeat(indent - self.column));
        }
    }

    fn write_line_break(&mut self, br: Option<char>) {
        self.whitespace = true;
        self.indention = true;
        self.out.push(br.unwrap_or('\n'));
        self.column = 0;
    }

    /// A scalar, in the style PyYAML chooses for a `str` (`simple_key`: it is written as `key:`).
    pub fn scalar(&mut self, text: &str, simple_key: bool) {
        let s: Vec<char> = text.chars().collect();
        let a = analyze(&s);
        // The plain style is only for strings that YAML 1.1 would read back as strings.
        let implicit = implicit_type(text).is_none();
        let split = !simple_key;
        // `expect_scalar` indents a scalar's continuation lines one step deeper than its collection.
        self.indent += 4;
        if implicit && !(simple_key && (a.empty || a.multiline)) && a.allow_block_plain {
            self.write_plain(&s, split);
        } else if a.allow_single_quoted && !(simple_key && a.multiline) {
            self.write_single_quoted(&s, split);
        } else {
            self.write_double_quoted(&s, split);
        }
        self.indent -= 4;
    }

    fn write_chars(&mut self, s: &[char]) {
        let t: String = s.iter().collect();
        self.write(&t);
    }

    fn write_breaks(&mut self, s: &[char]) {
        if s.first() == Some(&'\n') {
            self.write_line_break(None);
        }
        for &br in s {
            self.write_line_break(Some(br));
        }
    }

    fn write_plain(&mut self, s: &[char], split: bool) {
        if s.is_empty() {
            return;
        }
        if !self.whitespace {
            self.write(" ");
        }
        self.whitespace = false;
        self.indention = false;
        let (mut spaces, mut breaks) = (false, false);
        let mut start = 0;
        for end in 0..=s.len() {
            let ch = s.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > BEST_WIDTH && split {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write_chars(&s[start..end]);
                    }
                    start = end;
                }
            } else if breaks {
                if ch.is_none_or(|c| !is_break(c)) {
                    self.write_breaks(&s[start..end]);
                    self.write_indent();
                    self.whitespace = false;
                    self.indention = false;
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_break(c)) {
                self.write_chars(&s[start..end]);
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
        }
    }

    fn write_single_quoted(&mut self, s: &[char], split: bool) {
        self.write_indicator("'", true, false, false);
        let (mut spaces, mut breaks) = (false, false);
        let mut start = 0;
        for end in 0..=s.len() {
            let ch = s.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end
                        && self.column > BEST_WIDTH
                        && split
                        && start != 0
                        && end != s.len()
                    {
                        self.write_indent();
                    } else {
                        self.write_chars(&s[start..end]);
                    }
                    start = end;
                }
            } else if breaks {
                if ch.is_none_or(|c| !is_break(c)) {
                    self.write_breaks(&s[start..end]);
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_break(c)) && start < end {
                self.write_chars(&s[start..end]);
                start = end;
            }
            if ch == Some('\'') {
                self.write("''");
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, s: &[char], split: bool) {
        self.write_indicator("\"", true, false, false);
        let mut start = 0;
        for end in 0..=s.len() {
            let ch = s.get(end).copied();
            if ch.is_none_or(|c| {
                "\"\\\u{85}\u{2028}\u{2029}\u{FEFF}".contains(c) || !(' '..='~').contains(&c)
            }) {
                if start < end {
                    self.write_chars(&s[start..end]);
                    start = end;
                }
                if let Some(c) = ch {
                    self.write(&escape(c));
                    start = end + 1;
                }
            }
            if end > 0
                && end + 1 < s.len()
                && (ch == Some(' ') || start >= end)
                // Signed, as in Python: `start` may be one past `end` right after an escape.
                && self.column as isize + (end as isize - start as isize) > BEST_WIDTH as isize
                && split
            {
                let mut data: String = s[start.min(end)..end].iter().collect();
                data.push('\\');
                start = start.max(end);
                self.write(&data);
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if s.get(start) == Some(&' ') {
                    self.write("\\");
                }
            }
        }
        self.write_indicator("\"", false, false, false);
    }
}

/// PyYAML's escape for a character in a double-quoted scalar.
fn escape(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\u{07}' => "a",
        '\u{08}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{0B}' => "v",
        '\u{0C}' => "f",
        '\r' => "r",
        '\u{1B}' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{A0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    let n = u32::from(c);
    if !short.is_empty() {
        format!("\\{short}")
    } else if n <= 0xFF {
        format!("\\x{n:02X}")
    } else if n <= 0xFFFF {
        format!("\\u{n:04X}")
    } else {
        format!("\\U{n:08X}")
    }
}
