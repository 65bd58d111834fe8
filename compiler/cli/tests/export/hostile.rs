//! Hostile names: a machine whose every name and doc is made of control characters, terminal escape
//! sequences, markup, quotes, CDATA ends, script ends and bidirectional overrides is drawn in every format
//! and direction, and each output is checked to be valid and inert: the SVG parses as XML (also the one
//! inside the HTML page), DOT and Mermaid contain no raw control character and each line is one statement
//! of the expected shape, and the HTML page has exactly its own two script elements, with nothing in the
//! data able to close them.

use crate::{TB, run};
use fsmc::export::{self, Direction, Target};
use fsmc_base::source::{Name, Span};
use fsmc_model::spec::{
    Action, Event, EventId, Guard, Key, KeyId, Machine, MachineId, Origin, Spec, State, StateId,
    Timeout, Transition,
};
use fsmc_vocab::Profile;

/// The nastiest texts we can think of; each name below is one of them with a distinguishing suffix.
const NASTY: [&str; 10] = [
    "\u{1b}]52;c;aGVsbG8=\u{7}clip",
    "\u{1b}[2J\u{1b}[31mred\u{1b}[0m",
    "</script><script>alert(1)</script>",
    "<svg onload=alert(1)>&amp;&lt;",
    "]]><!--\"'`",
    "a\u{202e}desrever\u{202c}b\u{2066}",
    "line\nbreak\r\ttab\u{0}nul\u{7f}del\u{85}nel",
    "#;%%{init: {}}%%;-->[*]",
    "\\l\\N\\G\"} digraph x {",
    "\u{2028}\u{2029}\u{feff}\u{fffe}\u{ffff}\u{200b}",
];

fn name(s: &str) -> Name {
    Name::new(s, Span::default())
}

/// The hostile machine: every state, event, guard, action, key, doc and attribute nasty, with self-loops,
/// parallel transitions and a timeout.
fn hostile_machine() -> Machine {
    let mut m = Machine::new(
        name(&format!("{}Machine", NASTY[0])),
        Profile::Plain,
        Origin::Fsm,
        Span::default(),
    );
    m.label = Some(name(&format!("{}label", NASTY[2])));
    m.docs = NASTY.iter().map(|s| s.to_string()).collect();
    for (i, nasty) in NASTY.iter().enumerate() {
        m.states.push(State {
            name: name(&format!("{nasty}{i}")),
            docs: vec![nasty.to_string()].into(),
            start: i < 2,
            default_start: i == 0,
            is_final: i == NASTY.len() - 1,
            attributes: vec![(name(nasty), Some(nasty.to_string()))].into(),
            reads: vec![(KeyId(0), Span::default())].into(),
            ..State::default()
        });
        m.events.push(Event {
            name: name(&format!("{nasty}E{i}")),
            docs: vec![nasty.to_string()],
            timeout: (i % 3 == 0).then_some(Timeout {
                duration: std::time::Duration::from_millis(1500 * i as u64 + 500),
                span: Span::default(),
            }),
            fields: Vec::new(),
            role: None,
            turn: None,
            role_span: None,
        });
    }
    m.keys.push(Key {
        name: name(NASTY[3]),
        docs: vec![NASTY[4].to_string()],
        ty: name("u64"),
        cross_period: false,
    });
    let n = NASTY.len();
    for i in 0..n {
        for (to, event) in [(i, i), ((i + 1) % n, (i + 1) % n), ((i + 3) % n, i)] {
            if i == n - 1 && to != i {
                continue;
            }
            m.transitions.push(Transition {
                from: StateId(i as u32),
                event: Some(EventId(event as u32)),
                to: StateId(to as u32),
                guards: vec![Guard {
                    negated: i % 2 == 0,
                    name: name(NASTY[(i + 4) % n]),
                }]
                .into(),
                actions: [NASTY[(i + 5) % n], NASTY[(i + 6) % n]]
                    .into_iter()
                    .map(|a| Action {
                        name: name(a),
                        side: None,
                    })
                    .collect(),
                persist: None,
                docs: vec![NASTY[i].to_string()].into(),
                span: Span::default(),
                event_span: Span::default(),
                to_span: Span::default(),
            });
        }
    }
    m
}

/// Whether `c` must never appear raw in a drawing (besides the line breaks of the format itself).
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}' | '\u{200b}'
        )
}

fn assert_inert_text(what: &str, text: &str) {
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| forbidden(c)) {
        panic!(
            "{what}: raw U+{:04X} at byte {at}: …{}…",
            c as u32,
            text[at.saturating_sub(60)..at].escape_debug()
        );
    }
}

/// DOT: outside quoted strings only the tokens our writer uses; each statement on its own line; strings
/// closed on the line they open.
fn assert_dot(text: &str) {
    assert_inert_text("DOT", text);
    for (k, line) in text.lines().enumerate() {
        let mut outside = String::new();
        let mut chars = line.chars();
        let mut in_string = false;
        while let Some(c) = chars.next() {
            match (in_string, c) {
                (true, '\\') => {
                    let next = chars.next();
                    assert!(
                        matches!(next, Some('"' | '\\' | 'n')),
                        "DOT line {k}: escape \\{next:?} in {line}"
                    );
                }
                (true, '"') => in_string = false,
                (true, _) => {}
                (false, '"') => {
                    in_string = true;
                    outside.push('S');
                }
                (false, c) => outside.push(c),
            }
        }
        assert!(!in_string, "DOT line {k} leaves a string open: {line}");
        let allowed = |c: char| c.is_ascii_alphanumeric() || " =[],;{}->_.#".contains(c);
        assert!(
            outside.chars().all(allowed),
            "DOT line {k} has unexpected syntax outside strings: {outside}"
        );
    }
}

/// Mermaid: every line one statement of the shapes our writer produces, labels free of the characters that
/// would end or change them.
fn assert_mermaid(text: &str) {
    assert_inert_text("Mermaid", text);
    let id = |s: &str| {
        s == "[*]"
            || (!s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit()))
    };
    // Entity codes (`#59;`) are how the writer spells the characters that would end or change a label.
    let label_ok = |s: &str| {
        let mut rest = s;
        let mut plain = String::new();
        while let Some(at) = rest.find('#') {
            plain.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            if digits == 0 || !after[digits..].starts_with(';') {
                return false;
            }
            rest = &after[digits + 1..];
        }
        plain.push_str(rest);
        !plain.chars().any(|c| ";#%<>&\":{}[]`\\".contains(c))
    };
    for (k, line) in text.lines().enumerate() {
        if k == 0 {
            assert_eq!(line, "stateDiagram-v2");
            continue;
        }
        let body = line
            .strip_prefix("    ")
            .unwrap_or_else(|| panic!("Mermaid line {k} not indented: {line}"));
        if let Some(rest) = body.strip_prefix("direction ") {
            assert!(rest == "TB" || rest == "LR", "{line}");
        } else if let Some(rest) = body.strip_prefix("state \"") {
            let (label, id_part) = rest
                .split_once("\" as ")
                .unwrap_or_else(|| panic!("Mermaid line {k}: {line}"));
            assert!(label_ok(label), "Mermaid line {k} label: {label}");
            assert!(id(id_part), "Mermaid line {k} id: {id_part}");
        } else if let Some((from, rest)) = body.split_once(" --> ") {
            assert!(id(from), "Mermaid line {k} source: {from}");
            let (to, label) = rest.split_once(": ").unwrap_or((rest, ""));
            assert!(id(to), "Mermaid line {k} target: {to}");
            assert!(label_ok(label), "Mermaid line {k} label: {label}");
        } else if body.starts_with("classDef ") || body.starts_with("class ") {
        } else {
            assert!(id(body), "Mermaid line {k} is not a statement: {line}");
        }
    }
}

/// SVG: well-formed XML, every state drawn with its (visible) name.
fn assert_svg(target: &Target<'_>, text: &str) {
    assert_inert_text("SVG", text);
    let doc = roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("SVG is not XML: {e}"));
    let names: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("data-name"))
        .collect();
    let expected: Vec<String> = target
        .machine
        .states
        .iter()
        .map(|s| export::visible(s.name.as_str()).into_owned())
        .collect();
    assert_eq!(names, expected);
    assert!(
        doc.descendants().all(|n| n.tag_name().name() != "script"
            && n.attributes().all(|a| !a.name().starts_with("on"))),
        "the SVG has a script or an event handler"
    );
}

/// HTML: only the page's own two script elements; the data island holds no `<`; the drawing inside is XML.
fn assert_html(target: &Target<'_>, text: &str) {
    assert_inert_text("HTML", text);
    let lower = text.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 2, "script elements");
    assert_eq!(lower.matches("</script").count(), 2, "script ends");
    assert_eq!(lower.matches("<svg").count(), 1, "svg elements");
    let island = text
        .split("<script type=\"application/json\" id=\"fsm-data\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .expect("the data island");
    assert!(!island.contains('<'), "a `<` in the data island");
    let data: serde_json::Value = serde_json::from_str(island).expect("the data is JSON");
    let states = data["states"].as_array().expect("states");
    assert_eq!(states.len(), target.machine.states.len());
    let start = lower.find("<svg").unwrap_or_default();
    let end = lower
        .find("</svg>")
        .map_or(text.len(), |e| e + "</svg>".len());
    assert_svg(target, &text[start..end]);
    // The title and header are text: nothing between `<title>` and `</title>` but the escaped name.
    let title = text
        .split("<title>")
        .nth(1)
        .and_then(|s| s.split("</title>").next())
        .unwrap_or_default();
    assert!(!title.contains('<') && !title.contains('>'), "{title}");
}

fn check_every_format(target: &Target<'_>) {
    for direction in [Direction::TopToBottom, Direction::LeftToRight] {
        assert_dot(&export::dot::write(target, direction));
        assert_mermaid(&export::mermaid::write(target, direction));
        let svg = export::svg::write(target, direction).expect("draws");
        assert_svg(target, &svg);
        let html = export::html::write(target, direction).expect("draws");
        assert_html(target, &html);
    }
}

#[test]
fn hostile_names_stay_inert_in_every_format() {
    let m = hostile_machine();
    let spec = Spec::default();
    check_every_format(&Target::machine(&spec, &m));
}

#[test]
fn hostile_cluster_names_stay_inert_in_every_format() {
    // A composed app whose original machines have nasty names: clusters, frames and the legend.
    let m = hostile_machine();
    let mut spec = Spec::default();
    for nasty in NASTY.iter().take(3) {
        spec.machines.push(Machine::new(
            name(nasty),
            Profile::Plain,
            Origin::Fsm,
            Span::default(),
        ));
    }
    let origin: Vec<MachineId> = (0..m.states.len())
        .map(|i| MachineId((i % 3) as u32))
        .collect();
    let target = Target {
        spec: &spec,
        machine: &m,
        origin: &origin,
    };
    assert_eq!(target.clusters().len(), 3);
    check_every_format(&target);
    let dot = export::dot::write(&target, TB);
    assert!(dot.contains("subgraph \"cluster_2\""), "{dot}");
}

#[test]
fn hostile_text_through_the_command_line() {
    // What a `.fsm` file can carry: labels and attribute strings with escapes, docs with anything.
    let scratch = fsmc_testkit::scratch("export-hostile-cli");
    let dir = scratch.path();
    let spec = dir.join("spec.fsm");
    let text = format!(
        "/// {}\n/// {}\nmachine Door {{\n    label \"x\\u{{1b}}{}\\n\\\"q\\\"\";\n    event open;\n    /// {}\n    start default state Closed {{ owner \"{}\"; }}\n    final state Open;\n    (Closed, open) -> Open;\n}}\n",
        NASTY[0], NASTY[2], "]]></script>&<b>", NASTY[5], "\u{1b}[31m</script>"
    );
    // The grammar's strings have no `\u{…}` escape: write the escape character itself.
    let text = text.replace("\\u{1b}", "\u{1b}");
    std::fs::write(&spec, &text).expect("write the spec");
    let spec = spec.to_string_lossy().into_owned();
    let c = fsmc_driver::compile(
        std::path::Path::new(&spec),
        &fsmc_driver::Options::default(),
    )
    .expect("readable");
    let checked = crate::assert_checked(&c, "the hostile spec");
    let target = export::select(checked, None).expect("the machine");
    check_every_format(&target);
    for format in ["dot", "mermaid", "svg", "html"] {
        for direction in ["tb", "lr"] {
            let (code, out, err) =
                run(&["graph", &spec, "--format", format, "--direction", direction]);
            assert_eq!(code, 0, "{format} {direction}: {err}");
            assert_inert_text(&format!("fsmc graph --format {format}"), &out);
        }
    }
    // A machine name asked for on the command line is echoed visibly, not raw.
    let (code, out, err) = run(&[
        "graph",
        &spec,
        "--format",
        "dot",
        "-m",
        "\u{1b}]52;c;eA==\u{7}",
    ]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("\\u{1b}]52;c;eA==\\u{7}"), "{err}");
    assert_inert_text("the error message", &err);
}
