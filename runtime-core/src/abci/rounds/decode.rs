//! Decoding a round in progress from its canonical encoding, for a replica restored from a snapshot. The
//! encoding is the one the app hash is computed over, so a restored round hashes as the round it was taken
//! from; the restored replica's hash is checked against the recorded one before it is used.

use borsh::BorshDeserialize;
use borsh::io::{Error, ErrorKind, Read, Result};
use std::collections::{BTreeMap, BTreeSet};

use super::{
    CollectDifferentUntilAll, CollectDifferentUntilThreshold, CollectNonEmptyUntilThreshold,
    CollectSameUntilAll, CollectSameUntilThreshold, Collection, Confirmations, Custom,
    OnlyKeeperSends, Participants, Voting,
};

/// A round kind decoded from its canonical encoding. The encoding holds a round's confirmation count only when
/// it requires some (so rounds without them hash as they always did): the decoder is told how many the spec
/// requires for the round, as generated code knows.
#[doc(hidden)]
pub trait DecodeRound: Sized {
    /// Reads the round, which requires `confirmations` block confirmations.
    fn decode_round<R: Read>(reader: &mut R, confirmations: u32) -> Result<Self>;
}

fn invalid(what: &str) -> Error {
    Error::new(ErrorKind::InvalidData, what.to_string())
}

impl<P: Ord + Clone + BorshDeserialize> BorshDeserialize for Participants<P> {
    fn deserialize_reader<R: Read>(reader: &mut R) -> Result<Self> {
        let members = BTreeSet::<P>::deserialize_reader(reader)?;
        let keeper = Option::<P>::deserialize_reader(reader)?;
        let set = Participants::new(members).map_err(|e| invalid(&e.to_string()))?;
        match keeper {
            Some(keeper) => set.with_keeper(keeper).map_err(|e| invalid(&e.to_string())),
            None => Ok(set),
        }
    }
}

impl<P: Ord + Clone + BorshDeserialize, V: BorshDeserialize> Collection<P, V> {
    fn decode<R: Read>(reader: &mut R, confirmations: u32) -> Result<Self> {
        let participants = Participants::deserialize_reader(reader)?;
        let submissions = BTreeMap::<P, V>::deserialize_reader(reader)?;
        if submissions.keys().any(|p| !participants.contains(p)) {
            return Err(invalid("a round holds a payload from a non-participant"));
        }
        let confirmations = if confirmations > 0 {
            let required = u32::deserialize_reader(reader)?;
            let seen = u32::deserialize_reader(reader)?;
            if required != confirmations {
                return Err(invalid(
                    "a round's confirmation count differs from its spec's",
                ));
            }
            Confirmations { required, seen }
        } else {
            Confirmations::default()
        };
        Ok(Collection {
            participants,
            submissions,
            confirmations,
        })
    }
}

/// Every kind is its collection, so it decodes as its collection.
macro_rules! decode_as_collection {
    ($($kind:ident<$($param:ident),*>),* $(,)?) => {$(
        impl<$($param: Ord + Clone + BorshDeserialize),*> DecodeRound for $kind<$($param),*> {
            fn decode_round<R: Read>(reader: &mut R, confirmations: u32) -> Result<Self> {
                Ok($kind { collection: Collection::decode(reader, confirmations)? })
            }
        }
    )*};
}

decode_as_collection!(
    CollectSameUntilAll<P, T>,
    CollectDifferentUntilAll<P, T>,
    CollectSameUntilThreshold<P, T>,
    CollectDifferentUntilThreshold<P, T>,
    CollectNonEmptyUntilThreshold<P, T>,
    OnlyKeeperSends<P, T>,
    Voting<P>,
    Custom<P, T>,
);
