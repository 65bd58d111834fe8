//! `fsmc lsp`, driven over its standard input and output by a scripted JSON-RPC client, as an editor drives it:
//! diagnostics as the text changes (across imports, Open Autonomy YAML included), hover, definition,
//! references, rename, completion, outline, formatting, semantic tokens and code actions; and robustness:
//! malformed frames and requests, broken files, positions outside the text. Every wait is bounded and the
//! server process is killed when a test ends, passing or not.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails (generous: CI machines are slow and shared).
const TIMEOUT: Duration = Duration::from_secs(30);

/// A running server and the client's side of the conversation.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else, oldest first.
    notifications: Vec<Value>,
}

impl Drop for Server {
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

impl Server {
    /// Starts the server and initializes it with `root` as the workspace folder.
    fn start(root: &Path) -> Server {
        let mut s = Server::spawn();
        let init = s.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "workspaceFolders": [{ "uri": uri(root), "name": "ws" }],
                "capabilities": {},
            }),
        );
        assert!(
            init["result"]["capabilities"]["hoverProvider"]
                .as_bool()
                .unwrap_or(false),
            "{init}"
        );
        s.notify("initialized", json!({}));
        s
    }

    fn spawn() -> Server {
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
        Server {
            stdin: child.stdin.take(),
            child,
            rx,
            next_id: 1,
            notifications: Vec::new(),
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

    /// Sends a request and returns the whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(json!(id), method)
    }

    /// Waits for the response with `id`, keeping the notifications that come first.
    fn response(&mut self, id: Value, what: &str) -> Value {
        loop {
            let v = self.recv(what);
            if v.get("method").is_some() && v.get("id").is_none() {
                self.notifications.push(v);
            } else if v["id"] == id {
                return v;
            }
        }
    }

    /// The result of a request that must succeed.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "fsm", "version": 1, "text": text } }),
        );
    }

    fn change(&mut self, path: &Path, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri(path), "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    /// The next diagnostics published for `path` that satisfy `accept`.
    fn diagnostics_where(&mut self, path: &Path, accept: impl Fn(&Value) -> bool) -> Vec<Value> {
        let want = uri(path);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let pos = self.notifications.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics"
                    && n["params"]["uri"] == want.as_str()
                    && accept(n)
            });
            if let Some(i) = pos {
                let n = self.notifications.remove(i);
                return n["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
            assert!(Instant::now() < deadline, "no diagnostics for {want}");
            let v = self.recv("diagnostics");
            self.notifications.push(v);
        }
    }

    fn diagnostics(&mut self, path: &Path) -> Vec<Value> {
        self.diagnostics_where(path, |_| true)
    }

    /// Shuts down and exits; the process must end with code 0.
    fn shutdown(mut self) {
        assert_eq!(self.call("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert_eq!(status.code(), Some(0));
                return;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The position of the `nth` occurrence of `needle` in `text`, plus `plus` characters (ASCII texts only).
fn pos(text: &str, needle: &str, nth: usize, plus: usize) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} in the text"))
        .0
        + plus;
    let line = text[..at].matches('\n').count();
    let character = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": character })
}

fn at(path: &Path, text: &str, needle: &str, nth: usize, plus: usize) -> Value {
    json!({ "textDocument": { "uri": uri(path) }, "position": pos(text, needle, nth, plus) })
}

/// A scratch workspace, removed on drop.
struct Workspace(PathBuf);

impl Workspace {
    fn new(name: &str) -> Workspace {
        let dir = std::env::temp_dir().join(format!("fsmc-lsp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        // Real paths: the server names files by them.
        Workspace(dir.canonicalize().expect("real path"))
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const REGISTRATION: &str = "alphabet_in:
- DONE
- NO_MAJORITY
default_start_state: RegistrationRound
final_states:
- FinishedRegistrationRound
label: AgentRegistrationAbciApp
start_states:
- RegistrationRound
states:
- FinishedRegistrationRound
- RegistrationRound
transition_func:
    (RegistrationRound, DONE): FinishedRegistrationRound
    (RegistrationRound, NO_MAJORITY): RegistrationRound
";

const PRICE: &str = "/// Agrees on a price.
machine PriceAbciApp: abci {
    event DONE, NO_MAJORITY;
    /// The round took too long.
    event ROUND_TIMEOUT timeout 30s;
    cross_period key price: u64;

    /// Collects one price from each agent.
    start default state CollectPriceRound: collect_same_until_threshold {
        payload \"u64\";
        writes price;
    }
    final state FinishedPriceRound: degenerate { ensures price; }

    (CollectPriceRound, DONE) -> FinishedPriceRound;
    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
}
";

const MAIN: &str = "import \"price.fsm\";
import \"registration/fsm_specification.yaml\" as Registration;

/// The oracle.
app OracleAbciApp {
    chain Registration, PriceAbciApp;
    FinishedRegistrationRound -> CollectPriceRound;
}
";

/// The oracle workspace: an app in `main.fsm` chaining a YAML machine and an `.fsm` one.
fn oracle(name: &str) -> (Workspace, PathBuf, PathBuf, PathBuf) {
    let ws = Workspace::new(name);
    let yaml = ws.write("registration/fsm_specification.yaml", REGISTRATION);
    let price = ws.write("price.fsm", PRICE);
    let main = ws.write("main.fsm", MAIN);
    (ws, main, price, yaml)
}

fn codes(diags: &[Value]) -> Vec<&str> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or(""))
        .collect()
}

#[test]
fn diagnostics_follow_the_text_across_imports_and_yaml() {
    let (ws, main, price, yaml) = oracle("diagnostics");
    let mut s = Server::start(&ws.0);
    s.open(&main, MAIN);
    assert_eq!(
        s.diagnostics(&main),
        Vec::<Value>::new(),
        "the workspace checks clean"
    );
    // A typo in an unsaved buffer of the imported file: reported there, with the checker's help.
    let typo = PRICE.replace(
        "NO_MAJORITY) -> CollectPriceRound",
        "NO_MAJORITY) -> CollectPrizeRound",
    );
    s.open(&price, &typo);
    let d = s.diagnostics_where(&price, |n| {
        !n["params"]["diagnostics"].as_array().unwrap().is_empty()
    });
    // The typo; the app in `main.fsm` also reports the composed machine's consequence of it (as `fsmc check` does).
    let d: Vec<Value> = d.into_iter().filter(|x| x["code"] == "E0104").collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0]["range"]["start"],
        pos(&typo, "CollectPrizeRound", 0, 0)
    );
    assert_eq!(d[0]["range"]["end"], pos(&typo, "CollectPrizeRound", 0, 17));
    assert_eq!(d[0]["severity"], 1);
    let message = d[0]["message"].as_str().unwrap();
    assert!(
        message.contains("unknown state `CollectPrizeRound`"),
        "{message}"
    );
    assert!(
        message.contains("help: did you mean `CollectPriceRound`?"),
        "{message}"
    );
    // Fixed as typed: the list is cleared, for the new version.
    s.change(&price, 2, PRICE);
    let d = s.diagnostics_where(&price, |n| n["params"]["version"] == 2);
    assert!(d.is_empty(), "{d:?}");
    // The imported YAML changes on disk (no editor has it open): its problem is published under its own name.
    std::fs::write(
        &yaml,
        REGISTRATION.replace(
            "): FinishedRegistrationRound",
            "): FinishedRegistrationRond",
        ),
    )
    .unwrap();
    s.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&yaml), "type": 2 }] }),
    );
    let d = s.diagnostics_where(&yaml, |n| {
        !n["params"]["diagnostics"].as_array().unwrap().is_empty()
    });
    assert!(codes(&d).contains(&"E0104"), "{d:?}");
    assert!(d.iter().any(|x| {
        x["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `FinishedRegistrationRound`?")
    }));
    // Fixed on disk: its list is cleared.
    std::fs::write(&yaml, REGISTRATION).unwrap();
    s.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&yaml), "type": 2 }] }),
    );
    let d = s.diagnostics_where(&yaml, |_| true);
    assert!(d.is_empty(), "{d:?}");
    s.shutdown();
}

#[test]
fn diagnostics_are_those_of_fsmc_check() {
    let ws = Workspace::new("same-as-check");
    let text = "machine M: abci {\n    event DONE, NO_MAJORITY, GO;\n    key unused: u64;\n    \
                start default state A: collect_same_until_threshold;\n    state B: votin;\n    \
                final state C;\n    (A, DONE) -> C;\n    (B, DONE) -> Cc;\n}\n";
    let path = ws.write("m.fsm", text);
    let mut s = Server::start(&ws.0);
    s.open(&path, text);
    let got = s.diagnostics(&path);
    let c = fsmc_driver::compile(&path, &fsmc_driver::Options::default()).expect("readable");
    assert!(c.diagnostics.len() >= 3, "{:?}", c.diagnostics);
    let file = c.sources.get(fsmc_base::source::FileId(0)).unwrap();
    let want: Vec<(String, Value, String)> = c
        .diagnostics
        .iter()
        .map(|d| {
            let span = d.primary.as_ref().unwrap().span;
            let (l, col) = file.line_col(span.start as usize);
            let sev = if d.is_error() { "1" } else { "2" };
            (
                d.code.id().to_string(),
                json!({ "line": l - 1, "character": col - 1 }),
                format!("{sev} {}", d.help.clone().unwrap_or_default()),
            )
        })
        .collect();
    let got: Vec<(String, Value, String)> = got
        .iter()
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            let help = message
                .split("\nhelp: ")
                .nth(1)
                .map_or("", |h| h.split('\n').next().unwrap_or(""));
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"].clone(),
                format!("{} {help}", d["severity"]),
            )
        })
        .collect();
    assert_eq!(got, want);
    s.shutdown();
}

#[test]
fn hover_shows_docs_kinds_transitions_keys_and_timeouts() {
    let (ws, main, price, _) = oracle("hover");
    let mut s = Server::start(&ws.0);
    s.open(&price, PRICE);
    s.diagnostics(&price);
    let h = s.call(
        "textDocument/hover",
        at(&price, PRICE, "CollectPriceRound", 1, 3),
    );
    let value = h["contents"]["value"].as_str().unwrap();
    for want in [
        "start default state CollectPriceRound: collect_same_until_threshold",
        "Collects one price from each agent.",
        "A `collect_same_until_threshold` round of machine `PriceAbciApp`",
        "**In** (2)",
        "**Out** (3)",
        "`DONE -> FinishedPriceRound`",
        "**Writes**: `price`",
    ] {
        assert!(value.contains(want), "missing `{want}` in:\n{value}");
    }
    assert_eq!(h["range"]["start"], pos(PRICE, "CollectPriceRound", 1, 0));
    let h = s.call(
        "textDocument/hover",
        at(&price, PRICE, "ROUND_TIMEOUT", 1, 0),
    );
    let value = h["contents"]["value"].as_str().unwrap();
    assert!(value.contains("event ROUND_TIMEOUT timeout 30s"), "{value}");
    assert!(value.contains("The round took too long."), "{value}");
    assert!(value.contains("fires after **30s**"), "{value}");
    let h = s.call("textDocument/hover", at(&price, PRICE, "price", 1, 0));
    let value = h["contents"]["value"].as_str().unwrap();
    assert!(value.contains("cross_period key price: u64"), "{value}");
    assert!(
        value.contains("**Written by**: `CollectPriceRound`"),
        "{value}"
    );
    assert!(
        value.contains("**Ensured by**: `FinishedPriceRound`"),
        "{value}"
    );
    // A state of the YAML machine, hovered in the app that maps it.
    s.open(&main, MAIN);
    let h = s.call(
        "textDocument/hover",
        at(&main, MAIN, "FinishedRegistrationRound", 0, 0),
    );
    let value = h["contents"]["value"].as_str().unwrap();
    assert!(
        value.contains("final state FinishedRegistrationRound"),
        "{value}"
    );
    assert!(value.contains("`(RegistrationRound, DONE)`"), "{value}");
    // Nothing to say about a keyword or a blank.
    assert_eq!(
        s.call("textDocument/hover", at(&price, PRICE, "machine", 0, 1)),
        Value::Null
    );
    s.shutdown();
}

#[test]
fn definition_and_references_cross_files() {
    let (ws, main, price, yaml) = oracle("navigation");
    let mut s = Server::start(&ws.0);
    s.open(&main, MAIN);
    // A state of the imported `.fsm` machine, from the app's mapping.
    let d = s.call(
        "textDocument/definition",
        at(&main, MAIN, "CollectPriceRound", 0, 2),
    );
    assert_eq!(d["uri"], uri(&price));
    assert_eq!(d["range"]["start"], pos(PRICE, "CollectPriceRound", 0, 0));
    // A state of the imported YAML machine.
    let d = s.call(
        "textDocument/definition",
        at(&main, MAIN, "FinishedRegistrationRound", 0, 0),
    );
    assert_eq!(d["uri"], uri(&yaml));
    assert_eq!(
        d["range"]["start"],
        pos(REGISTRATION, "- FinishedRegistrationRound", 1, 2)
    );
    // A machine (through the import's alias) and an import's path.
    let d = s.call(
        "textDocument/definition",
        at(&main, MAIN, "PriceAbciApp", 0, 0),
    );
    assert_eq!(
        (d["uri"].clone(), d["range"]["start"].clone()),
        (json!(uri(&price)), pos(PRICE, "PriceAbciApp", 0, 0))
    );
    let d = s.call(
        "textDocument/definition",
        at(&main, MAIN, "Registration,", 0, 1),
    );
    assert_eq!(d["uri"], uri(&yaml));
    let d = s.call(
        "textDocument/definition",
        at(&main, MAIN, "price.fsm", 0, 1),
    );
    assert_eq!(d["uri"], uri(&price));
    // An event, within its file.
    s.open(&price, PRICE);
    let d = s.call(
        "textDocument/definition",
        at(&price, PRICE, "NO_MAJORITY", 1, 0),
    );
    assert_eq!(d["range"]["start"], pos(PRICE, "NO_MAJORITY", 0, 0));
    // References of a state: its declaration, its five uses in transitions and the app's mapping in the other
    // file.
    let mut params = at(&price, PRICE, "CollectPriceRound", 0, 0);
    params["context"] = json!({ "includeDeclaration": true });
    let refs = s.call("textDocument/references", params.clone());
    let refs = refs.as_array().unwrap();
    let in_price = refs.iter().filter(|r| r["uri"] == uri(&price)).count();
    let in_main = refs.iter().filter(|r| r["uri"] == uri(&main)).count();
    assert_eq!((in_price, in_main), (6, 1), "{refs:?}");
    params["context"] = json!({ "includeDeclaration": false });
    assert_eq!(
        s.call("textDocument/references", params)
            .as_array()
            .unwrap()
            .len(),
        6
    );
    // Of a key: declared, written and ensured.
    let mut params = at(&price, PRICE, "price", 1, 0);
    params["context"] = json!({ "includeDeclaration": true });
    assert_eq!(
        s.call("textDocument/references", params)
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // Of a machine: its declaration and the app's chain.
    let mut params = at(&main, MAIN, "PriceAbciApp", 0, 0);
    params["context"] = json!({ "includeDeclaration": true });
    let refs = s.call("textDocument/references", params);
    assert_eq!(refs.as_array().unwrap().len(), 2, "{refs}");
    s.shutdown();
}

/// Applies a workspace edit's edits for one file (sorted, as the server sends them) to its text.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        text.split_inclusive('\n')
            .take(line)
            .map(str::len)
            .sum::<usize>()
            + ch
    };
    let mut out = text.to_string();
    let mut edits: Vec<&Value> = edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    for e in edits {
        let (a, b) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        out.replace_range(a..b, e["newText"].as_str().unwrap());
    }
    out
}

fn edits_for<'v>(edit: &'v Value, path: &Path) -> &'v [Value] {
    edit["documentChanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["textDocument"]["uri"] == uri(path))
        .map_or(&[], |c| c["edits"].as_array().unwrap().as_slice())
}

#[test]
fn rename_states_events_and_keys_across_files() {
    let (ws, main, price, _) = oracle("rename");
    let mut s = Server::start(&ws.0);
    s.open(&price, PRICE);
    s.diagnostics(&price);
    let p = s.call(
        "textDocument/prepareRename",
        at(&price, PRICE, "CollectPriceRound", 2, 0),
    );
    assert_eq!(p["placeholder"], "CollectPriceRound");
    // A state: in its file (an open document, with its version) and in the app that maps it (on disk).
    let mut params = at(&price, PRICE, "CollectPriceRound", 2, 0);
    params["newName"] = json!("GatherPriceRound");
    let edit = s.call("textDocument/rename", params);
    let price_doc = edit["documentChanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["textDocument"]["uri"] == uri(&price))
        .unwrap();
    assert_eq!(price_doc["textDocument"]["version"], 1);
    let renamed = apply(PRICE, edits_for(&edit, &price));
    assert_eq!(
        renamed,
        PRICE.replace("CollectPriceRound", "GatherPriceRound")
    );
    assert_eq!(
        apply(MAIN, edits_for(&edit, &main)),
        MAIN.replace("CollectPriceRound", "GatherPriceRound")
    );
    // The result still checks clean.
    let check = ws.write("price.fsm", &renamed);
    ws.write("main.fsm", &apply(MAIN, edits_for(&edit, &main)));
    let c = fsmc_driver::compile(&main, &fsmc_driver::Options::default()).unwrap();
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    std::fs::write(&check, PRICE).unwrap();
    std::fs::write(&main, MAIN).unwrap();
    s.notify("workspace/didChangeWatchedFiles", json!({ "changes": [] }));
    // An event and a key.
    let mut params = at(&price, PRICE, "ROUND_TIMEOUT", 0, 0);
    params["newName"] = json!("SLOW");
    let edit = s.call("textDocument/rename", params);
    assert_eq!(
        apply(PRICE, edits_for(&edit, &price)),
        PRICE.replace("ROUND_TIMEOUT", "SLOW")
    );
    let mut params = at(&price, PRICE, "price;", 0, 0);
    params["newName"] = json!("value");
    let edit = s.call("textDocument/rename", params);
    assert_eq!(
        apply(PRICE, edits_for(&edit, &price)),
        PRICE
            .replace("key price", "key value")
            .replace("writes price", "writes value")
            .replace("ensures price", "ensures value")
    );
    // Refused, with a reason: not a name, a name taken, a round outcome's conventional event, a machine.
    for (needle, nth, new, why) in [
        ("CollectPriceRound", 1, "1abc", "is not a name"),
        (
            "CollectPriceRound",
            1,
            "FinishedPriceRound",
            "already has a state",
        ),
        ("NO_MAJORITY", 0, "SPLIT", "by convention"),
        ("PriceAbciApp", 0, "Other", "only states, events and keys"),
    ] {
        let mut params = at(&price, PRICE, needle, nth, 0);
        params["newName"] = json!(new);
        let r = s.request("textDocument/rename", params);
        let message = r["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{r}"));
        assert!(message.contains(why), "{message}");
    }
    s.shutdown();
}

/// The labels of a completion answer.
fn labels(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["label"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn completion_offers_what_may_be_written_there() {
    let ws = Workspace::new("completion");
    let yaml = ws.write("registration/fsm_specification.yaml", REGISTRATION);
    let _ = yaml;
    let price = ws.write("price.fsm", PRICE);
    let mut s = Server::start(&ws.0);
    s.open(&price, PRICE);
    s.diagnostics(&price);
    // Each case: text inserted before the machine's closing `}`, and what must (and must not) be offered.
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "    (",
            &["CollectPriceRound", "FinishedPriceRound"],
            &["DONE", "price"],
        ),
        (
            "    (CollectPriceRound, ",
            &["DONE", "NO_MAJORITY", "ROUND_TIMEOUT"],
            &["CollectPriceRound"],
        ),
        (
            "    (CollectPriceRound, DONE) -> Fin",
            &["FinishedPriceRound"],
            &["DONE"],
        ),
        (
            "    (CollectPriceRound, DONE) -> FinishedPriceRound ",
            &["if", "do", "persist"],
            &["DONE"],
        ),
        (
            "    state Voting: ",
            &["voting", "collect_same_until_all", "only_keeper_sends"],
            &["user"],
        ),
        (
            "    state Voting { ",
            &["reads", "writes", "payload", "done", "reset"],
            &["template", "acting"],
        ),
        ("    state Voting { reads price, ", &["price"], &["DONE"]),
        (
            "    state Voting { no_majority = ",
            &["DONE", "NO_MAJORITY"],
            &["price"],
        ),
        (
            "    ",
            &["event", "key", "state", "start", "label"],
            &["reads", "DONE"],
        ),
        ("    start ", &["default", "final", "state"], &["start"]),
    ];
    let mut version = 1;
    for (insert, want, not) in cases {
        let text = PRICE.replacen("\n}\n", &format!("\n{insert}\n}}\n"), 1);
        version += 1;
        s.change(&price, version, &text);
        let end = pos(&text, insert, 0, insert.len());
        let got = labels(&s.call(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri(&price) }, "position": end }),
        ));
        for w in *want {
            assert!(
                got.iter().any(|g| g == w),
                "`{insert}`: `{w}` not offered in {got:?}"
            );
        }
        for n in *not {
            assert!(
                !got.iter().any(|g| g == n),
                "`{insert}`: `{n}` offered in {got:?}"
            );
        }
    }
    // In an app: machines in the chain, then states (qualified ones after `::`).
    let app = "import \"price.fsm\";\nimport \"registration/fsm_specification.yaml\" as Registration;\n\
               app A {\n    chain \n}\n";
    let main = ws.write("main.fsm", app);
    s.open(&main, app);
    let got = labels(&s.call("textDocument/completion", at(&main, app, "chain ", 0, 6)));
    assert_eq!(got, ["PriceAbciApp", "Registration"]);
    let app2 = app.replace(
        "chain \n",
        "chain Registration, PriceAbciApp;\n    Registration::",
    );
    s.change(&main, 2, &app2);
    let got = labels(&s.call(
        "textDocument/completion",
        at(&main, &app2, "Registration::", 0, 14),
    ));
    assert_eq!(got, ["FinishedRegistrationRound", "RegistrationRound"]);
    // A top-level and an attribute.
    let top = "#![allow(\nmachine M {}\n";
    s.change(&main, 3, top);
    let got = labels(&s.call("textDocument/completion", at(&main, top, "(", 0, 1)));
    assert!(got.iter().any(|g| g == "unused_key"), "{got:?}");
    // Nothing inside a comment or a string.
    let commented = PRICE.replace("/// Agrees", "// (Agrees");
    s.change(&price, 99, &commented);
    let got = s.call(
        "textDocument/completion",
        at(&price, &commented, "(Agrees", 0, 1),
    );
    assert_eq!(labels(&got), Vec::<String>::new());
    s.shutdown();
}

#[test]
fn outline_formatting_and_semantic_tokens() {
    let (ws, main, price, _) = oracle("outline");
    let mut s = Server::start(&ws.0);
    s.open(&price, PRICE);
    let symbols = s.call(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri(&price) } }),
    );
    let machine = &symbols[0];
    assert_eq!(
        (machine["name"].as_str(), machine["detail"].as_str()),
        (Some("PriceAbciApp"), Some("abci"))
    );
    let children: Vec<&str> = machine["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        children,
        [
            "DONE",
            "NO_MAJORITY",
            "ROUND_TIMEOUT",
            "price",
            "CollectPriceRound",
            "FinishedPriceRound"
        ]
    );
    s.open(&main, MAIN);
    let symbols = s.call(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri(&main) } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "price.fsm",
            "registration/fsm_specification.yaml",
            "OracleAbciApp"
        ]
    );
    // Formatting: the edits turn the buffer into what `fsmc fmt` writes.
    let messy = "machine  M{event A;start default state S{reads k;}key k:u64;\n\n\n(S,A)->S;}";
    s.change(&main, 2, messy);
    let edits = s.call("textDocument/formatting", json!({ "textDocument": { "uri": uri(&main) }, "options": { "tabSize": 4, "insertSpaces": true } }));
    let formatted = apply(messy, edits.as_array().unwrap());
    assert_eq!(
        formatted,
        fsmc::fmt::format(fsmc_base::source::FileId(0), messy).unwrap()
    );
    s.change(&main, 3, &formatted);
    let edits = s.call("textDocument/formatting", json!({ "textDocument": { "uri": uri(&main) }, "options": { "tabSize": 4, "insertSpaces": true } }));
    assert_eq!(edits, json!([]));
    // A broken file is not formatted.
    s.change(&main, 4, "machine M { state");
    let edits = s.call("textDocument/formatting", json!({ "textDocument": { "uri": uri(&main) }, "options": { "tabSize": 4, "insertSpaces": true } }));
    assert_eq!(edits, Value::Null);
    // Semantic tokens: decoded, a state is coloured as an enum member wherever it is written.
    let tokens = s.call(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri(&price) } }),
    );
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data.len() % 5, 0);
    let legend = [
        "keyword",
        "class",
        "enumMember",
        "event",
        "property",
        "namespace",
        "decorator",
        "enum",
        "type",
        "function",
        "parameter",
        "variable",
        "string",
        "number",
        "comment",
        "macro",
    ];
    let (mut line, mut col) = (0u64, 0u64);
    let mut decoded = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        let text_line = PRICE.lines().nth(line as usize).unwrap();
        let word = &text_line[col as usize..(col + t[2]) as usize];
        decoded.push((word.to_string(), legend[t[3] as usize], t[4]));
    }
    let find = |w: &str| {
        decoded
            .iter()
            .filter(|d| d.0 == w)
            .map(|d| (d.1, d.2))
            .collect::<Vec<_>>()
    };
    let uses = [("enumMember", 0); 5];
    assert_eq!(
        find("CollectPriceRound"),
        [&[("enumMember", 1)][..], &uses].concat()
    );
    assert_eq!(find("machine"), [("keyword", 0)]);
    assert_eq!(find("collect_same_until_threshold"), [("enum", 0)]);
    assert_eq!(find("ROUND_TIMEOUT"), [("event", 1), ("event", 0)]);
    assert_eq!(find("price")[0], ("property", 1));
    assert_eq!(find("30s"), [("number", 0)]);
    assert_eq!(find("payload"), [("decorator", 0)]);
    assert_eq!(find("\"u64\""), [("type", 0)]);
    assert_eq!(find("/// Agrees on a price."), [("comment", 2)]);
    s.shutdown();
}

#[test]
fn code_actions_apply_did_you_means_and_add_missing_round_transitions() {
    let ws = Workspace::new("actions");
    let text = "machine TestAbciApp: abci {\n    event DONE, NO_MAJORITY;\n    \
                start default state CollectRound: collect_same_until_threshold;\n    state NextRound;\n    \
                final state DoneRound;\n    (CollectRound, DONE) -> NextRound;\n    (NextRound, DONEE) -> DoneRound;\n}\n";
    let path = ws.write("m.fsm", text);
    let mut s = Server::start(&ws.0);
    s.open(&path, text);
    let diags = s.diagnostics(&path);
    assert_eq!(codes(&diags), ["E0105"], "{diags:?}");
    let range =
        |needle: &str| json!({ "start": pos(text, needle, 0, 0), "end": pos(text, needle, 0, 0) });
    let actions = s.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&path) }, "range": range("DONEE"), "context": { "diagnostics": diags } }),
    );
    let a = &actions[0];
    assert_eq!(a["title"], "Replace `DONEE` with `DONE`");
    assert_eq!(a["kind"], "quickfix");
    assert_eq!(a["isPreferred"], true);
    let fixed = apply(text, edits_for(&a["edit"], &path));
    assert_eq!(fixed, text.replace("DONEE", "DONE"));
    // With the typo fixed, the round's missing `NO_MAJORITY` transition is reported, and can be added.
    s.change(&path, 2, &fixed);
    let diags = s.diagnostics_where(&path, |n| n["params"]["version"] == 2);
    assert_eq!(codes(&diags), ["E0401"], "{diags:?}");
    let on_round = json!({ "start": pos(&fixed, "CollectRound:", 0, 2), "end": pos(&fixed, "CollectRound:", 0, 2) });
    let actions = s.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&path) }, "range": on_round, "context": { "diagnostics": diags } }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Add `(CollectRound, NO_MAJORITY) -> CollectRound;` (self)",
            "Add `(CollectRound, NO_MAJORITY) -> NextRound;` (where the round already leads)",
            "Add `(CollectRound, NO_MAJORITY) -> DoneRound;` (a final state)",
        ]
    );
    let added = apply(&fixed, edits_for(&actions[0]["edit"], &path));
    assert!(added.contains("    (CollectRound, DONE) -> NextRound;\n    (CollectRound, NO_MAJORITY) -> CollectRound;\n"), "{added}");
    s.change(&path, 3, &added);
    let diags = s.diagnostics_where(&path, |n| n["params"]["version"] == 3);
    assert!(diags.is_empty(), "{diags:?}");
    // A round of an imported machine, missing a transition that the app chaining it also reports (E0510): the
    // fix is offered once, in the machine's file.
    let (ws2, main, price, _) = oracle("actions-composed");
    let mut s2 = Server::start(&ws2.0);
    s2.open(&main, MAIN);
    s2.diagnostics(&main);
    let missing = PRICE.replace(
        "    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;\n",
        "",
    );
    s2.open(&price, &missing);
    let diags = s2.diagnostics_where(&price, |n| {
        !n["params"]["diagnostics"].as_array().unwrap().is_empty()
    });
    let mut found = codes(&diags);
    found.sort();
    assert_eq!(found, ["E0401", "E0510"], "{diags:?}");
    let on_round = json!({ "start": pos(&missing, "CollectPriceRound", 0, 1), "end": pos(&missing, "CollectPriceRound", 0, 1) });
    let actions = s2.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&price) }, "range": on_round, "context": { "diagnostics": diags } }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Add `(CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;` (self)",
            "Add `(CollectPriceRound, NO_MAJORITY) -> FinishedPriceRound;` (where the round already leads)",
        ]
    );
    assert_eq!(apply(&missing, edits_for(&actions[0]["edit"], &price)), PRICE.replace(
        "    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;\n",
        "    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;\n    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;\n",
    ).replace("    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;\n    (CollectPriceRound, ROUND_TIMEOUT)", "    (CollectPriceRound, ROUND_TIMEOUT)"));
    s2.shutdown();
    // No diagnostic there: no action.
    let none = s.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri(&path) }, "range": range("machine"), "context": { "diagnostics": [] } }),
    );
    assert_eq!(none, json!([]));
    s.shutdown();
}

#[test]
fn malformed_frames_and_requests_are_answered_with_errors() {
    let ws = Workspace::new("malformed");
    let mut s = Server::spawn();
    // Before `initialize`: refused.
    let r = s.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002);
    let init = s.request(
        "initialize",
        json!({ "capabilities": { "general": { "positionEncodings": ["utf-8"] } }, "rootUri": 42 }),
    );
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    assert_eq!(s.request("initialize", json!({}))["error"]["code"], -32600);
    // Not JSON, a JSON-RPC shape it is not, an id that is not allowed.
    s.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    assert_eq!(
        s.response(Value::Null, "parse error")["error"]["code"],
        -32700
    );
    s.send_raw(b"Content-Length: 30\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"x\":1}");
    assert_eq!(
        s.response(json!(7), "invalid request")["error"]["code"],
        -32600
    );
    s.send_raw(b"Content-Length: 2\r\n\r\n[]");
    let r = s.recv("an error for an array");
    assert!(
        r["error"]["code"] == -32700 || r["error"]["code"] == -32600,
        "{r}"
    );
    // A header without a length, a length far beyond any document, a frame split across writes.
    s.send_raw(b"X-Nothing: 1\r\n\r\n");
    assert_eq!(s.recv("no length")["error"]["code"], -32700);
    // Unknown methods and parameters of the wrong shape.
    assert_eq!(
        s.request("textDocument/teleport", json!({}))["error"]["code"],
        -32601
    );
    assert_eq!(
        s.request("textDocument/hover", json!({ "textDocument": 3 }))["error"]["code"],
        -32602
    );
    assert_eq!(
        s.request("textDocument/rename", json!(null))["error"]["code"],
        -32602
    );
    // Unknown documents, other schemes, positions far outside the text: empty answers, no failure.
    let nowhere = json!({ "textDocument": { "uri": "file:///no/such/file.fsm" }, "position": { "line": 5, "character": 5 } });
    assert_eq!(s.call("textDocument/hover", nowhere.clone()), Value::Null);
    let untitled = json!({ "textDocument": { "uri": "untitled:Untitled-1" }, "position": { "line": 0, "character": 0 } });
    assert_eq!(s.call("textDocument/definition", untitled), Value::Null);
    let path = ws.write("a.fsm", PRICE);
    s.open(&path, PRICE);
    let far = json!({ "textDocument": { "uri": uri(&path) }, "position": { "line": 4_000_000_000u32, "character": 4_000_000_000u32 } });
    s.call("textDocument/hover", far.clone());
    s.call("textDocument/completion", far);
    // An edit whose range lies outside the text, or inside a character: clamped, the server keeps going.
    s.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri(&path), "version": 2 },
            "contentChanges": [
                { "range": { "start": { "line": 900, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "é" },
                { "range": { "start": { "line": 0, "character": 1 }, "end": { "line": 0, "character": 2 } }, "text": "x" },
            ],
        }),
    );
    // Notifications with bad parameters are ignored; the server still answers.
    s.notify("textDocument/didOpen", json!({ "textDocument": "nope" }));
    s.notify("textDocument/didChange", json!([1, 2, 3]));
    let r = s.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri(&path) } }),
    );
    assert!(r.get("result").is_some(), "{r}");
    // A frame larger than the server reads is skipped and refused; the next one is read.
    let big = format!("Content-Length: {}\r\n\r\n", 70 * 1024 * 1024);
    s.send_raw(big.as_bytes());
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..70 {
        s.send_raw(&chunk);
    }
    assert_eq!(
        s.response(Value::Null, "too large")["error"]["code"],
        -32700
    );
    s.shutdown();
}

#[test]
fn broken_files_never_crash_the_server() {
    let ws = Workspace::new("broken");
    let path = ws.write("b.fsm", "");
    let mut s = Server::start(&ws.0);
    s.open(&path, "");
    s.diagnostics(&path);
    let broken: &[&str] = &[
        "machine M { state A; (A, E) -> }",
        "machine M { /* never closed",
        "machine M { state A { reads",
        "machine \"x\" {{{{ ]]] ->->-> ;;; }",
        "import \"../../../../etc/passwd\"; import \"/abs.fsm\"; import \"b.fsm\";",
        "\u{0}\u{1b}[31m\u{202e} machine 😀 { state é; }",
        "#![allow(\n#[deny(\nmachine",
        "app X { chain Y, Y; Y::Z -> ::; }",
        "machine M: abci { state A: voting { payload \"\\",
        &"(".repeat(5000),
        &"machine M { state A; ".repeat(300),
    ];
    for (i, text) in broken.iter().enumerate() {
        let version = i as i32 + 2;
        s.change(&path, version, text);
        let diags = s.diagnostics_where(&path, |n| n["params"]["version"] == version);
        if !text.is_empty() {
            assert!(!diags.is_empty(), "`{text}` gave no diagnostics");
        }
        // Every request at a few places in the text.
        let lines = text.lines().count().max(1) as u64;
        for line in [0, lines / 2, lines] {
            for character in [0u64, 3, 11, 40] {
                let p = json!({ "textDocument": { "uri": uri(&path) }, "position": { "line": line, "character": character } });
                for method in [
                    "textDocument/hover",
                    "textDocument/definition",
                    "textDocument/completion",
                    "textDocument/prepareRename",
                ] {
                    let r = s.request(method, p.clone());
                    assert!(r.get("result").is_some(), "{method} on `{text}`: {r}");
                }
                let mut refs = p.clone();
                refs["context"] = json!({ "includeDeclaration": true });
                s.call("textDocument/references", refs);
                let mut ren = p.clone();
                ren["newName"] = json!("Z");
                let r = s.request("textDocument/rename", ren);
                assert!(
                    r.get("result").is_some() || r["error"]["code"] == -32803,
                    "{r}"
                );
                let range = json!({ "start": p["position"], "end": p["position"] });
                s.call("textDocument/codeAction", json!({ "textDocument": p["textDocument"], "range": range, "context": { "diagnostics": [] } }));
            }
        }
        let doc = json!({ "textDocument": { "uri": uri(&path) } });
        s.call("textDocument/documentSymbol", doc.clone());
        s.call("textDocument/semanticTokens/full", doc.clone());
        let mut fmt = doc.clone();
        fmt["options"] = json!({ "tabSize": 4, "insertSpaces": true });
        s.call("textDocument/formatting", fmt);
    }
    s.shutdown();
}

#[test]
fn the_input_ending_without_exit_ends_the_server_with_an_error() {
    let mut s = Server::spawn();
    drop(s.stdin.take());
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(1));
            return;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}
