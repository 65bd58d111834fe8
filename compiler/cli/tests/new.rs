//! `fsmc new`: what it writes for a plain machine and for an app, that the spec it writes checks clean, and what
//! it refuses. CI builds the crates it writes and runs their tests (`.ci/run`).

use std::path::Path;

fn fsmc(args: &[&str]) -> (i32, String, String) {
    let o = fsmc_testkit::capture(args.iter().copied(), |argv, out, err| {
        fsmc::cli::run(argv, out, err, false)
    });
    (o.code, o.stdout, o.stderr)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn new_writes_a_crate_whose_spec_checks_clean() {
    let dir = fsmc_testkit::scratch("new");
    let checkout = fsmc_testkit::workspace();
    for (name, kind, module) in [
        ("shop", "--plain", "shop"),
        ("price-feed", "--app", "price_feed_abci_app"),
    ] {
        let at = dir.path().join(name);
        let (code, out, err) = fsmc(&[
            "new",
            at.to_str().unwrap(),
            kind,
            "--fsmc",
            checkout.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("cargo test"), "{out}");
        let manifest = read(&at.join("Cargo.toml"));
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{manifest}"
        );
        assert!(manifest.contains(&checkout.join("runtime").to_string_lossy().into_owned()));
        let lib = read(&at.join("src/lib.rs"));
        assert!(
            lib.contains(&format!("include_fsm!(\"{name}.fsm\")")),
            "{lib}"
        );
        assert!(lib.contains(&format!("crate::{module}::")), "{lib}");
        assert!(!lib.contains("{{") && !read(&at.join("tests/simulation.rs")).contains("{{"));
        assert!(at.join("Cargo.lock").is_file(), "the checkout's versions");
        let spec = at.join(format!("{name}.fsm"));
        let (code, _, err) = fsmc(&["check", spec.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("warning["), "{err}");
    }
}

#[test]
fn new_refuses_an_existing_path_and_a_name_no_crate_can_have() {
    let dir = fsmc_testkit::scratch("new-refused");
    let existing = dir.path().join("taken");
    std::fs::create_dir(&existing).unwrap();
    let (code, _, err) = fsmc(&["new", existing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
    let bad = dir.path().join("9lives");
    let (code, _, err) = fsmc(&["new", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot name a crate"), "{err}");
    assert!(!bad.exists());
}
