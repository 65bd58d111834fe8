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
