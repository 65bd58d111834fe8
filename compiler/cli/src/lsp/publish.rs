//! Diagnostics, published after each batch of messages: those of the open documents' compilation, by file, for
//! every file that has some now or had some at the last publication (an empty list clears a file's), and for
//! every open document.

use super::text;
use super::{Lifecycle, Server, to_value};
use lsp_types as lt;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

impl Server {
    /// The `textDocument/publishDiagnostics` notifications owed since the last call: one per file whose
    /// diagnostics may have changed (an empty list clears a file's).
    pub fn publish_diagnostics(&mut self) -> Vec<Value> {
        if !self.dirty || self.lifecycle != Lifecycle::Running {
            return Vec::new();
        }
        self.dirty = false;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.diagnostics_owed())) {
            Ok(out) => out,
            Err(_) => {
                // A bug: no diagnostics this time; the next change computes everything again.
                self.analysis = None;
                self.workspace = None;
                Vec::new()
            }
        }
    }

    fn diagnostics_owed(&mut self) -> Vec<Value> {
        let enc = self.encoding;
        let docs: BTreeMap<PathBuf, (String, i32)> = self.versions();
        let a = self.analysis();
        let mut by_file: BTreeMap<PathBuf, Vec<lt::Diagnostic>> = BTreeMap::new();
        for d in &a.compilation.diagnostics {
            let Some(primary) = &d.primary else { continue };
            let Some(path) = a.path(primary.span.file) else {
                continue;
            };
            by_file
                .entry(path.to_path_buf())
                .or_default()
                .push(a.diagnostic(d, enc));
        }
        let now: BTreeSet<PathBuf> = by_file.keys().cloned().collect();
        let mut out = Vec::new();
        let mut targets: BTreeSet<PathBuf> = self.published.clone();
        targets.extend(now.iter().cloned());
        // Open documents are always published, so that a document with no problems shows none.
        targets.extend(docs.keys().cloned());
        for path in targets {
            let diagnostics = by_file.remove(&path).unwrap_or_default();
            let (uri, version) = match docs.get(&path) {
                Some((uri, v)) => (uri.clone(), Some(*v)),
                None => (text::path_to_uri(&path), None),
            };
            out.push(json!({
                "jsonrpc": "2.0",
                "method": "textDocument/publishDiagnostics",
                "params": {
                    "uri": uri,
                    "version": version,
                    "diagnostics": to_value(diagnostics),
                },
            }));
        }
        self.published = now;
        out
    }
}
