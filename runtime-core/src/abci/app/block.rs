//! What consensus hands a replica: ordered blocks of transactions, and the canonical encoding of what
//! replicas submit and hash.

use borsh::{BorshDeserialize, BorshSerialize};
use sha2::{Digest, Sha256};
use std::fmt::{self, Display, Formatter};

/// An agent instance's address: how senders, participants and keepers are named. Sorted as strings, so
/// every replica orders them the same way.
pub type AgentId = String;

/// A digest of a replica's state after a block (SHA-256 over the canonical encoding).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AppHash(pub [u8; 32]);

impl AppHash {
    /// The hash a replica starts from, before any block.
    pub const GENESIS: AppHash = AppHash([0; 32]);

    /// The first `n` bytes as lower-case hex: enough to tell hashes apart in a trace.
    pub fn short(&self, n: usize) -> String {
        self.0.iter().take(n).map(|b| format!("{b:02x}")).collect()
    }
}

impl Display for AppHash {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short(32))
    }
}

impl fmt::Debug for AppHash {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "AppHash({})", self.short(8))
    }
}

/// One transaction as ordered by consensus: who sent it (authenticated by the engine) and its bytes.
///
/// The bytes are the encoding of a [`Submission`]; the app decodes them itself, so a transaction whose
/// bytes do not decode is rejected deterministically by every replica rather than dropped by some.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tx {
    /// The agent that signed the transaction.
    pub sender: AgentId,
    /// An encoded [`Submission`].
    pub data: Vec<u8>,
}

/// A committed block: the same on every replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// 1 for the first block; every block is the previous one plus one.
    pub height: u64,
    /// The block time in milliseconds: the app's only clock. Never less than the previous block's.
    pub time_ms: u64,
    /// The transactions, in the order every replica applies them.
    pub txs: Vec<Tx>,
}

/// What a replica submits: its payload for one round, addressed by the round's number.
///
/// The round number (upstream's `round_count`) counts the rounds the app has started, so a payload for an
/// earlier visit to the same state cannot count in a later one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The round the payload is for.
    pub round: u64,
    /// The payload, in the canonical encoding of the round's payload type.
    pub payload: Vec<u8>,
}

impl Submission {
    /// The transaction bytes.
    pub fn encode(&self) -> Vec<u8> {
        // Writing into a Vec cannot fail, and a Submission has no value borsh refuses to encode.
        borsh::to_vec(self).unwrap_or_default()
    }

    /// Decodes transaction bytes: exactly one encoding per value, no trailing bytes.
    pub fn decode(bytes: &[u8]) -> Option<Submission> {
        borsh::from_slice(bytes).ok()
    }
}

// The encodings are written out field by field (in declaration order, as a derive would) so that the
// runtime needs no derive macro: what a user's crate compiles stays small.
macro_rules! borsh_struct {
    ($ty:ident { $($field:ident),* }) => {
        impl BorshSerialize for $ty {
            fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
                $( BorshSerialize::serialize(&self.$field, writer)?; )*
                Ok(())
            }
        }
        impl BorshDeserialize for $ty {
            fn deserialize_reader<R: borsh::io::Read>(reader: &mut R) -> borsh::io::Result<Self> {
                Ok($ty { $( $field: BorshDeserialize::deserialize_reader(reader)?, )* })
            }
        }
    };
}

borsh_struct!(Tx { sender, data });
borsh_struct!(Block {
    height,
    time_ms,
    txs
});
borsh_struct!(Submission { round, payload });

impl BorshSerialize for AppHash {
    fn serialize<W: borsh::io::Write>(&self, writer: &mut W) -> borsh::io::Result<()> {
        self.0.serialize(writer)
    }
}

impl BorshDeserialize for AppHash {
    fn deserialize_reader<R: borsh::io::Read>(reader: &mut R) -> borsh::io::Result<Self> {
        Ok(AppHash(<[u8; 32]>::deserialize_reader(reader)?))
    }
}

/// Encodes a payload canonically. Fails only for values the encoding refuses (a NaN float).
#[doc(hidden)]
pub fn encode<T: BorshSerialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    borsh::to_vec(value).map_err(|e| EncodeError(e.to_string()))
}

/// Decodes a payload: `None` for bytes that are not exactly one canonical encoding of a `T`.
#[doc(hidden)]
pub fn decode<T: BorshDeserialize>(bytes: &[u8]) -> Option<T> {
    borsh::from_slice(bytes).ok()
}

/// A value could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl Display for EncodeError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode the payload: {}", self.0)
    }
}

impl std::error::Error for EncodeError {}

/// A writer that feeds SHA-256, so state is hashed as it is encoded, without an intermediate buffer.
pub(crate) struct HashWriter(pub(crate) Sha256);

impl borsh::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> borsh::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> borsh::io::Result<()> {
        Ok(())
    }
}

impl HashWriter {
    pub(crate) fn new() -> Self {
        HashWriter(Sha256::new())
    }
    pub(crate) fn finish(self) -> AppHash {
        AppHash(self.0.finalize().into())
    }
}

/// A writer that only counts bytes: the size of a canonical encoding, without building it.
pub(crate) struct CountWriter(pub(crate) usize);

impl borsh::io::Write for CountWriter {
    fn write(&mut self, buf: &[u8]) -> borsh::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> borsh::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn submissions_round_trip_and_reject_trailing_bytes() {
        let s = Submission {
            round: 7,
            payload: encode(&Some(5u64)).unwrap(),
        };
        let bytes = s.encode();
        assert_eq!(Submission::decode(&bytes), Some(s));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Submission::decode(&longer), None);
        assert_eq!(Submission::decode(&[1, 2]), None);
    }

    #[test]
    fn maps_have_one_encoding() {
        let m = BTreeMap::from([("a".to_string(), 1u8), ("b".to_string(), 2)]);
        let bytes = encode(&m).unwrap();
        assert_eq!(decode::<BTreeMap<String, u8>>(&bytes), Some(m));
        // The same entries written in the other order: refused, so a Byzantine sender cannot make two
        // encodings of one value.
        let mut swapped = vec![2, 0, 0, 0];
        for (k, v) in [("b", 2u8), ("a", 1)] {
            swapped.extend(encode(&k.to_string()).unwrap());
            swapped.push(v);
        }
        assert_eq!(decode::<BTreeMap<String, u8>>(&swapped), None);
    }

    #[test]
    fn nan_is_refused() {
        assert!(encode(&f64::NAN).is_err());
        assert!(encode(&1.5f64).is_ok());
    }

    #[test]
    fn short_hash_is_hex() {
        let h = AppHash([0xab; 32]);
        assert_eq!(h.short(2), "abab");
        assert_eq!(h.to_string().len(), 64);
    }
}
