//! Where the checks must follow the runtime's semantics exactly: what a reset round's own writes leave in the
//! new period, which outcomes write, when a keeper stops counting as elected, timeouts no block can meet, and
//! machines a composition drops.

use super::{check, codes};
use fsmc_base::diag::Code;

#[test]
fn a_reset_rounds_own_writes_do_not_survive_the_reset_unless_cross_period() {
    // The runtime (like upstream's `create()`) writes the reset round's value into the period that ends and
    // starts the new one from the cross-period keys alone.
    let src = |cross: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, NO_MAJORITY; {cross} key seed: u64; \
             start default state ResetRound: collect_same_until_threshold {{ reset; payload \"u64\"; writes seed; }} \
             state UseRound: collect_same_until_all {{ reads seed; }} \
             (ResetRound, DONE) -> UseRound; (ResetRound, NO_MAJORITY) -> ResetRound; \
             (UseRound, DONE) -> ResetRound; }}"
        )
    };
    assert_eq!(codes(&src("")), [Code::ReadBeforeWrite]);
    assert_eq!(codes(&src("cross_period")), []);
}

#[test]
fn an_outcome_aliased_to_done_writes_nothing() {
    // `fail = DONE;`: a transition on `DONE` may be the keeper's failure, on which the runtime writes nothing.
    let src = |alias: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, FAIL, NO_MAJORITY; key tx: String; \
             start default state ElectRound: collect_same_until_threshold {{ elects_keeper; }} \
             state SendRound: only_keeper_sends {{ payload \"String\"; writes tx; {alias} }} \
             state UseRound: collect_same_until_all {{ reads tx; }} final state FinishedRound; \
             (ElectRound, DONE) -> SendRound; (ElectRound, NO_MAJORITY) -> ElectRound; \
             (SendRound, DONE) -> UseRound; (SendRound, FAIL) -> ElectRound; \
             (UseRound, DONE) -> FinishedRound; }}"
        )
    };
    assert_eq!(codes(&src("")), []);
    let aliased = codes(&src("fail = DONE;"));
    assert!(aliased.contains(&Code::ReadBeforeWrite), "{aliased:?}");
}

#[test]
fn a_failed_keeper_is_not_elected() {
    // After the keeper fails (its `FAIL`, or the round's timeout), the runtime marks it failed for the rest of
    // the period: reaching another keeper round needs a new election first.
    let src = |on_fail: &str, timeout_to: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE, FAIL, NO_MAJORITY; event ROUND_TIMEOUT timeout 30s; \
             start default state ElectRound: collect_same_until_threshold {{ elects_keeper; }} \
             state SendRound: only_keeper_sends; state RetryRound: only_keeper_sends; \
             final state FinishedRound; \
             (ElectRound, DONE) -> SendRound; (ElectRound, NO_MAJORITY) -> ElectRound; \
             (SendRound, DONE) -> FinishedRound; (SendRound, FAIL) -> {on_fail}; \
             (SendRound, ROUND_TIMEOUT) -> {timeout_to}; \
             (RetryRound, DONE) -> FinishedRound; (RetryRound, FAIL) -> ElectRound; }}"
        )
    };
    assert_eq!(
        codes(&src("ElectRound", "ElectRound")),
        [Code::UnreachableState]
    );
    assert_eq!(
        codes(&src("RetryRound", "ElectRound")),
        [Code::KeeperNotElected]
    );
    assert_eq!(
        codes(&src("ElectRound", "RetryRound")),
        [Code::KeeperNotElected]
    );
}

#[test]
fn a_timeout_shorter_than_a_block_is_a_warning() {
    let src = |t: &str| {
        format!(
            "machine PAbciApp: abci {{ event DONE; event ROUND_TIMEOUT timeout {t}; \
             start default state PingRound: collect_same_until_all; final state FinishedRound; \
             (PingRound, DONE) -> FinishedRound; (PingRound, ROUND_TIMEOUT) -> PingRound; }}"
        )
    };
    let d = check("test.fsm", &src("30ms"));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::ShortTimeout);
    assert!(!d[0].is_error());
    assert_eq!(codes(&src("1s")), []);
    assert_eq!(codes(&src("30s")), []);
}

#[test]
fn a_machine_the_mappings_skip_is_reported() {
    let machine = |name: &str| {
        format!(
            "machine {name}AbciApp: abci {{ event DONE; start default state {name}Round: collect_same_until_all; \
             final state Finished{name}Round; ({name}Round, DONE) -> Finished{name}Round; }} "
        )
    };
    let src = |mappings: &str| {
        format!(
            "{}{}{}app PAbciApp {{ chain FetchAbciApp, CheckAbciApp, PublishAbciApp; {mappings} }}",
            machine("Fetch"),
            machine("Check"),
            machine("Publish")
        )
    };
    // `CheckAbciApp`'s final leads on, but nothing leads into it: upstream's `chain` drops all of it.
    let d = check(
        "test.fsm",
        &src("FinishedFetchRound -> PublishRound; FinishedCheckRound -> PublishRound;"),
    );
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::MachineNeverEntered]
    );
    assert!(d[0].message.contains("`CheckAbciApp`"), "{}", d[0].message);
    assert_eq!(
        codes(&src(
            "FinishedFetchRound -> CheckRound; FinishedCheckRound -> PublishRound;"
        )),
        []
    );
}
