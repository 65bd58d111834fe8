//! The tests fsmc generates from every shipped spec, compiled and run: one per transition of each plain machine
//! and each Open Autonomy app (every round outcome and timeout, on blocks the generator synthesises).

mod oracle {
    fsmc_runtime::include_fsm!("../../specs/oracle/oracle.fsm", tests);
}

/// The same app's tests as one tour.
mod oracle_tour {
    fsmc_runtime::include_fsm!("../../specs/oracle/oracle.fsm", tests = tour);
}

mod supply_chain {
    fsmc_runtime::include_fsm!("../../specs/supply_chain/supply_chain.fsm", tests);
}

mod support {
    fsmc_runtime::include_fsm!("../../specs/support/support.fsm", tests);
}

mod tac {
    fsmc_runtime::include_fsm!("../../specs/tac/tac.fsm", tests);
}

mod turnstile {
    fsmc_runtime::include_fsm!("../pregenerated/turnstile.fsm", tests);
}

/// Hello world's custom round is the app's own code: its tests take the app's `Rounds` and the payloads that
/// make `PrintMessageRound` decide.
mod hello_world {
    use fsmc_examples::hello_world::hello_world_abci_app::{Event, Rounds};
    use fsmc_examples::hello_world::hello_world_abci_app_tests::{Fixture, check_all};
    use fsmc_examples::hello_world::{HELLO_WORLD, rounds};
    use fsmc_runtime::app::AgentId;
    use std::sync::Arc;

    struct HelloWorld;

    impl Fixture for HelloWorld {
        fn logic(&self) -> Arc<dyn Rounds> {
            rounds()
        }

        /// The round ends once every participant printed.
        fn print_message_round(
            &self,
            event: Event,
            eligible: &[AgentId],
        ) -> Vec<(AgentId, String)> {
            assert_eq!(
                event,
                Event::Done,
                "`PrintMessageRound` ends only with `DONE`"
            );
            eligible
                .iter()
                .map(|a| (a.clone(), HELLO_WORLD.to_string()))
                .collect()
        }
    }

    #[test]
    pub fn every_transition() {
        check_all(&HelloWorld);
    }
}

/// Every transition of every shipped spec, and so every (round, outcome) and round timeout of the apps, is taken
/// by the spec's generated tests: counted by spec coverage itself (the runtime's `coverage` feature, on in these
/// tests).
#[test]
fn the_generated_tests_cover_every_transition() {
    use fsmc_runtime::coverage::{Counters, Site};

    fn untaken<const N: usize>(counters: &'static Counters<N>) -> Vec<Site> {
        assert!(counters.enabled(), "the tests run with coverage on");
        let counts = counters.counts();
        // One counter per transition, and the spare.
        assert_eq!(counts.len() + 1, N);
        counts
            .into_iter()
            .filter(|(_, n)| *n == 0)
            .map(|(s, _)| s)
            .collect()
    }

    oracle::oracle_abci_app_tests::check_all(&oracle::oracle_abci_app_tests::Defaults);
    hello_world::every_transition();
    supply_chain::supply_chain_env_tests::check_all();
    support::support_assistant_tests::check_all();
    tac::fipa_negotiation_tests::check_all();
    turnstile::turnstile_tests::check_all();
    assert_eq!(untaken(&oracle::oracle_abci_app::COVERAGE), []);
    assert_eq!(
        untaken(&fsmc_examples::hello_world::hello_world_abci_app::COVERAGE),
        []
    );
    assert_eq!(untaken(&supply_chain::supply_chain_env::COVERAGE), []);
    assert_eq!(untaken(&support::support_assistant::COVERAGE), []);
    assert_eq!(untaken(&tac::fipa_negotiation::COVERAGE), []);
    assert_eq!(untaken(&turnstile::turnstile::COVERAGE), []);
}
