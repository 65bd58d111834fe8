//! The four encodings the dispatch benchmark compares must be the same machine: on the same streams (valid and
//! with invalid events) they end every walk in the same state.

#[path = "../benches/encodings/mod.rs"]
mod encodings;

use encodings::{Event, State, hand_written, rust_fsm_encoding, smlang_encoding};
use fsmc_benches::walk;

fn ends<S: Copy + PartialEq>(table: &[S]) -> impl FnMut(S) -> usize + '_ {
    move |s| table.iter().position(|&x| x == s).expect("a known state")
}

#[test]
fn hand_written_match_is_the_generated_table() {
    assert_eq!(hand_written::STATES.len(), State::ALL.len());
    assert_eq!(hand_written::EVENTS.len(), Event::ALL.len());
    for (i, &s) in State::ALL.iter().enumerate() {
        for (j, &e) in Event::ALL.iter().enumerate() {
            let generated = s.next(e).ok().map(|t| t as usize);
            let hand = hand_written::STATES[i]
                .next(hand_written::EVENTS[j])
                .ok()
                .and_then(|t| hand_written::STATES.iter().position(|&x| x == t));
            assert_eq!(generated, hand, "{s} on {e}");
        }
    }
}

#[test]
fn all_encodings_agree() {
    for invalid_per_mille in [0, 100, 500] {
        let stream = walk::trader(100_000, invalid_per_mille, 11);
        assert!(stream.walks.len() > 1, "walks reach final states");
        let mut expected = Vec::new();
        encodings::run_generated(&stream.map(Event::ALL), |s| expected.push(s as usize));

        let mut got = Vec::new();
        let mut index = ends(&hand_written::STATES);
        encodings::run_hand_written(&stream.map(&hand_written::EVENTS), |s| got.push(index(s)));
        assert_eq!(got, expected, "hand-written match");

        let mut got = Vec::new();
        let mut index = ends(&smlang_encoding::STATES);
        encodings::run_smlang(&stream.map(&smlang_encoding::EVENTS), |s| {
            got.push(index(s))
        });
        assert_eq!(got, expected, "smlang");

        let mut got = Vec::new();
        let mut index = ends(&rust_fsm_encoding::STATES);
        encodings::run_rust_fsm(&stream.map(&rust_fsm_encoding::EVENTS), |s| {
            got.push(index(s))
        });
        assert_eq!(got, expected, "rust-fsm");
    }
    // The default start states agree.
    assert_eq!(
        hand_written::STATES[State::DEFAULT_START as usize],
        hand_written::START
    );
    let sm = smlang_encoding::TraderStateMachine::new(smlang_encoding::Context);
    assert!(*sm.state() == smlang_encoding::START);
    assert_eq!(
        *rust_fsm_encoding::trader_fsm::StateMachine::new().state(),
        rust_fsm_encoding::START
    );
    // Every walk but the last ends in a final state.
    let stream = walk::trader(100_000, 0, 11);
    let mut finals = 0;
    let walks = stream.map(Event::ALL);
    encodings::run_generated(&walks[..walks.len() - 1], |s| {
        finals += usize::from(State::is_final(s))
    });
    assert_eq!(finals, walks.len() - 1);
}
