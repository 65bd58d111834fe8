//! Snapshots of every output format (insta file snapshots in `tests/snapshots/`): DOT, Mermaid, Open
//! Autonomy YAML and `.fsm` for every valid spec in `specs/` and a few corpus specs; SVG and HTML in full for
//! one small spec, and checked for structure everywhere else (their markup is large).

use crate::TB;
use crate::{assert_checked, compile, corpus, manifest_dir};
use fsmc::export::{self, Target};

/// Snapshots one output under `tests/snapshots/export-NAME.snap`.
fn snapshot(name: &str, text: &str) {
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(format!("export-{name}"), text);
    });
}

/// The structure every SVG drawing has: one group per state (named), one arrow per pair of states with
/// transitions between them, one per start state, balanced groups and finite coordinates.
pub fn assert_svg_structure(target: &Target<'_>, svg: &str) {
    let m = target.machine;
    assert!(
        svg.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
        ),
        "{}",
        m.name
    );
    assert!(svg.ends_with("</svg>\n"), "{}", m.name);
    assert_eq!(
        svg.matches("<g class=\"state ").count() + svg.matches("<g class=\"state\"").count(),
        m.states.len(),
        "{}",
        m.name
    );
    for s in &m.states {
        assert!(
            svg.contains(&format!("data-name=\"{}\"", s.name)),
            "{} lacks state {}",
            m.name,
            s.name
        );
    }
    let pairs: std::collections::BTreeSet<(usize, usize)> = m
        .transitions
        .iter()
        .map(|t| (t.from.index(), t.to.index()))
        .collect();
    assert_eq!(
        svg.matches("<path class=\"edge\" data-edge=").count(),
        pairs.len(),
        "{}",
        m.name
    );
    assert_eq!(
        svg.matches("class=\"edge start-edge").count(),
        m.start_states().count(),
        "{}",
        m.name
    );
    assert_eq!(
        svg.matches("<g").count(),
        svg.matches("</g>").count(),
        "{}",
        m.name
    );
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{}", m.name);
}

/// The HTML page: self-contained (nothing fetched), with the drawing, the data and the script.
fn assert_html_structure(target: &Target<'_>, html: &str) {
    let m = target.machine;
    assert!(html.starts_with("<!DOCTYPE html>\n") && html.ends_with("</html>\n"));
    let without_xmlns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for external in [
        "http://", "https://", "<link", " src=", "@import", "url(http",
    ] {
        assert!(
            !without_xmlns.contains(external),
            "{} page refers to something outside: {external}",
            m.name
        );
    }
    assert_eq!(
        html.matches("<g class=\"state ").count() + html.matches("<g class=\"state\"").count(),
        m.states.len()
    );
    assert!(html.contains("<script type=\"application/json\" id=\"fsm-data\">"));
    for s in &m.states {
        assert!(
            html.contains(&format!("\"name\":\"{}\"", s.name)),
            "{} lacks {}",
            m.name,
            s.name
        );
    }
}

/// Snapshots the text formats of one machine or app, and checks the drawings' structure.
fn formats(prefix: &str, target: &Target<'_>) {
    snapshot(&format!("{prefix}.dot"), &export::dot::write(target, TB));
    snapshot(
        &format!("{prefix}.mermaid"),
        &export::mermaid::write(target, TB),
    );
    let yaml =
        export::yaml::write_machine(target.machine).unwrap_or_else(|e| format!("error: {e}\n"));
    snapshot(&format!("{prefix}.oa-yaml"), &yaml);
    let fsm = export::fsm::write(target.machine, &[]).unwrap_or_else(|e| format!("error: {e}\n"));
    snapshot(&format!("{prefix}.fsm"), &fsm);
    let svg = export::svg::write(target, TB).expect("draws");
    assert_svg_structure(target, &svg);
    let html = export::html::write(target, TB).expect("draws");
    assert_html_structure(target, &html);
    assert_eq!(
        export::html::write(target, TB).as_deref(),
        Ok(html.as_str()),
        "HTML is deterministic"
    );
}

#[test]
fn every_valid_spec_in_specs_in_every_format() {
    let dir = fsmc_testkit::specs();
    let mut files = Vec::new();
    fsmc::cli::collect_specs(&dir, &mut files).expect("read specs/");
    let mut done = 0;
    for path in files
        .iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "invalid"))
    {
        let rel = path.strip_prefix(&dir).unwrap_or(path).with_extension("");
        let stem = rel.to_string_lossy().replace(['/', '\\'], "-");
        let c = fsmc_driver::compile(path, &fsmc_driver::Options::default()).expect("readable");
        let Some(checked) = &c.checked else {
            eprintln!("skipping {}: it has errors", path.display());
            continue;
        };
        for name in export::item_names(checked) {
            let target = export::select(checked, Some(name)).expect("an item of the spec");
            formats(&format!("spec-{stem}-{name}"), &target);
            done += 1;
            if target.origin.is_empty() {
                same_after_fsm_round_trip(path, &target);
            }
        }
    }
    eprintln!("exported {done} machines and apps from specs/");
}

/// A machine written as `.fsm` compiles again to the same machine: same drawing, same `.fsm` text.
fn same_after_fsm_round_trip(path: &std::path::Path, target: &Target<'_>) {
    let fsm = export::fsm::write(target.machine, &[]).expect("writes");
    let dir = path.parent().unwrap_or(path);
    let c = fsmc_driver::compile_str(
        "round-trip.fsm",
        &fsm,
        dir,
        &fsmc_driver::Options::default(),
    );
    let checked = assert_checked(&c, &format!("the .fsm of {}:\n{fsm}", path.display()));
    let again = export::select(checked, None).expect("one machine");
    // `.fsm` groups transitions by state, so the drawing's statements may come in another order.
    let (dot, expected) = (
        export::dot::write(&again, TB),
        export::dot::write(target, TB),
    );
    assert!(
        crate::same_lines(&dot, &expected),
        "{}:\n{dot}\n{expected}",
        path.display()
    );
    assert_eq!(
        export::fsm::write(again.machine, &[]).as_deref(),
        Ok(fsm.as_str()),
        "{}",
        path.display()
    );
    // Comparing the text twice written cannot see a property the writer drops: compare what each state means. In
    // any order: `.fsm` lists the start states first, an Open Autonomy spec in its `states` order (by name).
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        sorted(state_semantics(again.machine)),
        sorted(state_semantics(target.machine)),
        "{}",
        path.display()
    );
}

/// Everything a state says, by name: what code generation and the checks depend on.
fn state_semantics(m: &fsmc_model::spec::Machine) -> Vec<String> {
    let keys = |list: &[(fsmc_model::spec::KeyId, fsmc_base::source::Span)]| -> Vec<String> {
        list.iter()
            .map(|(k, _)| m.key(*k).name.text.to_string())
            .collect()
    };
    m.states
        .iter()
        .map(|s| {
            format!(
                "{} start={} default={} final={} kind={:?} genie={:?} reset={} registration={} elects_keeper={} \
                 confirmations={:?} payload={:?} reads={:?} writes={:?} requires={:?} ensures={:?} template={:?} handler={} outcomes={:?}",
                s.name,
                s.start,
                s.default_start,
                s.is_final,
                // A final state without a kind is degenerate: the writer may leave the kind out.
                (m.profile == fsmc_vocab::Profile::Abci).then(|| s.round_kind()),
                s.genie().and_then(|g| g.ty),
                s.round().is_some_and(|r| r.reset),
                s.round().is_some_and(|r| r.registration.is_some()),
                s.round().is_some_and(|r| r.elects_keeper.is_some()),
                s.round().and_then(|r| r.confirmations.map(|(n, _)| n)),
                s.payload(),
                keys(&s.reads),
                keys(&s.writes),
                keys(&s.requires),
                keys(&s.ensures),
                s.genie()
                    .and_then(|g| g.template.as_ref())
                    .map(|t| t.text.clone()),
                s.stage().is_some_and(|st| st.handler.is_some()),
                s.round()
                    .map_or(&[][..], |r| &r.outcomes)
                    .iter()
                    .map(|(o, e, _)| (o.name(), m.event(*e).name.text.clone()))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

#[test]
fn corpus_specs_in_every_format() {
    let Some(dir) = corpus() else { return };
    for (name, file) in [
        (
            "registration",
            "open-autonomy__packages__valory__skills__registration_abci__fsm_specification.yaml",
        ),
        (
            "hello-world",
            "hello-world__packages__valory__skills__hello_world_abci__fsm_specification.yaml",
        ),
        (
            "transaction-settlement",
            "open-autonomy__packages__valory__skills__transaction_settlement_abci__fsm_specification.yaml",
        ),
    ] {
        let c = compile(&dir.join(file), &[]);
        let target = export::select(assert_checked(&c, file), None).expect("one machine");
        formats(&format!("corpus-{name}"), &target);
    }
    let c = compile(
        &manifest_dir().join("tests/compositions/register_reset_abci.fsm"),
        std::slice::from_ref(&dir),
    );
    let target = export::select(assert_checked(&c, "register_reset_abci"), None).expect("the app");
    formats("composition-register-reset", &target);
}

#[test]
fn svg_and_html_of_a_small_spec_in_full() {
    let Some(dir) = corpus() else { return };
    let path = dir
        .join("open-autonomy__packages__valory__skills__registration_abci__fsm_specification.yaml");
    let c = compile(&path, &[]);
    let target = export::select(assert_checked(&c, "registration"), None).expect("one machine");
    snapshot(
        "corpus-registration.svg",
        &export::svg::write(&target, TB).expect("draws"),
    );
    snapshot(
        "corpus-registration.html",
        &export::html::write(&target, TB).expect("draws"),
    );
}

#[test]
fn cli_import_output_for_a_corpus_spec() {
    let Some(dir) = corpus() else { return };
    let path =
        dir.join("hello-world__packages__valory__skills__hello_world_abci__fsm_specification.yaml");
    let (code, out, err) = crate::run(&["import", path.to_str().unwrap_or_default()]);
    assert_eq!(code, 0, "{err}");
    snapshot("import-hello-world", &out);
}
