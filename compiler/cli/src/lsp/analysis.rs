//! A compilation as the features read it: each file's path, text and line index, positions and ranges in the
//! client's encoding, and diagnostics as the protocol carries them.

use super::index::Index;
use super::text::{self, Encoding, LineIndex};
use fsmc_base::diag::{Diagnostic, Severity};
use fsmc_base::source::{FileId, Span};
use fsmc_driver::Compilation;
use lsp_types as lt;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A compilation with what the features need to read it: each file's path and line index, and the index of
/// every name.
pub struct Analysis {
    pub compilation: Compilation,
    paths: Vec<PathBuf>,
    pub(super) lines: Vec<LineIndex>,
    by_path: BTreeMap<PathBuf, FileId>,
    pub(super) index: Index,
}

impl Analysis {
    pub(super) fn new(compilation: Compilation) -> Analysis {
        let mut paths = Vec::new();
        let mut lines = Vec::new();
        let mut by_path = BTreeMap::new();
        for (id, f) in compilation.sources.files() {
            let path = PathBuf::from(&f.name);
            by_path.insert(path.clone(), id);
            paths.push(path);
            lines.push(LineIndex::new(&f.text));
        }
        let index = Index::build(&compilation.units, &compilation.sources);
        Analysis {
            compilation,
            paths,
            lines,
            by_path,
            index,
        }
    }

    pub(super) fn file_of(&self, path: &Path) -> Option<FileId> {
        self.by_path
            .get(&fsmc_driver::loader::normalize(
                &fsmc_driver::loader::absolute(path),
            ))
            .copied()
    }

    pub(super) fn path(&self, file: FileId) -> Option<&Path> {
        self.paths.get(file.0 as usize).map(PathBuf::as_path)
    }

    pub(super) fn uri(&self, file: FileId) -> Option<lt::Uri> {
        self.path(file)
            .and_then(|p| text::path_to_uri(p).parse().ok())
    }

    pub(super) fn text(&self, file: FileId) -> &str {
        self.compilation
            .sources
            .get(file)
            .map_or("", |f| f.text.as_str())
    }

    pub(super) fn range(&self, span: Span, enc: Encoding) -> lt::Range {
        match self.lines.get(span.file.0 as usize) {
            Some(lines) => lines.range(self.text(span.file), span.range(), enc),
            None => lt::Range::default(),
        }
    }

    pub(super) fn location(&self, span: Span, enc: Encoding) -> Option<lt::Location> {
        Some(lt::Location::new(
            self.uri(span.file)?,
            self.range(span, enc),
        ))
    }

    pub(super) fn offset(&self, file: FileId, pos: lt::Position, enc: Encoding) -> usize {
        self.lines
            .get(file.0 as usize)
            .map_or(0, |l| l.offset(self.text(file), pos, enc))
    }

    pub(super) fn offsets(
        &self,
        file: FileId,
        range: lt::Range,
        enc: Encoding,
    ) -> std::ops::Range<usize> {
        let a = self.offset(file, range.start, enc);
        let b = self.offset(file, range.end, enc);
        a.min(b)..a.max(b)
    }

    /// A diagnostic as the protocol carries it: the message with the primary label, help and notes below it (as
    /// `fsmc check` prints them), secondary labels as related information.
    pub(super) fn diagnostic(&self, d: &Diagnostic, enc: Encoding) -> lt::Diagnostic {
        let mut message = d.message.clone();
        if let Some(label) = d.primary.as_ref().filter(|l| !l.message.is_empty()) {
            message.push_str(&format!("\n{}", label.message));
        }
        if let Some(help) = &d.help {
            message.push_str(&format!("\nhelp: {help}"));
        }
        for note in &d.notes {
            message.push_str(&format!("\nnote: {note}"));
        }
        let related: Vec<lt::DiagnosticRelatedInformation> = d
            .secondary
            .iter()
            .filter_map(|l| {
                Some(lt::DiagnosticRelatedInformation {
                    location: self.location(l.span, enc)?,
                    message: l.message.clone(),
                })
            })
            .collect();
        lt::Diagnostic {
            range: d
                .primary
                .as_ref()
                .map_or_else(lt::Range::default, |l| self.range(l.span, enc)),
            severity: Some(match d.severity {
                Severity::Error => lt::DiagnosticSeverity::ERROR,
                Severity::Warning => lt::DiagnosticSeverity::WARNING,
            }),
            code: Some(lt::NumberOrString::String(d.code.id().to_string())),
            source: Some("fsmc".to_string()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        }
    }
}

/// A compilation of nothing (never used: [`Server::analysis`] always has one by then).
pub(super) fn empty() -> Compilation {
    Compilation {
        sources: Default::default(),
        diagnostics: Vec::new(),
        checked: None,
        spec: None,
        files_read: Vec::new(),
        units: Vec::new(),
    }
}
