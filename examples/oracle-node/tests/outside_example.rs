//! `docs/abci.md`'s "Your app on the engine" shows the example crate outside the workspace
//! (`examples/outside/`) whole, file by file: what a user copies from the page is what CI builds and runs.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The contents of every fenced code block of `markdown`.
fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        match (&mut current, line.starts_with("```")) {
            (None, true) => current = Some(Vec::new()),
            (Some(lines), true) => {
                blocks.push(lines.join("\n"));
                current = None;
            }
            (Some(lines), false) => lines.push(line),
            (None, false) => {}
        }
    }
    blocks
}

#[test]
fn the_docs_show_the_outside_example_as_it_is() {
    let docs = std::fs::read_to_string(root().join("docs/abci.md")).expect("docs/abci.md");
    let section = docs
        .split("## Your app on the engine")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the section");
    let blocks = code_blocks(section);
    for file in ["Cargo.toml", "dice.fsm", "src/main.rs"] {
        let text = std::fs::read_to_string(root().join("examples/outside").join(file)).expect(file);
        assert!(
            blocks.iter().any(|b| b.trim_end() == text.trim_end()),
            "docs/abci.md does not show examples/outside/{file} as it is"
        );
    }
}

#[test]
fn the_outside_example_is_outside_the_workspace_with_its_own_lock() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("exclude = [\"examples/outside\"]"));
    assert!(
        !manifest.contains("\"examples/outside\",\n"),
        "not a member"
    );
    let lock =
        std::fs::read_to_string(root().join("examples/outside/Cargo.lock")).expect("its lock");
    assert!(lock.contains("name = \"dice-node\""));
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    assert!(ci.contains("examples/outside"), "CI builds it");
}

/// Its lock still fits its dependencies (the runtime and the engine adapter are path dependencies: a dependency
/// added to either changes what the lock must hold). To refresh it: copy the workspace's `Cargo.lock` over it and
/// run `cargo tree --offline` in `examples/outside`, which keeps the workspace's versions and drops the rest.
#[test]
fn the_outside_examples_lock_is_current() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--locked",
            "--offline",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root().join("examples/outside/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "examples/outside/Cargo.lock is stale:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
