//! `fsmc lsp`: the language server, a front end like the command line.
//!
//! It keeps the documents the editor has open in memory and compiles them through the ordinary driver, with a
//! loader [`Overlay`] so that unsaved text stands in for the files on disk: the diagnostics are those of
//! `fsmc check` (codes, spans, help), across imports, Open Autonomy YAML included. Navigation (hover, definition,
//! references, rename), completion, the outline and semantic tokens read the syntax trees of the same
//! compilation through an [`index::Index`] of every name; formatting is [`crate::fmt`].
//!
//! Built on lsp-server's message types and lsp-types (the synchronous pair rust-analyzer uses: no async runtime,
//! and a compilation of a thousand-state spec takes milliseconds, so requests are simply answered in order).
//! Messages are read on a thread of their own ([`transport`], which survives malformed frames); the main loop
//! takes every message waiting, answers each, and publishes diagnostics once after the batch, so a burst of
//! keystrokes costs one compilation. [`Server`] itself does no IO: it maps messages in to messages out, which is
//! how the benchmark drives it.

mod actions;
mod complete;
mod index;
mod nav;
mod outline;
mod text;
pub mod transport;

use fsmc_base::diag::{Diagnostic, Severity};
use fsmc_base::source::{FileId, Span};
use fsmc_driver::loader::{LoadOptions, Overlay};
use fsmc_driver::{Compilation, Options};
use index::Index;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use lsp_types as lt;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use text::{Encoding, LineIndex};

/// Runs the server on standard input and output until the client says `exit` or the input ends. The exit code
/// is 0 after an orderly `shutdown`, 1 otherwise (as the protocol asks).
pub fn run_stdio(err: &mut dyn std::io::Write) -> i32 {
    let (tx, rx) = std::sync::mpsc::channel::<transport::Frame>();
    let reader = std::thread::Builder::new()
        .name("fsmc-lsp-reader".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            while let Ok(Some(frame)) = transport::read(&mut input) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
    if let Err(e) = reader {
        let _ = writeln!(err, "error: cannot start the language server: {e}");
        return 2;
    }
    let mut server = Server::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        batch.extend(rx.try_iter());
        let mut replies = Vec::new();
        for frame in batch {
            replies.extend(server.handle_frame(frame));
            if server.exit_code().is_some() {
                break;
            }
        }
        replies.extend(server.publish_diagnostics());
        for reply in replies {
            if transport::write(&mut out, &reply).is_err() {
                // The client is gone.
                return 1;
            }
        }
        if let Some(code) = server.exit_code() {
            return code;
        }
    }
    // The input ended without `exit`.
    if server.lifecycle == Lifecycle::ShutDown {
        0
    } else {
        1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lifecycle {
    Uninitialized,
    Running,
    ShutDown,
    Exited(i32),
}

/// An open document.
#[derive(Debug)]
struct Doc {
    /// The URI as the client wrote it (echoed back in diagnostics).
    uri: String,
    version: i32,
}

/// The language server's state: open documents, the client's settings, and the last compilation.
pub struct Server {
    lifecycle: Lifecycle,
    encoding: Encoding,
    /// Workspace folders: where imports may resolve and where references are searched.
    roots: Vec<PathBuf>,
    search_paths: Vec<PathBuf>,
    docs: BTreeMap<PathBuf, Doc>,
    overlay: Overlay,
    /// The compilation of the open documents; `None` when a change made it stale.
    analysis: Option<Analysis>,
    /// The compilation of the open documents and every spec under the workspace folders (for references and
    /// rename); `None` when stale.
    workspace: Option<Analysis>,
    /// Files diagnostics were last published for with at least one diagnostic.
    published: BTreeSet<PathBuf>,
    /// Diagnostics must be published again.
    dirty: bool,
}

impl Default for Server {
    fn default() -> Self {
        Server::new()
    }
}

impl Server {
    pub fn new() -> Server {
        Server {
            lifecycle: Lifecycle::Uninitialized,
            encoding: Encoding::Utf16,
            roots: Vec::new(),
            search_paths: Vec::new(),
            docs: BTreeMap::new(),
            overlay: Overlay::default(),
            analysis: None,
            workspace: None,
            published: BTreeSet::new(),
            dirty: false,
        }
    }

    /// Set once the client said `exit`: the process's exit code.
    pub fn exit_code(&self) -> Option<i32> {
        match self.lifecycle {
            Lifecycle::Exited(code) => Some(code),
            _ => None,
        }
    }

    /// Answers one frame read from the client: the replies to send (a response, or nothing for a notification).
    pub fn handle_frame(&mut self, frame: transport::Frame) -> Vec<Value> {
        match frame {
            transport::Frame::Message(m) => {
                let id = match &m {
                    Message::Request(r) => Some(id_value(&r.id)),
                    _ => None,
                };
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(m))) {
                    Ok(replies) => replies,
                    Err(_) => {
                        // A bug, not the client's fault: answer with an error and go on. The documents are as
                        // the client sent them; anything computed from them may be half built, so it is
                        // computed again.
                        self.changed();
                        id.map(|id| {
                            vec![error_reply(
                                id,
                                ErrorCode::InternalError,
                                "internal error in fsmc's language server (please report it)",
                            )]
                        })
                        .unwrap_or_default()
                    }
                }
            }
            transport::Frame::Unparsable(message) => {
                vec![error_reply(Value::Null, ErrorCode::ParseError, &message)]
            }
            transport::Frame::Invalid { id, message } => vec![error_reply(
                id.unwrap_or(Value::Null),
                ErrorCode::InvalidRequest,
                &message,
            )],
        }
    }

    /// Answers one message.
    pub fn handle(&mut self, message: Message) -> Vec<Value> {
        match message {
            Message::Request(r) => vec![self.request(r)],
            Message::Notification(n) => {
                self.notification(n);
                Vec::new()
            }
            // The server sends no requests, so it expects no responses.
            Message::Response(_) => Vec::new(),
        }
    }

    fn request(&mut self, r: Request) -> Value {
        let id = id_value(&r.id);
        match (self.lifecycle, r.method.as_str()) {
            (Lifecycle::Uninitialized, "initialize") => {
                let result = self.initialize(&r.params);
                self.lifecycle = Lifecycle::Running;
                ok_reply(id, result)
            }
            (Lifecycle::Uninitialized, _) => error_reply(
                id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized yet",
            ),
            (_, "initialize") => error_reply(
                id,
                ErrorCode::InvalidRequest,
                "the server is initialized already",
            ),
            (Lifecycle::ShutDown | Lifecycle::Exited(_), _) => {
                error_reply(id, ErrorCode::InvalidRequest, "the server is shutting down")
            }
            (Lifecycle::Running, "shutdown") => {
                self.lifecycle = Lifecycle::ShutDown;
                ok_reply(id, Value::Null)
            }
            (Lifecycle::Running, method) => match self.dispatch(method, r.params) {
                Ok(result) => ok_reply(id, result),
                Err(Failure::NoMethod) => error_reply(
                    id,
                    ErrorCode::MethodNotFound,
                    &format!("unknown method `{method}`"),
                ),
                Err(Failure::Params(e)) => error_reply(
                    id,
                    ErrorCode::InvalidParams,
                    &format!("invalid parameters for `{method}`: {e}"),
                ),
                Err(Failure::Refused(message)) => {
                    error_reply(id, ErrorCode::RequestFailed, &message)
                }
            },
        }
    }

    fn dispatch(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        let enc = self.encoding;
        Ok(match method {
            "textDocument/hover" => {
                let p: lt::HoverParams = parse(params)?;
                let at = &p.text_document_position_params;
                self.at(&at.text_document.uri, at.position)
                    .and_then(|(a, file, offset)| nav::hover(a, file, offset, enc))
                    .map_or(Value::Null, to_value)
            }
            "textDocument/definition" => {
                let p: lt::GotoDefinitionParams = parse(params)?;
                let at = &p.text_document_position_params;
                self.at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(nav::definition(a, file, offset, enc))
                    })
            }
            "textDocument/references" => {
                let p: lt::ReferenceParams = parse(params)?;
                let at = &p.text_document_position;
                let declaration = p.context.include_declaration;
                self.workspace_at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(nav::references(a, file, offset, declaration, enc))
                    })
            }
            "textDocument/prepareRename" => {
                let p: lt::TextDocumentPositionParams = parse(params)?;
                self.at(&p.text_document.uri, p.position)
                    .and_then(|(a, file, offset)| nav::prepare_rename(a, file, offset, enc))
                    .map_or(Value::Null, to_value)
            }
            "textDocument/rename" => {
                let p: lt::RenameParams = parse(params)?;
                let at = &p.text_document_position;
                let versions = self.versions();
                match self.workspace_at(&at.text_document.uri, at.position) {
                    Some((a, file, offset)) => {
                        // A refused rename is an error the editor shows.
                        to_value(
                            nav::rename(a, file, offset, &p.new_name, &versions, enc)
                                .map_err(Failure::Refused)?,
                        )
                    }
                    None => Value::Null,
                }
            }
            "textDocument/completion" => {
                let p: lt::CompletionParams = parse(params)?;
                let at = &p.text_document_position;
                self.at(&at.text_document.uri, at.position)
                    .map_or(Value::Null, |(a, file, offset)| {
                        to_value(complete::complete(a, file, offset))
                    })
            }
            "textDocument/documentSymbol" => {
                let p: lt::DocumentSymbolParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(outline::document_symbols(a, file, enc))
                    })
            }
            "textDocument/semanticTokens/full" => {
                let p: lt::SemanticTokensParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(outline::semantic_tokens(a, file, enc))
                    })
            }
            "textDocument/formatting" => {
                let p: lt::DocumentFormattingParams = parse(params)?;
                self.file(&p.text_document.uri)
                    .map_or(Value::Null, |(a, file)| {
                        to_value(actions::format(a, file, enc))
                    })
            }
            "textDocument/codeAction" => {
                let p: lt::CodeActionParams = parse(params)?;
                let uri = p.text_document.uri.as_str().to_string();
                let versions = self.versions();
                match self.file(&p.text_document.uri) {
                    Some((a, file)) => {
                        let range = a.offsets(file, p.range, enc);
                        to_value(actions::code_actions(a, file, range, &uri, &versions, enc))
                    }
                    None => Value::Null,
                }
            }
            // How the tests reach the recovery from a bug in a handler.
            #[cfg(test)]
            "fsmc/test/panic" => panic!("a handler failed"),
            _ => return Err(Failure::NoMethod),
        })
    }

    fn notification(&mut self, n: Notification) {
        match (self.lifecycle, n.method.as_str()) {
            (_, "exit") => {
                let code = if self.lifecycle == Lifecycle::ShutDown {
                    0
                } else {
                    1
                };
                self.lifecycle = Lifecycle::Exited(code);
            }
            (Lifecycle::Running, "textDocument/didOpen") => {
                if let Ok(p) = parse::<lt::DidOpenTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri.as_str().to_string();
                    if let Some(path) = doc_path(&uri) {
                        self.overlay.insert(&path, p.text_document.text);
                        let version = p.text_document.version;
                        self.docs.insert(path, Doc { uri, version });
                        self.changed();
                    }
                }
            }
            (Lifecycle::Running, "textDocument/didChange") => {
                if let Ok(p) = parse::<lt::DidChangeTextDocumentParams>(n.params) {
                    self.change(p);
                }
            }
            (Lifecycle::Running, "textDocument/didClose") => {
                if let Ok(p) = parse::<lt::DidCloseTextDocumentParams>(n.params)
                    && let Some(path) = doc_path(p.text_document.uri.as_str())
                {
                    self.docs.remove(&path);
                    self.overlay.remove(&path);
                    self.changed();
                }
            }
            // A file changed on disk (saved, or edited by another program): imports read from disk may differ.
            (Lifecycle::Running, "textDocument/didSave" | "workspace/didChangeWatchedFiles") => {
                self.changed()
            }
            // `initialized`, `$/cancelRequest` (requests are answered at once), settings, anything else.
            _ => {}
        }
    }

    fn initialize(&mut self, params: &Value) -> Value {
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

    fn change(&mut self, p: lt::DidChangeTextDocumentParams) {
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

    fn changed(&mut self) {
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
        self.analysis.get_or_insert_with(|| Analysis::new(empty()))
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
        self.workspace.get_or_insert_with(|| Analysis::new(empty()))
    }

    /// The analysis, the file and the byte offset a document position names.
    fn at(&mut self, uri: &lt::Uri, pos: lt::Position) -> Option<(&Analysis, FileId, usize)> {
        let enc = self.encoding;
        let (a, file) = self.file(uri)?;
        let offset = a.offset(file, pos, enc);
        Some((a, file, offset))
    }

    fn workspace_at(
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

    fn file(&mut self, uri: &lt::Uri) -> Option<(&Analysis, FileId)> {
        let path = doc_path(uri.as_str())?;
        let a = self.analysis();
        let file = a.file_of(&path)?;
        Some((a, file))
    }

    /// The version of each open document, by path (edits to open documents name the version they apply to).
    fn versions(&self) -> BTreeMap<PathBuf, (String, i32)> {
        self.docs
            .iter()
            .map(|(p, d)| (p.clone(), (d.uri.clone(), d.version)))
            .collect()
    }

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

/// A compilation with what the features need to read it: each file's path and line index, and the index of
/// every name.
pub struct Analysis {
    pub compilation: Compilation,
    paths: Vec<PathBuf>,
    lines: Vec<LineIndex>,
    by_path: BTreeMap<PathBuf, FileId>,
    index: Index,
}

impl Analysis {
    fn new(compilation: Compilation) -> Analysis {
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

    fn file_of(&self, path: &Path) -> Option<FileId> {
        self.by_path
            .get(&fsmc_driver::loader::normalize(
                &fsmc_driver::loader::absolute(path),
            ))
            .copied()
    }

    fn path(&self, file: FileId) -> Option<&Path> {
        self.paths.get(file.0 as usize).map(PathBuf::as_path)
    }

    fn uri(&self, file: FileId) -> Option<lt::Uri> {
        self.path(file)
            .and_then(|p| text::path_to_uri(p).parse().ok())
    }

    fn text(&self, file: FileId) -> &str {
        self.compilation
            .sources
            .get(file)
            .map_or("", |f| f.text.as_str())
    }

    fn range(&self, span: Span, enc: Encoding) -> lt::Range {
        match self.lines.get(span.file.0 as usize) {
            Some(lines) => lines.range(self.text(span.file), span.range(), enc),
            None => lt::Range::default(),
        }
    }

    fn location(&self, span: Span, enc: Encoding) -> Option<lt::Location> {
        Some(lt::Location::new(
            self.uri(span.file)?,
            self.range(span, enc),
        ))
    }

    fn offset(&self, file: FileId, pos: lt::Position, enc: Encoding) -> usize {
        self.lines
            .get(file.0 as usize)
            .map_or(0, |l| l.offset(self.text(file), pos, enc))
    }

    fn offsets(&self, file: FileId, range: lt::Range, enc: Encoding) -> std::ops::Range<usize> {
        let a = self.offset(file, range.start, enc);
        let b = self.offset(file, range.end, enc);
        a.min(b)..a.max(b)
    }

    /// A diagnostic as the protocol carries it: the message with the primary label, help and notes below it (as
    /// `fsmc check` prints them), secondary labels as related information.
    fn diagnostic(&self, d: &Diagnostic, enc: Encoding) -> lt::Diagnostic {
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
fn empty() -> Compilation {
    Compilation {
        sources: Default::default(),
        diagnostics: Vec::new(),
        checked: None,
        spec: None,
        files_read: Vec::new(),
        units: Vec::new(),
    }
}

/// Why a request was not answered with a result.
enum Failure {
    NoMethod,
    Params(String),
    /// The request is well formed but cannot be done (a rename to something that is not a name).
    Refused(String),
}

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, Failure> {
    serde_json::from_value(params).map_err(|e| Failure::Params(e.to_string()))
}

fn to_value(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The path of a document the server compiles: a `file:` URI.
fn doc_path(uri: &str) -> Option<PathBuf> {
    text::uri_to_path(uri).map(|p| fsmc_driver::loader::normalize(&p))
}

fn id_value(id: &RequestId) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

fn ok_reply(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn error_reply(id: Value, code: ErrorCode, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code as i32, "message": message },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(server: &mut Server, id: i32, method: &str, params: Value) -> Value {
        let r = Request::new(RequestId::from(id), method.to_string(), params);
        server
            .handle_frame(transport::Frame::Message(Message::Request(r)))
            .remove(0)
    }

    #[test]
    fn a_failing_handler_is_answered_with_an_error_and_the_server_goes_on() {
        let mut server = Server::new();
        let init = request(&mut server, 1, "initialize", json!({ "capabilities": {} }));
        assert!(init.get("result").is_some(), "{init}");
        let uri = "file:///nowhere/a.fsm";
        let open = Notification::new(
            "textDocument/didOpen".to_string(),
            json!({ "textDocument": { "uri": uri, "languageId": "fsm", "version": 1, "text": "machine M { state A; }" } }),
        );
        server.handle_frame(transport::Frame::Message(Message::Notification(open)));
        let reply = request(&mut server, 2, "fsmc/test/panic", Value::Null);
        assert_eq!(reply["id"], 2);
        assert_eq!(reply["error"]["code"], ErrorCode::InternalError as i32);
        // The documents are kept and everything else still answers.
        let symbols = request(
            &mut server,
            3,
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": uri } }),
        );
        assert_eq!(symbols["result"][0]["name"], "M", "{symbols}");
        assert!(!server.publish_diagnostics().is_empty());
    }
}
