//! `fsmc lsp`: the language server, a front end like the command line.
//!
//! It keeps the documents the editor has open in memory and compiles them through the ordinary driver, with a
//! loader [`Overlay`] so that unsaved text stands in for the files on disk: the diagnostics are those of
//! `fsmc check` (codes, spans, help), across imports, Open Autonomy YAML included. Navigation (hover, definition,
//! references, rename), completion, the outline and semantic tokens read the syntax trees of the same
//! compilation through an [`index::Index`] of every name; formatting is [`crate::fmt`]. The spec fingerprint of
//! each `abci` machine and app ([`fingerprint`]) is a line of its hover and a code lens above it.
//!
//! Built on lsp-server's message types and lsp-types (the synchronous pair rust-analyzer uses: no async runtime,
//! and a compilation of a thousand-state spec takes milliseconds, so requests are simply answered in order).
//! Messages are read on a thread of their own ([`transport`], which survives malformed frames); the main loop
//! takes every message waiting, answers each, and publishes diagnostics once after the batch, so a burst of
//! keystrokes costs one compilation. [`Server`] itself does no IO: it maps messages in to messages out, which is
//! how the benchmark drives it.

mod actions;
mod analysis;
mod complete;
mod dispatch;
mod fingerprint;
mod index;
mod nav;
mod outline;
mod publish;
mod session;
mod text;
pub mod transport;

pub use analysis::Analysis;
use fsmc_driver::loader::Overlay;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use lsp_types as lt;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use text::Encoding;

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
