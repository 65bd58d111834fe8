//! Fast-hashed name maps for the front end and the checks.
//!
//! Resolving and checking a large spec looks up hundreds of thousands of short names (`State0042Round`,
//! `EVENT_007`); std's SipHash costs more per lookup than the rest of the lookup. These maps are only ever
//! looked up (or iterated as `IndexMap`s, in insertion order), so the hasher decides nothing but speed.
//!
//! The hasher is foldhash's ([`FastState`]).

use indexmap::IndexMap;

/// An `IndexMap` with the fast hasher.
pub type FastMap<K, V> = IndexMap<K, V, FastState>;

/// An empty [`FastMap`] with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> FastMap<K, V> {
    IndexMap::with_capacity_and_hasher(n, FastState::default())
}

/// Names → values, for lookups only: a large spec looks up every transition's states and event. The map is never
/// iterated, so its order decides nothing (which is why a plain hash map is allowed here).
///
/// Names of up to 23 bytes, nearly all, are held in the map itself: finding one compares bytes already in
/// hand rather than fetching the stored name from wherever the spec keeps it.
pub struct NameMap<'a, V> {
    #[allow(clippy::disallowed_types)]
    map: std::collections::HashMap<NameKey<'a>, V, FastState>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum NameKey<'a> {
    /// The bytes, zero-padded, with the length in the last byte, as three words: compared and hashed a word
    /// at a time.
    Near([u64; 3]),
    Far(&'a str),
}

impl<'a> NameKey<'a> {
    fn new(name: &'a str) -> NameKey<'a> {
        match u8::try_from(name.len()) {
            Ok(len) if len < 24 => {
                let mut b = [0u8; 24];
                b[..name.len()].copy_from_slice(name.as_bytes());
                b[23] = len;
                let word = |i: usize| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(&b[i * 8..i * 8 + 8]);
                    u64::from_le_bytes(w)
                };
                NameKey::Near([word(0), word(1), word(2)])
            }
            _ => NameKey::Far(name),
        }
    }
}

impl std::hash::Hash for NameKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            // Three words, without the length prefix and byte loop a derived hash of an array would cost.
            NameKey::Near([a, b, c]) => {
                h.write_u64(*a);
                h.write_u64(*b);
                h.write_u64(*c);
            }
            // A near key never equals a far one (they differ in length), so their hashes need not differ.
            NameKey::Far(s) => h.write(s.as_bytes()),
        }
    }
}

impl<'a, V: Copy> NameMap<'a, V> {
    #[allow(clippy::disallowed_types)]
    pub fn with_capacity(n: usize) -> NameMap<'a, V> {
        NameMap {
            map: std::collections::HashMap::with_capacity_and_hasher(n, FastState::default()),
        }
    }

    pub fn get(&self, name: &str) -> Option<V> {
        self.map.get(&NameKey::new(name)).copied()
    }

    /// Adds `name` unless it is there; returns the value it already had.
    pub fn insert_new(&mut self, name: &'a str, value: V) -> Option<V> {
        match self.map.entry(NameKey::new(name)) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
                None
            }
        }
    }
}

/// foldhash's fast hasher, seeded at random once per process: names in a hostile spec cannot be chosen to
/// collide in advance, so a table cannot be made to degrade to quadratic probing.
pub type FastState = foldhash::fast::RandomState;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_maps_find_short_and_long_names() {
        let long = "A".repeat(40);
        let names = [
            "",
            "a",
            "State0042Round",
            "exactly_twenty_three_by",
            "twenty_four_bytes_long_x",
            &long,
        ];
        let mut m = NameMap::with_capacity(2);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(m.insert_new(n, i), None);
        }
        assert_eq!(m.insert_new("a", 99), Some(1));
        for (i, n) in names.iter().enumerate() {
            assert_eq!(m.get(n), Some(i), "{n}");
        }
        // A name is not found by a prefix, an extension or a name with a trailing zero byte.
        for absent in [
            "State0042Roun",
            "State0042Round0",
            "a\0",
            &long[1..],
            "exactly_twenty_three_b",
        ] {
            assert_eq!(m.get(absent), None, "{absent}");
        }
    }

    #[test]
    fn maps_work_as_maps() {
        let mut m: FastMap<&str, usize> = map_with_capacity(4);
        for (i, k) in ["b", "a", "c", "a"].iter().enumerate() {
            m.entry(k).or_insert(i);
        }
        assert_eq!(m.get("a"), Some(&1));
        assert_eq!(m.keys().copied().collect::<Vec<_>>(), ["b", "a", "c"]);
    }
}
