//! The command line: which machine is exported, exit codes, `-o`, and nothing written on errors.

use crate::run;

/// A spec with two machines and an app composing them.
const TWO: &str = r#"
machine FirstAbciApp: abci {
    event DONE, NO_MAJORITY;
    start default state FirstRound: collect_same_until_threshold;
    final state FinishedFirstRound;
    (FirstRound, DONE) -> FinishedFirstRound;
    (FirstRound, NO_MAJORITY) -> FirstRound;
}

machine SecondAbciApp: abci {
    event DONE;
    start default state SecondRound: collect_same_until_all;
    final state FinishedSecondRound;
    (SecondRound, DONE) -> FinishedSecondRound;
}

app BothAbciApp {
    label "packages.example.BothAbciApp";
    chain FirstAbciApp, SecondAbciApp;
    FinishedFirstRound -> SecondRound;
    FinishedSecondRound -> FirstRound;
}
"#;

fn write_spec(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("spec.fsm");
    std::fs::write(&path, text).expect("write the spec");
    path.to_string_lossy().into_owned()
}

#[test]
fn several_items_need_a_choice_and_the_error_lists_them() {
    let scratch = fsmc_testkit::scratch("export-cli-choice");
    let dir = scratch.path();
    let spec = write_spec(dir, TWO);
    let (code, out, err) = run(&["export", &spec]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains(
            "choose one with `--machine NAME`: `FirstAbciApp`, `SecondAbciApp`, `BothAbciApp`"
        ),
        "{err}"
    );
    let (code, _, err) = run(&["export", &spec, "--machine", "SecondAbciAp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no machine or app named `SecondAbciAp`")
            && err.contains("did you mean `SecondAbciApp`"),
        "{err}"
    );
}

#[test]
fn an_app_exports_its_composition_under_its_label() {
    let scratch = fsmc_testkit::scratch("export-cli-app");
    let dir = scratch.path();
    let spec = write_spec(dir, TWO);
    let (code, out, err) = run(&[
        "export",
        "--format",
        "oa-yaml",
        &spec,
        "--machine",
        "BothAbciApp",
    ]);
    assert_eq!(code, 0, "{err}");
    let expected = "\
alphabet_in:
- DONE
- NO_MAJORITY
default_start_state: FirstRound
final_states: []
label: packages.example.BothAbciApp
start_states:
- FirstRound
states:
- FirstRound
- SecondRound
transition_func:
    (FirstRound, DONE): SecondRound
    (FirstRound, NO_MAJORITY): FirstRound
    (SecondRound, DONE): FirstRound
";
    assert_eq!(out, expected);
    // The shared event `DONE` is allowed by default: nothing on standard error.
    assert_eq!(err, "");
}

#[test]
fn graph_formats_and_output_file() {
    let scratch = fsmc_testkit::scratch("export-cli-graph");
    let dir = scratch.path();
    let spec = write_spec(dir, TWO);
    for (format, start) in [
        ("dot", "digraph \"packages.example.BothAbciApp\" {\n"),
        ("mermaid", "stateDiagram-v2\n"),
        ("svg", "<?xml"),
        ("html", "<!DOCTYPE html>"),
    ] {
        let (code, out, err) = run(&["graph", &spec, "-m", "BothAbciApp", "--format", format]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.starts_with(start), "{format}: {out}");
    }
    let file = dir.join("first.svg");
    let (code, out, _) = run(&[
        "graph",
        &spec,
        "-m",
        "FirstAbciApp",
        "--format",
        "svg",
        "-o",
        file.to_str().unwrap_or_default(),
    ]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(
        std::fs::read_to_string(&file)
            .is_ok_and(|s| s.contains("data-name=\"FinishedFirstRound\""))
    );
    let (code, _, err) = run(&["graph", &spec, "--format", "png"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn errors_write_nothing() {
    let scratch = fsmc_testkit::scratch("export-cli-errors");
    let dir = scratch.path();
    let spec = write_spec(
        dir,
        &TWO.replace(
            "(SecondRound, DONE) -> FinishedSecondRound;",
            "(SecondRound, DONE) -> Nowhere;",
        ),
    );
    let file = dir.join("out.yaml");
    let (code, out, err) = run(&[
        "export",
        &spec,
        "-m",
        "SecondAbciApp",
        "-o",
        file.to_str().unwrap_or_default(),
    ]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("Nowhere") && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!file.exists());
    let (code, _, err) = run(&[
        "import",
        dir.join("missing.yaml").to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
    let (code, _, err) = run(&[
        "export",
        &spec,
        "-I",
        dir.join("nope").to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn machines_yaml_cannot_express_are_refused_with_a_reason() {
    let scratch = fsmc_testkit::scratch("export-cli-guarded");
    let dir = scratch.path();
    let spec = write_spec(
        dir,
        "machine Door {\n    event open;\n    start default state Closed;\n    state Open;\n    final state Broken;\n    \
         (Closed, open) -> Open if unlocked;\n    (Closed, open) -> Broken;\n    (Open, open) -> Broken;\n}\n",
    );
    let (code, out, err) = run(&["export", &spec]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("guarded transitions on `(Closed, open)`"),
        "{err}"
    );
    // Drawings and `.fsm` still work.
    let (code, out, err) = run(&["export", "--format", "fsm", &spec]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("    (Closed, open) -> Open if unlocked;\n    (Closed, open) -> Broken;\n"),
        "{out}"
    );
    let (code, out, _) = run(&["graph", "--format", "mermaid", &spec]);
    assert_eq!(code, 0);
    assert!(
        out.contains("    Closed --> Open: open if unlocked\n"),
        "{out}"
    );
}

#[test]
fn graph_direction_is_top_to_bottom_by_default_and_every_format_agrees() {
    let scratch = fsmc_testkit::scratch("export-cli-direction");
    let dir = scratch.path();
    let spec = write_spec(dir, TWO);
    // The `y` (top to bottom) or `x` (left to right) of a state's box in an SVG drawing.
    let position = |svg: &str, state: &str, axis: &str| -> f64 {
        let at = svg
            .find(&format!("data-name=\"{state}\"><rect class=\"box\" "))
            .unwrap_or_else(|| panic!("{state} is not drawn"));
        svg[at..]
            .split(&format!(" {axis}=\""))
            .nth(1)
            .and_then(|v| v.split('"').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{state} has no {axis}"))
    };
    for (direction, rankdir, mermaid, axis) in [
        (None, "TB", "TB", "y"),
        (Some("tb"), "TB", "TB", "y"),
        (Some("lr"), "LR", "LR", "x"),
    ] {
        let with = |format: &str| {
            let mut args = vec![
                "graph",
                spec.as_str(),
                "-m",
                "FirstAbciApp",
                "--format",
                format,
            ];
            if let Some(d) = direction {
                args.extend(["--direction", d]);
            }
            let (code, out, err) = run(&args);
            assert_eq!(code, 0, "{format} {direction:?}: {err}");
            out
        };
        assert!(
            with("dot").contains(&format!("    rankdir={rankdir};\n")),
            "{direction:?}"
        );
        assert!(
            with("mermaid").contains(&format!("    direction {mermaid}\n")),
            "{direction:?}"
        );
        // FirstRound → FinishedFirstRound goes down the page (or across it), as DOT's rankdir says.
        for format in ["svg", "html"] {
            let drawing = with(format);
            assert!(
                position(&drawing, "FirstRound", axis)
                    < position(&drawing, "FinishedFirstRound", axis),
                "{format} {direction:?}"
            );
        }
    }
    let (code, _, err) = run(&["graph", &spec, "--format", "svg", "--direction", "up"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_machine_of_an_imported_file_can_be_picked_by_name() {
    let scratch = fsmc_testkit::scratch("export-cli-imported");
    let dir = scratch.path();
    write_spec(dir, TWO);
    let entry = dir.join("main.fsm");
    std::fs::write(
        &entry,
        "import \"spec.fsm\";\n\napp AgainAbciApp {\n    chain FirstAbciApp, SecondAbciApp;\n    \
         FinishedFirstRound -> SecondRound;\n    FinishedSecondRound -> FirstRound;\n}\n",
    )
    .expect("write the entry spec");
    let entry = entry.to_string_lossy().into_owned();
    // The entry file defines only the app; its chained machines live in the imported file.
    let (code, out, err) = run(&[
        "graph",
        "--format",
        "mermaid",
        "-m",
        "SecondAbciApp",
        &entry,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("SecondRound") && !out.contains("FirstRound"),
        "{out}"
    );
    // A name defined nowhere is still refused, listing the entry file's items.
    let (code, _, err) = run(&["graph", "--format", "mermaid", "-m", "ThirdAbciApp", &entry]);
    assert_eq!(code, 2);
    assert!(err.contains("it defines `AgainAbciApp`"), "{err}");
}
