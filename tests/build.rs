//! Generates the Rust of every shipped spec (what `include_fsm!` expands to) into OUT_DIR, with a test per
//! machine that checks its transition table against its accepted events. `tests/generated.rs` includes it,
//! so the generated code is compiled, tested and linted (`cargo clippy --all-targets -D warnings`) as
//! ordinary source.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn specs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            // specs/invalid holds specs that must fail.
            if !p.join(".fsmcignore").exists() {
                specs(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "fsm") {
            out.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", root.join("specs").display());
    let mut files = Vec::new();
    specs(&root.join("specs"), &mut files);
    let mut all = String::new();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let compilation = fsmc_driver::compile(&path, &fsmc_driver::Options::default())
            .expect("spec is readable");
        let Some(checked) = &compilation.checked else {
            panic!("{} has errors: run `fsmc check` on it", path.display());
        };
        let name = path
            .strip_prefix(root.join("specs"))
            .unwrap_or(&path)
            .with_extension("");
        let module = name.to_string_lossy().replace(['/', '\\', '-', '.'], "_");
        let file = out_dir.join(format!("{module}.rs"));
        std::fs::write(
            &file,
            fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
        .expect("OUT_DIR is writable");
        let _ = writeln!(
            all,
            "/// Generated from `specs/{}.fsm`.\npub mod {module} {{\n    include!({:?});",
            name.display(),
            file.display()
        );
        // One consistency test per generated machine whose transitions do not depend on guards.
        for m in checked.spec().entry_items.iter().map(|i| match i {
            fsmc_model::spec::Item::Machine(id) => checked.spec().machine(*id),
            fsmc_model::spec::Item::App(a) => &checked.composed()[*a].machine,
        }) {
            if m.events.is_empty() || m.transitions.iter().any(|t| !t.guards.is_empty()) {
                continue;
            }
            let md = fsmc_model::ident::snake(&m.name.text);
            let _ = writeln!(
                all,
                "    #[test]\n    fn {md}_table_agrees_with_accepted() {{\n        crate::check_table::<{md}::State>({md}::State::ALL, {md}::Event::ALL);\n    }}"
            );
        }
        all.push_str("}\n");
    }
    large_machine(&out_dir, &mut all);
    std::fs::write(out_dir.join("all.rs"), all).expect("OUT_DIR is writable");
    adversarial_specs(&out_dir);
    corpus::write(&out_dir);
}

#[path = "build/corpus.rs"]
mod corpus;

/// A machine past the dense-table limit (400 states × 200 events = 80,000 cells, 1,200 transitions): its `next`
/// searches sorted rows, and the table test checks that against its accepted events like any other.
fn large_machine(out_dir: &Path, all: &mut String) {
    let (states, events) = (400, 200);
    let mut spec =
        String::from("/// A ring with shortcuts, too large for a dense table.\nmachine Large {\n");
    for e in 0..events {
        let _ = writeln!(spec, "    event E{e};");
    }
    for s in 0..states {
        let kind = if s == 0 {
            "start default state"
        } else {
            "state"
        };
        let _ = writeln!(spec, "    {kind} S{s};");
    }
    for s in 0..states {
        for k in 0..3 {
            let e = (s * 3 + k) % events;
            let to = (s + 1 + k * 7) % states;
            let _ = writeln!(spec, "    (S{s}, E{e}) -> S{to};");
        }
    }
    spec.push_str("}\n");
    assert!(states * events > fsmc_model::codegen::DENSE_TABLE_LIMIT);
    let c = fsmc_driver::compile_str(
        "large.fsm",
        &spec,
        out_dir,
        &fsmc_driver::Options::default(),
    );
    let checked = c.checked.as_ref().expect("the large machine checks clean");
    let code = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked)).expect("Rust");
    assert!(
        !code.contains("static TABLE"),
        "a sparse table was expected"
    );
    std::fs::write(out_dir.join("large.rs"), code).expect("OUT_DIR is writable");
    let _ = writeln!(
        all,
        "/// A machine too large for a dense table.\npub mod large_machine {{\n    include!({:?});\n    #[test]\n    \
         fn large_table_agrees_with_accepted() {{\n        crate::check_table::<large::State>(large::State::ALL, large::Event::ALL);\n    }}\n}}",
        out_dir.join("large.rs")
    );
}

#[allow(dead_code)]
#[path = "src/adversarial.rs"]
mod adversarial;

/// Draws adversarial specs (see src/adversarial.rs) and writes the generated code of every one that checks
/// clean into `adversarial.rs`, which the library compiles in test builds: code that does not build fails the
/// build. A spec the checker refuses must be refused with diagnostics, never a panic.
fn adversarial_specs(out_dir: &Path) {
    println!("cargo:rerun-if-changed=src/adversarial.rs");
    println!("cargo:rerun-if-env-changed=FSMC_ADVERSARIAL_SEED");
    println!("cargo:rerun-if-env-changed=FSMC_ADVERSARIAL_CASES");
    let seed = std::env::var("FSMC_ADVERSARIAL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_f5c0_u64);
    let cases: usize = std::env::var("FSMC_ADVERSARIAL_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let mut rng = adversarial::Rng::new(seed);
    // The templates the Genie cases name, beside the specs (a template that does not exist is an error).
    for template in adversarial::GENIE_TEMPLATES {
        std::fs::write(out_dir.join(template), "{{ actor_input }}").expect("OUT_DIR is writable");
    }
    let mut code = String::new();
    let (mut accepted, mut refused) = (0usize, 0usize);
    let opts = fsmc_driver::Options::default();
    for i in 0..cases {
        let (name, text) = if i % 5 == 4 {
            (
                format!("case{i}_fsm_specification.yaml"),
                adversarial::yaml(&mut rng),
            )
        } else {
            (format!("case{i}.fsm"), adversarial::fsm(&mut rng))
        };
        if text.is_empty() {
            continue;
        }
        let c = fsmc_driver::compile_str(&name, &text, out_dir, &opts);
        let Some(checked) = &c.checked else {
            assert!(c.has_errors(), "case {i}: refused without an error\n{text}");
            refused += 1;
            continue;
        };
        let generated = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
            .unwrap_or_else(|e| panic!("case {i} (seed {seed}): {e}\n{text}"));
        accepted += 1;
        // The spec travels with its code, so a compile error in the output can be traced to it.
        let _ = writeln!(code, "/// Adversarial case {i}:\n///\n/// ```text");
        for line in text.lines() {
            let _ = writeln!(code, "/// {}", line.escape_debug());
        }
        let _ = writeln!(
            code,
            "/// ```\n#[allow(clippy::all)]\npub mod case_{i} {{\n{generated}\n}}"
        );
    }
    let _ = writeln!(
        code,
        "/// How many adversarial specs checked clean (their code is above) and how many were refused.\n\
         pub const ADVERSARIAL: (usize, usize) = ({accepted}, {refused});"
    );
    std::fs::write(out_dir.join("adversarial.rs"), code).expect("OUT_DIR is writable");
}
