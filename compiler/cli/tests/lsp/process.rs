//! The `fsmc lsp` process, driven over its standard input and output by a scripted client, as an editor drives
//! it: its lifecycle and exit codes, frames the transport must survive, and an edit's round trip. Every wait is
//! bounded and the process is killed when a test ends, passing or not.

use crate::fixture::uri;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};

use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails (generous: CI machines are slow and shared).
const TIMEOUT: Duration = Duration::from_secs(30);

/// A running server and the client's side of the conversation.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `Content-Length` frames until the stream ends.
fn read_frames(out: impl Read, tx: std::sync::mpsc::Sender<Value>) {
    let mut r = BufReader::new(out);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                length = v.parse::<usize>().ok();
            }
        }
        let Some(length) = length else { return };
        let mut body = vec![0; length];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let value: Value = serde_json::from_slice(&body).expect("the server writes JSON");
        if tx.send(value).is_err() {
            return;
        }
    }
}

impl Client {
    fn spawn() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fsmc starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || read_frames(stdout, tx));
        Client {
            stdin: child.stdin.take(),
            child,
            rx,
            next_id: 1,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn recv(&mut self, what: &str) -> Value {
        match self.rx.recv_timeout(TIMEOUT) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no answer within {TIMEOUT:?} while waiting for {what}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server exited while waiting for {what}")
            }
        }
    }

    /// Waits for the message `accept` takes, skipping the others.
    fn recv_where(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.recv(what);
            if accept(&v) {
                return v;
            }
        }
    }

    /// Sends a request and returns its response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.recv_where(method, |v| v["id"] == id)
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The process's exit code once its input is closed.
    fn exit_code(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn initialize_shutdown_and_exit_end_the_process_with_zero() {
    let mut c = Client::spawn();
    let init = c.request(
        "initialize",
        json!({ "processId": null, "capabilities": {} }),
    );
    assert_eq!(
        init["result"]["capabilities"]["hoverProvider"], true,
        "{init}"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "fsmc");
    c.notify("initialized", json!({}));
    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), Some(0));
}

#[test]
fn the_input_ending_without_exit_ends_the_process_with_an_error() {
    assert_eq!(Client::spawn().exit_code(), Some(1));
}

#[test]
fn malformed_frames_are_answered_and_the_next_one_is_read() {
    let mut c = Client::spawn();
    c.request("initialize", json!({ "capabilities": {} }));
    // Not JSON; a header without a length.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    assert_eq!(c.recv("a parse error")["error"]["code"], -32700);
    c.send_raw(b"X-Nothing: 1\r\n\r\n");
    assert_eq!(c.recv("no length")["error"]["code"], -32700);
    // A frame larger than the server reads is skipped and refused; the next one is read.
    let big = format!("Content-Length: {}\r\n\r\n", 70 * 1024 * 1024);
    c.send_raw(big.as_bytes());
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..70 {
        c.send_raw(&chunk);
    }
    assert_eq!(c.recv("too large")["error"]["code"], -32700);
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("result").is_some(), "{r}");
}

#[test]
fn a_content_length_too_short_does_not_desynchronise_the_server() {
    let mut c = Client::spawn();
    c.request("initialize", json!({ "capabilities": {} }));
    // Seven bytes short: the rest of the body comes before the next header.
    let body = json!({ "jsonrpc": "2.0", "id": 100, "method": "shutdown" }).to_string();
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() - 7).as_bytes());
    assert_eq!(c.recv("a parse error")["error"]["code"], -32700);
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("result").is_some(), "{r}");
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), Some(0));
}

#[test]
fn an_edit_is_answered_with_its_diagnostics() {
    let dir = fsmc_testkit::scratch("lsp-process");
    let root = dir.path().canonicalize().expect("the scratch directory");
    let text = "machine Door {\n    event OPEN;\n    start default state Closed;\n    final state Opened;\n    (Closed, OPEN) -> Opened;\n}\n";
    let path = fsmc_testkit::write(&root, "door.fsm", text);
    let doc = uri(&path);
    let mut c = Client::spawn();
    c.request(
        "initialize",
        json!({ "capabilities": {}, "workspaceFolders": [{ "uri": uri(&root), "name": "ws" }] }),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": doc, "languageId": "fsm", "version": 1, "text": text } }),
    );
    let diagnostics = |c: &mut Client, version: i32| {
        let n = c.recv_where("diagnostics", |v| {
            v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == doc.as_str()
                && v["params"]["version"] == version
        });
        n["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(diagnostics(&mut c, 1), Vec::<Value>::new());
    // An incremental edit: `Opened` becomes `Openedd` in the transition.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": doc, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": 4, "character": 28 }, "end": { "line": 4, "character": 28 } }, "text": "d" }],
        }),
    );
    let d = diagnostics(&mut c, 2);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "E0104");
    assert_eq!(
        d[0]["range"],
        json!({ "start": { "line": 4, "character": 22 }, "end": { "line": 4, "character": 29 } })
    );
    let hover = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": doc }, "position": { "line": 2, "character": 25 } }),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("state Closed")),
        "{hover}"
    );
    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), Some(0));
}
