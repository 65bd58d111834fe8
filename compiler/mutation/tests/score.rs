//! The mutation score of the generated tests: every mutant's tests run, a mutant whose tests fail is killed.
//! At least 95 % must be; the unmutated code (`original`) must pass. `cargo test -p fsmc-mutation --features
//! mutants -- --nocapture` prints every survivor and the score.

#[test]
fn generated_tests_kill_the_mutants() {
    let mutants = fsmc_mutation::MUTANTS;
    if mutants.is_empty() {
        eprintln!("mutation score: skipped, build with `--features mutants`");
        return;
    }
    // The mutants' failures are expected: their panic messages would drown the report.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut killed = 0;
    let mut survivors = Vec::new();
    let mut originals = 0;
    for (label, run) in mutants {
        let failed = std::panic::catch_unwind(run).is_err();
        if label.ends_with(": original") {
            originals += 1;
            assert!(
                !failed,
                "{label}: the generated tests fail on unmutated code"
            );
        } else if failed {
            killed += 1;
        } else {
            survivors.push(*label);
        }
    }
    std::panic::set_hook(hook);
    let total = mutants.len() - originals;
    let score = killed as f64 * 100.0 / total as f64;
    for s in &survivors {
        println!("survived: {s}");
    }
    println!("mutation score: {killed}/{total} killed ({score:.1} %)");
    assert!(
        score >= 95.0,
        "mutation score {score:.1} % < 95 %: {survivors:?}"
    );
}
