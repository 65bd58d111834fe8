//! Diagnostics: what every stage reports, how lint levels apply, and how reports are rendered.
//!
//! Stages never print and never stop at the first problem: they push [`Diagnostic`]s and keep going.
//! Rendering happens once, at the edge (CLI or macro), through [`render`].

pub mod codes;
pub mod render;

pub use codes::{Code, Level};

use crate::source::Span;
use std::collections::BTreeMap;

/// How bad a diagnostic is, after lint levels were applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "json",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Severity {
    Error,
    Warning,
}

/// A span with a message, shown under the source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One reported problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// Where the problem is; absent only for problems with no place in any file (e.g. a missing file).
    pub primary: Option<Label>,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic at its code's default severity (lints at `Warn` unless denied by default).
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        let severity = match code.default_level() {
            Some(Level::Warn) | Some(Level::Allow) => Severity::Warning,
            _ => Severity::Error,
        };
        Diagnostic {
            code,
            severity,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    pub fn at(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.primary = Some(Label {
            span,
            message: label.into(),
        });
        self
    }

    pub fn with(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: label.into(),
        });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The order diagnostics are reported in: by file and position, then code, so output is stable.
    pub fn sort_key(&self) -> (u32, u32, u32, Code, String) {
        let (f, s, e) = self
            .primary
            .as_ref()
            .map_or((0, 0, 0), |l| (l.span.file.0, l.span.start, l.span.end));
        (f, s, e, self.code, self.message.clone())
    }
}

/// Lint levels in force: defaults, overridden by the spec's attributes, overridden by the command line.
#[derive(Clone, Debug, Default)]
pub struct LintLevels {
    overrides: BTreeMap<Code, Level>,
}

impl LintLevels {
    pub fn set(&mut self, code: Code, level: Level) {
        if code.is_lint() {
            self.overrides.insert(code, level);
        }
    }

    /// A copy with `other`'s settings layered on top.
    pub fn overlay(&self, other: &LintLevels) -> LintLevels {
        let mut out = self.clone();
        out.overrides
            .extend(other.overrides.iter().map(|(c, l)| (*c, *l)));
        out
    }

    pub fn level(&self, code: Code) -> Option<Level> {
        self.level_in(code, false)
    }

    /// The level in force on a plain machine (`plain`) or any other: an error that is a lint on plain
    /// machines only ignores the levels elsewhere.
    pub fn level_in(&self, code: Code, plain: bool) -> Option<Level> {
        let default = if plain {
            code.plain_level()
        } else {
            code.default_level()
        };
        default?;
        self.overrides.get(&code).copied().or(default)
    }

    /// Applies the level to a diagnostic of a machine with a profile, or of an app: `None` when the lint is
    /// allowed.
    pub fn apply(&self, d: Diagnostic) -> Option<Diagnostic> {
        self.apply_in(d, false)
    }

    /// Applies the level to a diagnostic of a plain machine (`plain`) or any other.
    pub fn apply_in(&self, mut d: Diagnostic, plain: bool) -> Option<Diagnostic> {
        match self.level_in(d.code, plain) {
            None | Some(Level::Deny) => {
                d.severity = Severity::Error;
                Some(d)
            }
            Some(Level::Warn) => {
                d.severity = Severity::Warning;
                Some(d)
            }
            Some(Level::Allow) => None,
        }
    }
}

/// Sorts diagnostics into report order and drops exact repeats (a fact found twice is reported once).
pub fn finish(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.sort_key());
    diags.dedup();
    diags
}

/// Names longer than this get no suggestion: similarity is quadratic in length, and a typo in a name this
/// long is not what a did-you-mean helps with.
const MAX_SUGGESTION_NAME: usize = 64;

/// How many similarity comparisons one thread may spend on suggestions before it stops making them. A spec
/// with thousands of unknown names against thousands of candidates would otherwise take quadratic time for
/// help lines; past the budget the errors are still reported, only without a did-you-mean.
const SUGGESTION_BUDGET: u64 = 2_000_000;

thread_local! {
    static SUGGESTIONS_LEFT: std::cell::Cell<u64> = const { std::cell::Cell::new(SUGGESTION_BUDGET) };
}

/// Gives the current thread a fresh suggestion budget; the driver calls it at the start of each compilation.
pub fn reset_suggestion_budget() {
    SUGGESTIONS_LEFT.with(|b| b.set(SUGGESTION_BUDGET));
}

/// Suggests the candidate closest to a misspelt name, if one is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    if name.len() > MAX_SUGGESTION_NAME {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        if c == name || c.len() > MAX_SUGGESTION_NAME {
            continue;
        }
        let affordable = SUGGESTIONS_LEFT.with(|b| {
            let left = b.get();
            b.set(left.saturating_sub(1));
            left > 0
        });
        if !affordable {
            return None;
        }
        let score = strsim::jaro_winkler(&lower, &c.to_ascii_lowercase());
        if score > 0.8 && best.is_none_or(|(b, bc)| score > b || (score == b && c < bc)) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_finds_typos_only() {
        assert_eq!(
            did_you_mean("RegistrationRoud", ["RegistrationRound", "ResetRound"]).as_deref(),
            Some("did you mean `RegistrationRound`?")
        );
        assert_eq!(did_you_mean("Zebra", ["RegistrationRound"]), None);
    }

    #[test]
    fn levels_apply_in_order() {
        let d = Diagnostic::new(Code::UnusedKey, "x");
        let mut levels = LintLevels::default();
        assert_eq!(
            levels.apply(d.clone()).map(|d| d.severity),
            Some(Severity::Warning)
        );
        levels.set(Code::UnusedKey, Level::Deny);
        assert_eq!(
            levels.apply(d.clone()).map(|d| d.severity),
            Some(Severity::Error)
        );
        levels.set(Code::UnusedKey, Level::Allow);
        assert_eq!(levels.apply(d), None);
        // An unused event is a warning on a plain machine, which `allow` silences, and an error elsewhere.
        let unused = Diagnostic::new(Code::UnusedEvent, "x");
        assert_eq!(
            levels.apply(unused.clone()).map(|d| d.severity),
            Some(Severity::Error)
        );
        assert_eq!(
            levels.apply_in(unused.clone(), true).map(|d| d.severity),
            Some(Severity::Warning)
        );
        levels.set(Code::UnusedEvent, Level::Allow);
        assert_eq!(levels.apply_in(unused.clone(), true), None);
        assert_eq!(
            levels.apply(unused).map(|d| d.severity),
            Some(Severity::Error)
        );
        // Hard errors cannot be silenced.
        levels.set(Code::DuplicateState, Level::Allow);
        assert!(
            levels
                .apply(Diagnostic::new(Code::DuplicateState, "x"))
                .is_some()
        );
    }
}
