//! Over the whole Open Autonomy corpus: exporting a spec gives its canonical form (the file itself when the
//! file is canonical), and importing it to `.fsm` then exporting again changes nothing.

use crate::TB;
use crate::{assert_checked, canonical, compile, corpus, corpus_specs, options, same_lines};
use fsmc::export;

#[test]
fn exporting_a_corpus_spec_gives_its_canonical_form() {
    let Some(dir) = corpus() else { return };
    let specs = corpus_specs(&dir);
    assert!(specs.len() > 80, "the corpus has {} specs", specs.len());
    let mut stale = Vec::new();
    for path in &specs {
        let text = std::fs::read_to_string(path).expect("read a corpus spec");
        let c = compile(path, &[]);
        let target =
            export::select(assert_checked(&c, "spec"), None).expect("a YAML spec is one machine");
        let out = export::yaml::write_machine(target.machine)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(out, canonical(&text), "{}", path.display());
        if out != text {
            // A few upstream files were edited after they were generated (a renamed state left unsorted):
            // they hold the same lines, in another order.
            assert!(
                same_lines(&out, &text),
                "{} differs from its canonical form in content",
                path.display()
            );
            stale.push(
                path.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
        }
    }
    assert!(
        stale.len() <= 4,
        "more non-canonical corpus files than expected: {stale:?}"
    );
}

#[test]
fn importing_then_exporting_a_corpus_spec_is_the_identity() {
    let Some(dir) = corpus() else { return };
    for path in corpus_specs(&dir) {
        let text = std::fs::read_to_string(&path).expect("read a corpus spec");
        let c = compile(&path, &[]);
        let target = export::select(assert_checked(&c, "spec"), None).expect("one machine");
        let fsm = export::fsm::write(target.machine, &["imported".to_string()])
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));

        let back = fsmc_driver::compile_str("imported.fsm", &fsm, &dir, &options(&[]));
        let checked = assert_checked(&back, &format!("the import of {}:\n{fsm}", path.display()));
        let again = export::select(checked, None).expect("one machine");
        let yaml = export::yaml::write_machine(again.machine).expect("an imported spec exports");
        assert_eq!(
            yaml,
            canonical(&text),
            "{}: import then export\n{fsm}",
            path.display()
        );
        // The import is stable: writing the imported machine again gives the same source.
        assert_eq!(
            export::fsm::write(again.machine, &["imported".to_string()]).as_deref(),
            Ok(fsm.as_str()),
            "{}",
            path.display()
        );
    }
}

#[test]
fn imported_source_keeps_a_dotted_label() {
    let Some(dir) = corpus() else { return };
    let path = dir.join("historical/open-autonomy__packages__valory__skills__apy_estimation_chained_abci__fsm_specification.yaml");
    let c = compile(&path, &[]);
    let target = export::select(assert_checked(&c, "spec"), None).expect("one machine");
    let fsm = export::fsm::write(target.machine, &[]).expect("writes");
    assert!(
        fsm.starts_with("machine APYEstimationAbciAppChained: abci {\n"),
        "{fsm}"
    );
    assert!(fsm.contains("    label \"packages.valory.skills.apy_estimation_chained_abci.composition.APYEstimationAbciAppChained\";\n"), "{fsm}");
}

#[test]
fn every_drawing_of_every_corpus_spec_is_well_formed_and_deterministic() {
    let Some(dir) = corpus() else { return };
    for path in corpus_specs(&dir) {
        let c = compile(&path, &[]);
        let target = export::select(assert_checked(&c, "spec"), None).expect("one machine");
        let svg =
            export::svg::write(&target, TB).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::snapshots::assert_svg_structure(&target, &svg);
        assert_eq!(
            export::svg::write(&target, TB).as_deref(),
            Ok(svg.as_str()),
            "SVG of {} is deterministic",
            path.display()
        );
        let mermaid = export::mermaid::write(&target, TB);
        assert_eq!(
            mermaid
                .lines()
                .filter(|l| l.contains(" --> ") && !l.contains("[*]"))
                .count(),
            target.machine.transitions.len()
        );
        let dot = export::dot::write(&target, TB);
        assert_eq!(
            dot.matches(" [label=").count(),
            target.machine.transitions.len(),
            "{}",
            path.display()
        );
    }
}
