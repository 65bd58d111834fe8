//! The canonical encoding of [`Facts`] and its SHA-256.
//!
//! One encoding per value: integers little-endian at a fixed width, strings and lists length-prefixed (`u32`),
//! options and enums as a tag byte, kinds and outcomes by their names in the language (so reordering the
//! vocabulary's enums cannot change a fingerprint). It starts with a version line; a change to what the facts
//! hold changes that line, so fingerprints of different versions never collide by accident. Spans are not
//! encoded.

use super::{Exit, Facts, Fingerprint, KeyFacts, RoundFacts, StateFacts, Trigger};
use sha2::{Digest, Sha256};

/// The first bytes of every encoding: what the facts are and their version.
const VERSION: &[u8] = b"fsmc abci facts v1\n";

pub(super) fn encode(facts: &Facts) -> Vec<u8> {
    let mut out = Vec::new();
    facts_to(&mut out, facts);
    out
}

pub(super) fn digest(facts: &Facts) -> Fingerprint {
    Fingerprint(Sha256::digest(encode(facts)).into())
}

fn facts_to(out: &mut Vec<u8>, f: &Facts) {
    out.extend_from_slice(VERSION);
    bool_to(out, f.runs.value);
    option_to(out, f.start.as_ref().map(|s| s.value.as_str()), str_to);
    list_to(out, &f.states, state_to);
    list_to(out, &f.keys, key_to);
}

fn state_to(out: &mut Vec<u8>, s: &StateFacts) {
    str_to(out, &s.name.value);
    bool_to(out, s.is_final);
    bool_to(out, s.start);
    option_to(out, s.round.as_ref(), round_to);
}

fn round_to(out: &mut Vec<u8>, r: &RoundFacts) {
    option_to(out, r.kind.value.map(|k| k.name()), str_to);
    option_to(out, r.tag, |out, t| out.extend_from_slice(&t.to_le_bytes()));
    bool_to(out, r.reset.value);
    bool_to(out, r.registration.value);
    bool_to(out, r.elects_keeper.value);
    option_to(out, r.payload.value.as_deref(), str_to);
    list_to(out, &r.writes.value, |out, k| str_to(out, k));
    list_to(out, &r.exits, exit_to);
}

fn exit_to(out: &mut Vec<u8>, e: &Exit) {
    match &e.on {
        Trigger::Outcome(o) => {
            out.push(0);
            str_to(out, o.name());
        }
        Trigger::Timeout => out.push(1),
        Trigger::Event(name) => {
            out.push(2);
            str_to(out, name);
        }
        Trigger::Direct => out.push(3),
    }
    list_to(out, &e.guards, |out, (negated, name)| {
        bool_to(out, *negated);
        str_to(out, name);
    });
    option_to(out, e.to.value.as_deref(), str_to);
    option_to(out, e.after, |out, n| {
        out.extend_from_slice(&n.to_le_bytes())
    });
}

fn key_to(out: &mut Vec<u8>, k: &KeyFacts) {
    str_to(out, &k.name.value);
    str_to(out, &k.ty.value);
    bool_to(out, k.cross_period.value);
}

fn bool_to(out: &mut Vec<u8>, b: bool) {
    out.push(u8::from(b));
}

fn len_to(out: &mut Vec<u8>, n: usize) {
    // Specs are far below 4 GiB (the loader's limit), so no list or name comes near `u32::MAX`.
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn str_to(out: &mut Vec<u8>, s: &str) {
    len_to(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn option_to<T>(out: &mut Vec<u8>, v: Option<T>, f: impl FnOnce(&mut Vec<u8>, T)) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            f(out, v);
        }
    }
}

fn list_to<T>(out: &mut Vec<u8>, items: &[T], f: impl Fn(&mut Vec<u8>, &T)) {
    len_to(out, items.len());
    for item in items {
        f(out, item);
    }
}

#[cfg(test)]
mod tests {
    use super::super::At;
    use super::*;
    use fsmc_base::source::Span;

    fn at<T>(value: T) -> At<T> {
        At {
            value,
            span: Span::default(),
        }
    }

    fn facts(start: &str) -> Facts {
        Facts {
            runs: at(true),
            start: Some(at(start.into())),
            states: vec![StateFacts {
                name: at(start.into()),
                is_final: true,
                start: false,
                round: None,
            }],
            keys: Vec::new(),
        }
    }

    #[test]
    fn spans_do_not_count_and_names_do() {
        let a = facts("A");
        let mut moved = a.clone();
        moved.states[0].name.span = Span::new(fsmc_base::source::FileId(3), 10, 11);
        assert_eq!(a.fingerprint(), moved.fingerprint());
        assert_ne!(a.fingerprint(), facts("B").fingerprint());
    }

    #[test]
    fn the_encoding_is_length_prefixed() {
        // "AB" as one name and "A" then "B" as two must not encode alike.
        let mut one = facts("AB");
        one.states.clear();
        let mut two = facts("A");
        two.start = None;
        two.states[0].name = at("B".into());
        assert_ne!(one.encode(), two.encode());
        assert!(one.encode().starts_with(VERSION));
        assert_eq!(a_hex(&one.fingerprint()).len(), 64);
    }

    fn a_hex(f: &Fingerprint) -> String {
        f.to_string()
    }
}
