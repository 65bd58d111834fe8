//! The outline (document symbols: machines with their events, keys and states; an app's file with its imports)
//! and semantic tokens (every name coloured by what it is, wherever it is written).

use crate::fixture::{MAIN, PRICE, Session, offset, oracle, span};
use expect_test::{Expect, expect};
use serde_json::{Value, json};

/// The symbols of every file of the fixture, each file's as an indented tree: name, kind, detail, range.
fn check_symbols(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let mut out = String::new();
    fn walk(out: &mut String, list: &Value, depth: usize) {
        for sym in list.as_array().into_iter().flatten() {
            out.push_str(&format!(
                "{}{} ({}) {} {}\n",
                "  ".repeat(depth),
                sym["name"].as_str().unwrap_or_default(),
                serde_json::from_value::<lsp_types::SymbolKind>(sym["kind"].clone())
                    .map_or_else(|_| sym["kind"].to_string(), |k| format!("{k:?}")),
                sym["detail"].as_str().unwrap_or("-"),
                span(&sym["selectionRange"]),
            ));
            walk(out, &sym["children"], depth + 1);
        }
    }
    for i in 0..s.fixture.files.len() {
        let symbols = s.call("textDocument/documentSymbol", s.document(i));
        out.push_str(&format!("--- {}\n", s.fixture.files[i].name));
        walk(&mut out, &symbols, 0);
    }
    expect.assert_eq(&out);
}

/// The semantic tokens of the fixture's first file, decoded: one per line, `line:character word type
/// modifiers` (the legend's names; modifiers as the bit set the protocol sends).
fn check_tokens(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let init_legend = legend();
    let tokens = s.call("textDocument/semanticTokens/full", s.document(0));
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(data.len() % 5, 0);
    let text = s.fixture.files[0].text.clone();
    let (mut line, mut col) = (0u64, 0u64);
    let mut out = String::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        let at = |character: u64| offset(&text, &json!({ "line": line, "character": character }));
        let word = text.get(at(col)..at(col + t[2])).unwrap_or("?");
        out.push_str(&format!(
            "{line}:{col} {word} {} {}\n",
            init_legend.get(t[3] as usize).map_or("?", String::as_str),
            t[4]
        ));
    }
    expect.assert_eq(&out);
}

/// The token types' names, from a fresh server's answer to `initialize`.
fn legend() -> Vec<String> {
    let mut fresh = fsmc::lsp::Server::new();
    let init = fresh.handle_frame(fsmc::lsp::transport::parse(
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    ));
    init[0]["result"]["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

#[test]
fn an_apps_file_with_its_imports_and_machines_with_their_declarations() {
    check_symbols(
        &oracle(MAIN, PRICE),
        expect![[r#"
            --- main.fsm
            price.fsm (File) - 0:7-0:18
            registration/fsm_specification.yaml (File) as Registration 1:7-1:44
            OracleAbciApp (Module) Registration → PriceAbciApp 4:4-4:17
            --- price.fsm
            PriceAbciApp (Class) abci 1:8-1:20
              DONE (Event) - 2:10-2:14
              NO_MAJORITY (Event) - 2:16-2:27
              ROUND_TIMEOUT (Event) timeout 30s 4:10-4:23
              price (Field) u64 5:21-5:26
              CollectPriceRound (EnumMember) start default collect_same_until_threshold 8:24-8:41
              FinishedPriceRound (EnumMember) final degenerate 12:16-12:34
            --- registration/fsm_specification.yaml
            AgentRegistrationAbciApp (Class) abci 6:7-6:31
              FinishedRegistrationRound (EnumMember) final 10:2-10:27
              RegistrationRound (EnumMember) start default 11:2-11:19
              DONE (Event) - 1:2-1:6
              NO_MAJORITY (Event) - 2:2-2:13
        "#]],
    );
}

#[test]
fn a_broken_file_shows_what_parsed() {
    check_symbols(
        "machine M { event GO; state A; (A, GO) -> }\nmachine N { state B;",
        expect![[r#"
            --- main.fsm
            M (Class) - 0:8-0:9
              GO (Event) - 0:18-0:20
              A (EnumMember) - 0:28-0:29
            N (Class) - 1:8-1:9
              B (EnumMember) - 1:18-1:19
        "#]],
    );
}

#[test]
fn semantic_tokens_colour_every_name_by_what_it_is() {
    check_tokens(
        &format!("//- /price.fsm\n{PRICE}"),
        expect![[r#"
        0:0 /// Agrees on a price. comment 2
        1:0 machine keyword 0
        1:8 PriceAbciApp class 1
        1:22 abci enum 0
        2:4 event keyword 0
        2:10 DONE event 1
        2:16 NO_MAJORITY event 1
        3:4 /// The round took too long. comment 2
        4:4 event keyword 0
        4:10 ROUND_TIMEOUT event 1
        4:24 timeout keyword 0
        4:32 30s number 0
        5:4 cross_period keyword 0
        5:17 key keyword 0
        5:21 price property 1
        5:28 u64 type 0
        7:4 /// Collects one price from each agent. comment 2
        8:4 start keyword 0
        8:10 default keyword 0
        8:18 state keyword 0
        8:24 CollectPriceRound enumMember 1
        8:43 collect_same_until_threshold enum 0
        9:8 payload decorator 0
        9:16 "u64" type 0
        10:8 writes decorator 0
        10:15 price property 0
        12:4 final keyword 0
        12:10 state keyword 0
        12:16 FinishedPriceRound enumMember 1
        12:36 degenerate enum 0
        12:49 ensures decorator 0
        12:57 price property 0
        14:5 CollectPriceRound enumMember 0
        14:24 DONE event 0
        14:33 FinishedPriceRound enumMember 0
        15:5 CollectPriceRound enumMember 0
        15:24 NO_MAJORITY event 0
        15:40 CollectPriceRound enumMember 0
        16:5 CollectPriceRound enumMember 0
        16:24 ROUND_TIMEOUT event 0
        16:42 CollectPriceRound enumMember 0
    "#]],
    );
}

#[test]
fn semantic_tokens_of_an_app_and_a_genie_machine() {
    check_tokens(
        &oracle(MAIN, PRICE),
        expect![[r#"
        0:0 import keyword 0
        0:7 "price.fsm" string 0
        1:0 import keyword 0
        1:7 "registration/fsm_specification.yaml" string 0
        1:45 as keyword 0
        1:48 Registration class 0
        3:0 /// The oracle. comment 2
        4:0 app keyword 0
        4:4 OracleAbciApp namespace 1
        5:4 chain keyword 0
        5:10 Registration class 0
        5:24 PriceAbciApp class 0
        6:4 FinishedRegistrationRound enumMember 0
        6:33 CollectPriceRound enumMember 0
    "#]],
    );
    check_tokens(
        r#"
        #![allow(unused_key)]
        machine Support: genie {
            event USER_INPUT;
            key question: str;
            start default state Welcome: user { template "welcome.jinja2"; }
            final state Done: user { template "done.jinja2"; }
            (Welcome, USER_INPUT) -> Done;
        }
        "#,
        expect![[r#"
            0:3 allow macro 0
            0:9 unused_key macro 0
            1:0 machine keyword 0
            1:8 Support class 1
            1:17 genie enum 0
            2:4 event keyword 0
            2:10 USER_INPUT event 1
            3:4 key keyword 0
            3:8 question property 1
            3:18 str type 0
            4:4 start keyword 0
            4:10 default keyword 0
            4:18 state keyword 0
            4:24 Welcome enumMember 1
            4:33 user enum 0
            4:40 template decorator 0
            4:49 "welcome.jinja2" string 0
            5:4 final keyword 0
            5:10 state keyword 0
            5:16 Done enumMember 1
            5:22 user enum 0
            5:29 template decorator 0
            5:38 "done.jinja2" string 0
            6:5 Welcome enumMember 0
            6:14 USER_INPUT event 0
            6:29 Done enumMember 0
        "#]],
    );
}

#[test]
fn semantic_tokens_of_a_property_colour_its_words_as_keywords_only_there() {
    check_tokens(
        "machine M: abci {\n    event DONE;\n    start default state A: degenerate;\n    \
         final state B: degenerate;\n    (A, DONE) -> B;\n    \
         invariant \"ordered\": not in B or after A and outcome DONE;\n    \
         eventually \"later\": period at least 2;\n}\n",
        expect![[r#"
            0:0 machine keyword 0
            0:8 M class 1
            0:11 abci enum 0
            1:4 event keyword 0
            1:10 DONE event 1
            2:4 start keyword 0
            2:10 default keyword 0
            2:18 state keyword 0
            2:24 A enumMember 1
            2:27 degenerate enum 0
            3:4 final keyword 0
            3:10 state keyword 0
            3:16 B enumMember 1
            3:19 degenerate enum 0
            4:5 A enumMember 0
            4:8 DONE event 0
            4:17 B enumMember 0
            5:4 invariant keyword 0
            5:14 "ordered" string 0
            5:25 not keyword 0
            5:29 in keyword 0
            5:32 B enumMember 0
            5:34 or keyword 0
            5:37 after keyword 0
            5:43 A enumMember 0
            5:45 and keyword 0
            5:49 outcome keyword 0
            5:57 DONE event 0
            6:4 eventually keyword 0
            6:15 "later" string 0
            6:24 period keyword 0
            6:31 at keyword 0
            6:34 least keyword 0
            6:40 2 number 0
        "#]],
    );
}

#[test]
fn semantic_tokens_of_a_dialogues_turns_and_sides() {
    check_tokens(
        "machine D: dialogue {\n    roles buyer, seller;\n    event Call by buyer;\n    event Quote by responder;\n    \
         start default state A;\n    state B;\n    final state C;\n    (A, Call) -> B receiver do quote;\n    \
         (B, Quote) -> C sender do log;\n}\n",
        expect![[r#"
            0:0 machine keyword 0
            0:8 D class 1
            0:11 dialogue enum 0
            1:4 roles decorator 0
            1:10 buyer variable 0
            1:17 seller variable 0
            2:4 event keyword 0
            2:10 Call event 1
            2:15 by keyword 0
            2:18 buyer variable 0
            3:4 event keyword 0
            3:10 Quote event 1
            3:16 by keyword 0
            3:19 responder keyword 0
            4:4 start keyword 0
            4:10 default keyword 0
            4:18 state keyword 0
            4:24 A enumMember 1
            5:4 state keyword 0
            5:10 B enumMember 1
            6:4 final keyword 0
            6:10 state keyword 0
            6:16 C enumMember 1
            7:5 A enumMember 0
            7:8 Call event 0
            7:17 B enumMember 0
            7:19 receiver keyword 0
            7:28 do keyword 0
            7:31 quote function 0
            8:5 B enumMember 0
            8:8 Quote event 0
            8:18 C enumMember 0
            8:20 sender keyword 0
            8:27 do keyword 0
            8:30 log function 0
        "#]],
    );
}

#[test]
fn positions_count_utf16_units() {
    // A name after a wide character on its line: its column counts the character as two units.
    let text =
        "machine M { /* 😀 */ event GO; start default state A; final state B; (A, GO) -> B; }\n";
    check_tokens(
        text,
        expect![[r#"
            0:0 machine keyword 0
            0:8 M class 1
            0:12 /* 😀 */ comment 0
            0:21 event keyword 0
            0:27 GO event 1
            0:31 start keyword 0
            0:37 default keyword 0
            0:45 state keyword 0
            0:51 A enumMember 1
            0:54 final keyword 0
            0:60 state keyword 0
            0:66 B enumMember 1
            0:70 A enumMember 0
            0:73 GO event 0
            0:80 B enumMember 0
        "#]],
    );
}
