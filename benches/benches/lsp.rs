//! The language server's answer to an edit: a keystroke in a synthetic 1,000-state spec (about 4,000
//! transitions), and the diagnostics the server publishes for it. That is one incremental `didChange`
//! (inserting, then deleting, one character in a state's name, so the spec alternates between an error and
//! none), the compilation of the document from its in-memory text, and the `publishDiagnostics` notifications.
//! Hover and completion right after an edit are measured too (each pays for the compilation the edit made
//! stale). The goal is at most 30 ms per edit.
//!
//! The server is driven in-process through `Server::handle_frame`, as `fsmc lsp` drives it from standard input
//! (without the pipe, whose cost is the editor's as much as ours).
//!
//! `cargo bench -p fsmc-benches --bench lsp` (≈ 30 s).

use criterion::{Criterion, criterion_group, criterion_main};
use fsmc::lsp::{Server, transport};
use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use serde_json::{Value, json};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn send(server: &mut Server, message: Value) -> Vec<Value> {
    server.handle_frame(transport::parse(message.to_string().as_bytes()))
}

/// One character inserted into (or removed from) a state's name in a transition on `line`, at `character`.
fn edit(uri: &str, version: i32, line: usize, character: usize, insert: bool) -> Value {
    let (end, text) = if insert {
        (character, "x")
    } else {
        (character + 1, "")
    };
    json!({
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{
                "range": {
                    "start": { "line": line, "character": character },
                    "end": { "line": line, "character": end },
                },
                "text": text,
            }],
        },
    })
}

fn lsp(c: &mut Criterion) {
    let text = Synth::generate(1_000, DEFAULT_SEED).write(Format::Fsm);
    let dir: PathBuf = std::env::temp_dir().join(format!("fsmc-bench-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(Format::Fsm.file_name());
    std::fs::write(&path, &text).expect("the spec is written");
    let uri = format!("file://{}", path.display());
    // The first transition's target: `(StateA, EV) -> StateB;`, the edit goes inside `StateB`.
    let (line, row) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with('('))
        .expect("a transition");
    let character = row.find("-> ").expect("an arrow") + 5;

    let mut server = Server::new();
    send(
        &mut server,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    );
    send(
        &mut server,
        json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    );
    send(
        &mut server,
        json!({
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": { "textDocument": { "uri": uri, "languageId": "fsm", "version": 1, "text": text } },
        }),
    );
    // Once, outside the measurement: the spec checks clean, and the edit makes exactly one error.
    let published = server.publish_diagnostics();
    assert_eq!(
        published[0]["params"]["diagnostics"],
        json!([]),
        "the spec checks clean"
    );
    send(&mut server, edit(&uri, 2, line, character, true));
    let published = server.publish_diagnostics();
    let diags = published[0]["params"]["diagnostics"]
        .as_array()
        .expect("diagnostics");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "E0104");
    send(&mut server, edit(&uri, 3, line, character, false));
    assert_eq!(
        server.publish_diagnostics()[0]["params"]["diagnostics"],
        json!([])
    );

    let mut version = 3;
    let mut group = c.benchmark_group("lsp/1000");
    group.sample_size(30);
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("edit_to_diagnostics", |b| {
        b.iter(|| {
            version += 1;
            send(
                &mut server,
                edit(&uri, version, line, character, version % 2 == 0),
            );
            black_box(server.publish_diagnostics())
        })
    });
    let position = json!({ "line": line, "character": character });
    for (name, method) in [
        ("edit_then_hover", "textDocument/hover"),
        ("edit_then_completion", "textDocument/completion"),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                version += 1;
                send(
                    &mut server,
                    edit(&uri, version, line, character, version % 2 == 0),
                );
                let request = json!({
                    "jsonrpc": "2.0",
                    "id": version,
                    "method": method,
                    "params": { "textDocument": { "uri": uri }, "position": position },
                });
                black_box(send(&mut server, request))
            })
        });
    }
    // The same requests on a document that did not change: what they cost on their own.
    for (name, method) in [
        ("hover", "textDocument/hover"),
        ("completion", "textDocument/completion"),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                version += 1;
                let request = json!({
                    "jsonrpc": "2.0",
                    "id": version,
                    "method": method,
                    "params": { "textDocument": { "uri": uri }, "position": position },
                });
                black_box(send(&mut server, request))
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, lsp);
criterion_main!(benches);
