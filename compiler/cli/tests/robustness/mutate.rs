//! Mutations of a spec's text: one edit at a time (a token inserted, deleted, duplicated or swapped, a name
//! replaced by another of the text's names, a bracket dropped…), with the tokens of `.fsm` and of Open Autonomy
//! YAML to draw insertions from.

use proptest::prelude::*;

/// Characters outside ASCII that both lexers must take: letters, a byte order mark, NUL.
const NON_ASCII: &[&str] = &["é", "𝔸", "\u{FEFF}", "\0"];

/// The words of `.fsm`: keywords, property names, round kinds, profiles, state types.
const FSM_WORDS: &[&str] = &[
    "machine",
    "app",
    "state",
    "start",
    "default",
    "final",
    "event",
    "key",
    "cross_period",
    "import",
    "as",
    "chain",
    "timeout",
    "by",
    "if",
    "unless",
    "do",
    "persist",
    "reads",
    "writes",
    "requires",
    "ensures",
    "handler",
    "reset",
    "template",
    "label",
    "done",
    "acting",
    "rewarded",
    "agents",
    "roles",
    "abci",
    "genie",
    "dialogue",
    "staged",
    "user",
    "invoker",
    "voting",
    "custom",
    "degenerate",
    "raw",
    "rendered",
    "none",
];

/// The punctuation of `.fsm`.
const FSM_PUNCTUATION: &[&str] = &[
    "{", "}", "(", ")", "[", "]", "<", ">", ";", ",", ":", "::", "->", "=", "#", "!",
];

/// Attributes, whole and half-written, and literals: paths (some outside the base), strings, durations and
/// numbers (one too large).
const FSM_LITERALS: &[&str] = &[
    "#![allow(unused_key)]",
    "#[deny(W0303)]",
    "#[warn(",
    "\"x.fsm\"",
    "\"fsm_specification.yaml\"",
    "\"../x.fsm\"",
    "\"/etc/passwd\"",
    "\"\"",
    "\"",
    "\\",
    "30s",
    "1.5m",
    "500ms",
    "99999999999999999999h",
    "32",
    "0",
];

/// Comments, white space, and names: the spec's own, types, and ones Rust reserves.
const FSM_COMMENTS_AND_NAMES: &[&str] = &[
    "/*", "*/", "//", "///", "//!", "\n", " ", "\t", "\r\n", "A", "B", "C", "DONE", "M", "u64",
    "Vec", "String", "Self", "self", "crate", "super", "r#type", "_",
];

/// What mutations of `.fsm` insert: the above, and a right-to-left override and the last code point.
pub(crate) fn fsm_tokens() -> Vec<&'static str> {
    let odd: &[&str] = &["\u{202E}", "\u{10FFFF}"];
    [
        FSM_WORDS,
        FSM_PUNCTUATION,
        FSM_LITERALS,
        FSM_COMMENTS_AND_NAMES,
        NON_ASCII,
        odd,
    ]
    .concat()
}

/// YAML's punctuation and indentation.
const YAML_PUNCTUATION: &[&str] = &[
    ":", ": ", "- ", "-", "\n", "  ", "    ", "\t", "[", "]", "{", "}", ",", "\"", "'",
];

/// Transition keys, well and badly formed.
const YAML_TRANSITION_KEYS: &[&str] = &["(A, DONE)", "(A,B)", "(A, B, C)", "()", "(, )"];

/// Names, and scalars YAML 1.1 reads as other types than strings.
const YAML_SCALARS: &[&str] = &[
    "A", "B", "DONE", "~", "null", "yes", "No", "12", "0x1F", "1e3", ".inf",
];

/// Anchors, aliases, tags, document markers, a comment, block scalars, a complex key and directives.
const YAML_NODES: &[&str] = &[
    "&a ",
    "*a",
    "!!str ",
    "!!map ",
    "!!seq ",
    "!!int ",
    "!foo ",
    "!<tag:x> ",
    "---",
    "...",
    "# c",
    "|",
    "|-",
    ">",
    "? ",
    "%YAML 1.2\n",
    "%TAG ! tag:x:\n",
];

/// What mutations of Open Autonomy YAML insert: its seven keys, the above, and line ends and characters YAML
/// treats specially.
pub(crate) fn yaml_tokens() -> Vec<&'static str> {
    let odd: &[&str] = &["\r", "\r\n", "\\", "@", "`", "\u{85}", "\u{2028}"];
    [
        &fsmc_driver::yaml::read::KEYS[..],
        YAML_PUNCTUATION,
        YAML_TRANSITION_KEYS,
        YAML_SCALARS,
        YAML_NODES,
        NON_ASCII,
        odd,
    ]
    .concat()
}

/// One edit of a text. Indices are reduced modulo the current length, so every mutation applies to any text.
#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    MoveLine(usize, usize),
    Indent(usize, u8),
    Dedent(usize),
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    InsertToken(usize, usize),
    ReplaceIdent(usize, usize),
    DeleteChars(usize, u8),
    InsertChar(usize, char),
    Truncate(usize),
    RemoveAll(char),
    RemoveOne(char, usize),
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    use Mutation::*;
    let i = any::<usize>;
    prop_oneof![
        1 => i().prop_map(DeleteLine),
        1 => i().prop_map(DuplicateLine),
        1 => (i(), i()).prop_map(|(a, b)| SwapLines(a, b)),
        1 => (i(), i()).prop_map(|(a, b)| MoveLine(a, b)),
        1 => (i(), 1..9u8).prop_map(|(a, n)| Indent(a, n)),
        1 => i().prop_map(Dedent),
        3 => i().prop_map(DeleteToken),
        1 => i().prop_map(DuplicateToken),
        1 => (i(), i()).prop_map(|(a, b)| SwapTokens(a, b)),
        3 => (i(), i()).prop_map(|(a, b)| InsertToken(a, b)),
        3 => (i(), i()).prop_map(|(a, b)| ReplaceIdent(a, b)),
        1 => (i(), 1..64u8).prop_map(|(a, n)| DeleteChars(a, n)),
        1 => (i(), any::<char>()).prop_map(|(a, c)| InsertChar(a, c)),
        1 => i().prop_map(Truncate),
        1 => prop::sample::select(vec![';', '{', '}', '(', ')', ',', '\n', ' ', ':', '-', '"']).prop_map(RemoveAll),
        1 => (prop::sample::select(vec![';', '{', '}', '(', ')', '"', '>', '[', ']', ':']), i())
            .prop_map(|(c, a)| RemoveOne(c, a)),
    ]
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits text into tokens that join back to it: identifier runs, whitespace runs, and single other characters
/// (two for `->`, `::`, `//`, `/*`, `*/`).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = if is_ident_char(c) {
            rest.find(|c| !is_ident_char(c)).unwrap_or(rest.len())
        } else if c.is_whitespace() {
            rest.find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len())
        } else if ["->", "::", "//", "/*", "*/"]
            .iter()
            .any(|p| rest.starts_with(p))
        {
            2
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

fn idents(text: &str) -> Vec<String> {
    let mut v: Vec<String> = tokens(text)
        .into_iter()
        .filter(|t| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

fn apply(text: &str, m: &Mutation, pool: &[&str], names: &[String]) -> String {
    use Mutation::*;
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let toks = tokens(text);
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize, n: usize| if n == 0 { 0 } else { i % n };
    match *m {
        DeleteLine(i) if !lines.is_empty() => {
            lines.remove(at(i, lines.len()));
            lines.concat()
        }
        DuplicateLine(i) if !lines.is_empty() => {
            let i = at(i, lines.len());
            lines.insert(i, lines[i]);
            lines.concat()
        }
        SwapLines(a, b) if !lines.is_empty() => {
            let n = lines.len();
            lines.swap(at(a, n), at(b, n));
            lines.concat()
        }
        MoveLine(a, b) if !lines.is_empty() => {
            let line = lines.remove(at(a, lines.len()));
            lines.insert(at(b, lines.len() + 1), line);
            lines.concat()
        }
        Indent(i, n) if !lines.is_empty() => {
            let i = at(i, lines.len());
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[i] = format!("{}{}", " ".repeat(n as usize), out[i]);
            out.concat()
        }
        Dedent(i) if !lines.is_empty() => {
            let i = at(i, lines.len());
            lines[i] = lines[i].trim_start_matches([' ', '\t']);
            lines.concat()
        }
        DeleteToken(i) if !toks.is_empty() => {
            let mut t = toks;
            t.remove(at(i, t.len()));
            t.concat()
        }
        DuplicateToken(i) if !toks.is_empty() => {
            let mut t = toks;
            let i = at(i, t.len());
            t.insert(i, t[i]);
            t.concat()
        }
        SwapTokens(a, b) if !toks.is_empty() => {
            let mut t = toks;
            let n = t.len();
            t.swap(at(a, n), at(b, n));
            t.concat()
        }
        InsertToken(i, p) => {
            let mut t = toks;
            let i = at(i, t.len() + 1);
            t.insert(i, pool[p % pool.len()]);
            t.concat()
        }
        ReplaceIdent(i, j) if !names.is_empty() => {
            let positions: Vec<usize> = (0..toks.len())
                .filter(|&k| names.binary_search_by(|n| n.as_str().cmp(toks[k])).is_ok())
                .collect();
            if positions.is_empty() {
                return text.to_string();
            }
            let mut t = toks;
            let k = positions[at(i, positions.len())];
            t[k] = &names[at(j, names.len())];
            t.concat()
        }
        DeleteChars(i, n) if !chars.is_empty() => {
            let i = at(i, chars.len());
            let end = (i + n as usize).min(chars.len());
            chars[..i].iter().chain(&chars[end..]).collect()
        }
        InsertChar(i, c) => {
            let i = at(i, chars.len() + 1);
            chars[..i]
                .iter()
                .chain(std::iter::once(&c))
                .chain(&chars[i..])
                .collect()
        }
        Truncate(i) => {
            let i = at(i, chars.len() + 1);
            chars[..i].iter().collect()
        }
        RemoveAll(c) => text.replace(c, ""),
        RemoveOne(c, i) => {
            let found: Vec<usize> = text.match_indices(c).map(|(k, _)| k).collect();
            if found.is_empty() {
                return text.to_string();
            }
            let k = found[at(i, found.len())];
            format!("{}{}", &text[..k], &text[k + c.len_utf8()..])
        }
        _ => text.to_string(),
    }
}

pub(crate) fn mutate(text: &str, mutations: &[Mutation], pool: &[&str]) -> String {
    let names = idents(text);
    mutations
        .iter()
        .fold(text.to_string(), |t, m| apply(&t, m, pool, &names))
}
