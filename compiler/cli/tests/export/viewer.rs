//! The HTML viewer in headless Chromium, driven as a reader uses it: the search finds a state and an event,
//! highlights them and brings them to the middle of the view; the panel wraps long names only between their
//! words; a machine too large to read whole still opens fitted; and the legend of a composed app lies inside
//! the drawing, for long machine names and short ones, in the page and in the standalone SVG.

use super::chromium::{SPEC, attribute, browser, chromium, kept};
use crate::{TB, assert_checked};
use fsmc::export;
use std::fmt::Write;
use std::path::Path;

/// Compiles `spec` and writes the page of `item` (the only one when `None`) into `dir` with `script` run after
/// the page's own; returns the page's URL.
fn page(dir: &Path, file: &str, spec: &str, item: Option<&str>, script: &str) -> String {
    let c = fsmc_driver::compile_str(file, spec, dir, &fsmc_driver::Options::default());
    let checked = assert_checked(&c, file);
    let target = export::select(checked, item).expect("the item");
    let html = export::html::write(&target, TB).expect("the page");
    let path = dir.join(format!("{file}.html"));
    std::fs::write(
        &path,
        html.replace("</body>", &format!("<script>{script}</script>\n</body>")),
    )
    .expect("write the page");
    format!("file://{}", path.display())
}

/// What a script stored as JSON in `body[data-NAME]`, after the page ran.
fn measured(browser: &Path, dir: &Path, url: &str, name: &str) -> serde_json::Value {
    let (dom, log) = chromium(browser, dir, url, "--dump-dom");
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
    attribute(&dom, &format!("data-{name}"))
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_else(|| panic!("no {name} measurements in the page"))
}

/// Types into the search box, presses Enter, and records after each step what is highlighted, what the panel
/// shows and how far the current match's centre is from the view's (in pixels).
const SEARCH: &str = r##"
(function () {
  const svg = document.getElementById("diagram"), input = document.getElementById("search");
  const type = function (q) { input.value = q; input.dispatchEvent(new Event("input", { bubbles: true })); };
  const enter = function () { input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true })); };
  const off = function () {
    const c = svg.querySelector(".current"), v = svg.getBoundingClientRect();
    if (!c) return 1e9;
    const r = c.getBoundingClientRect();
    return Math.hypot((r.left + r.right - v.left - v.right) / 2, (r.top + r.bottom - v.top - v.bottom) / 2);
  };
  const scale = function () { const b = svg.getBoundingClientRect(), v = svg.viewBox.baseVal; return Math.min(b.width / v.width, b.height / v.height); };
  const now = function () {
    return {
      states: svg.querySelectorAll(".state.found").length,
      edges: svg.querySelectorAll(".edge.found").length,
      labels: svg.querySelectorAll(".edge-label.found").length,
      selected: (document.querySelector("#details h2") || {}).textContent,
      count: document.getElementById("found").textContent,
      off: off(),
      scale: scale()
    };
  };
  const out = {};
  type("submitprice"); out.state = now();
  type("NO_MAJ"); out.event = now();
  type("PriceRound"); out.first = now(); enter(); out.next = now();
  type(""); out.cleared = now();
  document.body.dataset.search = JSON.stringify(out);
})();
"##;

#[test]
fn search_finds_highlights_and_centres_states_and_events() {
    let Some(browser) = browser() else { return };
    let dir = kept("viewer-search");
    let url = page(&dir, "oracle.fsm", SPEC, Some("OracleAbciApp"), SEARCH);
    let m = measured(&browser, &dir, &url, "search");
    let near = |step: &str| m[step]["off"].as_f64().unwrap_or(1e9) < 2.;
    assert_eq!(m["state"]["states"], 1, "{m}");
    assert_eq!(m["state"]["selected"], "SubmitPriceRound", "{m}");
    assert!(near("state"), "the found state is not centred: {m}");
    assert!(
        m["state"]["scale"].as_f64().unwrap_or(0.) >= 0.5,
        "the found state is too small to read: {m}"
    );
    assert_eq!(
        (
            &m["event"]["states"],
            &m["event"]["edges"],
            &m["event"]["labels"]
        ),
        (&0.into(), &1.into(), &1.into()),
        "NO_MAJORITY's arrow and label (and no state) are found: {m}"
    );
    assert!(near("event"), "the found event is not centred: {m}");
    assert_eq!(m["first"]["states"], 2, "{m}");
    assert_eq!(m["first"]["selected"], "CollectPriceRound", "{m}");
    assert_eq!(m["next"]["selected"], "SubmitPriceRound", "{m}");
    assert_eq!(m["next"]["count"], "2 of 2", "{m}");
    assert!(near("next"), "Enter did not move to the next match: {m}");
    assert_eq!(m["cleared"]["states"], 0, "{m}");
    assert_eq!(m["cleared"]["count"], "", "{m}");
}

/// Names with long words: wrapped in the panel's 360 pixels, each only between its words.
const LONG_NAMES: &str = r#"
machine Delivery {
    event CONFIRM_THE_DELIVERY_ADDRESS_AND_THE_PAYMENT_METHOD, CANCEL;
    start default state WaitingForTheCustomerToConfirmTheDeliveryAddressAndPayment;
    state waiting_for_the_warehouse_to_pick_pack_and_ship_every_item;
    final state Done;
    (WaitingForTheCustomerToConfirmTheDeliveryAddressAndPayment, CONFIRM_THE_DELIVERY_ADDRESS_AND_THE_PAYMENT_METHOD)
        -> waiting_for_the_warehouse_to_pick_pack_and_ship_every_item;
    (waiting_for_the_warehouse_to_pick_pack_and_ship_every_item, CANCEL) -> Done;
    (WaitingForTheCustomerToConfirmTheDeliveryAddressAndPayment, CANCEL) -> Done;
}
"#;

/// For every name in the panel (the heading and every link to a state): where each of its lines starts, and
/// whether each start is between two words (after `_`, `-`, `.` or `:`, or a capital after a lower-case letter
/// or digit).
const BREAKS: &str = r##"
(function () {
  const problems = [];
  let wrapped = 0;
  document.querySelectorAll("#details h2, #details a").forEach(function (e) {
    const text = e.textContent, range = document.createRange();
    let top = null, k = 0;
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let j = 0; j < node.length; j++, k++) {
        range.setStart(node, j);
        range.setEnd(node, j + 1);
        const r = range.getClientRects()[0];
        if (!r) continue;
        if (top !== null && r.top > top + 2) {
          wrapped++;
          const prev = text[k - 1], c = text[k];
          if (!(/[_\-.:]/.test(prev) || (/[A-Z]/.test(c) && /[a-z0-9]/.test(prev)))) {
            problems.push(text + " breaks before " + text.slice(k));
          }
        }
        top = r.top;
      }
    }
  });
  document.body.dataset.breaks = JSON.stringify({ problems: problems, wrapped: wrapped });
})();
"##;

#[test]
fn the_panel_wraps_names_only_between_words() {
    let Some(browser) = browser() else { return };
    let dir = kept("viewer-breaks");
    let url = page(&dir, "delivery.fsm", LONG_NAMES, None, BREAKS);
    for state in [
        "",
        "#waiting_for_the_warehouse_to_pick_pack_and_ship_every_item",
    ] {
        let m = measured(&browser, &dir, &format!("{url}{state}"), "breaks");
        assert!(
            m["wrapped"].as_u64().unwrap_or(0) >= 2,
            "no long name wrapped, so the test shows nothing: {m}"
        );
        assert_eq!(m["problems"], serde_json::json!([]), "{m}");
    }
}

/// A chain of 150 states, with a way back every tenth: too large to read whole at the window's size.
fn large_machine() -> String {
    let mut spec =
        String::from("machine Large {\n    event NEXT, BACK;\n    start default state S0;\n");
    for i in 1..149 {
        let _ = writeln!(spec, "    state S{i};");
    }
    spec.push_str("    final state S149;\n");
    for i in 0..149 {
        let _ = writeln!(spec, "    (S{i}, NEXT) -> S{};", i + 1);
        if i % 10 == 9 {
            let _ = writeln!(spec, "    (S{i}, BACK) -> S0;");
        }
    }
    spec.push_str("}\n");
    spec
}

/// The view the page opened at, the drawing's whole extent, and whether all of it is in the viewport.
const OPENED: &str = r#"
(function () {
  const svg = document.getElementById("diagram"), vp = document.getElementById("viewport").getBoundingClientRect();
  const r = svg.querySelector("g.diagram").getBoundingClientRect();
  document.body.dataset.opened = JSON.stringify({
    view: svg.getAttribute("viewBox"),
    inside: r.left >= vp.left - 1 && r.right <= vp.right + 1 && r.top >= vp.top - 1 && r.bottom <= vp.bottom + 1
  });
})();
"#;

#[test]
fn a_large_machine_opens_fitted() {
    let Some(browser) = browser() else { return };
    let dir = kept("viewer-large");
    let url = page(&dir, "large.fsm", &large_machine(), None, OPENED);
    let html = std::fs::read_to_string(dir.join("large.fsm.html")).expect("the page");
    let whole = attribute(&html, "viewBox").expect("a viewBox");
    let m = measured(&browser, &dir, &url, "opened");
    assert_eq!(m["view"].as_str(), Some(whole.as_str()), "{m}");
    assert_eq!(m["inside"], true, "{m}");
}

/// Two machines composed: `long` gives them long names, otherwise short ones.
fn composed(long: bool) -> String {
    let (a, b) = if long {
        (
            "RegistrationOfEveryAgentBeforeTheServiceStartsAbciApp",
            "AgreementOnTheMedianPriceOfEveryConfiguredSourceAbciApp",
        )
    } else {
        ("R", "P")
    };
    format!(
        r#"
machine {a}: abci {{
    event DONE;
    start default state RegistrationRound: collect_same_until_all {{ payload "u64"; }}
    final state FinishedRegistrationRound;
    (RegistrationRound, DONE) -> FinishedRegistrationRound;
}}
machine {b}: abci {{
    event DONE;
    start default state PriceRound: collect_same_until_all {{ payload "u64"; }}
    final state FinishedPriceRound;
    (PriceRound, DONE) -> FinishedPriceRound;
}}
app App {{
    chain {a}, {b};
    FinishedRegistrationRound -> PriceRound;
}}
"#
    )
}

/// Each legend entry's rendered box against the drawing's viewBox (in the drawing's own units).
const LEGEND: &str = r#"
(function () {
  const out = [];
  document.querySelectorAll("svg").forEach(function (svg) {
    const v = svg.viewBox.baseVal;
    svg.querySelectorAll("g.legend-item").forEach(function (g) {
      const b = g.getBBox();
      out.push({ name: g.textContent, box: [b.x, b.y, b.x + b.width, b.y + b.height], view: [v.x, v.y, v.x + v.width, v.y + v.height],
        inside: b.x >= v.x && b.y >= v.y && b.x + b.width <= v.x + v.width && b.y + b.height <= v.y + v.height });
    });
  });
  document.body.dataset.legend = JSON.stringify(out);
})();
"#;

#[test]
fn the_legend_lies_inside_the_drawing() {
    let Some(browser) = browser() else { return };
    let dir = kept("viewer-legend");
    for long in [true, false] {
        let spec = composed(long);
        let name = if long { "long.fsm" } else { "short.fsm" };
        let c = fsmc_driver::compile_str(name, &spec, &dir, &fsmc_driver::Options::default());
        let checked = assert_checked(&c, name);
        let target = export::select(checked, Some("App")).expect("the app");
        let svg = export::svg::write(&target, TB).expect("the SVG");
        let standalone = dir.join(format!("{name}.svg.html"));
        std::fs::write(
            &standalone,
            format!(
                "<!DOCTYPE html>\n<html><body>{}<script>{LEGEND}</script></body></html>\n",
                svg.trim_start_matches("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            ),
        )
        .expect("write the SVG's page");
        let pages = [
            page(&dir, name, &spec, Some("App"), LEGEND),
            format!("file://{}", standalone.display()),
        ];
        for url in pages {
            let m = measured(&browser, &dir, &url, "legend");
            let entries = m.as_array().cloned().unwrap_or_default();
            assert_eq!(entries.len(), 2, "{url}: {m}");
            for e in entries {
                assert_eq!(e["inside"], true, "{url}: the legend is clipped: {e}");
            }
        }
    }
}
