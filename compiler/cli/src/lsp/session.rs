//! The session: what `initialize` learns of the client (position encoding, workspace folders, search paths)
//! and answers (the server's capabilities), the open documents as they are edited, and the compilations of them,
//! made when a request needs one and dropped when an edit makes them stale.

use super::text::{self, Encoding, LineIndex};
use super::{Analysis, Server, doc_path, outline, to_value};
use fsmc_base::source::FileId;
use fsmc_driver::Options;
use fsmc_driver::loader::LoadOptions;
use lsp_types as lt;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

impl Server {
    pub(super) fn initialize(&mut self, params: &Value) -> Value {
        // Read leniently, field by field: an editor's unusual capabilities must not make initialization fail.
        let encodings = params
            .pointer("/capabilities/general/positionEncodings")
            .and_then(Value::as_array);
        if encodings.is_some_and(|e| e.iter().any(|v| v.as_str() == Some("utf-8"))) {
            self.encoding = Encoding::Utf8;
        }
        let folders = params
            .get("workspaceFolders")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|f| f.get("uri")?.as_str());
        self.roots = folders.filter_map(text::uri_to_path).collect();
        if self.roots.is_empty()
            && let Some(root) = params.get("rootUri").and_then(Value::as_str)
        {
            self.roots.extend(text::uri_to_path(root));
        }
        self.search_paths = params
            .pointer("/initializationOptions/searchPaths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|p| match self.roots.first() {
                Some(root) => root.join(p),
                None => PathBuf::from(p),
            })
            .collect();
        let encoding = match self.encoding {
            Encoding::Utf8 => lt::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lt::PositionEncodingKind::UTF16,
        };
        let caps = lt::ServerCapabilities {
            position_encoding: Some(encoding),
            text_document_sync: Some(lt::TextDocumentSyncCapability::Options(
                lt::TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(lt::TextDocumentSyncKind::INCREMENTAL),
                    save: Some(lt::TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                },
            )),
            hover_provider: Some(lt::HoverProviderCapability::Simple(true)),
            completion_provider: Some(lt::CompletionOptions {
                trigger_characters: Some(["(", ",", ":", "=", ">", " "].map(String::from).to_vec()),
                ..Default::default()
            }),
            definition_provider: Some(lt::OneOf::Left(true)),
            references_provider: Some(lt::OneOf::Left(true)),
            rename_provider: Some(lt::OneOf::Right(lt::RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: Default::default(),
            })),
            document_symbol_provider: Some(lt::OneOf::Left(true)),
            document_formatting_provider: Some(lt::OneOf::Left(true)),
            code_lens_provider: Some(lt::CodeLensOptions {
                resolve_provider: Some(false),
            }),
            code_action_provider: Some(lt::CodeActionProviderCapability::Options(
                lt::CodeActionOptions {
                    code_action_kinds: Some(vec![lt::CodeActionKind::QUICKFIX]),
                    ..Default::default()
                },
            )),
            semantic_tokens_provider: Some(
                lt::SemanticTokensServerCapabilities::SemanticTokensOptions(
                    lt::SemanticTokensOptions {
                        legend: outline::legend(),
                        full: Some(lt::SemanticTokensFullOptions::Bool(true)),
                        range: None,
                        ..Default::default()
                    },
                ),
            ),
            ..Default::default()
        };
        json!({
            "capabilities": to_value(caps),
            "serverInfo": { "name": "fsmc", "version": env!("CARGO_PKG_VERSION") },
        })
    }

    pub(super) fn change(&mut self, p: lt::DidChangeTextDocumentParams) {
        let Some(path) = doc_path(p.text_document.uri.as_str()) else {
            return;
        };
        let Some(mut text) = self.overlay.get(&path).map(str::to_string) else {
            return;
        };
        for change in p.content_changes {
            match change.range {
                Some(range) => {
                    let lines = LineIndex::new(&text);
                    let a = lines.offset(&text, range.start, self.encoding);
                    let b = lines.offset(&text, range.end, self.encoding).max(a);
                    text.replace_range(a..b, &change.text);
                }
                None => text = change.text,
            }
        }
        self.overlay.insert(&path, text);
        if let Some(doc) = self.docs.get_mut(&path) {
            doc.version = p.text_document.version;
        }
        self.changed();
    }

    pub(super) fn changed(&mut self) {
        self.analysis = None;
        self.workspace = None;
        self.dirty = true;
    }

    fn options(&self, extra_roots: &[PathBuf]) -> Options {
        let mut roots = self.roots.clone();
        roots.extend(extra_roots.iter().cloned());
        // Imports resolve beside each open file, whether or not it is inside a workspace folder.
        roots.extend(
            self.docs
                .keys()
                .filter_map(|p| p.parent().map(Path::to_path_buf)),
        );
        roots.sort();
        roots.dedup();
        Options {
            load: LoadOptions {
                search_paths: self.search_paths.clone(),
                roots,
                // Files are named by their absolute paths: that is how a diagnostic finds its document.
                display_base: None,
            },
            lints: Default::default(),
        }
    }

    /// The compilation of the open documents, compiled now if stale.
    pub fn analysis(&mut self) -> &Analysis {
        if self.analysis.is_none() {
            let entries: Vec<PathBuf> = self.docs.keys().cloned().collect();
            let opts = self.options(&[]);
            let (c, _) = fsmc_driver::compile_all_overlaid(&entries, &opts, &self.overlay);
            self.analysis = Some(Analysis::new(c));
        }
        self.analysis
            .get_or_insert_with(|| Analysis::new(super::analysis::empty()))
    }

    /// The compilation of the open documents and every spec under the workspace folders.
    fn workspace_analysis(&mut self) -> &Analysis {
        if self.workspace.is_none() {
            let mut entries: Vec<PathBuf> = self.docs.keys().cloned().collect();
            for root in &self.roots {
                let mut found = Vec::new();
                let _ = fsmc_driver::loader::collect_specs(root, &mut found);
                entries.extend(
                    found
                        .iter()
                        .map(|p| fsmc_driver::loader::absolute(p.as_path())),
                );
            }
            entries.sort();
            entries.dedup();
            let opts = self.options(&[]);
            let (c, _) = fsmc_driver::compile_all_overlaid(&entries, &opts, &self.overlay);
            self.workspace = Some(Analysis::new(c));
        }
        self.workspace
            .get_or_insert_with(|| Analysis::new(super::analysis::empty()))
    }

    /// The analysis, the file and the byte offset a document position names.
    pub(super) fn at(
        &mut self,
        uri: &lt::Uri,
        pos: lt::Position,
    ) -> Option<(&Analysis, FileId, usize)> {
        let enc = self.encoding;
        let (a, file) = self.file(uri)?;
        let offset = a.offset(file, pos, enc);
        Some((a, file, offset))
    }

    pub(super) fn workspace_at(
        &mut self,
        uri: &lt::Uri,
        pos: lt::Position,
    ) -> Option<(&Analysis, FileId, usize)> {
        let enc = self.encoding;
        let path = doc_path(uri.as_str())?;
        let a = self.workspace_analysis();
        let file = a.file_of(&path)?;
        let offset = a.offset(file, pos, enc);
        Some((a, file, offset))
    }

    pub(super) fn file(&mut self, uri: &lt::Uri) -> Option<(&Analysis, FileId)> {
        let path = doc_path(uri.as_str())?;
        let a = self.analysis();
        let file = a.file_of(&path)?;
        Some((a, file))
    }

    /// The version of each open document, by path (edits to open documents name the version they apply to).
    pub(super) fn versions(&self) -> BTreeMap<PathBuf, (String, i32)> {
        self.docs
            .iter()
            .map(|(p, d)| (p.clone(), (d.uri.clone(), d.version)))
            .collect()
    }
}
