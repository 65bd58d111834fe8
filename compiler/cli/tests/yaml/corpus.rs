//! The corpus of real upstream specs: each reads without a diagnostic, and the writer reproduces upstream.
//!
//! The corpus is never copied into the repository; `fsmc_testkit::corpus` says where it is found
//! (`FSMC_CORPUS`). Where it is absent these tests say so and pass.

use super::{ok, report};
use fsmc::export::yaml::write;
use fsmc_base::diag::Code;
use fsmc_base::source::FileId;
use fsmc_driver::yaml::parse;
use std::path::{Path, PathBuf};

/// Top-level corpus files not in upstream's canonical form. All four were edited by hand upstream after the
/// writer ran: a few lines are out of sorted order (nothing else differs, which the test checks).
const NOT_CANONICAL: [&str; 4] = [
    // `SelectKeeperTransactionSubmissionBRound` listed (in `states` and its transitions) before
    // `…BAfterTimeoutRound`, although `A` sorts before `R`.
    "agent-academy-2__packages__valory__skills__transaction_settlement_abci__fsm_specification.yaml",
    // `FinishedMechTxSubmitterRound`, `MechTxSubmitterRound` and its transition placed by hand.
    "generatooorr__packages__valory__skills__mech_interact_abci__fsm_specification.yaml",
    // Three `(PostTxSettlementRound, …)` transitions inserted among the `RandomnessTransactionSubmissionRound` ones.
    "mech__packages__valory__skills__mech_abci__fsm_specification.yaml",
    // `FinishedWithReviewBetsRound` and `(CheckStopTradingRound, REVIEW_BETS)` appended out of order.
    "trader__packages__valory__skills__check_stop_trading_abci__fsm_specification.yaml",
];
const TOP_LEVEL_FILES: usize = 76;

fn corpus() -> Option<PathBuf> {
    fsmc_testkit::corpus::for_test("oa corpus tests")
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
    files.sort();
    files
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

#[test]
fn every_corpus_spec_reads_cleanly_and_round_trips() {
    // CI sets FSMC_CORPUS, so there a missing corpus fails rather than passing without checking anything.
    let Some(root) = corpus() else {
        return;
    };
    let mut canonical = Vec::new();
    let mut top_level = 0;
    for (dir, top) in [
        (root.clone(), true),
        (root.join("historical"), false),
        (root.join("variants"), false),
    ] {
        for path in yaml_files(&dir) {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let text = std::fs::read_to_string(&path).expect("corpus files are UTF-8");
            let (spec, diags) = parse(FileId(0), &text);
            assert!(diags.is_empty(), "{name}: {diags:#?}");
            let spec = spec.expect("a spec without diagnostics is usable");
            // Every name's span holds exactly that name.
            for t in &spec.transitions {
                for n in [&t.from, &t.event, &t.to] {
                    assert_eq!(&text[n.span.range()], n.as_str(), "{name}");
                }
            }
            let out = write(&spec);
            top_level += usize::from(top);
            if out == text {
                assert!(
                    !NOT_CANONICAL.contains(&name.as_str()),
                    "{name} is canonical now"
                );
                canonical.extend(top.then_some(name));
                continue;
            }
            // Historical and variant files are all canonical; a top-level one must be a known exception.
            assert!(
                top && NOT_CANONICAL.contains(&name.as_str()),
                "{name}: written differently:\n{out}"
            );
            assert_eq!(
                sorted_lines(&out),
                sorted_lines(&text),
                "{name}: differs by more than line order"
            );
            let (again, diags) = parse(FileId(0), &out);
            assert!(diags.is_empty());
            assert_eq!(
                again.map(|s| write(&s)).as_deref(),
                Some(out.as_str()),
                "{name}: write is not idempotent"
            );
        }
    }
    assert_eq!(top_level, TOP_LEVEL_FILES);
    assert_eq!(canonical.len(), TOP_LEVEL_FILES - NOT_CANONICAL.len());
}

/// The upstream JSON fixture is the same app as the historical hello-world spec, in JSON; the writer turns it
/// into YAML that reads back to the same spec.
#[test]
fn json_fixture_writes_as_canonical_yaml() {
    let Some(root) = corpus() else {
        return;
    };
    let path = root.join("test_fixtures/open-autonomy__tests__data__specs__fsm_specification.json");
    let text = std::fs::read_to_string(path).expect("the fixture is UTF-8");
    let (spec, diags) = parse(FileId(0), &text);
    assert!(diags.is_empty());
    let out = write(&spec.expect("usable"));
    assert!(out.starts_with("alphabet_in:\n- DONE\n- NO_MAJORITY\n"));
    assert!(
        out.contains("label: packages.valory.skills.hello_world_abci.rounds.HelloWorldAbciApp\n")
    );
    assert!(out.contains("start_states:\n- RegistrationRound\n"));
    assert!(out.ends_with("    (SelectKeeperRound, ROUND_TIMEOUT): RegistrationRound\n"));
}

#[test]
fn json_fixtures_parse_like_upstream() {
    let Some(dir) = corpus().map(|c| c.join("test_fixtures")) else {
        return;
    };
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(format!("open-autonomy__tests__data__specs__{name}.json")))
    };
    let read = |name: &str| read(name).expect("the corpus has upstream's three fixtures");
    let (valid, empty, extra) = (
        read("fsm_specification"),
        read("fsm_specification_empty"),
        read("fsm_specification_extra"),
    );
    let spec = ok(&valid);
    assert_eq!(spec.name(), "HelloWorldAbciApp");
    assert_eq!(&valid[spec.states[0].span.range()], "PrintMessageRound");

    let (spec, d) = report(&empty);
    assert!(spec.is_none());
    let missing: Vec<&str> = d.iter().map(|d| d.1.as_str()).collect();
    let expected: Vec<String> = fsmc_driver::yaml::read::KEYS
        .iter()
        .map(|k| format!("'{k}' is a required property"))
        .collect();
    assert_eq!(missing, expected);
    assert!(d.iter().all(|d| d.0 == Code::YamlSchema && d.2 == "{"));

    let (spec, d) = report(&extra);
    assert!(
        spec.is_some(),
        "an extra key does not make the spec unusable"
    );
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].1,
        "Additional properties are not allowed ('extra_field' was unexpected)"
    );
    assert_eq!(d[0].2, "\"extra_field\"");
}
