//! The engine's vocabulary for our apps: the [`FsmcContext`] and its heights, addresses, values (blocks),
//! proposals, votes and validators. Everything derives Borsh, so one codec covers wire, sync and log.

use borsh::{BorshDeserialize, BorshSerialize};
use sha2::{Digest, Sha256};
use std::fmt::{self, Debug, Display, Formatter};

use malachitebft_core_types::{
    self as core, CommitCertificate, LinearTimeouts, NilOrVal, Round, SignedExtension, VoteType,
};

use crate::signing::{Ed25519, PrivateKey, PublicKey, Signature, hex};

/// A block height: 1 for the first block.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    BorshSerialize,
    BorshDeserialize,
)]
pub struct Height(pub u64);

impl Display for Height {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.0, f)
    }
}

impl core::Height for Height {
    const ZERO: Self = Height(0);
    const INITIAL: Self = Height(1);

    fn increment_by(&self, n: u64) -> Self {
        Height(self.0.saturating_add(n))
    }

    fn decrement_by(&self, n: u64) -> Option<Self> {
        self.0.checked_sub(n).map(Height)
    }

    fn as_u64(&self) -> u64 {
        self.0
    }
}

/// A validator's address: the first 20 bytes of the SHA-256 of its public key. Its hex form is the agent's
/// name in the app ([`fsmc_runtime::app::AgentId`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, BorshSerialize, BorshDeserialize)]
pub struct Address(pub [u8; 20]);

impl Address {
    /// Parses the hex form.
    pub fn parse(text: &str) -> Option<Address> {
        let bytes = crate::signing::unhex(text)?;
        <[u8; 20]>::try_from(bytes.as_slice()).ok().map(Address)
    }
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&hex(&self.0))
    }
}

impl Debug for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "Address({})", hex(&self.0))
    }
}

impl core::Address for Address {}

/// A value's id: the SHA-256 of its canonical encoding.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, BorshSerialize, BorshDeserialize)]
pub struct ValueId(pub [u8; 32]);

impl Display for ValueId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&hex(&self.0[..8]))
    }
}

impl Debug for ValueId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "ValueId({})", hex(&self.0[..8]))
    }
}

const TX: &[u8] = b"fsmc/tx/v1";

/// A transaction as it travels and is stored: the sender's address, the app's bytes (an encoded
/// [`fsmc_runtime::app::Submission`]) and the sender's signature over both and the chain id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, BorshSerialize, BorshDeserialize)]
pub struct SignedTx {
    /// The validator that submitted it.
    pub sender: Address,
    /// The app's bytes.
    pub data: Vec<u8>,
    /// The sender's signature.
    pub signature: Signature,
}

impl SignedTx {
    fn signing_bytes(chain_id: &str, sender: &Address, data: &[u8]) -> Vec<u8> {
        let mut bytes = TX.to_vec();
        let _ = (chain_id, sender, data).serialize(&mut bytes);
        bytes
    }

    /// Signs `data` as `key`'s validator on chain `chain_id`.
    pub fn sign(chain_id: &str, key: &PrivateKey, data: Vec<u8>) -> SignedTx {
        let sender = key.public_key().address();
        let signature = key.sign(&Self::signing_bytes(chain_id, &sender, &data));
        SignedTx {
            sender,
            data,
            signature,
        }
    }

    /// Whether the signature is the sender's, given its public key.
    pub fn verify(&self, chain_id: &str, key: &PublicKey) -> bool {
        key.address() == self.sender
            && key.verify(
                &Self::signing_bytes(chain_id, &self.sender, &self.data),
                &self.signature,
            )
    }

    /// The transaction's identity for deduplication: who sent which bytes (a second copy of the same
    /// payload is the same transaction, whatever its signature).
    pub fn id(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.sender.0);
        h.update(self.data.as_slice());
        h.finalize().into()
    }
}

/// The value consensus decides: one block, with what validators need to check it besides the transactions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, BorshSerialize, BorshDeserialize)]
pub struct BlockValue {
    /// The block's height.
    pub height: u64,
    /// The proposer's clock when it built the block, in milliseconds: after the parent's time.
    pub time_ms: u64,
    /// Who built it.
    pub proposer: Address,
    /// The app hash after the parent block (the genesis hash for height 1): a replica whose own hash
    /// differs has diverged.
    pub prev_app_hash: [u8; 32],
    /// The transactions, in order.
    pub txs: Vec<SignedTx>,
}

impl BlockValue {
    /// The canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        borsh::to_vec(self).unwrap_or_default()
    }

    /// Decodes exactly one canonical encoding.
    pub fn decode(bytes: &[u8]) -> Option<BlockValue> {
        borsh::from_slice(bytes).ok()
    }

    /// The value's id as raw bytes.
    pub fn id_bytes(&self) -> ValueId {
        ValueId(Sha256::digest(self.encode()).into())
    }
}

impl core::Value for BlockValue {
    type Id = ValueId;

    fn id(&self) -> ValueId {
        self.id_bytes()
    }
}

/// A block signed by its proposer for one round: the part that carries a proposal.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct SignedBlock {
    /// The height.
    pub height: Height,
    /// The round it was first proposed in.
    pub round: Round,
    /// The block.
    pub value: BlockValue,
    /// The proposer's signature over height, round and value id.
    pub signature: Signature,
}

const PART: &[u8] = b"fsmc/part/v1";

impl SignedBlock {
    /// What the signature covers.
    pub fn signing_bytes(height: Height, round: Round, value: &BlockValue) -> Vec<u8> {
        let mut bytes = PART.to_vec();
        let _ = (height, round, value.id_bytes()).serialize(&mut bytes);
        bytes
    }
}

/// What our nodes publish on the engine's proposal-part channel.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub enum ProposalPart {
    /// A whole proposed block, in a single part (blocks are small).
    Block(SignedBlock),
    /// Transactions forwarded from a node's mempool to every other node, so the next proposer includes them
    /// whoever it is. Each is signed by its sender; the engine passes these parts through untouched.
    Txs(Vec<SignedTx>),
    /// Which chain the sender is on and which app it runs, published now and then.
    Chain(ChainHello),
    /// Where the sender's history is (its height, its first stored height, its latest snapshot), published
    /// with its chain hello: whom a node behind can ask for a snapshot.
    History(History),
    /// A node asks one peer for its latest snapshot.
    SnapshotRequest(SnapshotRequest),
    /// The peer's answer: the snapshot's height, app hash, size and the certified blocks vouching for it.
    SnapshotOffer(Box<SnapshotOffer>),
    /// A piece of the snapshot's bytes.
    SnapshotChunk(SnapshotChunk),
}

const CHAIN: &[u8] = b"fsmc/chain/v1";

/// A node's signed word of which chain it is on and which app it runs there: its genesis' chain id and spec
/// fingerprint. Transactions signed for another chain fail their signature check and nothing else tells why,
/// and a node whose genesis and binary name another spec would compute other app hashes some blocks later; so
/// nodes say both, and a validator that differs is named in a clear error instead of wedging its peers' blocks
/// without a word.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct ChainHello {
    /// The validator that says it.
    pub sender: Address,
    /// The chain id its genesis names.
    pub chain_id: String,
    /// The spec fingerprint its genesis names (and its binary was built from), in hex.
    pub spec_fingerprint: String,
    /// Its signature over all three.
    pub signature: Signature,
}

impl ChainHello {
    fn signing_bytes(sender: &Address, chain_id: &str, spec_fingerprint: &str) -> Vec<u8> {
        let mut bytes = CHAIN.to_vec();
        let _ = (sender, chain_id, spec_fingerprint).serialize(&mut bytes);
        bytes
    }

    /// `key`'s validator says it runs the app of `spec_fingerprint` on chain `chain_id`.
    pub fn sign(chain_id: &str, spec_fingerprint: &str, key: &PrivateKey) -> ChainHello {
        let sender = key.public_key().address();
        ChainHello {
            signature: key.sign(&Self::signing_bytes(&sender, chain_id, spec_fingerprint)),
            sender,
            chain_id: chain_id.to_string(),
            spec_fingerprint: spec_fingerprint.to_string(),
        }
    }

    /// Whether the sender, whose public key is `key`, signed it.
    pub fn verify(&self, key: &PublicKey) -> bool {
        key.address() == self.sender
            && key.verify(
                &Self::signing_bytes(&self.sender, &self.chain_id, &self.spec_fingerprint),
                &self.signature,
            )
    }

    /// The chain and the app, as an error names them.
    pub fn describe(chain_id: &str, spec_fingerprint: &str) -> String {
        format!("chain {chain_id:?} with spec fingerprint {spec_fingerprint}")
    }
}

// The messages of state sync (`crate::statesync` checks them and says what each guarantees).

/// Where a validator's history is, published now and then: whom a node behind can ask.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct History {
    /// The validator.
    pub sender: Address,
    /// The last height it stored.
    pub tip: u64,
    /// The first height it still stores (1 unless it pruned).
    pub first: u64,
    /// The height of the latest snapshot it can serve (0 for none).
    pub snapshot: u64,
    /// Its signature.
    pub signature: Signature,
}

/// A node asks one peer for its latest snapshot.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct SnapshotRequest {
    /// Who asks.
    pub requester: Address,
    /// Whom it asks.
    pub peer: Address,
    /// The requester's last stored height.
    pub tip: u64,
    /// The requester's signature.
    pub signature: Signature,
}

/// A decided block with its commit certificate.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct CertifiedBlock {
    /// The block.
    pub value: BlockValue,
    /// A quorum of precommits for it.
    pub certificate: CommitCertificate<FsmcContext>,
}

/// A peer's answer: what its snapshot is, and the certified blocks that vouch for it. The bytes follow in
/// chunks.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct SnapshotOffer {
    /// The validator that serves it.
    pub sender: Address,
    /// The validator that asked.
    pub to: Address,
    /// The height of the last block applied to the state.
    pub height: u64,
    /// The app hash of the state.
    pub app_hash: [u8; 32],
    /// How many bytes the snapshot has.
    pub size: u64,
    /// The SHA-256 of its bytes.
    pub digest: [u8; 32],
    /// The block at `height`: where the node's history starts.
    pub block: CertifiedBlock,
    /// The block at `height + 1`, which names the app hash after `height`.
    pub next: CertifiedBlock,
    /// The sender's signature.
    pub signature: Signature,
}

/// A piece of a snapshot's bytes.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct SnapshotChunk {
    /// The validator that serves it.
    pub sender: Address,
    /// The validator that asked.
    pub to: Address,
    /// The snapshot's height.
    pub height: u64,
    /// Which piece: bytes from `index * CHUNK_BYTES` on.
    pub index: u32,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl core::ProposalPart<FsmcContext> for ProposalPart {
    fn is_first(&self) -> bool {
        true
    }

    fn is_last(&self) -> bool {
        true
    }
}

/// A proposal message, signed by the engine's signer.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct Proposal {
    /// The height.
    pub height: Height,
    /// The round.
    pub round: Round,
    /// The proposed block.
    pub value: BlockValue,
    /// The round of the polka that justifies re-proposing a value, or nil.
    pub pol_round: Round,
    /// The proposer.
    pub proposer: Address,
}

impl core::Proposal<FsmcContext> for Proposal {
    fn height(&self) -> Height {
        self.height
    }

    fn round(&self) -> Round {
        self.round
    }

    fn value(&self) -> &BlockValue {
        &self.value
    }

    fn take_value(self) -> BlockValue {
        self.value
    }

    fn pol_round(&self) -> Round {
        self.pol_round
    }

    fn validator_address(&self) -> &Address {
        &self.proposer
    }
}

/// A prevote or precommit.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct Vote {
    /// Prevote or precommit.
    pub typ: VoteType,
    /// The height.
    pub height: Height,
    /// The round.
    pub round: Round,
    /// The value voted for, or nil.
    pub value: NilOrVal<ValueId>,
    /// The voter.
    pub validator_address: Address,
    /// A vote extension (unused: extensions are disabled).
    pub extension: Option<SignedExtension<FsmcContext>>,
}

impl core::Vote<FsmcContext> for Vote {
    fn height(&self) -> Height {
        self.height
    }

    fn round(&self) -> Round {
        self.round
    }

    fn value(&self) -> &NilOrVal<ValueId> {
        &self.value
    }

    fn take_value(self) -> NilOrVal<ValueId> {
        self.value
    }

    fn vote_type(&self) -> VoteType {
        self.typ
    }

    fn validator_address(&self) -> &Address {
        &self.validator_address
    }

    fn extension(&self) -> Option<&SignedExtension<FsmcContext>> {
        self.extension.as_ref()
    }

    fn take_extension(&mut self) -> Option<SignedExtension<FsmcContext>> {
        self.extension.take()
    }

    fn extend(self, extension: SignedExtension<FsmcContext>) -> Self {
        Vote {
            extension: Some(extension),
            ..self
        }
    }
}

/// A validator: every one has voting power 1.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct Validator {
    /// Its address.
    pub address: Address,
    /// Its public key.
    pub public_key: PublicKey,
    /// Its voting power.
    pub voting_power: u64,
}

impl Validator {
    /// A validator of power 1 holding `public_key`.
    pub fn new(public_key: PublicKey) -> Validator {
        Validator {
            address: public_key.address(),
            public_key,
            voting_power: 1,
        }
    }
}

impl core::Validator<FsmcContext> for Validator {
    fn address(&self) -> &Address {
        &self.address
    }

    fn public_key(&self) -> &PublicKey {
        &self.public_key
    }

    fn voting_power(&self) -> u64 {
        self.voting_power
    }
}

/// The fixed validator set, sorted by address so every node indexes it alike.
#[derive(Clone, Debug, PartialEq, Eq, BorshSerialize, BorshDeserialize)]
pub struct ValidatorSet {
    validators: Vec<Validator>,
}

impl ValidatorSet {
    /// The set of `validators`, sorted by address, duplicates dropped.
    pub fn new(validators: impl IntoIterator<Item = Validator>) -> ValidatorSet {
        let mut validators: Vec<Validator> = validators.into_iter().collect();
        validators.sort_by_key(|v| v.address);
        validators.dedup_by_key(|v| v.address);
        ValidatorSet { validators }
    }

    /// The validators, by address.
    pub fn validators(&self) -> &[Validator] {
        &self.validators
    }

    /// The validator with `address`.
    pub fn get(&self, address: &Address) -> Option<&Validator> {
        self.validators
            .binary_search_by_key(address, |v| v.address)
            .ok()
            .and_then(|i| self.validators.get(i))
    }

    /// The proposer of `round` at `height`: round-robin over the set, shifted by one each height and round.
    pub fn proposer(&self, height: Height, round: Round) -> Option<&Validator> {
        let n = u64::try_from(self.validators.len())
            .ok()
            .filter(|&n| n > 0)?;
        let round = u64::from(round.as_u32().unwrap_or(0));
        let index = height.0.saturating_sub(1).wrapping_add(round) % n;
        self.validators.get(usize::try_from(index).ok()?)
    }
}

impl core::ValidatorSet<FsmcContext> for ValidatorSet {
    fn count(&self) -> usize {
        self.validators.len()
    }

    fn total_voting_power(&self) -> u64 {
        self.validators.iter().map(|v| v.voting_power).sum()
    }

    fn get_by_address(&self, address: &Address) -> Option<&Validator> {
        self.get(address)
    }

    fn get_by_index(&self, index: usize) -> Option<&Validator> {
        self.validators.get(index)
    }
}

static NOBODY: Validator = Validator {
    address: Address([0; 20]),
    public_key: PublicKey([0; 32]),
    voting_power: 0,
};

/// The engine's context for fsmc apps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsmcContext;

impl core::Context for FsmcContext {
    type Address = Address;
    type Height = Height;
    type ProposalPart = ProposalPart;
    type Proposal = Proposal;
    type Validator = Validator;
    type ValidatorSet = ValidatorSet;
    type Timeouts = LinearTimeouts;
    type Value = BlockValue;
    type Vote = Vote;
    type Extension = Vec<u8>;
    type SigningScheme = Ed25519;

    fn select_proposer<'a>(
        &self,
        validator_set: &'a ValidatorSet,
        height: Height,
        round: Round,
    ) -> &'a Validator {
        // The genesis is checked to name at least one validator, so the set is never empty; the powerless
        // placeholder only keeps this total without a panic.
        validator_set.proposer(height, round).unwrap_or(&NOBODY)
    }

    fn new_proposal(
        &self,
        height: Height,
        round: Round,
        value: BlockValue,
        pol_round: Round,
        address: Address,
    ) -> Proposal {
        Proposal {
            height,
            round,
            value,
            pol_round,
            proposer: address,
        }
    }

    fn new_prevote(
        &self,
        height: Height,
        round: Round,
        value_id: NilOrVal<ValueId>,
        address: Address,
    ) -> Vote {
        Vote {
            typ: VoteType::Prevote,
            height,
            round,
            value: value_id,
            validator_address: address,
            extension: None,
        }
    }

    fn new_precommit(
        &self,
        height: Height,
        round: Round,
        value_id: NilOrVal<ValueId>,
        address: Address,
    ) -> Vote {
        Vote {
            typ: VoteType::Precommit,
            height,
            round,
            value: value_id,
            validator_address: address,
            extension: None,
        }
    }
}
