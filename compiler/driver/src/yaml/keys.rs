//! The keys of a transition table: finding repeated `(State, EVENT)` keys while a table streams by (YAML keeps
//! only the last of two equal keys, so upstream never sees the first), and reading a key as its two names.

use super::OaTransition;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Span;
use fsmc_model::hash::{FastMap, FastState};
use indexmap::map::Entry;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// The duplicate-key report, shared by the reader and the skimming of deep collections in `events`.
pub(super) fn duplicate_key(key: &str, repeat: Span, first: Span) -> Diagnostic {
    Diagnostic::new(Code::YamlDuplicateKey, format!("duplicate key `{key}`"))
        .at(repeat, "repeated here")
        .with(first, "first written here")
        .help("YAML silently keeps only the last of two equal keys, so upstream tools never see the first; remove one")
}

/// What a streamed transition table keeps beyond its transitions, so that its keys can still be compared as
/// written, in file order. Only unusual keys are kept: a table in upstream's canonical form keeps nothing.
#[derive(Default)]
pub(super) struct TableKeys {
    /// Scalar keys without a transition (not strings, not `(State, EVENT)`, or with a target that is not a
    /// string), each with the number of transitions read before it.
    pub others: Vec<OtherKey>,
    /// Keys of transitions not written `(State, EVENT)` exactly (other spacing, escapes): index and text.
    pub spelled: Vec<(usize, String)>,
    pub repeats: Repeats,
}

/// Where a transition key was written: the transition read from it, or one of [`TableKeys::others`].
#[derive(Clone, Copy)]
pub(super) enum KeyAt {
    Transition(usize),
    Other(usize),
}

/// A string key as transition keys are compared: `(A, B)` and `(A,B)` are one transition to upstream, so a key
/// of that form is its (state, event) pair; any other key is its text (`None`), which never equals a pair's
/// `(A, B)`, which is one.
pub(super) type Identity<'k> = (&'k str, Option<&'k str>);

/// Finds repeated transition keys while the table is read, each key compared while its text is at hand
/// (comparing afterwards would fetch every name from memory again).
///
/// Upstream writes tables sorted, and while every key is greater than the one before, none can repeat an earlier
/// one: only the previous key is compared. From the first key out of order on, every identity is kept in a map, by
/// hash, with where it was first written; an equal hash is confirmed by comparing the names there.
#[derive(Default)]
pub(super) struct Repeats {
    last: Option<KeyAt>,
    hashed: Option<Hashed>,
}

#[derive(Default)]
struct Hashed {
    first: FastMap<u64, KeyAt>,
    /// Keys whose hash an earlier, different identity already has (hashes of 64 bits that collide).
    more: Vec<(u64, KeyAt)>,
    hasher: FastState,
}

/// The keys of a table read so far: the transitions read from them, and the other keys.
#[derive(Clone, Copy)]
pub(super) struct Table<'k> {
    pub transitions: &'k [OaTransition],
    pub others: &'k [OtherKey],
}

impl<'k> Table<'k> {
    /// The identity and span of the key written at `at`.
    fn written(self, at: KeyAt) -> Option<(Identity<'k>, Span)> {
        match at {
            KeyAt::Transition(i) => self
                .transitions
                .get(i)
                .map(|t| ((t.from.as_str(), Some(t.event.as_str())), t.key_span)),
            KeyAt::Other(i) => self.others.get(i).map(|o| {
                let identity = match split_key(&o.text) {
                    Some((f, e)) => (&o.text[f], Some(&o.text[e])),
                    None => (o.text.as_str(), None),
                };
                (identity, o.span)
            }),
        }
    }
}

impl Hashed {
    /// Where `identity` was first written, if it was; otherwise records that it is written at `at`.
    fn seen(&mut self, identity: Identity, at: KeyAt, table: Table) -> Option<Span> {
        let hash = self.hasher.hash_one(identity);
        match self.first.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(at);
                None
            }
            Entry::Occupied(slot) => {
                let earlier = std::iter::once(*slot.get()).chain(
                    self.more
                        .iter()
                        .filter(|(h, _)| *h == hash)
                        .map(|(_, at)| *at),
                );
                for e in earlier {
                    if let Some((written, span)) = table.written(e)
                        && written == identity
                    {
                        return Some(span);
                    }
                }
                self.more.push((hash, at));
                None
            }
        }
    }
}

impl Repeats {
    /// Where `identity` was first written, if it was; records that it is written at `at`.
    pub(super) fn seen(&mut self, identity: Identity, at: KeyAt, table: Table) -> Option<Span> {
        if self.hashed.is_none() {
            let ascending = match self.last.and_then(|last| table.written(last)) {
                Some((last, _)) => last < identity,
                None => true,
            };
            self.last = Some(at);
            if ascending {
                return None;
            }
            // Out of order: every key so far (all different, as they were in order) goes into the map.
            let mut hashed = Hashed::default();
            for key in in_order(table.others, table.transitions.len()) {
                let earlier = match key {
                    TableKey::Transition(i) => KeyAt::Transition(i),
                    TableKey::Other(j) if table.others[j].string => KeyAt::Other(j),
                    TableKey::Other(_) => continue,
                };
                if let Some((identity, _)) = table.written(earlier) {
                    hashed.seen(identity, earlier, table);
                }
            }
            self.hashed = Some(hashed);
        }
        self.hashed
            .as_mut()
            .and_then(|h| h.seen(identity, at, table))
    }
}

/// A key of a table, by where it was read to.
enum TableKey {
    Transition(usize),
    Other(usize),
}

/// Every key of a table in file order: the `transitions` and the `others`, merged.
fn in_order(others: &[OtherKey], transitions: usize) -> impl Iterator<Item = TableKey> + '_ {
    let mut next = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        if others.get(next).is_some_and(|o| o.before == i) {
            next += 1;
            return Some(TableKey::Other(next - 1));
        }
        (i < transitions).then(|| {
            i += 1;
            TableKey::Transition(i - 1)
        })
    })
}

pub(super) struct OtherKey {
    pub before: usize,
    pub text: String,
    pub span: Span,
    /// A string key (compared as a transition key); otherwise a typed scalar (`12`), compared only as written.
    pub string: bool,
}

impl TableKeys {
    /// The repeated keys of a table that a later `transition_func` replaced, compared as written (as for any
    /// mapping not read). Only a spec with two tables gets here.
    pub(super) fn raw_duplicates(&self, transitions: &[OaTransition]) -> Vec<Diagnostic> {
        let mut spelled = self.spelled.iter().peekable();
        let mut seen: BTreeMap<String, Span> = BTreeMap::new();
        let mut out = Vec::new();
        for key in in_order(&self.others, transitions.len()) {
            let (text, span) = match key {
                TableKey::Transition(i) => {
                    let t = &transitions[i];
                    let text = match spelled.next_if(|(j, _)| *j == i) {
                        Some((_, text)) => text.clone(),
                        None => format!("({}, {})", t.from, t.event),
                    };
                    (text, t.key_span)
                }
                TableKey::Other(j) => (self.others[j].text.clone(), self.others[j].span),
            };
            match seen.get(&text) {
                Some(&first) => out.push(duplicate_key(&text, span, first)),
                None => {
                    seen.insert(text, span);
                }
            }
        }
        out
    }
}

/// Splits `(State, EVENT)` into the byte ranges of the two names. Spaces around the names are optional;
/// names are word characters, as in upstream's `\((\w*),\s(\w*)\)` (which also requires one space after the
/// comma, and accepts empty names: fsmc is lenient on spacing and strict on names).
pub(super) fn split_key(key: &str) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let open = key.find(|c: char| !c.is_whitespace())?;
    let close = key.rfind(|c: char| !c.is_whitespace())?;
    if !key[open..].starts_with('(') || !key[close..].starts_with(')') || close <= open {
        return None;
    }
    let inner = open + 1..close;
    let comma = inner.start + key[inner.clone()].find(',')?;
    let name = |r: std::ops::Range<usize>| {
        let s = &key[r.clone()];
        let start = r.start + (s.len() - s.trim_start_matches([' ', '\t']).len());
        let end = r.end - (s.len() - s.trim_end_matches([' ', '\t']).len());
        let ok = start < end
            && key[start..end]
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_');
        ok.then_some(start..end)
    };
    Some((name(inner.start..comma)?, name(comma + 1..inner.end)?))
}
