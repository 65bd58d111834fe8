//! The worst-case period `fsmc verify` proves for the oracle (4 agents, 1 fault) is never exceeded in
//! simulation with one crashed agent, over 1,000 seeds: no period takes more rounds than the bound's blocks
//! (each round decides in one block of prompt payloads, or times out), nor longer than the bound's timeouts
//! plus two block intervals (with their jitter) per round, the time payloads sent after one block take to be
//! in the next.

use fsmc_examples::oracle;

const LIMIT_MS: u64 = 3_600_000;
const SEEDS: u64 = 1_000;
/// The simulation's block interval with its largest jitter (a tenth).
const BLOCK_MS: u64 = 1_100;

fn bound() -> fsmc_verify::Bound {
    let path = fsmc_testkit::workspace().join("specs/oracle/oracle.fsm");
    let c = fsmc_driver::compile(&path, &fsmc_driver::Options::default()).expect("readable");
    let config = fsmc_verify::Config {
        agents: 4,
        faults: 1,
        max_states: 1_000_000,
    };
    let reports = fsmc_verify::verify(&c.checked.expect("the oracle checks"), &config);
    reports[0].bound.expect("the oracle's periods are bounded")
}

#[test]
fn periods_stay_within_the_verified_bound() {
    let bound = bound();
    let most_ms = u64::try_from(bound.time.as_millis()).unwrap() + bound.blocks * 2 * BLOCK_MS;
    let mut periods = 0;
    for seed in 0..SEEDS {
        let mut net = oracle::network(seed, 4).unwrap();
        assert!(oracle::run_periods(&mut net, 1, LIMIT_MS).unwrap());
        let down = (seed % 4) as usize;
        net.crash(down);
        assert!(oracle::run_periods(&mut net, 4, LIMIT_MS).unwrap());
        let live = (down + 1) % 4;
        // The live replica's periods, each from the block that started it to the reset that ends it.
        let mut rounds = 0u64;
        let mut start = None;
        for h in net.trace() {
            let Some(a) = h.replicas.get(live).and_then(Option::as_ref) else {
                continue;
            };
            let begun = *start.get_or_insert(h.time_ms);
            rounds += a.steps.len() as u64;
            if a.steps
                .iter()
                .any(|s| s.from == "ResetAndPauseRound" && s.to != s.from)
            {
                let took = h.time_ms - begun;
                assert!(
                    rounds <= bound.blocks,
                    "seed {seed}: a period of {rounds} rounds, over the bound of {} blocks",
                    bound.blocks
                );
                assert!(
                    took <= most_ms,
                    "seed {seed}: a period of {took} ms, over {most_ms} ms"
                );
                periods += 1;
                rounds = 0;
                start = Some(h.time_ms);
            }
        }
    }
    assert!(periods >= 4 * SEEDS, "{periods} periods");
}
