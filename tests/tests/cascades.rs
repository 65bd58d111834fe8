//! One mistake, one primary diagnostic: what follows from a mistake is a note on it, not a diagnostic of its
//! own. Each case makes one mistake in a spec that checks clean and snapshots the whole rendered report.

use fsmc_base::diag::Severity;
use fsmc_driver::loader::Overlay;
use fsmc_driver::{Compilation, Options};
use fsmc_testkit::workspace;

/// Compiles the oracle spec of `specs/oracle` with `file`'s text edited by `edit`, read from memory.
fn oracle_with(file: &str, edit: impl Fn(&str) -> String) -> Compilation {
    let dir = workspace().join("specs/oracle");
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("the oracle spec is readable");
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed nothing");
    let mut overlay = Overlay::default();
    overlay.insert(&path, edited);
    let mut options = Options::default();
    options.load.display_base = Some(workspace());
    fsmc_driver::compile_overlaid(&dir.join("oracle.fsm"), &options, &overlay)
        .expect("the entry file is readable")
}

fn rendered(c: &Compilation) -> String {
    fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
}

fn errors(c: &Compilation) -> usize {
    c.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

#[test]
fn a_removed_transition_is_one_missing_transition_and_one_unreachable_region() {
    let c = oracle_with("price_aggregation.fsm", |t| {
        t.replace("    (EstimateConsensusRound, DONE) -> TxHashRound;\n", "")
    });
    // The round that lost its transition, and the states behind it once: not every state behind it, and not
    // once more per composed app (22 diagnostics, 13 of them errors, before).
    assert!(errors(&c) <= 3, "{}", rendered(&c));
    insta::assert_snapshot!(rendered(&c));
}

#[test]
fn an_unreachable_state_is_reported_once() {
    let c = oracle_with("price_aggregation.fsm", |t| {
        t.replace(
            "    (ValidatePriceRound, DONE) -> FinishedPriceAggregationRound;\n",
            "    (ValidatePriceRound, DONE) -> ValidatePriceRound;\n",
        )
    });
    let unreachable = c
        .diagnostics
        .iter()
        .filter(|d| {
            d.message
                .contains("`FinishedPriceAggregationRound` is unreachable")
        })
        .count();
    assert_eq!(unreachable, 1, "{}", rendered(&c));
    insta::assert_snapshot!(rendered(&c));
}

#[test]
fn a_bad_import_is_not_also_an_unknown_machine() {
    let c = oracle_with("oracle.fsm", |t| {
        t.replace(
            "import \"price_aggregation.fsm\";",
            "import \"price_aggregatoin.fsm\";",
        )
    });
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.id()).collect();
    assert_eq!(codes, ["E0005"], "{}", rendered(&c));
    insta::assert_snapshot!(rendered(&c));
}

#[test]
fn an_unknown_machine_next_to_an_aliased_bad_import_is_still_reported() {
    let c = oracle_with("oracle.fsm", |t| {
        t.replace(
            "import \"price_aggregation.fsm\";",
            "import \"price_aggregatoin.fsm\" as Prices;",
        )
    });
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.id()).collect();
    // The alias names what the lost file would have defined; the chain names the machine otherwise.
    assert_eq!(codes, ["E0005", "E0106"], "{}", rendered(&c));
}
