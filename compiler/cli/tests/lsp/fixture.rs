//! The fixture harness: a fixture is the text of one or more files with the cursor marked, a session is the
//! language server driven in process over that workspace, and the answers are rendered as plain text for an
//! inline expectation.
//!
//! A fixture is one `.fsm` file (named `main.fsm`), or several, each after a `//- /NAME` line:
//!
//! ```text
//! //- /main.fsm
//! import "price.fsm";
//! app A { chain Price$0AbciApp; }
//! //- /price.fsm
//! machine PriceAbciApp { … }
//! ```
//!
//! `$0` marks the cursor; a second `$0` makes the two a selection. Every file is written to a scratch workspace
//! (the server's workspace folder), and the file with the cursor is opened in the server, so the others are read
//! from disk, as an editor's unopened files are. The common indentation of the fixture is removed first.
//!
//! Positions are rendered as the protocol gives them (0-based `line:character`, UTF-16 columns), followed by the
//! text they cover, so an expectation reads without counting.

use fsmc::lsp::{Server, transport};
use fsmc_testkit::TempDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const CURSOR: &str = "$0";

/// One file of a fixture.
pub struct File {
    /// The path within the workspace (`main.fsm`, `registration/fsm_specification.yaml`).
    pub name: String,
    pub text: String,
}

/// A fixture, parsed: its files, and where the cursor (or selection) is.
pub struct Fixture {
    pub files: Vec<File>,
    /// The file with the cursor, and the byte offsets of the cursor (twice the same when it is not a
    /// selection).
    pub cursor: Option<(usize, usize, usize)>,
}

impl Fixture {
    pub fn parse(fixture: &str) -> Fixture {
        let text = dedent(fixture);
        let mut files: Vec<File> = Vec::new();
        let mut current: Option<File> = None;
        for line in text.split_inclusive('\n') {
            if let Some(name) = line.trim_end().strip_prefix("//- /") {
                files.extend(current.take());
                current = Some(File {
                    name: name.to_string(),
                    text: String::new(),
                });
                continue;
            }
            current
                .get_or_insert_with(|| File {
                    name: "main.fsm".to_string(),
                    text: String::new(),
                })
                .text
                .push_str(line);
        }
        // An empty fixture is an empty `main.fsm`.
        files.push(current.unwrap_or_else(|| File {
            name: "main.fsm".to_string(),
            text: String::new(),
        }));
        let mut cursor = None;
        for (i, f) in files.iter_mut().enumerate() {
            let marks: Vec<usize> = f.text.match_indices(CURSOR).map(|(at, _)| at).collect();
            match marks[..] {
                [] => continue,
                [at] => cursor = Some((i, at, at)),
                [a, b] => cursor = Some((i, a, b - CURSOR.len())),
                _ => panic!("more than two cursors in `{}`", f.name),
            }
            f.text = f.text.replace(CURSOR, "");
        }
        Fixture { files, cursor }
    }
}

/// The fixture's text without its first line break and without the indentation all its lines share.
fn dedent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.split_inclusive('\n')
        .map(|l| l.get(indent..).unwrap_or(l.trim_start_matches(' ')))
        .collect()
}

/// The language server in process, over a fixture's workspace.
pub struct Session {
    pub server: Server,
    /// The workspace, removed when the session ends.
    _workspace: TempDir,
    /// Its real path (the server names files by their real paths).
    pub root: PathBuf,
    pub fixture: Fixture,
    next_id: i64,
}

impl Session {
    /// The server, initialized with the fixture's workspace as its folder, with the cursor's file (or the first
    /// file, when there is no cursor) open.
    pub fn new(fixture: &str) -> Session {
        let fixture = Fixture::parse(fixture);
        let dir = fsmc_testkit::scratch("lsp");
        let root = dir.path().canonicalize().expect("the scratch directory");
        for f in &fixture.files {
            fsmc_testkit::write(&root, &f.name, &f.text);
        }
        let mut s = Session {
            server: Server::new(),
            _workspace: dir,
            root,
            fixture,
            next_id: 1,
        };
        let folder = uri(&s.root);
        let init = s.request(
            "initialize",
            json!({ "capabilities": {}, "rootUri": folder, "workspaceFolders": [{ "uri": folder, "name": "ws" }] }),
        );
        assert!(init.get("result").is_some(), "{init}");
        s.notify("initialized", json!({}));
        let open = s.fixture.cursor.map_or(0, |(f, _, _)| f);
        s.open(open);
        s
    }

    /// The path of the fixture's file `i`.
    pub fn path(&self, i: usize) -> PathBuf {
        self.path_of(&self.fixture.files[i].name)
    }

    /// The path of a file of the workspace.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Opens the fixture's file `i` in the server, with its text.
    pub fn open(&mut self, i: usize) {
        let (uri, text) = (uri(&self.path(i)), self.fixture.files[i].text.clone());
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "fsm", "version": 1, "text": text } }),
        );
    }

    /// Replaces the whole text of the fixture's (open) file `i`.
    pub fn change(&mut self, i: usize, version: i32, text: &str) {
        self.fixture.files[i].text = text.to_string();
        let uri = uri(&self.path(i));
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// Sends one message as the client would write it, and returns the server's replies.
    pub fn send(&mut self, message: &Value) -> Vec<Value> {
        self.server
            .handle_frame(transport::parse(message.to_string().as_bytes()))
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let replies = self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
        assert!(replies.is_empty(), "{method} answered: {replies:?}");
    }

    /// The whole response to a request (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut replies =
            self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        assert_eq!(replies.len(), 1, "{method}: {replies:?}");
        let reply = replies.remove(0);
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// The result of a request that must succeed.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// Asks `method` at the cursor for an answer with a `range` in the cursor's file (a hover, the name a rename
    /// would change): that range rendered, and the answer; `None` when the answer is `null`.
    pub fn call_at_cursor(&mut self, method: &str) -> Option<(String, Value)> {
        let at = self.at_cursor();
        let answer = self.call(method, at.clone());
        let uri = at["textDocument"]["uri"].as_str().unwrap_or_default();
        (!answer.is_null()).then(|| (self.location(uri, &answer["range"]), answer))
    }

    /// The cursor's file, and the cursor (or selection) as a protocol range.
    fn cursor(&self) -> (usize, Value) {
        let (f, a, b) = self.fixture.cursor.expect("the fixture has a `$0` cursor");
        let text = &self.fixture.files[f].text;
        (
            f,
            json!({ "start": position(text, a), "end": position(text, b) }),
        )
    }

    /// `{ textDocument, position }` at the cursor.
    pub fn at_cursor(&self) -> Value {
        let (f, range) = self.cursor();
        json!({ "textDocument": { "uri": uri(&self.path(f)) }, "position": range["start"] })
    }

    /// `{ textDocument, range }` of the cursor or selection.
    pub fn cursor_range(&self) -> Value {
        let (f, range) = self.cursor();
        json!({ "textDocument": { "uri": uri(&self.path(f)) }, "range": range })
    }

    /// `{ textDocument }` of the fixture's file `i`.
    pub fn document(&self, i: usize) -> Value {
        json!({ "textDocument": { "uri": uri(&self.path(i)) } })
    }

    /// The text of the file a URI names, as the server sees it: the fixture's, or what is on disk.
    pub fn text_of(&self, uri: &str) -> String {
        let path = path_of(uri);
        match self
            .fixture
            .files
            .iter()
            .position(|f| self.root.join(&f.name) == path)
        {
            Some(i) => self.fixture.files[i].text.clone(),
            None => std::fs::read_to_string(&path).unwrap_or_default(),
        }
    }

    /// A URI as the name of its file in the workspace (or the URI itself, outside it).
    pub fn name(&self, uri: &str) -> String {
        let path = path_of(uri);
        path.strip_prefix(&self.root)
            .map_or_else(|_| uri.to_string(), |p| p.display().to_string())
    }

    /// A range in a file, rendered: `main.fsm 3:4-3:9 `Price``, the text it covers quoted.
    pub fn location(&self, uri: &str, range: &Value) -> String {
        let text = self.text_of(uri);
        let (a, b) = (offset(&text, &range["start"]), offset(&text, &range["end"]));
        format!(
            "{} {} `{}`",
            self.name(uri),
            span(range),
            text.get(a..b).unwrap_or("?")
        )
    }

    /// The diagnostics published after the messages so far, by file (the files' names), those of files that
    /// have none left out.
    pub fn diagnostics(&mut self) -> Vec<(String, Vec<Value>)> {
        let published = self.server.publish_diagnostics();
        published
            .iter()
            .map(|n| {
                let uri = n["params"]["uri"].as_str().unwrap_or_default();
                let list = n["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                (self.name(uri), list)
            })
            .filter(|(_, list)| !list.is_empty())
            .collect()
    }
}

/// The `file:` URI of a path, percent-encoding what a URI cannot hold.
pub fn uri(path: &Path) -> String {
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

/// The path of a `file:` URI written by [`uri`] (or by the server, which encodes the same way).
fn path_of(uri: &str) -> PathBuf {
    let raw = uri.strip_prefix("file://").unwrap_or(uri);
    let mut bytes = Vec::new();
    let mut it = raw.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex: String = it.by_ref().take(2).map(char::from).collect();
            bytes.push(u8::from_str_radix(&hex, 16).unwrap_or(b'?'));
        } else {
            bytes.push(b);
        }
    }
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// The protocol position of a byte offset (UTF-16 columns).
pub fn position(text: &str, at: usize) -> Value {
    let before = &text[..at];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": character })
}

/// The byte offset of a protocol position (UTF-16 columns), clamped to the text.
pub fn offset(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap_or(0) as usize;
    let character = pos["character"].as_u64().unwrap_or(0) as usize;
    let mut at = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i == line {
            let mut units = 0;
            for (b, c) in l.char_indices() {
                if units >= character || c == '\n' {
                    return at + b;
                }
                units += c.len_utf16();
            }
            return at + l.len();
        }
        at += l.len();
    }
    text.len()
}

/// A protocol range as `line:character-line:character`.
pub fn span(range: &Value) -> String {
    let p = |v: &Value| format!("{}:{}", v["line"], v["character"]);
    format!("{}-{}", p(&range["start"]), p(&range["end"]))
}

/// Applies text edits (`{ range, newText }`, in any order, not overlapping) to a text.
pub fn apply(text: &str, edits: &[Value]) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (a, b, new) in edits {
        out.replace_range(a..b, new);
    }
    out
}

/// A workspace edit (`documentChanges`), rendered: each file changed, with the version the edit is for, and the
/// lines the edit changes (see [`changed_lines`]).
pub fn workspace_edit(s: &Session, edit: &Value) -> String {
    let mut out = String::new();
    for change in edit["documentChanges"].as_array().into_iter().flatten() {
        let uri = change["textDocument"]["uri"].as_str().unwrap_or_default();
        let edits = change["edits"].as_array().cloned().unwrap_or_default();
        let before = s.text_of(uri);
        out.push_str(&format!(
            "--- {} (version {})\n{}",
            s.name(uri),
            change["textDocument"]["version"],
            changed_lines(&before, &apply(&before, &edits))
        ));
    }
    out
}

/// The lines `after` changes of `before`, by a longest common subsequence of lines: each run of changes under
/// `@@ N @@`, N the (0-based) line of `before` where it is, the lines it removes after `-`, those it adds after
/// `+`. A last line without its line break is marked.
pub fn changed_lines(before: &str, after: &str) -> String {
    let a: Vec<&str> = before.split_inclusive('\n').collect();
    let b: Vec<&str> = after.split_inclusive('\n').collect();
    // common[i][j]: the length of a longest common subsequence of `a[i..]` and `b[j..]`.
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = if a[i] == b[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let line = |sign: char, l: &str| match l.strip_suffix('\n') {
        Some(l) => format!("{sign}{l}\n"),
        None => format!("{sign}{l}\n\\ no line break at the end\n"),
    };
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
            continue;
        }
        out.push_str(&format!("@@ {i} @@\n"));
        let mut added = String::new();
        while (i < a.len() || j < b.len()) && !(i < a.len() && j < b.len() && a[i] == b[j]) {
            if j == b.len() || (i < a.len() && common[i + 1][j] >= common[i][j + 1]) {
                out.push_str(&line('-', a[i]));
                i += 1;
            } else {
                added.push_str(&line('+', b[j]));
                j += 1;
            }
        }
        out.push_str(&added);
    }
    out
}

/// Diagnostics rendered one per line (`main.fsm 2:4-2:9 `DONEE` error E0105: message`), the lines of their
/// message after the first indented below.
pub fn diagnostics(s: &Session, published: &[(String, Vec<Value>)]) -> String {
    let mut out = String::new();
    for (name, list) in published {
        let uri = uri(&s.root.join(name));
        for d in list {
            let severity = match d["severity"].as_u64() {
                Some(1) => "error",
                Some(2) => "warning",
                _ => "other",
            };
            let message = d["message"].as_str().unwrap_or_default();
            let mut lines = message.lines();
            out.push_str(&format!(
                "{} {severity} {}: {}\n",
                s.location(&uri, &d["range"]),
                d["code"].as_str().unwrap_or_default(),
                lines.next().unwrap_or_default()
            ));
            for line in lines {
                out.push_str(&format!("    {line}\n"));
            }
            for r in d["relatedInformation"].as_array().into_iter().flatten() {
                let at = r["location"]["uri"].as_str().unwrap_or_default();
                out.push_str(&format!(
                    "    related: {} {}\n",
                    s.location(at, &r["location"]["range"]),
                    r["message"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    out
}

/// Upstream's registration machine, as Open Autonomy YAML.
pub const REGISTRATION: &str = include_str!("../registration/fsm_specification.yaml");

/// A price oracle: `price.fsm` holds a machine, `main.fsm` an app chaining the registration machine (YAML)
/// and the price machine.
pub const PRICE: &str = r#"/// Agrees on a price.
machine PriceAbciApp: abci {
    event DONE, NO_MAJORITY;
    /// The round took too long.
    event ROUND_TIMEOUT timeout 30s;
    cross_period key price: u64;

    /// Collects one price from each agent.
    start default state CollectPriceRound: collect_same_until_threshold {
        payload "u64";
        writes price;
    }
    final state FinishedPriceRound: degenerate { ensures price; }

    (CollectPriceRound, DONE) -> FinishedPriceRound;
    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
}
"#;

pub const MAIN: &str = r#"import "price.fsm";
import "registration/fsm_specification.yaml" as Registration;

/// The oracle.
app OracleAbciApp {
    chain Registration, PriceAbciApp;
    FinishedRegistrationRound -> CollectPriceRound;
}
"#;

/// The oracle's workspace as a fixture, with `main.fsm` and `price.fsm` as given (one of them with the cursor).
pub fn oracle(main: &str, price: &str) -> String {
    format!(
        "//- /main.fsm\n{main}//- /price.fsm\n{price}//- /registration/fsm_specification.yaml\n{REGISTRATION}"
    )
}

/// `text` with the cursor put `plus` bytes into the `nth` occurrence of `needle`.
pub fn mark(text: &str, needle: &str, nth: usize, plus: usize) -> String {
    let (at, _) = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} in the text"));
    let at = at + plus;
    format!("{}$0{}", &text[..at], &text[at..])
}
