//! What the server must survive, in process: requests before `initialize` or after `shutdown`, unknown methods,
//! parameters of the wrong shape, documents it does not have, positions and edits outside the text, a failing
//! handler, and broken files under every request.

use crate::fixture::{PRICE, Session, uri};
use fsmc::lsp::{Server, transport};
use serde_json::{Value, json};

/// The error code of a reply, or `None` for a result.
fn code(reply: &Value) -> Option<i64> {
    reply["error"]["code"].as_i64()
}

fn frame(server: &mut Server, body: &[u8]) -> Vec<Value> {
    server.handle_frame(transport::parse(body))
}

#[test]
fn requests_out_of_order_are_refused() {
    let mut server = Server::new();
    let before = frame(
        &mut server,
        br#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}"#,
    );
    assert_eq!(code(&before[0]), Some(-32002), "not initialized yet");
    let init = frame(
        &mut server,
        br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8"]}},"rootUri":42}}"#,
    );
    assert_eq!(
        init[0]["result"]["capabilities"]["positionEncoding"],
        "utf-8"
    );
    let again = frame(
        &mut server,
        br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#,
    );
    assert_eq!(code(&again[0]), Some(-32600));
    let down = frame(
        &mut server,
        br#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#,
    );
    assert_eq!(down[0]["result"], Value::Null);
    let after = frame(
        &mut server,
        br#"{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{}}"#,
    );
    assert_eq!(code(&after[0]), Some(-32600), "shutting down");
    assert_eq!(server.exit_code(), None);
    frame(&mut server, br#"{"jsonrpc":"2.0","method":"exit"}"#);
    assert_eq!(server.exit_code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_an_error_code() {
    let mut server = Server::new();
    frame(&mut server, br#"{"jsonrpc":"2.0","method":"exit"}"#);
    assert_eq!(server.exit_code(), Some(1));
}

#[test]
fn malformed_messages_are_answered_with_errors() {
    let mut server = Server::new();
    assert_eq!(code(&frame(&mut server, b"{not json")[0]), Some(-32700));
    let invalid = frame(&mut server, br#"{"jsonrpc":"2.0","id":7,"x":1}"#);
    assert_eq!(
        (invalid[0]["id"].clone(), code(&invalid[0])),
        (json!(7), Some(-32600))
    );
    let array = code(&frame(&mut server, b"[]")[0]);
    assert!(array == Some(-32700) || array == Some(-32600), "{array:?}");
}

#[test]
fn unknown_methods_and_parameters_of_the_wrong_shape_are_refused() {
    let mut s = Session::new(PRICE);
    assert_eq!(
        code(&s.request("textDocument/teleport", json!({}))),
        Some(-32601)
    );
    assert_eq!(
        code(&s.request("textDocument/hover", json!({ "textDocument": 3 }))),
        Some(-32602)
    );
    assert_eq!(
        code(&s.request("textDocument/rename", Value::Null)),
        Some(-32602)
    );
}

#[test]
fn unknown_documents_other_schemes_and_far_positions_get_empty_answers() {
    let mut s = Session::new(PRICE);
    let nowhere = json!({ "textDocument": { "uri": "file:///no/such/file.fsm" }, "position": { "line": 5, "character": 5 } });
    assert_eq!(s.call("textDocument/hover", nowhere), Value::Null);
    let untitled = json!({ "textDocument": { "uri": "untitled:Untitled-1" }, "position": { "line": 0, "character": 0 } });
    assert_eq!(s.call("textDocument/definition", untitled), Value::Null);
    let far = json!({ "textDocument": s.document(0)["textDocument"], "position": { "line": 4_000_000_000u32, "character": 4_000_000_000u32 } });
    assert_eq!(s.call("textDocument/hover", far.clone()), Value::Null);
    s.call("textDocument/completion", far);
}

#[test]
fn edits_outside_the_text_are_clamped_and_bad_notifications_ignored() {
    let mut s = Session::new(PRICE);
    let doc = uri(&s.path(0));
    s.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": doc, "version": 2 },
            "contentChanges": [
                { "range": { "start": { "line": 900, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "é" },
                { "range": { "start": { "line": 0, "character": 1 }, "end": { "line": 0, "character": 2 } }, "text": "x" },
            ],
        }),
    );
    s.notify("textDocument/didOpen", json!({ "textDocument": "nope" }));
    s.notify("textDocument/didChange", json!([1, 2, 3]));
    let symbols = s.call("textDocument/documentSymbol", s.document(0));
    assert!(symbols.is_array(), "{symbols}");
    assert!(!s.server.publish_diagnostics().is_empty());
}

#[test]
fn broken_files_never_crash_the_server() {
    let mut s = Session::new("");
    let broken: &[&str] = &[
        "machine M { state A; (A, E) -> }",
        "machine M { /* never closed",
        "machine M { state A { reads",
        "machine \"x\" {{{{ ]]] ->->-> ;;; }",
        "import \"../../../../etc/passwd\"; import \"/abs.fsm\"; import \"main.fsm\";",
        "\u{0}\u{1b}[31m\u{202e} machine 😀 { state é; }",
        "#![allow(\n#[deny(\nmachine",
        "app X { chain Y, Y; Y::Z -> ::; }",
        "machine M: abci { state A: voting { payload \"\\",
        &"(".repeat(5000),
        &"machine M { state A; ".repeat(300),
    ];
    let doc = s.document(0);
    for (i, text) in broken.iter().enumerate() {
        s.change(0, i as i32 + 2, text);
        let published = s.diagnostics();
        assert!(!published.is_empty(), "`{text}` gave no diagnostics");
        let lines = text.lines().count().max(1) as u64;
        for line in [0, lines / 2, lines] {
            for character in [0u64, 3, 11, 40] {
                let mut p = doc.clone();
                p["position"] = json!({ "line": line, "character": character });
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
                assert!(r.get("result").is_some() || code(&r) == Some(-32803), "{r}");
                let mut actions = doc.clone();
                actions["range"] = json!({ "start": p["position"], "end": p["position"] });
                actions["context"] = json!({ "diagnostics": [] });
                s.call("textDocument/codeAction", actions);
            }
        }
        s.call("textDocument/documentSymbol", doc.clone());
        s.call("textDocument/semanticTokens/full", doc.clone());
        let mut fmt = doc.clone();
        fmt["options"] = json!({ "tabSize": 4, "insertSpaces": true });
        s.call("textDocument/formatting", fmt);
    }
}
