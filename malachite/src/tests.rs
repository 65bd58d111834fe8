//! Unit tests: encodings round-trip and refuse garbage, signatures bind what they sign, the store survives a
//! cut-short write and refuses damage, and a generated network configures.

use bytes::Bytes;
use malachitebft_codec::{Codec, HasEncodedLen};
use malachitebft_core_consensus::SignedConsensusMsg;
use malachitebft_core_types::{
    CommitCertificate, CommitSignature, Context, ExtendedCommitCertificate, NilOrVal, Round,
    SignedMessage, ValidatorProof, VoteExtensions,
};
use malachitebft_engine::util::streaming::{StreamContent, StreamId, StreamMessage};
use malachitebft_signing::{Signer, Verifier};
use malachitebft_sync::{RawDecidedValue, Response, ValueResponse};

use crate::codec::BorshCodec;
use crate::config::{Genesis, Home, NodeSettings, TestnetOptions, write_testnet};
use crate::signing::{Ed25519Provider, PrivateKey};
use crate::store::{BlockStore, StoreError, StoredBlock, StoredSnapshot};
use crate::types::{
    BlockValue, FsmcContext, Height, ProposalPart, SignedBlock, SignedTx, Validator, ValidatorSet,
};

fn key(seed: u8) -> PrivateKey {
    PrivateKey::from_bytes([seed; 32])
}

fn block(height: u64, key: &PrivateKey) -> BlockValue {
    BlockValue {
        height,
        time_ms: 1_000 + height,
        proposer: key.public_key().address(),
        prev_app_hash: [height as u8; 32],
        txs: vec![SignedTx::sign("test", key, vec![1, 2, height as u8])],
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn certificate(value: &BlockValue, signer: &PrivateKey) -> CommitCertificate<FsmcContext> {
    let provider = Ed25519Provider::new(signer.clone());
    let vote = FsmcContext.new_precommit(
        Height(value.height),
        Round::new(0),
        NilOrVal::Val(value.id_bytes()),
        signer.public_key().address(),
    );
    let signed = block_on(provider.sign_vote(vote)).expect("sign");
    CommitCertificate {
        height: Height(value.height),
        round: Round::new(0),
        value_id: value.id_bytes(),
        commit_signatures: vec![CommitSignature::new(
            signer.public_key().address(),
            signed.signature,
        )],
    }
}

#[test]
fn parts_round_trip_and_garbage_is_an_error() {
    let k = key(1);
    let value = block(3, &k);
    let part = ProposalPart::Block(SignedBlock {
        height: Height(3),
        round: Round::new(1),
        signature: k.sign(&SignedBlock::signing_bytes(
            Height(3),
            Round::new(1),
            &value,
        )),
        value,
    });
    let msg = StreamMessage::new(
        StreamId::new(Bytes::from_static(b"id")),
        0,
        StreamContent::Data(part),
    );
    let bytes = BorshCodec.encode(&msg).expect("encode");
    let back: StreamMessage<ProposalPart> = BorshCodec.decode(bytes.clone()).expect("decode");
    assert_eq!(back, msg);

    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(
        Codec::<StreamMessage<ProposalPart>>::decode(&BorshCodec, Bytes::from(longer)).is_err()
    );
    for garbage in [&b""[..], b"\xff\xff\xff\xff", &[7; 100]] {
        assert!(
            Codec::<StreamMessage<ProposalPart>>::decode(
                &BorshCodec,
                Bytes::copy_from_slice(garbage)
            )
            .is_err()
        );
        assert!(
            Codec::<SignedConsensusMsg<FsmcContext>>::decode(
                &BorshCodec,
                Bytes::copy_from_slice(garbage)
            )
            .is_err()
        );
        assert!(
            Codec::<Response<FsmcContext>>::decode(&BorshCodec, Bytes::copy_from_slice(garbage))
                .is_err()
        );
    }
}

#[test]
fn votes_are_signed_and_tampering_is_caught() {
    let k = key(2);
    let provider = Ed25519Provider::new(k.clone());
    let vote = FsmcContext.new_prevote(
        Height(5),
        Round::new(0),
        NilOrVal::Val(block(5, &k).id_bytes()),
        k.public_key().address(),
    );
    let signed = block_on(provider.sign_vote(vote.clone())).expect("sign");
    let ok = block_on(provider.verify_signed_vote(&vote, &signed.signature, &k.public_key()));
    assert!(ok.expect("verify").is_valid());
    let other = FsmcContext.new_prevote(
        Height(6),
        Round::new(0),
        NilOrVal::Nil,
        k.public_key().address(),
    );
    let bad = block_on(provider.verify_signed_vote(&other, &signed.signature, &k.public_key()));
    assert!(bad.expect("verify").is_invalid());
    let wrong_key =
        block_on(provider.verify_signed_vote(&vote, &signed.signature, &key(3).public_key()));
    assert!(wrong_key.expect("verify").is_invalid());

    // Through the wire and back.
    let msg = SignedConsensusMsg::Vote(signed);
    let bytes = BorshCodec.encode(&msg).expect("encode");
    assert_eq!(BorshCodec.decode(bytes).ok(), Some(msg));
}

#[test]
fn the_validator_proof_round_trips_and_verifies() {
    let k = key(4);
    let provider = Ed25519Provider::new(k.clone());
    let proof = block_on(provider.sign_validator_proof(k.public_key().0.to_vec(), vec![9; 38]))
        .expect("sign");
    let bytes = BorshCodec.encode(&proof).expect("encode");
    let back: ValidatorProof<FsmcContext> = BorshCodec.decode(bytes).expect("decode");
    assert_eq!(back, proof);
    assert!(
        block_on(provider.verify_validator_proof(&back))
            .expect("verify")
            .is_valid()
    );
    let forged = ValidatorProof::new(key(5).public_key().0.to_vec(), vec![9; 38], proof.signature);
    assert!(
        block_on(provider.verify_validator_proof(&forged))
            .expect("verify")
            .is_invalid()
    );
    let short = ValidatorProof::new(vec![1, 2, 3], vec![], proof.signature);
    assert!(
        block_on(provider.verify_validator_proof(&short))
            .expect("verify")
            .is_invalid()
    );
}

#[test]
fn sync_responses_round_trip_with_their_length() {
    let k = key(6);
    let value = block(1, &k);
    let cert = certificate(&value, &k);
    let response = Response::ValueResponse(ValueResponse::new(
        Height(1),
        vec![RawDecidedValue::new(
            Bytes::from(value.encode()),
            ExtendedCommitCertificate::from_commit_certificate_and_extensions(
                cert,
                VoteExtensions::default(),
            ),
        )],
    ));
    let bytes = BorshCodec.encode(&response).expect("encode");
    assert_eq!(BorshCodec.encoded_len(&response).expect("len"), bytes.len());
    let back: Response<FsmcContext> = BorshCodec.decode(bytes).expect("decode");
    assert_eq!(back, response);
}

#[test]
fn transactions_verify_only_for_their_sender_and_chain() {
    let k = key(7);
    let tx = SignedTx::sign("chain-a", &k, b"payload".to_vec());
    assert!(tx.verify("chain-a", &k.public_key()));
    assert!(!tx.verify("chain-b", &k.public_key()));
    assert!(!tx.verify("chain-a", &key(8).public_key()));
    let mut forged = tx.clone();
    forged.data.push(0);
    assert!(!forged.verify("chain-a", &k.public_key()));
    // The same payload from the same sender is one transaction, whatever the signature.
    let copy = SignedTx {
        signature: crate::signing::Signature([0; 64]),
        ..tx.clone()
    };
    assert_eq!(copy.id(), tx.id());
}

#[test]
fn proposers_rotate_over_the_sorted_set() {
    let set = ValidatorSet::new((1..=4).map(|s| Validator::new(key(s).public_key())));
    let at = |h, r| set.proposer(Height(h), Round::new(r)).map(|v| v.address);
    let first: Vec<_> = (1..=4).map(|h| at(h, 0)).collect();
    let mut unique = first.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        4,
        "every validator proposes once in four heights"
    );
    assert_eq!(
        at(1, 1),
        at(2, 0),
        "the next round's proposer is the next validator"
    );
    assert_eq!(at(5, 0), at(1, 0));
    assert!(
        ValidatorSet::new([])
            .proposer(Height(1), Round::new(0))
            .is_none()
    );
}

fn stored(height: u64, k: &PrivateKey) -> StoredBlock {
    let value = block(height, k);
    StoredBlock {
        height,
        certificate: certificate(&value, k),
        value,
        app_hash: [(height as u8).wrapping_add(100); 32],
    }
}

#[test]
fn the_store_keeps_blocks_across_reopening() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(9);
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        for h in 1..=5 {
            store.append(stored(h, &k)).expect("append");
        }
        assert_eq!(store.get(3).expect("get"), Some(stored(3, &k)));
        assert_eq!(store.get(6).expect("get"), None);
        assert_eq!(store.get(0).expect("get"), None);
    }
    let opened = BlockStore::open(dir.path()).expect("reopen");
    assert_eq!(opened.blocks.len(), 5);
    assert_eq!(opened.store.height(), 5);
    drop(opened);
    assert_eq!(BlockStore::read(dir.path()).expect("read").len(), 5);
}

/// Flips a bit of every copy of `pattern` in the store file of `dir` (the database writes pages anew on change,
/// so an old copy may sit in a free page): the damage lands in the live value wherever it is.
fn damage(dir: &std::path::Path, pattern: &[u8]) {
    let path = dir.join(crate::store::STORE_FILE);
    let mut bytes = std::fs::read(&path).expect("read");
    let mut found = 0;
    let mut at = 0;
    while let Some(i) = bytes[at..]
        .windows(pattern.len())
        .position(|w| w == pattern)
    {
        bytes[at + i + pattern.len() / 2] ^= 1;
        at += i + pattern.len();
        found += 1;
    }
    assert!(found > 0, "the pattern is in the file");
    std::fs::write(&path, &bytes).expect("write");
}

#[test]
fn a_damaged_block_is_an_error_naming_its_height() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(10);
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        for h in 1..=300 {
            store.append(stored(h, &k)).expect("append");
        }
    }
    // The app hash of height 100 is 32 bytes of 200: a flipped bit in it is damage the checksum finds.
    damage(dir.path(), &[200; 32]);
    for result in [
        BlockStore::open(dir.path()).map(|o| o.blocks.len()),
        BlockStore::read(dir.path()).map(|b| b.len()),
    ] {
        let err = result.expect_err("refused");
        assert!(
            matches!(&err, StoreError::Corrupt { at, .. } if at == "the block at height 100"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("is corrupt at the block at height 100: checksum mismatch"),
            "{err}"
        );
    }

    // Not a store at all.
    std::fs::write(dir.path().join(crate::store::STORE_FILE), b"hello world").expect("write");
    let err = BlockStore::open(dir.path()).err().expect("refused");
    assert!(err.to_string().contains("store.redb"), "{err}");
}

#[test]
fn a_store_held_open_is_refused_to_a_reader_with_the_way_out() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(19);
    let mut store = BlockStore::open(dir.path()).expect("open").store;
    store.append(stored(1, &k)).expect("append");
    let err = BlockStore::read(dir.path()).expect_err("locked");
    assert!(matches!(err, StoreError::Locked(_)), "{err}");
    assert!(err.to_string().contains("/status"), "{err}");
    drop(store);
    assert_eq!(BlockStore::read(dir.path()).expect("read").len(), 1);
}

#[test]
fn a_record_out_of_order_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(11);
    let mut store = BlockStore::open(dir.path()).expect("open").store;
    store.append(stored(1, &k)).expect("append");
    // Height 3 after 1: a well-formed record in the wrong place.
    store.append(stored(3, &k)).expect("append");
    drop(store);
    let err = BlockStore::open(dir.path()).err().expect("refused");
    assert!(err.to_string().contains("expected 2"), "{err}");
}

#[test]
fn proposals_survive_a_restart_until_the_height_is_stored() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(12);
    let value = block(1, &k);
    let part = SignedBlock {
        height: Height(1),
        round: Round::new(0),
        signature: k.sign(&SignedBlock::signing_bytes(
            Height(1),
            Round::new(0),
            &value,
        )),
        value,
    };
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        store.save_proposal(part.clone(), true).expect("save");
    }
    let mut store = BlockStore::open(dir.path()).expect("reopen").store;
    let me = k.public_key().address();
    assert_eq!(
        store.proposal_by(&me, Height(1), Round::new(0)),
        Some(&part)
    );
    assert_eq!(store.proposal_by(&me, Height(1), Round::new(1)), None);
    assert_eq!(
        store.proposal_by(&key(1).public_key().address(), Height(1), Round::new(0)),
        None
    );
    store.append(stored(1, &k)).expect("append");
    drop(store);
    let store = BlockStore::open(dir.path()).expect("reopen").store;
    assert_eq!(store.proposals_at(Height(1)).count(), 0);
}

fn part(height: u64, round: u32, k: &PrivateKey) -> SignedBlock {
    let value = block(height, k);
    let (h, r) = (Height(height), Round::new(round));
    SignedBlock {
        height: h,
        round: r,
        signature: k.sign(&SignedBlock::signing_bytes(h, r, &value)),
        value,
    }
}

#[test]
fn a_damaged_proposal_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(15);
    let seen = part(1, 1, &key(16));
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        store.save_proposal(part(1, 0, &k), true).expect("own");
        store.save_proposal(seen.clone(), false).expect("seen");
    }
    let opened = BlockStore::open(dir.path()).expect("reopen");
    assert_eq!(opened.store.proposals_at(Height(1)).count(), 2);
    drop(opened);
    damage(dir.path(), &seen.signature.0);
    let err = BlockStore::open(dir.path()).err().expect("refused");
    assert!(
        err.to_string()
            .contains("is corrupt at proposal 1 of height 1: checksum mismatch"),
        "{err}"
    );
}

#[test]
fn proposals_are_dropped_with_the_height_they_were_for_and_later_ones_kept() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(17);
    let me = k.public_key().address();
    let mut store = BlockStore::open(dir.path()).expect("open").store;
    for height in 1..=300 {
        store
            .save_proposal(part(height, 0, &k), true)
            .expect("save");
        // A proposal for the next height, seen early, outlives this height's storing.
        store
            .save_proposal(part(height + 1, 0, &key(18)), false)
            .expect("save");
        store.append(stored(height, &k)).expect("append");
        assert_eq!(store.proposal_by(&me, Height(height), Round::new(0)), None);
        assert_eq!(store.proposals_at(Height(height + 1)).count(), 1);
    }
    drop(store);
    let opened = BlockStore::open(dir.path()).expect("reopen");
    assert_eq!(opened.store.proposals_at(Height(301)).count(), 1);
    assert_eq!(opened.store.proposals_at(Height(300)).count(), 0);
    assert_eq!(opened.blocks.len(), 300);
}

fn snapshot(height: u64) -> StoredSnapshot {
    StoredSnapshot {
        height,
        app_hash: [(height as u8).wrapping_add(100); 32],
        state: vec![height as u8; 40],
    }
}

#[test]
fn the_latest_snapshot_comes_with_the_blocks_after_it_and_old_blocks_are_pruned() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(20);
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        for h in 1..=250 {
            store.append(stored(h, &k)).expect("append");
        }
        store.save_snapshot(&snapshot(100), None).expect("save");
        store.save_snapshot(&snapshot(200), Some(50)).expect("save");
        let err = store
            .save_snapshot(&snapshot(300), None)
            .expect_err("above");
        assert!(
            err.to_string().contains("above the stored height 250"),
            "{err}"
        );
        assert_eq!(store.get(149).expect("get"), None, "pruned");
        assert_eq!(store.get(150).expect("get"), Some(stored(150, &k)));
    }
    let opened = BlockStore::open(dir.path()).expect("reopen");
    assert_eq!(opened.snapshot, Some(snapshot(200)));
    let heights: Vec<u64> = opened.blocks.iter().map(|b| b.height).collect();
    assert_eq!(heights, (201..=250).collect::<Vec<_>>());
    assert_eq!(opened.store.height(), 250);
    drop(opened);
    let all = BlockStore::read(dir.path()).expect("read");
    assert_eq!(all.first().map(|b| b.height), Some(150));
    assert_eq!(all.len(), 101);

    // A snapshot with nothing after it still gives the store its height; a damaged one is refused.
    let dir = tempfile::tempdir().expect("dir");
    {
        let mut store = BlockStore::open(dir.path()).expect("open").store;
        for h in 1..=3 {
            store.append(stored(h, &k)).expect("append");
        }
        store.save_snapshot(&snapshot(3), Some(1)).expect("save");
    }
    let opened = BlockStore::open(dir.path()).expect("reopen");
    assert!(opened.blocks.is_empty());
    assert_eq!(opened.store.height(), 3);
    drop(opened);
    damage(dir.path(), &[3; 40]);
    let err = BlockStore::open(dir.path()).err().expect("refused");
    assert!(
        err.to_string()
            .contains("is corrupt at the snapshot at height 3: checksum mismatch"),
        "{err}"
    );
}

#[test]
fn a_store_serves_its_latest_snapshot_and_installs_a_peers() {
    let dir = tempfile::tempdir().expect("dir");
    let k = key(21);
    let mut store = BlockStore::open(dir.path()).expect("open").store;
    for h in 1..=200 {
        store.append(stored(h, &k)).expect("append");
    }
    assert_eq!(store.servable_height().expect("servable"), 0);
    store.save_snapshot(&snapshot(100), Some(30)).expect("save");
    store.save_snapshot(&snapshot(200), Some(30)).expect("save");
    assert_eq!(store.first_height(), 170);
    // The block after the latest snapshot is not stored yet: the one before it is served.
    assert_eq!(
        store.servable_height().expect("servable"),
        0,
        "100 is pruned"
    );
    store.append(stored(201, &k)).expect("append");
    assert_eq!(store.servable_height().expect("servable"), 200);
    let (served, block, next) = store.servable().expect("servable").expect("one");
    assert_eq!(
        (served, block, next),
        (snapshot(200), stored(200, &k), stored(201, &k))
    );

    // Another node installs a peer's snapshot over its own short history.
    let other = tempfile::tempdir().expect("dir");
    {
        let mut store = BlockStore::open(other.path()).expect("open").store;
        for h in 1..=5 {
            store.append(stored(h, &k)).expect("append");
        }
        store
            .install(stored(200, &k), &snapshot(200))
            .expect("install");
        assert_eq!((store.first_height(), store.height()), (200, 200));
        assert_eq!(store.get(5).expect("get"), None);
        assert!(
            store.install(stored(201, &k), &snapshot(200)).is_err(),
            "a block of another height"
        );
    }
    let opened = BlockStore::open(other.path()).expect("reopen");
    assert_eq!(opened.snapshot, Some(snapshot(200)));
    assert!(opened.blocks.is_empty());
    assert_eq!(
        (opened.store.first_height(), opened.store.height()),
        (200, 200)
    );
}

#[test]
fn a_generated_network_loads_and_bad_genesis_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let homes = write_testnet(dir.path(), &TestnetOptions::new(4, [3; 32])).expect("testnet");
    assert_eq!(homes.len(), 4);
    assert!(
        write_testnet(dir.path(), &TestnetOptions::new(4, [3; 32])).is_err(),
        "a second network is not written over the first"
    );
    let loaded: Vec<Home> = homes.iter().map(|h| Home::load(h).expect("load")).collect();
    assert!(loaded.iter().all(|h| h.genesis == loaded[0].genesis));
    let ports: std::collections::BTreeSet<&String> =
        loaded.iter().map(|h| &h.settings.listen_addr).collect();
    assert_eq!(ports.len(), 4, "every node listens on its own port");
    for h in &loaded {
        assert!(h.settings.listen_addr.starts_with("/ip4/127.0.0.1/tcp/"));
        assert_eq!(h.settings.persistent_peers.len(), 3);
        h.settings.engine_config().expect("engine config");
    }

    let mut bad = loaded[0].genesis.clone();
    bad.validators.push("zz".into());
    assert!(bad.validator_set().is_err());
    let mut twice = loaded[0].genesis.clone();
    twice.validators.push(twice.validators[0].clone());
    assert!(twice.validator_set().is_err());
    let none = Genesis {
        validators: vec![],
        ..loaded[0].genesis.clone()
    };
    assert!(none.validator_set().is_err());

    // A key that is not a validator's is refused.
    std::fs::copy(
        homes[0].join("genesis.json"),
        dir.path().join("genesis.json"),
    )
    .expect("copy");
    std::fs::copy(homes[0].join("config.json"), dir.path().join("config.json")).expect("copy");
    crate::config::save_key(&dir.path().join("node_key.json"), &key(13)).expect("key");
    assert!(Home::load(dir.path()).is_err());
}

#[test]
fn signed_messages_carry_their_signature_through_the_codec() {
    let k = key(14);
    let provider = Ed25519Provider::new(k.clone());
    let proposal = FsmcContext.new_proposal(
        Height(2),
        Round::new(0),
        block(2, &k),
        Round::Nil,
        k.public_key().address(),
    );
    let signed: SignedMessage<FsmcContext, _> =
        block_on(provider.sign_proposal(proposal.clone())).expect("sign");
    let msg = SignedConsensusMsg::Proposal(signed.clone());
    let back: SignedConsensusMsg<FsmcContext> = BorshCodec
        .decode(BorshCodec.encode(&msg).expect("encode"))
        .expect("decode");
    assert_eq!(back, msg);
    let valid =
        block_on(provider.verify_signed_proposal(&proposal, &signed.signature, &k.public_key()));
    assert!(valid.expect("verify").is_valid());
}

#[test]
fn an_unreadable_or_invalid_config_is_one_line_naming_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let homes = write_testnet(dir.path(), &TestnetOptions::new(1, [3; 32])).expect("testnet");
    let config = homes[0].join("config.json");
    let error = |home: &std::path::Path| Home::load(home).expect_err("refused").to_string();

    // A misspelt field is not ignored: it is named, with the file and what to do.
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, text.replace("\"moniker\"", "\"monicker\"")).expect("write");
    let misspelt = error(&homes[0]);
    assert!(
        misspelt.contains("config.json is not valid: unknown field `monicker`")
            && misspelt.contains("write a new one with `init`")
            && !misspelt.contains('\n'),
        "{misspelt}"
    );
    let ttl = format!(
        "\"tx_ttl_heights\": {}",
        NodeSettings::DEFAULT_TX_TTL_HEIGHTS
    );
    assert!(text.contains(&ttl), "{text}");
    std::fs::write(&config, text.replace(&ttl, "\"tx_ttl_heights\": 0")).expect("write");
    let zero = error(&homes[0]);
    assert!(
        zero.contains("tx_ttl_heights is 0") && zero.contains("remove it for the default"),
        "{zero}"
    );
    std::fs::write(&config, "{ not json").expect("write");
    assert!(error(&homes[0]).contains("write a new one with `init`"));
    std::fs::remove_file(&config).expect("remove");
    let missing = error(&homes[0]);
    assert!(
        missing.contains("cannot read")
            && missing.contains("config.json")
            && !missing.contains('\n'),
        "{missing}"
    );
    std::fs::write(homes[0].join("genesis.json"), "[]").expect("write");
    assert!(error(&homes[0]).contains("copy the network's genesis.json into this home"));
}
