//! The checked-in generated code is what its spec generates today, and the crate builds without the compiler.

use std::path::Path;

fn dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What `fsmc gen turnstile.fsm -o src/generated.rs` would write, compared with what is checked in.
#[test]
fn generated_code_matches_the_spec() {
    let spec = dir().join("turnstile.fsm");
    let compilation = fsmc_driver::compile(&spec, &fsmc_driver::Options::default()).unwrap();
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    let checked = compilation.checked.as_ref().unwrap();
    // The header names the spec relative to the generated file, as `fsmc gen -o` does.
    let expected = fsmc_model::codegen::generated_file("../turnstile.fsm", checked).unwrap();
    let actual = std::fs::read_to_string(dir().join("src/generated.rs")).unwrap();
    assert!(
        actual == expected,
        "src/generated.rs is stale: run `cargo run -p fsmc -- gen examples/pregenerated/turnstile.fsm -o \
         examples/pregenerated/src/generated.rs`"
    );
}

/// Cargo resolves this crate's dependencies without the macros: neither `fsmc-macros` nor the compiler is
/// among them (in a workspace build another member may still turn the feature on for everyone).
#[test]
fn builds_without_the_compiler() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            env!("CARGO_PKG_NAME"),
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    assert!(tree.contains("fsmc-runtime"), "{tree}");
    for name in ["fsmc-macros ", "fsmc ", "syn ", "pest "] {
        assert!(
            !tree.contains(name),
            "`{}` is a dependency:\n{tree}",
            name.trim()
        );
    }
}

#[test]
fn the_generated_machine_runs() {
    use fsmc_example_pregenerated::turnstile::{Event, State};
    let s = State::DEFAULT_START;
    assert_eq!(s, State::Locked);
    let s = s.next(Event::Coin).unwrap();
    assert_eq!(s, State::Unlocked);
    assert_eq!(s.next(Event::Push).unwrap(), State::Locked);
    assert_eq!("Unlocked".parse::<State>().unwrap(), State::Unlocked);
}
