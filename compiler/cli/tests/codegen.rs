//! Generated code for every shipped spec: a file snapshot of what `fsmc gen` writes, and determinism (the same
//! spec, or one with its transitions and properties reordered, gives byte-identical output).

use fsmc_driver::loader::LoadOptions;
use fsmc_driver::{Options, compile, compile_str};
use std::path::{Path, PathBuf};

fn options() -> Options {
    Options {
        load: LoadOptions {
            display_base: Some(fsmc_testkit::workspace()),
            ..LoadOptions::default()
        },
        ..Options::default()
    }
}

/// Every spec under specs/ that is meant to compile (specs/invalid holds the failing ones).
fn specs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    fsmc::cli::collect_specs(&fsmc_testkit::workspace().join("specs"), &mut out)
        .expect("specs/ is readable");
    assert!(out.len() >= 4, "the four systems have specs");
    out
}

fn generated(path: &Path) -> String {
    let c = compile(path, &options()).expect("spec is readable");
    let checked = c.checked.unwrap_or_else(|| {
        panic!(
            "{} has errors:\n{}",
            path.display(),
            fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
        )
    });
    fsmc_model::codegen::format(fsmc_model::codegen::generate(&checked))
        .expect("the generated code is Rust")
}

#[test]
fn generated_code_snapshots() {
    for path in specs() {
        let name = path
            .strip_prefix(fsmc_testkit::workspace().join("specs"))
            .unwrap()
            .to_string_lossy()
            .replace(['/', '\\'], "__")
            .replace(".fsm", "");
        let code = generated(&path);
        // What generated code promises (docs/generated-api.md), visible in the text.
        assert!(
            !code.contains("unsafe"),
            "{name}: generated code has `unsafe`"
        );
        for panicky in ["unwrap()", "expect(", "panic!", "unreachable!", "todo!"] {
            assert!(
                !code.contains(panicky),
                "{name}: generated code contains `{panicky}`"
            );
        }
        insta::assert_snapshot!(format!("gen__{name}"), code);
    }
}

#[test]
fn generation_is_deterministic() {
    for path in specs() {
        assert_eq!(generated(&path), generated(&path), "{}", path.display());
    }
}

/// Reordering what the language leaves unordered (transitions without guards, a state's properties) does not
/// change a byte of the output.
#[test]
fn reordered_spec_generates_identical_code() {
    let original = r#"
        machine Door {
            event OPEN, CLOSE, LOCK, UNLOCK;
            key code: u32;
            start default state Closed { writes code; }
            state Opened { reads code; }
            state Locked { reads code; writes code; }
            final state Removed;
            (Closed, OPEN) -> Opened;
            (Opened, CLOSE) -> Closed;
            (Closed, LOCK) -> Locked;
            (Locked, UNLOCK) -> Closed;
            (Locked, OPEN) -> Removed;
        }
    "#;
    let shuffled = r#"
        machine Door {
            event OPEN, CLOSE, LOCK, UNLOCK;
            key code: u32;
            start default state Closed { writes code; }
            state Opened { reads code; }
            state Locked { writes code; reads code; }
            final state Removed;
            (Locked, OPEN) -> Removed;
            (Locked, UNLOCK) -> Closed;
            (Closed, LOCK) -> Locked;
            (Opened, CLOSE) -> Closed;
            (Closed, OPEN) -> Opened;
        }
    "#;
    let generate = |text: &str| {
        let c = compile_str("door.fsm", text, &std::env::temp_dir(), &Options::default());
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        fsmc_model::codegen::format(fsmc_model::codegen::generate(
            &c.checked.expect("checks clean"),
        ))
        .expect("the generated code is Rust")
    };
    let a = generate(original);
    assert_eq!(a, generate(shuffled));
    assert!(a.contains("pub mod door"), "{a}");
}

/// `fsmc gen -o FILE` writes only when the content changes, `--check` fails on a stale file, and nothing is
/// written for a spec with errors.
#[test]
fn gen_writes_only_changes_and_checks_staleness() {
    let dir = fsmc_testkit::scratch("gen");
    let spec = dir.path().join("door.fsm");
    std::fs::write(
        &spec,
        "machine Door { event GO; start default state A; final state B; (A, GO) -> B; }",
    )
    .unwrap();
    let out = dir.path().join("door.rs");
    let run = |args: &[&str]| {
        let o = fsmc_testkit::capture(args.iter().copied(), |argv, out, err| {
            fsmc::cli::run(argv, out, err, false)
        });
        (o.code, o.stderr)
    };
    let (spec_s, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(run(&["gen", spec_s, "-o", out_s]).0, 0);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("// @generated"), "{text}");
    let modified = std::fs::metadata(&out).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(run(&["gen", spec_s, "-o", out_s]).0, 0);
    assert_eq!(
        std::fs::metadata(&out).unwrap().modified().unwrap(),
        modified,
        "unchanged output is not rewritten"
    );
    assert_eq!(run(&["gen", spec_s, "-o", out_s, "--check"]).0, 0);
    std::fs::write(&spec, "machine Door { event GO, BACK; start default state A; final state B; (A, GO) -> B; (A, BACK) -> A; }").unwrap();
    let (code, err) = run(&["gen", spec_s, "-o", out_s, "--check"]);
    assert_eq!(code, 1);
    assert!(err.contains("stale"), "{err}");
    // A spec with errors: exit 1, the file is left alone.
    std::fs::write(
        &spec,
        "machine Door { event GO; start default state A; (A, GO) -> Nowhere; }",
    )
    .unwrap();
    let before = std::fs::read_to_string(&out).unwrap();
    assert_eq!(run(&["gen", spec_s, "-o", out_s]).0, 1);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), before);
}

/// Each module's docs draw its machine as an `<svg>` element rustdoc passes through: a raw HTML block of its
/// own (after a blank line, with none inside), well-formed, its ids and styles scoped to the module so two
/// drawings on one page do not clash; a machine too large to draw gets a note instead.
#[test]
fn module_docs_embed_a_drawing_rustdoc_keeps() {
    let mut spec = String::from(
        "machine Door { event OPEN, CLOSE; start default state Closed; state Opened;
            (Closed, OPEN) -> Opened; (Opened, CLOSE) -> Closed; }
         machine Light { event ON, OFF; start default state Off; state On;
            (Off, ON) -> On; (On, OFF) -> Off; }
         machine Large { event NEXT; start default state S0;\n",
    );
    for i in 1..200 {
        spec.push_str(&format!("state S{i}; (S{}, NEXT) -> S{i};\n", i - 1));
    }
    spec.push_str("final state End; (S199, NEXT) -> End; }");
    let c = compile_str("docs.fsm", &spec, Path::new("."), &options());
    let checked = c.checked.unwrap_or_else(|| {
        panic!(
            "{}",
            fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
        )
    });
    let code = fsmc_model::codegen::format(fsmc_model::codegen::generate(&checked))
        .expect("the generated code is Rust");
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    let mut ids: Vec<String> = Vec::new();
    let mut drawn = Vec::new();
    for (start, _) in lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("/// <svg"))
    {
        assert_eq!(
            lines[start - 1],
            "///",
            "the drawing starts a block of its own"
        );
        let end = start
            + lines[start..]
                .iter()
                .position(|l| *l == "/// </svg>")
                .expect("the drawing ends");
        let block: Vec<&str> = lines[start..=end]
            .iter()
            .map(|l| {
                l.strip_prefix("/// ")
                    .expect("a doc line with text: no blank line inside")
            })
            .collect();
        let svg = block.join("\n");
        let doc = roxmltree::Document::parse(&svg).expect("the drawing is well-formed XML");
        let root = doc.root_element();
        let scope = root
            .attribute("id")
            .expect("the drawing has an id")
            .to_string();
        let style = root
            .descendants()
            .find(|n| n.has_tag_name("style"))
            .and_then(|n| n.text())
            .expect("its styles");
        for rule in style.split_inclusive('}') {
            assert!(
                rule.starts_with(&format!("#{scope} ")),
                "{rule} is not scoped"
            );
        }
        for node in root.descendants() {
            if let Some(id) = node.attribute("id") {
                assert!(id.starts_with(&scope), "{id} is not scoped to {scope}");
                ids.push(id.to_string());
            }
            if let Some(url) = node.attribute("marker-end") {
                assert_eq!(url, format!("url(#{scope}-arrow)"));
            }
        }
        drawn.push(scope);
    }
    assert_eq!(drawn, ["fsmc-door", "fsmc-light"]);
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids repeat: {ids:?}");
    assert!(
        code.contains("/// The machine is too large to draw here"),
        "the large machine has no note"
    );
}
