//! The drawing's markup: hostile text escaped, scoped styles and ids, the same bytes for the same diagram.

use super::{Diagram, Options, StateBox, Transition, document};

fn diagram() -> Diagram {
    let state = |name: &str, start: bool| StateBox {
        name: name.to_string(),
        start,
        default_start: start,
        cluster: Some(usize::from(!start)),
        ..StateBox::default()
    };
    Diagram {
        title: "A <title> & more".to_string(),
        states: vec![state("A<b>&amp;", true), state("B\u{202e}\u{1b}[2J", false)],
        transitions: vec![Transition {
            from: 0,
            to: 1,
            label: "GO if x<y && \"z\"".to_string(),
        }],
        clusters: vec!["First & <one>".to_string(), "second".to_string()],
    }
}

#[test]
fn text_is_escaped_and_made_visible() {
    let svg = document(
        &diagram(),
        &Options {
            titled: true,
            ..Options::default()
        },
    )
    .expect("drawn");
    for raw in [
        "<b>", "<title>", "<one>", "\u{202e}", "\u{1b}", "x<y", "\"z\"",
    ] {
        assert!(!svg.contains(raw), "{raw:?} reaches the markup");
    }
    for shown in [
        "A&lt;b&gt;&amp;amp;",
        "B\\u{202e}\\u{1b}[2J",
        "GO if x&lt;y &amp;&amp; &quot;z&quot;",
        "First &amp; &lt;one&gt;",
        "A &lt;title&gt; &amp; more",
    ] {
        assert!(svg.contains(shown), "{shown} is not shown:\n{svg}");
    }
}

#[test]
fn a_scoped_drawing_styles_and_names_only_itself() {
    let options = Options {
        scope: Some("fsmc-door".to_string()),
        ..Options::default()
    };
    let svg = document(&diagram(), &options).expect("drawn");
    assert!(svg.starts_with("<svg id=\"fsmc-door\" "), "{svg}");
    assert!(
        !svg.contains("<?xml"),
        "an embedded drawing has no XML declaration"
    );
    assert!(
        !svg.contains("\n\n"),
        "a blank line would end rustdoc's HTML block"
    );
    let style = svg
        .split("<style>")
        .nth(1)
        .and_then(|s| s.split("</style>").next())
        .expect("styles");
    for rule in style.split_inclusive('}') {
        assert!(rule.starts_with("#fsmc-door "), "{rule} is not scoped");
    }
    assert!(svg.contains("<marker id=\"fsmc-door-arrow\""));
    assert!(svg.contains("marker-end=\"url(#fsmc-door-arrow)\""));
    assert!(!svg.contains("fsmc-arrow"));
    assert_eq!(svg, document(&diagram(), &options).expect("drawn again"));
}
