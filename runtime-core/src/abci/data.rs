//! Synchronized data split into periods, and the key checks behind pre- and post-conditions.
//!
//! In an Open Autonomy app every instance holds the same synchronized data. A reset round starts a
//! new *period*: a fresh slot that starts from the keys declared cross-period, the others dropped.
//! The generated code owns the typed data struct `D` and writes the carry function (it knows which
//! keys are cross-period); this module only keeps the history in order and bounded.

// What generated code provides, and what it calls here (the contract with the code generator): an `abci`
// machine's typed `Data`, whose `carry` keeps the cross-period keys (the app driver hands it, as
// `AppSpec::carry`, to `Periods::start_new_period`) and whose `check` answers pre- and post-conditions through
// `check_keys`, which is hidden from the documentation; `MissingKeys`, what `check` returns, is the user's to
// read.

use std::collections::BTreeSet;
use std::error::Error;
use std::fmt::{self, Display, Formatter};

// The keys every Open Autonomy app has without declaring them (the compiler rejects a spec that lists one as a
// pre- or post-condition).
pub use fsmc_vocab::abci::DEFAULT_KEYS;

/// The synchronized data of every period still kept, oldest first, ending with the current one.
///
/// Never empty: the current period always exists, so [`Periods::current`] needs no `Option`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Periods<D> {
    // Kept apart from `past` so the current period exists by construction, not by an invariant
    // that a `last().unwrap()` would have to trust.
    current: D,
    past: Vec<D>,
    period: u64,
}

impl<D: Clone> Periods<D> {
    /// A history holding only period 0, with `initial` as its data.
    pub fn new(initial: D) -> Self {
        Self {
            current: initial,
            past: Vec::new(),
            period: 0,
        }
    }

    /// The current period's data.
    pub fn current(&self) -> &D {
        &self.current
    }

    /// The current period's data, for the round that just ended to update.
    pub fn current_mut(&mut self) -> &mut D {
        &mut self.current
    }

    /// The current period's number: 0 for the first, one more for each [`start_new_period`]
    /// (Open Autonomy's `period_count`). Pruning does not change it.
    ///
    /// [`start_new_period`]: Periods::start_new_period
    pub fn period(&self) -> u64 {
        self.period
    }

    /// Starts a new period whose data is `carry(&current)`; the old current period moves into the
    /// history. `carry` is where only the cross-period keys survive.
    ///
    /// The period number saturates at `u64::MAX` rather than wrapping.
    pub fn start_new_period(&mut self, carry: impl FnOnce(&D) -> D) {
        let next = carry(&self.current);
        let previous = std::mem::replace(&mut self.current, next);
        self.past.push(previous);
        self.period = self.period.saturating_add(1);
    }

    /// Keeps only the last `keep_last` periods, the current one included, dropping the oldest.
    /// `keep_last = 0` keeps the current period anyway: it is never dropped.
    pub fn prune(&mut self, keep_last: usize) {
        let keep_past = keep_last.saturating_sub(1);
        let drop = self.past.len().saturating_sub(keep_past);
        self.past.drain(..drop);
    }

    /// How many periods are kept (at least 1).
    pub fn retained(&self) -> usize {
        self.past.len().saturating_add(1)
    }

    /// The kept periods, oldest first, ending with the current one.
    pub fn history(&self) -> impl DoubleEndedIterator<Item = &D> {
        self.past.iter().chain(std::iter::once(&self.current))
    }

    /// The data of period number `period`, if it is still kept.
    pub fn get(&self, period: u64) -> Option<&D> {
        let back = self.period.checked_sub(period)?;
        if back == 0 {
            return Some(&self.current);
        }
        // `past` ends with the period just before the current one: `back` periods ago is
        // `back` places from its end.
        let index = self.past.len().checked_sub(usize::try_from(back).ok()?)?;
        self.past.get(index)
    }
}

/// The most past periods a decoded history may hold: far beyond any history depth a genesis sets.
#[cfg(feature = "app")]
const MAX_DECODED_PAST: u64 = 1 << 20;

// A replica's snapshot holds every kept period: the current one, the history before it, and the period number.
// The history is written as a count and its periods one by one, not as a borsh `Vec`, which refuses the data of
// a machine without keys (`()`, a zero-sized type).
#[cfg(feature = "app")]
impl<D: borsh::BorshSerialize> borsh::BorshSerialize for Periods<D> {
    fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
        self.current.serialize(writer)?;
        (self.past.len() as u64).serialize(writer)?;
        for data in &self.past {
            data.serialize(writer)?;
        }
        self.period.serialize(writer)
    }
}

#[cfg(feature = "app")]
impl<D: borsh::BorshDeserialize> borsh::BorshDeserialize for Periods<D> {
    fn deserialize_reader<R: borsh::io::Read>(reader: &mut R) -> borsh::io::Result<Self> {
        let current = D::deserialize_reader(reader)?;
        let count = u64::deserialize_reader(reader)?;
        if count > MAX_DECODED_PAST {
            return Err(borsh::io::Error::new(
                borsh::io::ErrorKind::InvalidData,
                format!("a history of {count} periods"),
            ));
        }
        let past = (0..count)
            .map(|_| D::deserialize_reader(reader))
            .collect::<borsh::io::Result<Vec<D>>>()?;
        Ok(Periods {
            current,
            past,
            period: u64::deserialize_reader(reader)?,
        })
    }
}

/// Required keys that were not present, sorted and without repeats.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MissingKeys {
    /// The missing keys.
    pub keys: BTreeSet<String>,
}

impl Display for MissingKeys {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("missing keys: ")?;
        for (i, key) in self.keys.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{key}`")?;
        }
        Ok(())
    }
}

impl Error for MissingKeys {}

/// Checks that every key in `required` is present according to `present`.
///
/// All missing keys are reported at once, in sorted order, so the message is the same on every
/// instance whatever order the spec listed them in.
#[doc(hidden)]
pub fn check_keys(required: &[&str], present: impl Fn(&str) -> bool) -> Result<(), MissingKeys> {
    let keys: BTreeSet<String> = required
        .iter()
        .filter(|key| !present(key))
        .map(|key| (*key).to_owned())
        .collect();
    if keys.is_empty() {
        Ok(())
    } else {
        Err(MissingKeys { keys })
    }
}

/// Which side of an app a condition guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Condition {
    /// Keys an app needs on entry through a start state.
    Pre,
    /// Keys an app guarantees on exit through a final state.
    Post,
}

/// A pre- or post-condition that did not hold at run time: which one, at which state, which keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConditionError {
    /// Pre- or post-condition.
    pub condition: Condition,
    /// The start state (pre) or final state (post) the condition belongs to.
    pub state: &'static str,
    /// The keys that were required but absent.
    pub missing: MissingKeys,
}

impl ConditionError {
    /// Checks that every key in `required` is present according to `present`, as a generated `Data::check`
    /// does, and names `condition` and `state` in the error. All missing keys are reported at once, sorted.
    pub fn check(
        condition: Condition,
        state: &'static str,
        required: &[&str],
        present: impl Fn(&str) -> bool,
    ) -> Result<(), Self> {
        check_keys(required, present).map_err(|missing| Self {
            condition,
            state,
            missing,
        })
    }
}

impl Display for ConditionError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let which = match self.condition {
            Condition::Pre => "pre-condition of start state",
            Condition::Post => "post-condition of final state",
        };
        write!(
            f,
            "{which} `{}` does not hold: {}",
            self.state, self.missing
        )
    }
}

impl Error for ConditionError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Data {
        safe: &'static str,
        votes: Vec<u8>,
    }

    /// What generated code does on reset: keep the cross-period key, drop the rest.
    fn carry(d: &Data) -> Data {
        Data {
            safe: d.safe,
            votes: Vec::new(),
        }
    }

    fn start() -> Periods<Data> {
        Periods::new(Data {
            safe: "0xsafe",
            votes: vec![1],
        })
    }

    #[test]
    fn new_period_carries_only_what_carry_keeps() {
        let mut p = start();
        p.current_mut().votes.push(2);
        p.start_new_period(carry);
        assert_eq!(p.period(), 1);
        assert_eq!(p.current().safe, "0xsafe");
        assert!(p.current().votes.is_empty());
        let votes: Vec<_> = p.history().map(|d| d.votes.len()).collect();
        assert_eq!(votes, [2, 0]);
    }

    #[test]
    fn prune_keeps_newest_and_never_the_current() {
        let mut p = start();
        for i in 0..5u8 {
            p.start_new_period(|_| Data {
                safe: "s",
                votes: vec![i],
            });
        }
        assert_eq!(p.retained(), 6);
        p.prune(3);
        assert_eq!(p.retained(), 3);
        let kept: Vec<_> = p.history().map(|d| d.votes.clone()).collect();
        assert_eq!(kept, [vec![2], vec![3], vec![4]]);
        p.prune(0);
        assert_eq!(p.retained(), 1);
        assert_eq!(p.current().votes, [4]);
        assert_eq!(p.period(), 5, "pruning keeps the period count");
        p.prune(100);
        assert_eq!(p.retained(), 1);
    }

    #[test]
    fn get_by_period_number() {
        let mut p = start();
        p.start_new_period(carry);
        p.start_new_period(carry);
        assert_eq!(p.get(0).map(|d| d.votes.len()), Some(1));
        assert_eq!(p.get(2), Some(p.current()));
        assert_eq!(p.get(3), None);
        p.prune(2);
        assert_eq!(p.get(0), None);
        assert!(p.get(1).is_some());
        assert_eq!(p.get(u64::MAX), None);
    }

    #[test]
    fn check_keys_reports_all_missing_sorted() {
        let present = |k: &str| k == "b";
        assert_eq!(check_keys(&["b"], present), Ok(()));
        assert_eq!(check_keys(&[], present), Ok(()));
        let err = check_keys(&["z", "b", "a", "z"], present).unwrap_err();
        assert_eq!(err.to_string(), "missing keys: `a`, `z`");
    }

    #[test]
    fn condition_error_names_state() {
        let err =
            ConditionError::check(Condition::Pre, "StartRound", &["x"], |_| false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pre-condition of start state `StartRound` does not hold: missing keys: `x`"
        );
        assert!(Error::source(&err).is_some());
        assert!(ConditionError::check(Condition::Post, "End", &["x"], |_| true).is_ok());
    }

    #[test]
    fn default_keys_are_the_upstream_seven() {
        assert_eq!(DEFAULT_KEYS.len(), 7);
        assert!(DEFAULT_KEYS.contains(&"consensus_threshold"));
    }
}
