//! The verification of a peer's snapshot: a good offer and its chunks are taken; a wrong app hash, a
//! certificate signed by others than the genesis validators (or too few of them), an offer from a peer not
//! asked or altered after signing, and a chunk cut short are refused.

use malachitebft_core_types::{CommitCertificate, CommitSignature, Context, NilOrVal, Round};
use malachitebft_signing::Signer;

use super::{Assembly, CHUNK_BYTES};
use crate::signing::{Ed25519Provider, PrivateKey};
use crate::store::{StoredBlock, StoredSnapshot};
use crate::types::{
    Address, BlockValue, FsmcContext, Height, SnapshotChunk, SnapshotOffer, Validator, ValidatorSet,
};

const CHAIN: &str = "test-chain";
const HEIGHT: u64 = 200;

fn key(seed: u8) -> PrivateKey {
    PrivateKey::from_bytes([seed; 32])
}

/// The genesis validators: keys 1 to 4.
fn validators() -> ValidatorSet {
    ValidatorSet::new((1..=4).map(|i| Validator::new(key(i).public_key())))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn block(height: u64, prev_app_hash: [u8; 32]) -> BlockValue {
    BlockValue {
        height,
        time_ms: 1_000 + height,
        proposer: key(1).public_key().address(),
        prev_app_hash,
        txs: Vec::new(),
    }
}

/// A certificate for `value` with the precommits of `signers`.
fn certificate(value: &BlockValue, signers: &[PrivateKey]) -> CommitCertificate<FsmcContext> {
    let commit_signatures = signers
        .iter()
        .map(|k| {
            let vote = FsmcContext.new_precommit(
                Height(value.height),
                Round::new(0),
                NilOrVal::Val(value.id_bytes()),
                k.public_key().address(),
            );
            let signed = block_on(Ed25519Provider::new(k.clone()).sign_vote(vote)).expect("sign");
            CommitSignature::new(k.public_key().address(), signed.signature)
        })
        .collect();
    CommitCertificate {
        height: Height(value.height),
        round: Round::new(0),
        value_id: value.id_bytes(),
        commit_signatures,
    }
}

fn stored(value: BlockValue, signers: &[PrivateKey]) -> StoredBlock {
    StoredBlock {
        height: value.height,
        certificate: certificate(&value, signers),
        value,
        app_hash: [0; 32],
    }
}

fn quorum() -> Vec<PrivateKey> {
    vec![key(1), key(2), key(3)]
}

/// A snapshot of `size` bytes at [`HEIGHT`] with app hash `claimed`, served by key 2 to key 4; the block after
/// it builds on the app hash `certified`, and both blocks are certified by `signers`.
fn served(
    size: usize,
    claimed: [u8; 32],
    certified: [u8; 32],
    signers: &[PrivateKey],
) -> (SnapshotOffer, Vec<SnapshotChunk>) {
    let snapshot = StoredSnapshot {
        height: HEIGHT,
        app_hash: claimed,
        state: (0..size).map(|i| (i % 251) as u8).collect(),
    };
    SnapshotOffer::serve(
        CHAIN,
        &key(2),
        key(4).public_key().address(),
        &snapshot,
        stored(block(HEIGHT, [1; 32]), signers),
        stored(block(HEIGHT + 1, certified), signers),
    )
}

fn verify(offer: &SnapshotOffer, asked: &Address) -> Result<(), String> {
    block_on(offer.verify(asked, CHAIN, &validators(), &Ed25519Provider::new(key(4))))
}

fn asked() -> Address {
    key(2).public_key().address()
}

#[test]
fn a_certified_snapshot_in_several_chunks_is_taken() {
    let (offer, chunks) = served(CHUNK_BYTES + 10, [7; 32], [7; 32], &quorum());
    assert_eq!(chunks.len(), 2);
    verify(&offer, &asked()).expect("verified");
    let mut assembly = Assembly::new(offer);
    let mut chunks = chunks.into_iter().rev();
    let last = chunks.next().expect("a chunk");
    assert_eq!(assembly.add(last.clone()), Ok(None));
    assert_eq!(assembly.add(last), Ok(None), "a copy is taken once");
    let snapshot = assembly
        .add(chunks.next().expect("a chunk"))
        .expect("fits")
        .expect("complete");
    assert_eq!(snapshot.height, HEIGHT);
    assert_eq!(snapshot.app_hash, [7; 32]);
    assert_eq!(snapshot.state.len(), CHUNK_BYTES + 10);
    assert_eq!(
        snapshot.state[CHUNK_BYTES + 9],
        ((CHUNK_BYTES + 9) % 251) as u8
    );
}

#[test]
fn a_snapshot_whose_app_hash_the_certified_block_does_not_name_is_refused() {
    let (offer, _) = served(100, [7; 32], [8; 32], &quorum());
    let why = verify(&offer, &asked()).expect_err("refused");
    assert!(
        why.contains("is not the one the certified block at height 201 builds on"),
        "{why}"
    );
}

#[test]
fn a_certificate_signed_by_non_validators_is_refused() {
    let strangers = [key(11), key(12), key(13)];
    let (offer, _) = served(100, [7; 32], [7; 32], &strangers);
    let why = verify(&offer, &asked()).expect_err("refused");
    assert!(
        why.contains(
            "the certificate of height 200 does not verify against the genesis validators"
        ),
        "{why}"
    );
    // Genesis validators, but fewer than a quorum of them.
    let (offer, _) = served(100, [7; 32], [7; 32], &[key(1), key(2)]);
    let why = verify(&offer, &asked()).expect_err("refused");
    assert!(
        why.contains("does not verify against the genesis validators"),
        "{why}"
    );
}

#[test]
fn an_offer_from_another_peer_or_altered_after_signing_is_refused() {
    let (offer, _) = served(100, [7; 32], [7; 32], &quorum());
    let other = key(3).public_key().address();
    let why = verify(&offer, &other).expect_err("refused");
    assert!(why.contains("not from the validator asked"), "{why}");
    let mut altered = offer.clone();
    altered.size = 99;
    let why = verify(&altered, &asked()).expect_err("refused");
    assert!(why.contains("not signed by its sender"), "{why}");
    // A block swapped for another one of that height is not what the sender signed.
    let mut swapped = offer;
    swapped.block.value.time_ms += 1;
    let why = verify(&swapped, &asked()).expect_err("refused");
    assert!(why.contains("not signed by its sender"), "{why}");
}

#[test]
fn a_chunk_cut_short_or_of_another_snapshot_is_refused() {
    let (offer, chunks) = served(CHUNK_BYTES + 10, [7; 32], [7; 32], &quorum());
    let mut assembly = Assembly::new(offer);
    let mut short = chunks[0].clone();
    short.bytes.truncate(CHUNK_BYTES - 1);
    let why = assembly.add(short).expect_err("refused");
    assert!(why.contains("cut short"), "{why}");
    let mut other = chunks[1].clone();
    other.height = HEIGHT + 100;
    assert!(assembly.add(other).is_err());
    let mut past = chunks[1].clone();
    past.index = 2;
    assert!(assembly.add(past).is_err());
    // The right length with other bytes passes each chunk's check, not the digest of the whole.
    let mut flipped = chunks[1].clone();
    flipped.bytes[0] ^= 1;
    assert_eq!(assembly.add(chunks[0].clone()), Ok(None));
    let why = assembly.add(flipped).expect_err("refused");
    assert!(why.contains("do not hash to the digest"), "{why}");
}
