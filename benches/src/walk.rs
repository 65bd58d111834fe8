//! Event streams for the dispatch benchmark: seeded random walks over a machine's own tables.
//!
//! A walk starts at the default start state and at each step sends an event the current state accepts, chosen
//! uniformly; on reaching a state that accepts nothing (a final state) it ends, and the next walk starts again
//! at the default start. With `invalid_ratio > 0`, that fraction of steps instead sends an event the state does
//! not accept (chosen uniformly among those), and the machine stays where it is.
//!
//! A stream is a list of walks (segments) of event indices, in the order of the generated `Event` enum, so the
//! same stream can drive every encoding of the machine.

use crate::synth::Rng;
use crate::trader::{Event, State};

/// A stream of events, split into walks that each start at the default start state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// Event indices (into `Event::ALL`) of each walk.
    pub walks: Vec<Vec<u8>>,
    /// How many of the events are not accepted where they are sent.
    pub invalid: usize,
}

impl Stream {
    /// The total number of events.
    pub fn len(&self) -> usize {
        self.walks.iter().map(Vec::len).sum()
    }

    /// Whether the stream has no events.
    pub fn is_empty(&self) -> bool {
        self.walks.iter().all(Vec::is_empty)
    }

    /// The stream mapped onto another encoding's event type, through a table in `Event::ALL` order.
    pub fn map<E: Copy>(&self, table: &[E]) -> Vec<Vec<E>> {
        self.walks
            .iter()
            .map(|w| w.iter().map(|&e| table[e as usize]).collect())
            .collect()
    }
}

/// A stream of `len` events over the trader machine, `invalid_per_mille` of them (on average) invalid.
pub fn trader(len: usize, invalid_per_mille: u32, seed: u64) -> Stream {
    let mut rng = Rng::new(seed);
    let start = State::DEFAULT_START;
    let mut walks = Vec::new();
    let mut walk = Vec::new();
    let mut state = start;
    let mut invalid = 0;
    let mut rejected: Vec<Event> = Vec::with_capacity(Event::ALL.len());
    for _ in 0..len {
        let accepted = state.accepted();
        if accepted.is_empty() {
            walks.push(std::mem::take(&mut walk));
            state = start;
        }
        let accepted = state.accepted();
        if (rng.below(1000) as u32) < invalid_per_mille {
            rejected.clear();
            rejected.extend(Event::ALL.iter().copied().filter(|e| !accepted.contains(e)));
            if let Some(&e) = rejected.get(rng.below(rejected.len().max(1))) {
                walk.push(e as u8);
                invalid += 1;
                continue;
            }
        }
        let e = accepted[rng.below(accepted.len())];
        walk.push(e as u8);
        state = state.next(e).unwrap_or(state);
    }
    walks.push(walk);
    Stream { walks, invalid }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_sized() {
        let a = trader(20_000, 100, 1);
        assert_eq!(a, trader(20_000, 100, 1));
        assert_eq!(a.len(), 20_000);
        // About 10% invalid.
        assert!((1_600..2_400).contains(&a.invalid), "{}", a.invalid);
        assert_eq!(trader(20_000, 0, 1).invalid, 0);
    }

    #[test]
    fn valid_streams_are_valid() {
        let stream = trader(50_000, 0, 3);
        for w in &stream.walks {
            let mut s = State::DEFAULT_START;
            for &e in w {
                s = s.next(Event::ALL[e as usize]).expect("a valid stream");
            }
        }
    }
}
