//! State sync, as CometBFT offers it, kept simple and verified: a node that is new or far behind asks one
//! peer for its latest snapshot instead of fetching every block since genesis (which a peer that prunes no
//! longer holds), then lets value sync fetch the blocks after it.
//!
//! What travels, on the engine's proposal-part channel beside transactions: every node's [`History`] (its
//! height, the first height it still stores, the latest snapshot it can serve), a [`SnapshotRequest`] naming
//! the peer asked, that peer's [`SnapshotOffer`] and the snapshot's bytes in [`SnapshotChunk`]s.
//!
//! What is trusted: only the genesis validator set. The offer carries the blocks at the snapshot's height `S`
//! and at `S + 1`, each with its commit certificate; both certificates must verify against the genesis
//! validators (a quorum of their precommits for exactly that block), and the block at `S + 1` names the app
//! hash after `S`, which the offered app hash must equal. The chunks must add up to the offered size and
//! digest, and the replica restoring them (`App::restore`) recomputes the app hash of the state they encode and
//! refuses any other. A peer's word (its history, the digest) only decides whom to ask and how early a bad
//! chunk is caught; it is never what makes a snapshot accepted.

use borsh::BorshSerialize;
use sha2::{Digest, Sha256};

use malachitebft_core_types::ThresholdParams;
use malachitebft_signing::VerifierExt;

use crate::signing::{Ed25519Provider, PrivateKey, Signature, hex};
use crate::store::{StoredBlock, StoredSnapshot};
use crate::types::{
    Address, CertifiedBlock, FsmcContext, Height, History, SnapshotChunk, SnapshotOffer,
    SnapshotRequest, ValidatorSet,
};

/// The most bytes of a snapshot one chunk carries (the engine's pub-sub messages go up to 4 MiB).
pub const CHUNK_BYTES: usize = 1 << 20;
/// The largest snapshot a node accepts: an offer of more is refused before any chunk is kept.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;
/// How many heights a peer must be ahead before a node catches up from its snapshot although value sync
/// could still fetch every block from it.
pub const CATCH_UP_MARGIN: u64 = 500;

const HISTORY: &[u8] = b"fsmc/history/v1";
const REQUEST: &[u8] = b"fsmc/snapshot-request/v1";
const OFFER: &[u8] = b"fsmc/snapshot-offer/v1";

/// What a signature covers: a domain tag, the chain id (so a word for another chain never verifies here) and
/// the message's own fields.
fn signing_bytes(tag: &[u8], chain_id: &str, body: &impl BorshSerialize) -> Vec<u8> {
    let mut bytes = tag.to_vec();
    let _ = chain_id.serialize(&mut bytes);
    let _ = body.serialize(&mut bytes);
    bytes
}

/// Whether `signature` is `sender`'s, a genesis validator's, over `bytes`.
fn signed_by(
    validators: &ValidatorSet,
    sender: &Address,
    bytes: &[u8],
    signature: &Signature,
) -> bool {
    validators
        .get(sender)
        .is_some_and(|v| v.public_key.verify(bytes, signature))
}

impl History {
    /// `key`'s validator says where its history is.
    pub fn sign(chain_id: &str, key: &PrivateKey, tip: u64, first: u64, snapshot: u64) -> History {
        let sender = key.public_key().address();
        let bytes = signing_bytes(HISTORY, chain_id, &(sender, tip, first, snapshot));
        History {
            sender,
            tip,
            first,
            snapshot,
            signature: key.sign(&bytes),
        }
    }

    /// Whether a genesis validator of this chain said it.
    pub fn verify(&self, chain_id: &str, validators: &ValidatorSet) -> bool {
        let body = (self.sender, self.tip, self.first, self.snapshot);
        let bytes = signing_bytes(HISTORY, chain_id, &body);
        signed_by(validators, &self.sender, &bytes, &self.signature)
    }

    /// Whether a node whose last block is at `tip` should catch up from this validator's snapshot: the
    /// snapshot is above it, and either the validator no longer stores the next block (value sync cannot
    /// serve it) or it is more than [`CATCH_UP_MARGIN`] heights ahead.
    pub fn worth_asking(&self, tip: u64) -> bool {
        let next = tip.saturating_add(1);
        self.snapshot > tip && (self.first > next || self.tip > tip.saturating_add(CATCH_UP_MARGIN))
    }
}

impl SnapshotRequest {
    /// `key`'s validator, at `tip`, asks `peer`.
    pub fn sign(chain_id: &str, key: &PrivateKey, peer: Address, tip: u64) -> SnapshotRequest {
        let requester = key.public_key().address();
        let bytes = signing_bytes(REQUEST, chain_id, &(requester, peer, tip));
        SnapshotRequest {
            requester,
            peer,
            tip,
            signature: key.sign(&bytes),
        }
    }

    /// Whether a genesis validator of this chain asked.
    pub fn verify(&self, chain_id: &str, validators: &ValidatorSet) -> bool {
        let bytes = signing_bytes(REQUEST, chain_id, &(self.requester, self.peer, self.tip));
        signed_by(validators, &self.requester, &bytes, &self.signature)
    }
}

impl SnapshotOffer {
    /// What the sender signs: everything but the certificates, which sign themselves, and the blocks, which
    /// their ids stand for.
    fn signed_body(&self) -> impl BorshSerialize {
        (
            (self.sender, self.to, self.height, self.app_hash),
            (self.size, self.digest),
            (self.block.value.id_bytes(), self.next.value.id_bytes()),
        )
    }

    /// `key`'s validator offers `snapshot` to `to`, vouched for by the stored blocks at its height and the one
    /// after; returns the offer and the chunks of the snapshot's bytes.
    pub fn serve(
        chain_id: &str,
        key: &PrivateKey,
        to: Address,
        snapshot: &StoredSnapshot,
        block: StoredBlock,
        next: StoredBlock,
    ) -> (SnapshotOffer, Vec<SnapshotChunk>) {
        let sender = key.public_key().address();
        let mut offer = SnapshotOffer {
            sender,
            to,
            height: snapshot.height,
            app_hash: snapshot.app_hash,
            size: snapshot.state.len() as u64,
            digest: Sha256::digest(&snapshot.state).into(),
            block: CertifiedBlock {
                value: block.value,
                certificate: block.certificate,
            },
            next: CertifiedBlock {
                value: next.value,
                certificate: next.certificate,
            },
            signature: Signature([0; 64]),
        };
        let bytes = signing_bytes(OFFER, chain_id, &offer.signed_body());
        offer.signature = key.sign(&bytes);
        let chunks = snapshot
            .state
            .chunks(CHUNK_BYTES)
            .enumerate()
            .map(|(index, bytes)| SnapshotChunk {
                sender,
                to,
                height: snapshot.height,
                index: u32::try_from(index).unwrap_or(u32::MAX),
                bytes: bytes.to_vec(),
            })
            .collect();
        (offer, chunks)
    }

    /// How many chunks carry the snapshot.
    pub fn chunk_count(&self) -> u64 {
        self.size.div_ceil(CHUNK_BYTES as u64)
    }

    /// Checks the offer `asked` made against the genesis `validators` (see the module's documentation): the
    /// sender and its signature, the size bound, each block's certificate, and the app hash the next block
    /// names. `verifier` checks the precommits' signatures.
    pub async fn verify(
        &self,
        asked: &Address,
        chain_id: &str,
        validators: &ValidatorSet,
        verifier: &Ed25519Provider,
    ) -> Result<(), String> {
        if self.sender != *asked {
            return Err(format!(
                "it comes from {}, not from the validator asked",
                self.sender
            ));
        }
        let bytes = signing_bytes(OFFER, chain_id, &self.signed_body());
        if !signed_by(validators, &self.sender, &bytes, &self.signature) {
            return Err("the offer is not signed by its sender for this chain".into());
        }
        if self.size == 0 || self.size > MAX_SNAPSHOT_BYTES {
            return Err(format!(
                "a snapshot of {} bytes is outside the bounds (1 to {MAX_SNAPSHOT_BYTES})",
                self.size
            ));
        }
        let next_height = self.height.saturating_add(1);
        for (certified, height) in [(&self.block, self.height), (&self.next, next_height)] {
            certified_at(certified, height, validators, verifier).await?;
        }
        if self.next.value.prev_app_hash != self.app_hash {
            return Err(format!(
                "its app hash {} is not the one the certified block at height {next_height} builds on ({})",
                hex(&self.app_hash[..8]),
                hex(&self.next.value.prev_app_hash[..8])
            ));
        }
        Ok(())
    }
}

/// Checks that `certified` is the block decided at `height`: its height, its certificate naming it, and a
/// quorum of the genesis validators' precommits in that certificate.
pub async fn certified_at(
    certified: &CertifiedBlock,
    height: u64,
    validators: &ValidatorSet,
    verifier: &Ed25519Provider,
) -> Result<(), String> {
    let certificate = &certified.certificate;
    if certified.value.height != height || certificate.height != Height(height) {
        return Err(format!(
            "the block offered for height {height} is for height {} with a certificate for {}",
            certified.value.height, certificate.height
        ));
    }
    if certificate.value_id != certified.value.id_bytes() {
        return Err(format!(
            "the certificate of height {height} is for another block"
        ));
    }
    verifier
        .verify_commit_certificate(
            &FsmcContext,
            certificate,
            validators,
            ThresholdParams::default(),
        )
        .await
        .map_err(|e| {
            format!("the certificate of height {height} does not verify against the genesis validators: {e}")
        })
}

/// The chunks of one verified offer, as they arrive.
#[derive(Debug)]
pub struct Assembly {
    offer: SnapshotOffer,
    chunks: Vec<Option<Vec<u8>>>,
    missing: usize,
}

impl Assembly {
    /// Waits for the chunks of `offer` (verified already).
    pub fn new(offer: SnapshotOffer) -> Assembly {
        let count = usize::try_from(offer.chunk_count()).unwrap_or(0);
        Assembly {
            offer,
            chunks: vec![None; count],
            missing: count,
        }
    }

    /// The offer.
    pub fn offer(&self) -> &SnapshotOffer {
        &self.offer
    }

    /// Takes a chunk of the offer's snapshot: an error for one that does not fit (another height, an index
    /// past the end, fewer or more bytes than its place holds), the snapshot once every chunk is in and the
    /// bytes hash to the offered digest. A chunk received twice is taken once.
    pub fn add(&mut self, chunk: SnapshotChunk) -> Result<Option<StoredSnapshot>, String> {
        let height = self.offer.height;
        if chunk.height != height {
            return Err(format!(
                "a chunk for height {} came for the snapshot at height {height}",
                chunk.height
            ));
        }
        let count = self.chunks.len();
        let index = chunk.index as usize;
        let Some(slot) = self.chunks.get_mut(index) else {
            return Err(format!("chunk {index} of a snapshot in {count} chunks"));
        };
        let start = (index as u64).saturating_mul(CHUNK_BYTES as u64);
        let expected = self
            .offer
            .size
            .saturating_sub(start)
            .min(CHUNK_BYTES as u64);
        if chunk.bytes.len() as u64 != expected {
            return Err(format!(
                "chunk {index} of {count} holds {} bytes where the snapshot's size puts {expected}: cut short \
                 or padded",
                chunk.bytes.len()
            ));
        }
        if slot.is_none() {
            *slot = Some(chunk.bytes);
            self.missing -= 1;
        }
        if self.missing > 0 {
            return Ok(None);
        }
        let state: Vec<u8> = self
            .chunks
            .iter_mut()
            .filter_map(Option::take)
            .flatten()
            .collect();
        if Sha256::digest(&state).as_slice() != self.offer.digest {
            return Err("the snapshot's bytes do not hash to the digest its offer names".into());
        }
        Ok(Some(StoredSnapshot {
            height,
            app_hash: self.offer.app_hash,
            state,
        }))
    }
}

#[cfg(test)]
mod tests;
