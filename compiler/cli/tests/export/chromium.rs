//! The HTML page in a real browser: headless Chromium loads it, runs its script, and we check the DOM it
//! ends with (every state drawn, the default start's details shown, no script error) and a screenshot (the
//! diagram and the panel are drawn: many non-background pixels, the clusters' colours present).
//!
//! Then every shipped spec (`specs/`, not `specs/invalid/`) is drawn as a page, in both directions, and a
//! script measures the rendered boxes (`getBoundingClientRect` of every state's box and every label, points
//! sampled every 2 px along every arrow): no label overlaps another label or a state, no state another, no
//! arrow runs through a label or a state it does not end at; the page opens showing the whole drawing, beside
//! the panel. For the default (top-to-bottom) drawing also: the aspect ratio is between 1:4 and 4:1 (past
//! that, a drawing fitted to a screen is a sliver), and the fitted drawing is at a readable scale (at least
//! half size). `viewer.rs` drives the search, the panel's line breaks, the legend and a large machine.
//!
//! Runs when `chromium` is on PATH; with `FSMC_REQUIRE_CHROMIUM=1` (as CI sets) a missing Chromium fails
//! the test instead of skipping it.

use crate::TB;
use crate::assert_checked;
use fsmc::export;
use fsmc::export::Direction;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Two machines composed into an app: clusters, keys, docs, a timeout, a self-loop.
pub(crate) const SPEC: &str = r#"
/// Registers the agents.
machine RegistrationAbciApp: abci {
    event DONE;
    key participants: Vec<String>;
    /// Waits until every agent has registered.
    start default state RegistrationRound: collect_same_until_all {
        payload "Vec<String>";
        writes participants;
    }
    final state FinishedRegistrationRound { ensures participants; }
    (RegistrationRound, DONE) -> FinishedRegistrationRound;
}

/// Agrees on a price.
machine PriceAbciApp: abci {
    event DONE, NO_MAJORITY;
    event ROUND_TIMEOUT timeout 30s;
    key participants: Vec<String>;
    key price: u64;
    /// Collects one price from each agent until a threshold agree.
    start default state CollectPriceRound: collect_same_until_threshold {
        payload "u64";
        requires participants;
        reads participants;
        writes price;
    }
    /// Sends the agreed price on chain.
    state SubmitPriceRound: collect_same_until_all { reads price; }
    final state FinishedPriceRound { ensures price; }
    (CollectPriceRound, DONE) -> SubmitPriceRound;
    (SubmitPriceRound, DONE) -> FinishedPriceRound;
    (CollectPriceRound, NO_MAJORITY) -> CollectPriceRound;
    (CollectPriceRound, ROUND_TIMEOUT) -> CollectPriceRound;
}

app OracleAbciApp {
    chain RegistrationAbciApp, PriceAbciApp;
    FinishedRegistrationRound -> CollectPriceRound;
    FinishedPriceRound -> RegistrationRound;
}
"#;

/// Clicks `CollectPriceRound`, zooms in with the wheel, then drags; records the view after each step.
const DRIVER: &str = r#"
(function () {
  const svg = document.getElementById("diagram"), vp = document.getElementById("viewport");
  const box = svg.querySelector('.state[data-name="CollectPriceRound"] rect.box').getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const pointer = (type, px, py) => vp.dispatchEvent(new PointerEvent(type, { bubbles: true, clientX: px, clientY: py, button: 0, pointerId: 7 }));
  pointer("pointerdown", x, y);
  pointer("pointerup", x, y);
  document.body.dataset.before = svg.getAttribute("viewBox");
  vp.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, clientX: x, clientY: y, deltaY: -100 }));
  document.body.dataset.zoomed = svg.getAttribute("viewBox");
  pointer("pointerdown", 300, 300);
  pointer("pointermove", 400, 350);
  pointer("pointerup", 400, 350);
  document.body.dataset.panned = svg.getAttribute("viewBox");
})();
"#;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 800;

/// A directory for one test's pages, profile and screenshot, emptied first and kept afterwards (under the target
/// directory, not a scratch directory that is removed): the test prints the screenshot's path for a person to
/// look at.
pub(crate) fn kept(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("export")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test's directory");
    dir
}

fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Chromium, or `None` (the test skips, saying so) when there is none and `FSMC_REQUIRE_CHROMIUM=1` is not set.
pub(crate) fn browser() -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        let required = std::env::var("FSMC_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "FSMC_REQUIRE_CHROMIUM=1 but no `chromium` is on PATH (install it: apt-get install -y chromium)"
        );
        eprintln!("skipping: no `chromium` on PATH");
    }
    found
}

/// Runs Chromium headless on `url` with `mode` (`--screenshot=…` or `--dump-dom`): (stdout, stderr).
pub(crate) fn chromium(browser: &Path, dir: &Path, url: &str, mode: &str) -> (String, String) {
    let out_file = dir.join(format!(
        "chromium-{}.out",
        mode.trim_start_matches('-')
            .split('=')
            .next()
            .unwrap_or("run")
    ));
    let err_file = dir.join(format!("{}.err", out_file.display()));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .args([
            "--virtual-time-budget=3000",
            "--enable-logging=stderr",
            "--v=0",
            mode,
        ])
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(std::fs::File::create(&err_file).expect("stderr file"))
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let err = std::fs::read_to_string(&err_file).unwrap_or_default();
                assert!(
                    status.success(),
                    "chromium {mode} failed ({status}):\n{err}"
                );
                return (std::fs::read_to_string(&out_file).unwrap_or_default(), err);
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("chromium {mode} did not finish in time");
            }
        }
    }
}

#[test]
fn html_page_renders_the_states_in_headless_chromium() {
    let Some(browser) = browser() else {
        return;
    };
    let dir = kept("chromium");
    let c = fsmc_driver::compile_str("oracle.fsm", SPEC, &dir, &fsmc_driver::Options::default());
    let checked = assert_checked(&c, "the oracle spec");
    let target = export::select(checked, Some("OracleAbciApp")).expect("the app");
    let page = dir.join("oracle.html");
    std::fs::write(&page, export::html::write(&target, TB).expect("the page"))
        .expect("write the page");
    let names: Vec<&str> = target
        .machine
        .states
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");

    let url = format!("file://{}", page.display());
    default_start_is_described(&browser, &dir, &url, &names);
    state_in_the_url_is_selected(&browser, &dir, &url);
    clicks_wheel_and_drag_act(&browser, &dir, &page);
    screenshot_shows_diagram_and_panel(&browser, &dir, &url);
}

/// The DOM after the script ran: every state drawn, the default start selected and described.
fn default_start_is_described(browser: &Path, dir: &Path, url: &str, names: &[&str]) {
    let (dom, log) = chromium(browser, dir, url, "--dump-dom");
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
    for name in names {
        assert!(
            dom.contains(&format!("data-name=\"{name}\"")),
            "{name} is not drawn"
        );
    }
    // Names carry line-break opportunities between their words.
    let dom = dom.replace("<wbr>", "");
    let details = dom
        .split("<aside id=\"details\">")
        .nth(1)
        .and_then(|d| d.split("</aside>").next())
        .unwrap_or_default();
    assert!(
        details.contains("<h2>RegistrationRound</h2>"),
        "the default start is not described:\n{details}"
    );
    assert!(
        details.contains("Outgoing (1)") && details.contains("from RegistrationAbciApp"),
        "{details}"
    );
    assert!(
        details.contains("<code>participants</code>"),
        "the keys are not listed:\n{details}"
    );
    assert!(
        dom.contains("class=\"state start default c0 selected\""),
        "the default start is not highlighted"
    );
}

/// `#State` selects and centres another state: its details, its edges highlighted.
fn state_in_the_url_is_selected(browser: &Path, dir: &Path, url: &str) {
    let (dom, log) = chromium(
        browser,
        dir,
        &format!("{url}#SubmitPriceRound"),
        "--dump-dom",
    );
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
    let dom = dom.replace("<wbr>", "");
    assert!(
        dom.contains("<h2>SubmitPriceRound</h2>") && dom.contains("from PriceAbciApp"),
        "the state in the URL is not described"
    );
    assert!(
        dom.contains("Sends the agreed price on chain.") && dom.contains("<code>price</code>"),
        "docs and keys are missing"
    );
    assert!(
        dom.contains("class=\"edge out\"") && dom.contains("class=\"edge in\""),
        "its transitions are not highlighted"
    );
    assert!(
        !dom.contains("<svg id=\"diagram\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "),
        "the view did not move to the state"
    );
}

/// Interaction, driven by events a script dispatches as a user's mouse would: a click on a state selects it,
/// the wheel zooms in, a drag pans.
fn clicks_wheel_and_drag_act(browser: &Path, dir: &Path, page: &Path) {
    let html = std::fs::read_to_string(page).expect("read the page");
    let driven = dir.join("oracle-driven.html");
    std::fs::write(
        &driven,
        html.replace("</body>", &format!("<script>{DRIVER}</script>\n</body>")),
    )
    .expect("write the driven page");
    let (dom, log) = chromium(
        browser,
        dir,
        &format!("file://{}", driven.display()),
        "--dump-dom",
    );
    assert!(!log.contains("Uncaught"), "script error:\n{log}");
    assert!(
        dom.replace("<wbr>", "")
            .contains("<h2>CollectPriceRound</h2>"),
        "a click did not select the state"
    );
    let view = |name: &str| -> Vec<f64> {
        let at = dom
            .find(&format!("data-{name}=\""))
            .unwrap_or_else(|| panic!("no {name} view"))
            + name.len()
            + 7;
        dom[at..]
            .split('"')
            .next()
            .unwrap_or_default()
            .split(' ')
            .filter_map(|v| v.parse().ok())
            .collect()
    };
    let (before, zoomed, panned) = (view("before"), view("zoomed"), view("panned"));
    assert_eq!((before.len(), zoomed.len(), panned.len()), (4, 4, 4));
    assert!(
        zoomed[2] < before[2] && zoomed[3] < before[3],
        "the wheel did not zoom in: {before:?} → {zoomed:?}"
    );
    assert!(
        panned[0] < zoomed[0] && panned[1] < zoomed[1] && panned[2] == zoomed[2],
        "the drag did not pan: {zoomed:?} → {panned:?}"
    );
}

/// The screenshot: the diagram (left) and the panel (right) are drawn, clusters in their colours.
fn screenshot_shows_diagram_and_panel(browser: &Path, dir: &Path, url: &str) {
    let png = dir.join("oracle.png");
    chromium(
        browser,
        dir,
        url,
        &format!("--screenshot={}", png.display()),
    );
    eprintln!("screenshot: {}", png.display());
    let (width, height, pixels) = decode(&png);
    assert_eq!((width, height), (WIDTH, HEIGHT));
    let at = |x: u32, y: u32| pixels[(y * width + x) as usize];
    let count =
        |xs: std::ops::Range<u32>, ys: std::ops::Range<u32>, f: &dyn Fn([u8; 3]) -> bool| {
            ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
                .filter(|&(x, y)| f(at(x, y)))
                .count()
        };
    let diagram = (0..WIDTH - 360, 60..HEIGHT);
    let ink = |p: [u8; 3]| p.iter().map(|&c| u32::from(c)).sum::<u32>() < 3 * 140;
    let drawn = count(diagram.0.clone(), diagram.1.clone(), &|p| {
        p != [255, 255, 255]
    });
    assert!(
        drawn > 5_000,
        "the diagram is almost blank: {drawn} non-white pixels"
    );
    assert!(
        count(diagram.0.clone(), diagram.1.clone(), &ink) > 800,
        "no text or lines in the diagram"
    );
    for (hex, name) in [
        ([0xdb, 0xea, 0xfe], "first machine"),
        ([0xdc, 0xfc, 0xe7], "second machine"),
    ] {
        let close = |p: [u8; 3]| p.iter().zip(hex).all(|(&a, b)| a.abs_diff(b) <= 3);
        assert!(
            count(diagram.0.clone(), diagram.1.clone(), &close) > 1_000,
            "the {name}'s states are not filled with its colour"
        );
    }
    assert!(
        count(WIDTH - 350..WIDTH, 60..HEIGHT, &ink) > 500,
        "the details panel is empty"
    );
}

/// The PNG's pixels as RGB.
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("the screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    // Grey screenshots have one or two channels, colour ones three or four.
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| {
            if channels >= 3 {
                [c[0], c[1], c[2]]
            } else {
                [c[0]; 3]
            }
        })
        .collect();
    (info.width, info.height, pixels)
}

/// Measures the rendered page and stores the result as JSON in `body[data-check]`.
const CHECK: &str = r#"
(function () {
  const svg = document.getElementById("diagram");
  const rect = function (e) { const r = e.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const overlap = function (a, b) { return a.l + 0.5 < b.r && b.l + 0.5 < a.r && a.t + 0.5 < b.b && b.t + 0.5 < a.b; };
  const inside = function (x, y, a, inset) { return x > a.l + inset && x < a.r - inset && y > a.t + inset && y < a.b - inset; };
  const problems = [];
  const states = Array.from(svg.querySelectorAll(".state")).map(function (g) {
    return { i: g.dataset.state, name: g.dataset.name, box: rect(g.querySelector("rect.box")) };
  });
  const labels = Array.from(svg.querySelectorAll("text.edge-label, text.cluster-label")).map(function (t) {
    return { name: t.textContent, box: rect(t) };
  });
  labels.forEach(function (a, i) {
    labels.slice(i + 1).forEach(function (b) { if (overlap(a.box, b.box)) problems.push("label " + a.name + " overlaps label " + b.name); });
    states.forEach(function (s) { if (overlap(a.box, s.box)) problems.push("label " + a.name + " overlaps state " + s.name); });
  });
  states.forEach(function (a, i) {
    states.slice(i + 1).forEach(function (b) { if (overlap(a.box, b.box)) problems.push("state " + a.name + " overlaps state " + b.name); });
  });
  let samples = 0;
  Array.from(svg.querySelectorAll("path.edge")).forEach(function (p) {
    const m = p.getScreenCTM(), len = p.getTotalLength();
    const ends = [p.dataset.from, p.dataset.to];
    const what = p.dataset.edge === undefined ? "start arrow to " + p.dataset.to : "arrow " + p.dataset.edge;
    const hit = {};
    for (let d = 0; d <= len; d += 2) {
      const q = p.getPointAtLength(d);
      const x = m.a * q.x + m.c * q.y + m.e, y = m.b * q.x + m.d * q.y + m.f;
      samples++;
      labels.forEach(function (l) { if (inside(x, y, l.box, 1)) hit["label " + l.name] = true; });
      states.forEach(function (s) { if (ends.indexOf(s.i) < 0 && inside(x, y, s.box, 1.5)) hit["state " + s.name] = true; });
    }
    Object.keys(hit).forEach(function (h) { problems.push(what + " runs through " + h); });
  });
  const vp = rect(document.getElementById("viewport")), panel = rect(document.getElementById("details"));
  const parts = Array.from(svg.querySelectorAll("g.diagram, g.legend")).map(rect);
  const box = svg.getBoundingClientRect(), full = svg.viewBox.baseVal;
  document.body.dataset.check = JSON.stringify({
    problems: problems,
    samples: samples,
    states: states.length,
    labels: labels.length,
    view: svg.getAttribute("viewBox"),
    scale: Math.min(box.width / full.width, box.height / full.height),
    visible: parts.length > 0 && parts.every(function (r) { return r.l >= vp.l - 1 && r.r <= vp.r + 1 && r.t >= vp.t - 1 && r.b <= vp.b + 1; }),
    beside: vp.r <= panel.l + 0.5 || vp.b <= panel.t + 0.5
  });
})();
"#;

/// The attribute `name` of the first element that has it in Chromium's dumped DOM, unescaped.
pub(crate) fn attribute(dom: &str, name: &str) -> Option<String> {
    let at = dom.find(&format!(" {name}=\""))? + name.len() + 3;
    let value = dom[at..].split('"').next()?;
    Some(
        value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&"),
    )
}

#[test]
fn shipped_specs_are_drawn_without_overlaps_and_open_fitted() {
    let Some(browser) = browser() else {
        return;
    };
    let dir = kept("chromium-specs");
    let specs = fsmc_testkit::specs();
    let mut files = Vec::new();
    fsmc::cli::collect_specs(&specs, &mut files).expect("read specs/");
    let mut pages = 0;
    let mut failures = Vec::new();
    for path in files
        .iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "invalid"))
    {
        let c = fsmc_driver::compile(path, &fsmc_driver::Options::default()).expect("readable");
        let checked = assert_checked(&c, &path.display().to_string());
        for name in export::item_names(checked) {
            let target = export::select(checked, Some(name)).expect("an item of the spec");
            for direction in [TB, Direction::LeftToRight] {
                let lr = direction == Direction::LeftToRight;
                let html = export::html::write(&target, direction).expect("the page");
                let viewbox = attribute(&html, "viewBox").unwrap_or_default();
                let size: Vec<f64> = viewbox.split(' ').filter_map(|v| v.parse().ok()).collect();
                let page = dir.join(format!("{name}{}.html", if lr { "-lr" } else { "" }));
                std::fs::write(
                    &page,
                    html.replace("</body>", &format!("<script>{CHECK}</script>\n</body>")),
                )
                .expect("write the page");
                let (dom, log) = chromium(
                    &browser,
                    &dir,
                    &format!("file://{}", page.display()),
                    "--dump-dom",
                );
                pages += 1;
                assert!(!log.contains("Uncaught"), "{name}: script error:\n{log}");
                let check: serde_json::Value = attribute(&dom, "data-check")
                    .and_then(|c| serde_json::from_str(&c).ok())
                    .unwrap_or_else(|| panic!("{name}: no measurements in the page"));
                let what = format!(
                    "{name} ({})",
                    if lr { "left to right" } else { "top to bottom" }
                );
                let aspect =
                    size.get(2).copied().unwrap_or(0.) / size.get(3).copied().unwrap_or(1.);
                eprintln!(
                    "{what}: {} × {} (aspect {aspect:.2}), {} states, {} labels, {} points on arrows, opens at scale {:.2}",
                    size.get(2).copied().unwrap_or(0.),
                    size.get(3).copied().unwrap_or(0.),
                    check["states"],
                    check["labels"],
                    check["samples"],
                    check["scale"].as_f64().unwrap_or(0.)
                );
                assert_eq!(
                    check["states"].as_u64(),
                    Some(target.machine.states.len() as u64),
                    "{what}"
                );
                assert!(
                    check["samples"].as_u64().unwrap_or(0) > 0,
                    "{what}: no arrows measured"
                );
                for p in check["problems"].as_array().into_iter().flatten() {
                    failures.push(format!("{what}: {}", p.as_str().unwrap_or_default()));
                }
                assert!(
                    check["beside"].as_bool() == Some(true),
                    "{what}: the diagram is under the panel"
                );
                if check["view"].as_str() != Some(viewbox.as_str()) {
                    failures.push(format!(
                        "{what}: opens at {} instead of the whole drawing {viewbox}",
                        check["view"]
                    ));
                }
                if check["visible"].as_bool() != Some(true) {
                    failures.push(format!(
                        "{what}: the drawing is not all in view when the page opens"
                    ));
                }
                if lr {
                    continue;
                }
                if !(0.25..=4.).contains(&aspect) {
                    failures.push(format!(
                        "{what}: aspect ratio {aspect:.2} is not between 1:4 and 4:1"
                    ));
                }
                if check["scale"].as_f64().unwrap_or(0.) < 0.5 {
                    failures.push(format!(
                        "{what}: opens at scale {}, too small to read",
                        check["scale"]
                    ));
                }
            }
        }
    }
    assert!(pages >= 14, "only {pages} pages drawn");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
