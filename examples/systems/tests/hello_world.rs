//! Upstream's hello world skill, ported, on four agents over the simulated network: one agent comes up late and
//! registers, another crashes for good after the first period, and the service still runs five periods with every
//! replica agreeing on every app hash and the keeper saying hello each period.

use fsmc_examples::hello_world::{self, Agent, HELLO_WORLD, State};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The scenario: agent 3 boots late, agent 2 crashes after period 1. Returns the network and the agents.
fn run(seed: u64) -> (fsmc_sim::Network<hello_world::Spec, Agent>, Vec<Arc<Agent>>) {
    let agents: Vec<Arc<Agent>> = (0..4)
        .map(|i| {
            Arc::new(if i == 3 {
                Agent::booting()
            } else {
                Agent::new()
            })
        })
        .collect();
    let ids = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (hello_world::agent_id(i), Arc::clone(a)))
        .collect();
    let mut net = hello_world::network(seed, ids).expect("the network starts");
    // Agent 3 is still booting: the others' registrations wait for it (upstream registers every agent).
    net.run_for(4_000).expect("runs");
    assert_eq!(net.app(0).expect("up").state(), State::RegistrationRound);
    net.crash(3);
    agents[3].up.store(true, Ordering::SeqCst);
    net.restart(3, Arc::clone(&agents[3]))
        .expect("agent 3 comes up");
    assert!(hello_world::run_periods(&mut net, 1, 600_000).expect("runs"));
    net.crash(2);
    assert!(
        hello_world::run_periods(&mut net, 5, 600_000).expect("runs"),
        "five periods"
    );
    (net, agents)
}

#[test]
fn five_periods_with_a_late_agent_and_a_crashed_one() {
    let (net, agents) = run(7);
    net.agreement()
        .expect("every replica has the same app hash at every height");
    let app = net.app(0).expect("agent 0 is up");
    assert!(app.period() >= 5);
    // The late agent registered: it is a participant.
    assert!(app.participants().contains(&hello_world::agent_id(3)));
    assert!(net.app(2).is_none(), "agent 2 stays down");
    // Every period the keeper said hello, and everyone else had nothing to say.
    let lines: Vec<String> = agents.iter().flat_map(|a| a.lines()).collect();
    for period in 0..5 {
        let of_period: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains(&format!("in period {period} says")))
            .collect();
        let hellos = of_period
            .iter()
            .filter(|l| l.ends_with(HELLO_WORLD))
            .count();
        assert!(of_period.len() >= 3, "period {period}: {of_period:?}");
        assert!(
            hellos <= 1,
            "period {period}: one keeper at most: {of_period:?}"
        );
    }
    assert!(
        lines.iter().filter(|l| l.ends_with(HELLO_WORLD)).count() >= 4,
        "{lines:?}"
    );
    // The custom round wrote what the agents printed, sorted, into the replicated data.
    let printed = app
        .periods()
        .history()
        .filter_map(|d| d.printed_messages.clone())
        .next()
        .expect("a past period printed");
    let mut sorted = printed.clone();
    sorted.sort();
    assert_eq!(printed, sorted);
    assert_eq!(printed.len(), 3, "agent 2 is down: three lines");
}

#[test]
fn the_trace_shows_every_printing() {
    let (net, _) = run(11);
    let printings = net
        .trace()
        .iter()
        .flat_map(|h| h.replicas.iter().flatten().take(1))
        .flat_map(|a| a.steps.iter())
        .filter(|s| s.from == "PrintMessageRound" && s.to == "ResetAndPauseRound")
        .count();
    assert!(printings >= 5, "{printings} printings");
}
