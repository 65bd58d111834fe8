//! Ed25519 for consensus messages, proposal parts and transactions: our own small signing scheme, so every key
//! and signature has a Borsh encoding (the engine's published Ed25519 scheme has none, and the orphan rule keeps
//! us from adding one).

use async_trait::async_trait;
use borsh::{BorshDeserialize, BorshSerialize};
use ed25519_dalek::{Signer as _, SigningKey, Verifier as _, VerifyingKey};
use sha2::{Digest, Sha256};
use std::fmt::{self, Debug, Display, Formatter};

use malachitebft_core_types::{
    SignedExtension, SignedMessage, SigningScheme, ValidatorProof, VoteExtensionScope,
};
use malachitebft_signing::{Error as SigningError, Signer, VerificationResult, Verifier};

use crate::types::{Address, FsmcContext, Proposal, Vote};

/// The Ed25519 signing scheme of [`FsmcContext`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ed25519;

/// An Ed25519 public key, kept as its 32 bytes: a key that is not a valid curve point simply fails every
/// verification, so decoding one from the network never fails or panics.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, BorshSerialize, BorshDeserialize)]
pub struct PublicKey(pub [u8; 32]);

impl PublicKey {
    /// The address of the validator holding this key: the first 20 bytes of its SHA-256.
    pub fn address(&self) -> Address {
        let digest = Sha256::digest(self.0);
        let mut bytes = [0; 20];
        bytes.copy_from_slice(&digest[..20]);
        Address(bytes)
    }

    /// Whether `signature` signs `message` under this key.
    pub fn verify(&self, message: &[u8], signature: &Signature) -> bool {
        let Ok(key) = VerifyingKey::from_bytes(&self.0) else {
            return false;
        };
        let signature = ed25519_dalek::Signature::from_bytes(&signature.0);
        key.verify(message, &signature).is_ok()
    }
}

impl Debug for PublicKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", hex(&self.0))
    }
}

/// An Ed25519 signature.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, BorshSerialize, BorshDeserialize)]
pub struct Signature(pub [u8; 64]);

impl Debug for Signature {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({}…)", hex(&self.0[..8]))
    }
}

/// An Ed25519 secret key. Its `Debug` shows only the public half.
#[derive(Clone)]
pub struct PrivateKey(SigningKey);

impl PrivateKey {
    /// The key with these 32 secret bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> PrivateKey {
        PrivateKey(SigningKey::from_bytes(&bytes))
    }

    /// A fresh key from the operating system's randomness.
    pub fn generate() -> Result<PrivateKey, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes)?;
        Ok(PrivateKey::from_bytes(bytes))
    }

    /// The 32 secret bytes (for the key file).
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        PublicKey(self.0.verifying_key().to_bytes())
    }

    /// Signs `message`.
    pub fn sign(&self, message: &[u8]) -> Signature {
        Signature(self.0.sign(message).to_bytes())
    }
}

impl Debug for PrivateKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "PrivateKey(public {})", hex(&self.public_key().0))
    }
}

/// A key or signature of the wrong length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodingError(pub String);

impl Display for DecodingError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodingError {}

impl SigningScheme for Ed25519 {
    type DecodingError = DecodingError;
    type Signature = Signature;
    type PublicKey = PublicKey;
    type PrivateKey = PrivateKey;

    fn decode_signature(bytes: &[u8]) -> Result<Signature, DecodingError> {
        <[u8; 64]>::try_from(bytes)
            .map(Signature)
            .map_err(|_| DecodingError(format!("a signature has 64 bytes, not {}", bytes.len())))
    }

    fn encode_signature(signature: &Signature) -> Vec<u8> {
        signature.0.to_vec()
    }

    fn decode_public_key(bytes: &[u8]) -> Result<PublicKey, DecodingError> {
        <[u8; 32]>::try_from(bytes)
            .map(PublicKey)
            .map_err(|_| DecodingError(format!("a public key has 32 bytes, not {}", bytes.len())))
    }

    fn encode_public_key(public_key: &PublicKey) -> Vec<u8> {
        public_key.0.to_vec()
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Parses lower- or upper-case hex; `None` for anything else.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

// Every signed message starts with its own domain tag, so a signature over one kind of message can never be
// replayed as another kind.
const VOTE: &[u8] = b"fsmc/vote/v1";
const PROPOSAL: &[u8] = b"fsmc/proposal/v1";
const EXTENSION: &[u8] = b"fsmc/vote-extension/v1";

fn tagged(tag: &[u8], body: &impl BorshSerialize) -> Vec<u8> {
    let mut bytes = tag.to_vec();
    // Writing into a Vec cannot fail, and these values hold nothing borsh refuses.
    let _ = body.serialize(&mut bytes);
    bytes
}

/// What a vote's signature covers: everything but the extension, which is signed on its own.
pub(crate) fn vote_bytes(vote: &Vote) -> Vec<u8> {
    tagged(
        VOTE,
        &(
            vote.typ,
            vote.height,
            vote.round,
            &vote.value,
            vote.validator_address,
        ),
    )
}

/// What a proposal's signature covers: its value by id.
pub(crate) fn proposal_bytes(proposal: &Proposal) -> Vec<u8> {
    tagged(
        PROPOSAL,
        &(
            proposal.height,
            proposal.round,
            proposal.value.id_bytes(),
            proposal.pol_round,
            proposal.proposer,
        ),
    )
}

fn extension_bytes(scope: &VoteExtensionScope<FsmcContext>, extension: &Vec<u8>) -> Vec<u8> {
    tagged(
        EXTENSION,
        &(
            scope.height,
            scope.round,
            scope.value_id,
            scope.validator_address,
            extension,
        ),
    )
}

/// Signs and verifies for the engine with one validator's key.
#[derive(Clone, Debug)]
pub struct Ed25519Provider {
    key: PrivateKey,
}

impl Ed25519Provider {
    /// A provider signing with `key`.
    pub fn new(key: PrivateKey) -> Self {
        Ed25519Provider { key }
    }

    /// The key's public half.
    pub fn public_key(&self) -> PublicKey {
        self.key.public_key()
    }
}

fn result(valid: bool) -> Result<VerificationResult, SigningError> {
    Ok(VerificationResult::from_bool(valid))
}

#[async_trait]
impl Signer<FsmcContext> for Ed25519Provider {
    async fn sign_vote(
        &self,
        vote: Vote,
    ) -> Result<SignedMessage<FsmcContext, Vote>, SigningError> {
        let signature = self.key.sign(&vote_bytes(&vote));
        Ok(SignedMessage::new(vote, signature))
    }

    async fn sign_proposal(
        &self,
        proposal: Proposal,
    ) -> Result<SignedMessage<FsmcContext, Proposal>, SigningError> {
        let signature = self.key.sign(&proposal_bytes(&proposal));
        Ok(SignedMessage::new(proposal, signature))
    }

    async fn sign_vote_extension(
        &self,
        scope: VoteExtensionScope<FsmcContext>,
        extension: Vec<u8>,
    ) -> Result<SignedExtension<FsmcContext>, SigningError> {
        let signature = self.key.sign(&extension_bytes(&scope, &extension));
        Ok(SignedMessage::new(extension, signature))
    }

    async fn sign_validator_proof(
        &self,
        public_key: Vec<u8>,
        peer_id: Vec<u8>,
    ) -> Result<ValidatorProof<FsmcContext>, SigningError> {
        let signature = self.key.sign(&ValidatorProof::<FsmcContext>::signing_bytes(
            &public_key,
            &peer_id,
        ));
        Ok(ValidatorProof::new(public_key, peer_id, signature))
    }
}

#[async_trait]
impl Verifier<FsmcContext> for Ed25519Provider {
    async fn verify_signed_vote(
        &self,
        vote: &Vote,
        signature: &Signature,
        public_key: &PublicKey,
    ) -> Result<VerificationResult, SigningError> {
        result(public_key.verify(&vote_bytes(vote), signature))
    }

    async fn verify_signed_proposal(
        &self,
        proposal: &Proposal,
        signature: &Signature,
        public_key: &PublicKey,
    ) -> Result<VerificationResult, SigningError> {
        result(public_key.verify(&proposal_bytes(proposal), signature))
    }

    async fn verify_signed_vote_extension(
        &self,
        scope: &VoteExtensionScope<FsmcContext>,
        extension: &Vec<u8>,
        signature: &Signature,
        public_key: &PublicKey,
    ) -> Result<VerificationResult, SigningError> {
        result(public_key.verify(&extension_bytes(scope, extension), signature))
    }

    async fn verify_validator_proof(
        &self,
        proof: &ValidatorProof<FsmcContext>,
    ) -> Result<VerificationResult, SigningError> {
        let Ok(key) = Ed25519::decode_public_key(&proof.public_key) else {
            return result(false);
        };
        result(key.verify(&proof.preimage(), &proof.signature))
    }
}
