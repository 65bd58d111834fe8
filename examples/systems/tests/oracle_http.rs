//! The oracle with its prices over real HTTP (`--example oracle`): price sources on 127.0.0.1, one normal, one
//! slow that now and then stalls past the agents' timeout, one failing with 503. The agents abstain when their
//! source fails, observation rounds end by their timeout when too few observe, the trace shows both, and the
//! price the replicas agree on is the market's.

use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_examples::oracle::sources::{Sources, TIMEOUT_MS, market_price};
use fsmc_examples::oracle::{self, Agent, agent_id};
use fsmc_runtime::app::{Acted, Cause};
use fsmc_sim::Network;

/// The example's run on `seed` until `periods` periods, with the sources it ran against (which must outlive
/// nothing but the run: the network is dropped first).
struct Run {
    net: Network<Spec, Agent>,
    sources: Sources,
    _runtime: tokio::runtime::Runtime,
}

fn run(seed: u64, periods: u64) -> Run {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sources = Sources::start(runtime.handle()).unwrap();
    let net = {
        let _io = runtime.enter();
        oracle::run_with_http_sources(seed, &sources, periods).unwrap()
    };
    net.agreement().unwrap();
    for i in 0..4 {
        assert!(
            net.app(i).unwrap().period() >= periods,
            "seed {seed}: replica {i} completed {periods} periods"
        );
    }
    Run {
        net,
        sources,
        _runtime: runtime,
    }
}

/// Agent `i`'s abstentions: (round, reason).
fn abstentions(net: &Network<Spec, Agent>, i: usize) -> Vec<(u64, String)> {
    net.acted(i)
        .iter()
        .filter_map(|(_, a)| match a {
            Acted::Abstained { round, reason } => Some((*round, reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn failing_and_stalling_sources_show_as_abstentions_and_round_timeouts() {
    let Run { net, sources, .. } = run(7, 3);
    let steps: Vec<_> = net
        .trace()
        .iter()
        .filter_map(|h| h.replicas[0].clone())
        .flat_map(|a| a.steps)
        .collect();
    let observation_rounds = steps
        .iter()
        .filter(|s| s.to == "CollectObservationRound")
        .count();

    // Agent 2's source always fails: it abstains in every observation round (the last one may have just
    // opened when the run stopped), and in no other.
    let failing = abstentions(&net, 2);
    assert!(
        failing
            .iter()
            .all(|(_, why)| why == "price source answered HTTP 503"),
        "{failing:?}"
    );
    assert!(
        failing.len() + 1 >= observation_rounds && failing.len() <= observation_rounds,
        "{} abstentions in {observation_rounds} observation rounds",
        failing.len()
    );
    // Agent 1's source stalls on every third request, past the agents' timeout; it answers the others.
    let slow = abstentions(&net, 1);
    let timed_out = format!("price source timed out after {TIMEOUT_MS} ms");
    assert!(
        !slow.is_empty() && slow.iter().all(|(_, why)| *why == timed_out),
        "{slow:?}"
    );
    assert!(sources.slow.requests() > slow.len() as u64);
    // The healthy agents never abstain.
    assert!(abstentions(&net, 0).is_empty() && abstentions(&net, 3).is_empty());

    // With agent 2 abstaining, an observation round needs agent 1: when its request stalls, the round has two
    // observations of the three it needs, and ends by its timeout.
    let timeouts = steps
        .iter()
        .filter(|s| s.from == "CollectObservationRound" && s.cause == Cause::Timeout)
        .count();
    assert_eq!(timeouts, slow.len(), "one timeout per stalled request");

    // The trace shows both.
    let trace = oracle::format_trace(&net);
    let (round, _) = &failing[0];
    assert!(
        trace.contains(&format!(
            "agent-2 abstained in round {round}: price source answered HTTP 503"
        )),
        "{trace}"
    );
    assert!(trace.contains(&format!("agent-1 abstained in round 1: {timed_out}")));
    assert!(trace.contains("CollectObservationRound -ROUND_TIMEOUT-> CollectObservationRound"));
}

#[test]
fn the_agreed_price_is_the_market_price_at_the_rounds_start() {
    let Run { net, sources, .. } = run(11, 3);
    let app = net.app(0).unwrap();
    let block_times: Vec<u64> = net.chain().iter().map(|b| b.time_ms).collect();
    let mut checked = 0;
    for period in app.periods().history() {
        let (Some(observations), Some(estimate)) = (&period.observations, period.estimate) else {
            continue;
        };
        // Agent 2 never observed; the others quoted their own source at one common block time.
        let observers: Vec<&String> = observations.keys().collect();
        assert_eq!(observers, [&agent_id(0), &agent_id(1), &agent_id(3)]);
        let asked = block_times
            .iter()
            .copied()
            .filter(|&t| {
                observations.iter().all(|(who, &price)| {
                    let i = net.index_of(who).unwrap();
                    sources.for_agent(i).quote(t) == price
                })
            })
            .collect::<Vec<_>>();
        assert!(!asked.is_empty(), "{observations:?} match no block time");
        // The median of the quotes, which is the normal source's: the market's.
        let mut quotes: Vec<u64> = observations.values().copied().collect();
        quotes.sort_unstable();
        assert_eq!(estimate, quotes[quotes.len() / 2]);
        assert_eq!(estimate, market_price(asked[0]));
        assert_eq!(period.last_reported_price, Some(estimate));
        checked += 1;
    }
    assert!(checked >= 2, "{checked} periods checked");
}
