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
        let compilation =
            fsmc::compile(&path, &fsmc::Options::default()).expect("spec is readable");
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
            fsmc::codegen::format(fsmc::codegen::generate(checked)),
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
            fsmc::model::Item::Machine(id) => checked.spec().machine(*id),
            fsmc::model::Item::App(a) => &checked.composed()[*a].machine,
        }) {
            if m.events.is_empty() || m.transitions.iter().any(|t| !t.guards.is_empty()) {
                continue;
            }
            let md = fsmc::ident::snake(&m.name.text);
            let _ = writeln!(
                all,
                "    #[test]\n    fn {md}_table_agrees_with_accepted() {{\n        crate::check_table::<{md}::State>({md}::State::ALL, {md}::Event::ALL);\n    }}"
            );
        }
        all.push_str("}\n");
    }
    std::fs::write(out_dir.join("all.rs"), all).expect("OUT_DIR is writable");
}
