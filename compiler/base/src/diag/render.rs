//! Renders diagnostics for people (rustc-style, through codespan-reporting), for tools (JSON lines) and for
//! CI (GitHub workflow annotations). The only place that turns byte spans into lines and columns.

use super::{Diagnostic, Severity};
use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};

/// Whether a character must not reach a terminal as it is: a control character (an escape sequence starts
/// with one) or a bidirectional override, which reorders what the reader sees.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Spec text shown in a snippet, made inert: each unsafe character becomes printable characters of the same
/// byte length (`?`, or U+FFFD for three bytes), so every span still points at the same bytes.
fn inert_source(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !is_unsafe(c) {
            out.push(c);
        } else if c.len_utf8() == 3 {
            out.push('\u{FFFD}');
        } else {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Message text (which may quote spec names) made inert: each unsafe character is written as its escape.
pub fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if is_unsafe(c) {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// One report as the renderers read it: a [`Diagnostic`], or anything shaped like one (a change `fsmc diff`
/// found), so that every command's output goes through the same renderer.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    pub severity: Severity,
    /// What the heading names in brackets: a code (`E0104`), or a class of change (`consensus-breaking`).
    pub id: &'a str,
    /// Its name for tools (JSON's `name`, GitHub's title): `unknown_state`, `round_kind`.
    pub name: &'a str,
    pub message: &'a str,
    pub primary: Option<&'a super::Label>,
    pub secondary: &'a [super::Label],
    pub help: Option<&'a str>,
    pub notes: &'a [String],
}

impl<'a> From<&'a Diagnostic> for Entry<'a> {
    fn from(d: &'a Diagnostic) -> Entry<'a> {
        Entry {
            severity: d.severity,
            id: d.code.id(),
            name: d.code.name(),
            message: &d.message,
            primary: d.primary.as_ref(),
            secondary: &d.secondary,
            help: d.help.as_deref(),
            notes: &d.notes,
        }
    }
}

fn entries(diags: &[Diagnostic]) -> Vec<Entry<'_>> {
    diags.iter().map(Entry::from).collect()
}

/// The files for codespan, with the text of those `diags` point into: codespan finds the lines of every text it
/// is given, and a check of a large spec with nothing to report should not read it again for that.
fn files<'m>(
    map: &'m SourceMap,
    diags: &[Entry<'_>],
) -> SimpleFiles<String, std::borrow::Cow<'m, str>> {
    let shown: std::collections::BTreeSet<_> = diags
        .iter()
        .flat_map(|d| d.primary.into_iter().chain(d.secondary))
        .map(|l| l.span.file)
        .collect();
    let mut files = SimpleFiles::new();
    for (id, f) in map.files() {
        let text = if shown.contains(&id) {
            inert_source(&f.text)
        } else {
            std::borrow::Cow::Borrowed("")
        };
        files.add(inert(&f.name).into_owned(), text);
    }
    files
}

fn to_codespan(d: &Entry<'_>) -> CsDiagnostic<usize> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    let mut labels = Vec::new();
    if let Some(p) = d.primary {
        labels.push(
            CsLabel::primary(p.span.file.0 as usize, p.span.range())
                .with_message(inert(&p.message)),
        );
    }
    for s in d.secondary {
        labels.push(
            CsLabel::secondary(s.span.file.0 as usize, s.span.range())
                .with_message(inert(&s.message)),
        );
    }
    let mut notes: Vec<String> = d
        .notes
        .iter()
        .map(|n| format!("note: {}", inert(n)))
        .collect();
    if let Some(h) = d.help {
        notes.push(format!("help: {}", inert(h)));
    }
    base.with_code(d.id)
        .with_message(inert(d.message))
        .with_labels(labels)
        .with_notes(notes)
}

/// Lines longer than this are not shown as snippets (see [`human`]).
const MAX_SNIPPET_LINE: usize = 400;

/// rustc-style text: `error[E0104]: …`, `--> file:line:col`, the source line with a caret, labels, help.
pub fn human(map: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    human_entries(map, &entries(diags), color)
}

/// [`human`] for any [`Entry`].
pub fn human_entries(map: &SourceMap, diags: &[Entry<'_>], color: bool) -> String {
    let files = files(map, diags);
    // ASCII drawing gives rustc's familiar `-->`, `|` and `^`, and survives any terminal or log viewer.
    let full = Config {
        chars: term::Chars::ascii(),
        ..Config::default()
    };
    // A snippet shows whole source lines; on a very long line (a minified spec, a YAML flow list) that would
    // print the line again for every diagnostic on it, so those get the one-line form plus their help.
    let short = Config {
        display_style: term::DisplayStyle::Short,
        ..full.clone()
    };
    let mut out = String::new();
    for d in diags {
        let cs = to_codespan(d);
        let on_long_line = d.primary.into_iter().chain(d.secondary).any(|l| {
            map.get(l.span.file)
                .is_some_and(|f| f.line_range(l.span.start as usize).len() > MAX_SNIPPET_LINE)
        });
        let config = if on_long_line { &short } else { &full };
        let rendered = if color {
            colored(config, &files, &cs)
        } else {
            let mut s = String::new();
            term::emit_to_string(&mut s, config, &files, &cs)
                .ok()
                .map(|_| s)
        };
        // A span the renderer cannot place (it never should) still gets its message shown.
        out.push_str(
            &rendered.unwrap_or_else(|| format!("{}[{}]: {}\n", sev(d.severity), d.id, d.message)),
        );
        if on_long_line {
            for n in d.notes {
                out.push_str(&format!("  = note: {n}\n"));
            }
            if let Some(h) = d.help {
                out.push_str(&format!("  = help: {h}\n"));
            }
        }
    }
    out
}

/// One diagnostic in ANSI colours, for a terminal. Only the command line colours its output (and builds the
/// colour support); elsewhere this is the plain rendering.
#[cfg(feature = "color")]
fn colored(
    config: &Config,
    files: &SimpleFiles<String, std::borrow::Cow<'_, str>>,
    cs: &CsDiagnostic<usize>,
) -> Option<String> {
    let mut buf = term::termcolor::Buffer::ansi();
    term::emit_to_write_style(&mut buf, config, files, cs)
        .ok()
        .map(|_| String::from_utf8_lossy(buf.as_slice()).into_owned())
}

#[cfg(not(feature = "color"))]
fn colored(
    config: &Config,
    files: &SimpleFiles<String, std::borrow::Cow<'_, str>>,
    cs: &CsDiagnostic<usize>,
) -> Option<String> {
    let mut s = String::new();
    term::emit_to_string(&mut s, config, files, cs)
        .ok()
        .map(|_| s)
}

/// The closing line: `fsmc: 2 errors, 1 warning`.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

fn sev(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Where a span is, for people: file name, 1-based line and column of both ends.
pub struct Location<'a> {
    pub file: &'a str,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

pub fn locate(map: &SourceMap, span: Span) -> Option<Location<'_>> {
    let f = map.get(span.file)?;
    let (line, column) = f.line_col(span.start as usize);
    let (end_line, end_column) = f.line_col(span.end as usize);
    Some(Location {
        file: &f.name,
        line,
        column,
        end_line,
        end_column,
    })
}

#[cfg(feature = "json")]
/// One JSON object per line: code, name, severity, file, line, column, message, labels, help, notes.
pub fn json(map: &SourceMap, diags: &[Diagnostic]) -> String {
    json_entries(map, &entries(diags))
}

#[cfg(feature = "json")]
/// [`json`] for any [`Entry`].
pub fn json_entries(map: &SourceMap, diags: &[Entry<'_>]) -> String {
    let mut out = String::new();
    for d in diags {
        let loc = d.primary.and_then(|p| locate(map, p.span));
        let label = |l: &super::Label| {
            let loc = locate(map, l.span);
            serde_json::json!({
                "file": loc.as_ref().map(|l| l.file),
                "line": loc.as_ref().map(|l| l.line),
                "column": loc.as_ref().map(|l| l.column),
                "message": inert(&l.message),
            })
        };
        let value = serde_json::json!({
            "code": d.id,
            "name": d.name,
            "severity": d.severity,
            "file": loc.as_ref().map(|l| l.file),
            "line": loc.as_ref().map(|l| l.line),
            "column": loc.as_ref().map(|l| l.column),
            "end_line": loc.as_ref().map(|l| l.end_line),
            "end_column": loc.as_ref().map(|l| l.end_column),
            "message": inert(d.message),
            "labels": d.primary.into_iter().chain(d.secondary).map(label).collect::<Vec<_>>(),
            "help": d.help.map(inert),
            "notes": d.notes.iter().map(|n| inert(n)).collect::<Vec<_>>(),
        });
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

/// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=E0104::message`.
pub fn github(map: &SourceMap, diags: &[Diagnostic]) -> String {
    github_entries(map, &entries(diags))
}

/// [`github`] for any [`Entry`].
pub fn github_entries(map: &SourceMap, diags: &[Entry<'_>]) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut props = Vec::new();
        if let Some(loc) = d.primary.and_then(|p| locate(map, p.span)) {
            props.push(format!("file={}", escape_property(&inert(loc.file))));
            props.push(format!("line={}", loc.line));
            props.push(format!("col={}", loc.column));
            props.push(format!("endLine={}", loc.end_line));
            props.push(format!("endColumn={}", loc.end_column));
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("{} {}", d.id, d.name))
        ));
        let mut message = inert(d.message).into_owned();
        if let Some(h) = d.help {
            message.push_str("\nhelp: ");
            message.push_str(&inert(h));
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            escape_data(&message)
        ));
    }
    out
}

// GitHub's workflow-command escaping: data escapes %, CR, LF; properties also escape ':' and ','.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    fn sample() -> (SourceMap, Vec<Diagnostic>) {
        let mut map = SourceMap::new();
        let f = map.add("specs/a.fsm", "machine M {\n    (A, GO) -> B;\n}\n");
        let d = Diagnostic::new(Code::UnknownState, "unknown state `B`")
            .at(Span::new(f, 28, 29), "not declared in machine `M`")
            .help("declare it with `state B;`");
        (map, vec![d])
    }

    #[test]
    fn human_output_points_at_the_line() {
        let (map, diags) = sample();
        let text = human(&map, &diags, false);
        assert!(text.contains("error[E0104]: unknown state `B`"), "{text}");
        assert!(text.contains("specs/a.fsm:2:17"), "{text}");
        assert!(text.contains("help: declare it"), "{text}");
    }

    // Built with the `json` feature, as a workspace test run builds it for the command line.
    #[cfg(feature = "json")]
    #[test]
    fn json_has_one_object_per_diagnostic() {
        let (map, diags) = sample();
        let text = json(&map, &diags);
        let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["code"], "E0104");
        assert_eq!(v["line"], 2);
        assert_eq!(v["column"], 17);
        assert_eq!(v["severity"], "error");
    }

    #[test]
    fn github_escapes_properties() {
        let (map, diags) = sample();
        let text = github(&map, &diags);
        assert!(
            text.starts_with("::error file=specs/a.fsm,line=2,col=17,"),
            "{text}"
        );
        assert!(
            text.contains("title=E0104 unknown_state::unknown state `B`%0Ahelp"),
            "{text}"
        );
    }
}
