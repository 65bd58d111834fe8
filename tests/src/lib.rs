//! The generated code of every shipped spec (see build.rs), compiled as this library's own code: it must build
//! without warnings, pass clippy with `-D warnings`, document every public item, and behave as its transition
//! table says (one test per machine). The workspace-level tests themselves are in `tests/`.
#![deny(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/all.rs"));

/// For every state and every event: `next` succeeds exactly for the accepted events, and the error names the
/// state, the event and the accepted events (no panics, no silent fallthrough).
#[cfg(test)]
fn check_table<S>(states: &[S], events: &[S::Event])
where
    S: fsmc_runtime::Machine + std::fmt::Display + PartialEq + std::fmt::Debug,
    S::Event: PartialEq + std::fmt::Display + std::fmt::Debug,
{
    for &s in states {
        for &e in events {
            match s.next(e) {
                Ok(_) => assert!(
                    s.accepted().contains(&e),
                    "{s} moved on {e}, which it does not accept"
                ),
                Err(err) => {
                    assert!(
                        !s.accepted().contains(&e),
                        "{s} rejected {e}, which it accepts"
                    );
                    assert_eq!(err.state, s);
                    assert_eq!(err.accepted, s.accepted());
                    let text = err.to_string();
                    assert!(
                        text.contains(&s.to_string()) && text.contains(&e.to_string()),
                        "{text}"
                    );
                }
            }
        }
        if s.is_final() {
            assert!(s.accepted().is_empty(), "final state {s} accepts events");
        }
    }
}

/// The code of random specs with adversarial names that checked clean (see `src/adversarial.rs` and
/// `build.rs`): compiled only in test builds, where a spec the checker accepted but whose code does not build
/// fails the build.
#[cfg(test)]
mod adversarial {
    include!(concat!(env!("OUT_DIR"), "/adversarial.rs"));

    #[test]
    fn enough_adversarial_specs_check_clean_to_mean_something() {
        let (accepted, refused) = ADVERSARIAL;
        // Both paths are exercised: the generator is neither all noise nor all tame.
        assert!(
            accepted >= 40,
            "only {accepted} specs checked clean ({refused} refused)"
        );
        assert!(
            refused >= 40,
            "only {refused} specs were refused ({accepted} checked clean)"
        );
    }
}

/// Every app of the Open Autonomy corpus, generated and run (see `build/corpus.rs`): `fsmc gen` of an upstream
/// spec, all of whose rounds are custom, makes an app that runs once its `Rounds` and `Behaviour` are written.
#[cfg(test)]
mod corpus_apps {
    use fsmc_runtime::app::{AgentId, AppSpec, Drive};
    use fsmc_sim::{Config, Network};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    include!(concat!(env!("OUT_DIR"), "/corpus_apps.rs"));

    /// What a run did.
    pub struct Ran {
        /// The states entered, by name.
        pub entered: BTreeSet<&'static str>,
        /// How many transitions were made.
        pub transitions: usize,
        /// Whether the app ended in a final state (a skill run alone stops there, as upstream's does).
        pub finished: bool,
    }

    /// Runs one corpus app from a seed.
    type Runner = fn(u64) -> Result<Ran, String>;

    /// The harness's decision: once a threshold of agents has sent, one of the round's outcomes, chosen by the
    /// block time (the same on every replica); `None` keeps collecting.
    fn pick<O: Copy>(threshold_reached: bool, time_ms: u64, outcomes: &[O]) -> Option<O> {
        if !threshold_reached || outcomes.is_empty() {
            return None;
        }
        let i = usize::try_from(time_ms / 1_000).unwrap_or(0) % outcomes.len();
        outcomes.get(i).copied()
    }

    /// Four agents run the app for two simulated minutes of one-second blocks; every replica must agree, and
    /// the first one's snapshot must restore.
    /// Byzantine and crashing agents are the simulation's own tests' business: here the app itself is on trial.
    fn run<S, H>(seed: u64, harness: Arc<H>, logic: Arc<S::Logic>) -> Result<Ran, String>
    where
        S: AppSpec + Drive<H>,
        H: Send + Sync + 'static,
    {
        let agents: Vec<(AgentId, Arc<H>)> = (0..4)
            .map(|i| (format!("agent{i}"), Arc::clone(&harness)))
            .collect();
        let mut net = Network::<S, H>::with_rounds(Config::new(seed), agents, Arc::clone(&logic))
            .map_err(|e| format!("{e:?}"))?;
        net.run_for(120_000).map_err(|e| format!("{e:?}"))?;
        net.agreement().map_err(|e| format!("{e:?}"))?;
        let mut ran = Ran {
            entered: BTreeSet::new(),
            transitions: 0,
            finished: false,
        };
        for applied in net.trace().iter().filter_map(|h| h.replicas[0].as_ref()) {
            ran.transitions += applied.steps.len();
            ran.entered.extend(applied.steps.iter().map(|t| t.to));
        }
        ran.finished = net.app(0).is_some_and(|app| S::is_final(app.state()));
        // The replica's snapshot restores to a replica of the same hash: every generated round and data type
        // decodes what it encodes.
        if let Some(app) = net.app(0) {
            let bytes = app.snapshot().map_err(|e| e.to_string())?;
            fsmc_runtime::app::App::<S>::restore(
                app.genesis().clone(),
                logic,
                &bytes,
                app.app_hash(),
            )
            .map_err(|e| format!("at height {}: {e}", app.height()))?;
        }
        Ok(ran)
    }

    #[test]
    fn every_corpus_app_runs_on_the_simulation() {
        if fsmc_testkit::corpus::for_test("corpus apps").is_none() {
            return;
        }
        assert!(
            APPS.len() >= 70,
            "only {} corpus apps check clean",
            APPS.len()
        );
        let mut stuck = Vec::new();
        for (file, run) in APPS {
            match run(7) {
                // Every app moves; one that does not finish keeps going for many rounds.
                Ok(ran) if ran.transitions >= 1 && (ran.finished || ran.transitions >= 20) => {}
                Ok(ran) => stuck.push(format!(
                    "{file}: {} transitions into {:?}, finished: {}",
                    ran.transitions, ran.entered, ran.finished
                )),
                Err(e) => stuck.push(format!("{file}: {e}")),
            }
        }
        assert!(stuck.is_empty(), "{}", stuck.join("\n"));
    }
}
