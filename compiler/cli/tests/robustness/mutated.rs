//! The shipped specs and Open Autonomy YAML, mutated: every shipped spec compiles cleanly as it is, and no
//! mutation of it, or of the YAML seeds (the corpus included when there is one), makes the pipeline panic.

use crate::mutate::{fsm_tokens, mutate, mutation, yaml_tokens};
use crate::*;

#[test]
fn shipped_specs_compile_cleanly() {
    let specs = shipped_specs();
    let tree = spec_tree(&specs);
    for s in &specs {
        let c = s.compile_as(tree.path(), &s.text);
        let errors = render::human(&c.sources, &c.diagnostics, false);
        assert!(
            !c.has_errors(),
            "{} does not compile:\n{errors}",
            s.rel.display()
        );
    }
}

#[test]
fn mutated_specs_never_panic() {
    let specs = shipped_specs();
    let tree = spec_tree(&specs);
    let pool = fsm_tokens();
    let strategy = (0..specs.len(), prop::collection::vec(mutation(), 1..6));
    run(1000, strategy, |(i, mutations)| {
        let s = &specs[i];
        s.compile_as(tree.path(), &mutate(&s.text, &mutations, &pool));
        Ok(())
    });
}

#[test]
fn mutated_yaml_never_panics() {
    let seeds = yaml_seeds();
    let dir = scratch("robustness-yaml");
    let pool = yaml_tokens();
    let strategy = (
        0..seeds.len(),
        prop::collection::vec(mutation(), 1..6),
        any::<bool>(),
    );
    run(800, strategy, |(i, mutations, import)| {
        let text = mutate(&seeds[i], &mutations, &pool);
        let _ = fsmc_driver::yaml::parse(FileId(0), &text);
        compile_text("mutated_fsm_specification.yaml", &text, dir.path());
        if import {
            // The same file imported, renamed and chained, reaches the import and composition paths.
            write(dir.path(), "imported/fsm_specification.yaml", &text);
            let importer = "import \"imported/fsm_specification.yaml\" as Imported;\n\
                            import \"imported/fsm_specification.yaml\";\n\
                            app Composed { chain Imported; }\n";
            compile_text("importer.fsm", importer, dir.path());
        }
        Ok(())
    });
}
