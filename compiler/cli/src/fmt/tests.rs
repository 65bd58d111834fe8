use super::*;

fn fmt(text: &str) -> String {
    match format(FileId(0), text) {
        Ok(s) => s,
        Err(d) => panic!("does not parse: {d:?}\n{text}"),
    }
}

#[test]
fn lays_out_statements_blocks_and_spaces() {
    let text = "machine   M:abci{event DONE,NO_MAJORITY ;key a : Vec < ( String , u32 ) > ;\
                start default state A : voting{\npayload \"u64\" ;reads a;}final state B{}\
                ( A , DONE )->B if x do y,z;(A,NO_MAJORITY)->A;}";
    assert_eq!(
        fmt(text),
        "machine M: abci {
    event DONE, NO_MAJORITY;
    key a: Vec<(String, u32)>;
    start default state A: voting {
        payload \"u64\";
        reads a;
    }
    final state B {}
    (A, DONE) -> B if x do y, z;
    (A, NO_MAJORITY) -> A;
}
"
    );
}

#[test]
fn keeps_comments_where_they_are() {
    let text = "//! The file.\n\n\n#![allow(unused_key)]\n/// Docs.\n#[deny( W0303 )]\nmachine M { // opens\n\n    \
                // own line\n  event A, // first\n  B; /* after */\n\n\n  /* before */ start default state S;\n\
                (S, A) -> S; // loop   \n  // last\n}\n// end\n";
    assert_eq!(
        fmt(text),
        "//! The file.

#![allow(unused_key)]

/// Docs.
#[deny(W0303)]
machine M { // opens
    // own line
    event A, // first
        B; /* after */

    /* before */
    start default state S;
    (S, A) -> S; // loop
    // last
}

// end
"
    );
}

#[test]
fn breaks_long_lists_after_their_commas() {
    let names: Vec<String> = (0..30).map(|i| format!("EVENT_{i}")).collect();
    let text = format!("machine M {{ event {}; }}", names.join(", "));
    let out = fmt(&text);
    assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
    assert!(out.contains("    event EVENT_0, EVENT_1,"), "{out}");
    assert!(out.contains("\n        EVENT_"), "{out}");
    // Fields break when the statement has no list of its own; a type's commas never do.
    let fields: Vec<String> = (0..8)
        .map(|i| format!("field_{i}: BTreeMap<String, u{i}>"))
        .collect();
    let text = format!("machine M {{ event E({}) by r; }}", fields.join(", "));
    let out = fmt(&text);
    assert!(
        out.contains("    event E(field_0: BTreeMap<String, u0>,"),
        "{out}"
    );
    assert!(!out.contains("String,\n"), "{out}");
    assert_eq!(fmt(&out), out);
}

#[test]
fn a_long_transition_stays_on_its_line() {
    let long = "A".repeat(60);
    let text = format!("machine M {{ ({long}, GO) -> {long} if ready; }}");
    let out = fmt(&text);
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn a_long_dialogue_transition_breaks_before_a_side() {
    let long = "a".repeat(40);
    let text = format!(
        "machine M: dialogue {{ (Accepted, Match) -> Done sender do {long}_lock receiver do {long}_pop do note; }}"
    );
    let out = fmt(&text);
    assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
    assert!(
        out.contains(&format!("\n        receiver do {long}_pop do note;")),
        "{out}"
    );
    assert_eq!(fmt(&out), out);
    assert_eq!(
        fmt("machine S: staged { agents a, traders [ ], b; }"),
        "machine S: staged {\n    agents a, traders[], b;\n}\n"
    );
    // `sender` is a keyword only before `do`: an action of that name is not a place to break.
    let text =
        format!("machine M {{ (A, E) -> B do {long}_one, sender, {long}_two, {long}_three; }}");
    assert!(fmt(&text).contains(", sender,"));
}

#[test]
fn line_ends_and_byte_order_marks_are_normalized() {
    let text = "\u{FEFF}machine M {\r\n    event A;\r\n}\r\n";
    assert_eq!(fmt(text), "machine M {\n    event A;\n}\n");
    assert_eq!(fmt(""), "");
    assert_eq!(fmt("\n\n// only\n\n"), "// only\n");
}

#[test]
fn refuses_a_file_with_syntax_errors() {
    let errors = format(FileId(0), "machine M { state A }").unwrap_err();
    assert!(!errors.is_empty());
}

#[test]
fn top_level_items_and_groups_are_separated_by_a_blank_line() {
    assert_eq!(
        fmt("import \"a.fsm\";\nmachine A {}\nmachine B {\n}\napp X { chain A, B; }"),
        "import \"a.fsm\";\n\nmachine A {}\n\nmachine B {}\n\napp X {\n    chain A, B;\n}\n"
    );
    // Attributes of the file, imports, items: a blank line between the groups (before the comments that lead
    // the next one), none required inside one.
    assert_eq!(
        fmt(
            "#![allow(a)]\n#![deny(b)]\nimport \"a.fsm\";\nimport \"b.fsm\";\n// the machine\n#[deny(c)]\nmachine A {}\n// end\n"
        ),
        "#![allow(a)]\n#![deny(b)]\n\nimport \"a.fsm\";\nimport \"b.fsm\";\n\n// the machine\n#[deny(c)]\nmachine A {}\n\n// end\n"
    );
}

#[test]
fn a_state_body_written_on_one_line_stays_on_it_when_it_fits() {
    let text = "machine M {\n    start default state A { acting a, b; handler; }\n    state B {\n        handler;\n    }\n}\n";
    assert_eq!(fmt(text), text);
    let long = format!(
        "machine M {{ state A {{ template \"{}\"; }} }}",
        "x".repeat(90)
    );
    assert_eq!(
        fmt(&long),
        format!(
            "machine M {{\n    state A {{\n        template \"{}\";\n    }}\n}}\n",
            "x".repeat(90)
        )
    );
    // A comment inside opens it up.
    assert_eq!(
        fmt("machine M { state A { handler; /* c */ } }"),
        "machine M {\n    state A {\n        handler; /* c */\n    }\n}\n"
    );
}

#[test]
fn keeps_claims_and_export_writes_them_back() {
    let text = "machine M{event A;key k: u32;start default state S{writes k;}final state F;(S,A)->F;\n\
                /// Why.\ninvariant \"i\":not(in S and missing k)or has k;eventually \"e\" : in F, S;}";
    let once = fmt(text);
    assert!(
        once.contains("    /// Why.\n    invariant \"i\": not (in S and missing k) or has k;\n"),
        "{once}"
    );
    assert!(once.contains("    eventually \"e\": in F, S;\n"), "{once}");
    assert_eq!(fmt(&once), once);
    // `.fsm` export writes the claims back (keys are tested only in `abci` machines: this one names states).
    let text = once.replace("missing k) or has k", "in F) or not in S");
    let c = fsmc_driver::compile_str(
        "m.fsm",
        &text,
        std::path::Path::new("."),
        &fsmc_driver::Options::default(),
    );
    let spec = c
        .checked
        .map(|c| c.into_spec())
        .or(c.spec)
        .expect("resolved");
    let exported = crate::export::fsm::write(&spec.machines[0], &[]).expect("written");
    assert!(
        exported.contains("invariant \"i\": not (in S and in F) or not in S;"),
        "{exported}"
    );
    assert!(
        exported.contains("eventually \"e\": in F, S;"),
        "{exported}"
    );
}

#[test]
fn keeps_transition_and_period_conditions_and_export_writes_them_back() {
    let text = "machine M: abci{event DONE,NO_MAJORITY;event ROUND_TIMEOUT timeout 30s;\
                start default state A: collect_same_until_threshold{}state R: collect_same_until_threshold{reset;}\
                (A,DONE)->R;(A,NO_MAJORITY)->A;(A,ROUND_TIMEOUT)->A;(R,DONE)->A;(R,NO_MAJORITY)->R;(R,ROUND_TIMEOUT)->R;\n\
                invariant \"i\":not(after A and outcome NO_MAJORITY,ROUND_TIMEOUT)or period  at   least 2;\
                eventually \"e\":period is 1 and not period at most 0;}";
    let once = fmt(text);
    assert!(
        once.contains(
            "    invariant \"i\": not (after A and outcome NO_MAJORITY, ROUND_TIMEOUT) or period at least 2;\n"
        ),
        "{once}"
    );
    assert!(
        once.contains("    eventually \"e\": period is 1 and not period at most 0;\n"),
        "{once}"
    );
    assert_eq!(fmt(&once), once);
    let c = fsmc_driver::compile_str(
        "m.fsm",
        text,
        std::path::Path::new("."),
        &fsmc_driver::Options::default(),
    );
    let spec = c
        .checked
        .map(|c| c.into_spec())
        .or(c.spec)
        .expect("resolved");
    let exported = crate::export::fsm::write(&spec.machines[0], &[]).expect("written");
    assert!(
        exported.contains(
            "invariant \"i\": not (after A and outcome NO_MAJORITY, ROUND_TIMEOUT) or period at least 2;"
        ),
        "{exported}"
    );
    assert!(
        exported.contains("eventually \"e\": period is 1 and not period at most 0;"),
        "{exported}"
    );
}
