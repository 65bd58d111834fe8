//! Formatting: the edits turn the document into what `fsmc fmt` writes; a formatted document gets no edit, a
//! document that does not parse is not formatted.

use crate::fixture::{Session, apply};
use expect_test::{Expect, expect};
use serde_json::json;

/// The document after the server's formatting edits; `null` when it refuses.
fn check(fixture: &str, expect: Expect) {
    let mut s = Session::new(fixture);
    let mut params = s.document(0);
    params["options"] = json!({ "tabSize": 4, "insertSpaces": true });
    let edits = s.call("textDocument/formatting", params);
    let actual = match edits.as_array() {
        None => "null".to_string(),
        Some(list) if list.is_empty() => "no edits".to_string(),
        Some(list) => {
            let formatted = apply(&s.fixture.files[0].text, list);
            assert_eq!(
                formatted,
                fsmc::fmt::format(fsmc_base::source::FileId(0), &s.fixture.files[0].text)
                    .expect("it parses"),
                "the edits make what `fsmc fmt` writes"
            );
            formatted
        }
    };
    expect.assert_eq(&actual);
}

#[test]
fn a_messy_document_is_formatted() {
    check(
        "machine  M{event A;start default state S{reads k;}key k:u64;\n\n\n(S,A)->S;}",
        expect![[r#"
            machine M {
                event A;
                start default state S { reads k; }
                key k: u64;

                (S, A) -> S;
            }
        "#]],
    );
}

#[test]
fn comments_stay_where_they_were_written() {
    check(
        "// The door.\nmachine Door {   event OPEN; // opens\n/* closed */ start default state Closed; final state Opened;\n(Closed,OPEN)->Opened;}\n",
        expect![[r#"
            // The door.
            machine Door {
                event OPEN; // opens
                /* closed */
                start default state Closed;
                final state Opened;
                (Closed, OPEN) -> Opened;
            }
        "#]],
    );
}

#[test]
fn a_formatted_document_gets_no_edit() {
    check(
        "machine M {\n    event A;\n    start default state S;\n    (S, A) -> S;\n}\n",
        expect!["no edits"],
    );
}

#[test]
fn a_document_that_does_not_parse_is_not_formatted() {
    check("machine M { state", expect!["null"]);
}
