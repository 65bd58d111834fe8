//! The specs of the four systems in `specs/` are real and clean: each compiles with no diagnostic at all
//! (not even a warning), and `fsmc check specs` — what CI runs — exits 0.

use fsmc_testkit::workspace;
use std::ffi::OsString;
use std::path::PathBuf;

/// Every spec `fsmc check specs` would check: `specs/invalid/` holds a `.fsmcignore` and is skipped.
fn clean_specs() -> Vec<PathBuf> {
    let mut specs = Vec::new();
    fsmc::cli::collect_specs(&workspace().join("specs"), &mut specs).expect("specs/ is readable");
    specs
}

#[test]
fn every_spec_compiles_without_diagnostics() {
    let mut options = fsmc_driver::Options::default();
    options.load.display_base = Some(workspace());
    let specs = clean_specs();
    for path in &specs {
        let c = fsmc_driver::compile(path, &options)
            .unwrap_or_else(|e| panic!("{}: {}", e.path, e.message));
        let rendered = fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false);
        assert!(c.diagnostics.is_empty(), "{}:\n{rendered}", path.display());
        assert!(c.checked.is_some(), "{}: no checked model", path.display());
    }
}

#[test]
fn every_system_has_a_spec() {
    // One spec per system fsmc targets: each is recognised by its profile or, for Open Autonomy, its app.
    let texts: Vec<String> = clean_specs()
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable spec"))
        .collect();
    for needle in [": abci", "\napp ", ": genie", ": dialogue", ": staged"] {
        assert!(
            texts.iter().any(|t| t.contains(needle)),
            "no spec in specs/ contains `{needle}`"
        );
    }
}

#[test]
fn the_oracle_app_composes_its_three_machines() {
    let path = workspace().join("specs/oracle/oracle.fsm");
    let c = fsmc_driver::compile(&path, &fsmc_driver::Options::default())
        .expect("oracle.fsm is readable");
    let checked = c.checked.expect("the oracle app checks clean");
    let [app] = checked.composed() else {
        panic!("one app in oracle.fsm")
    };
    let m = &app.machine;
    let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    // Mapped finals are gone; the registration, price and reset rounds remain; the app cycles, so no final.
    for gone in [
        "FinishedRegistrationRound",
        "FinishedPriceAggregationRound",
        "FinishedResetAndPauseRound",
    ] {
        assert!(
            !names.contains(&gone),
            "{gone} should be mapped away: {names:?}"
        );
    }
    for kept in [
        "RegistrationStartupRound",
        "CollectObservationRound",
        "SubmitPriceRound",
        "ResetAndPauseRound",
    ] {
        assert!(names.contains(&kept), "{kept} missing: {names:?}");
    }
    assert!(
        m.states.iter().all(|s| !s.is_final),
        "the oracle app runs forever"
    );
    // The asset agreed at registration must survive the reset, or the next period would observe nothing.
    let asset = m
        .keys
        .iter()
        .find(|k| k.name.as_str() == "asset")
        .expect("key");
    assert!(asset.cross_period);
}

#[test]
fn fsmc_check_specs_exits_zero() {
    // `run` shows paths relative to the current directory (tests/ under cargo), so pass an absolute path.
    let specs = workspace().join("specs");
    let args: [OsString; 3] = ["check".into(), "--deny-warnings".into(), specs.into()];
    let fsmc_testkit::Output {
        code,
        stdout: out,
        stderr: err,
    } = fsmc_testkit::capture(args, |argv, out, err| fsmc::cli::run(argv, out, err, false));
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.is_empty(), "{out}");
    // `check` counts the files it read (the specs named and those they import), its machines and apps.
    let files: usize = err
        .strip_prefix("fsmc: checked ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of files checked in {err:?}"));
    assert!(files >= clean_specs().len(), "{err}");
    assert!(err.trim_end().ends_with(": ok"), "{err}");
}
