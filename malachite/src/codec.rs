//! One Borsh codec for everything the engine encodes: consensus messages and proposal parts on the wire, the
//! value-sync protocol, and the write-ahead log.
//!
//! The engine's types get their Borsh encoding from the engine crates' `borsh` features; two that have none in
//! this version (the validator proof and the sync response, whose certificate type lacks it) are encoded here
//! through mirror structs. Decoding accepts exactly one canonical encoding with no trailing bytes, and never
//! panics: bytes from the network only ever produce an error.

use borsh::{BorshDeserialize, BorshSerialize};
use bytes::Bytes;
use std::fmt::{self, Display, Formatter};

use malachitebft_codec::{Codec, HasEncodedLen};
use malachitebft_core_consensus::{LivenessMsg, ProposedValue, SignedConsensusMsg};
use malachitebft_core_types::{
    ExtendedCommitCertificate, ExtendedCommitSignature, PolkaCertificate, Round, SignedExtension,
    ValidatorProof,
};
use malachitebft_engine::util::streaming::StreamMessage;
use malachitebft_sync::{RawDecidedValue, Request, Response, Status, ValueResponse};

use crate::signing::Signature;
use crate::types::{Address, FsmcContext, Height, ProposalPart, ValueId};

/// The codec handed to the engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct BorshCodec;

/// Bytes that are not a canonical encoding, or a value that could not be encoded.
#[derive(Debug)]
pub struct CodecError(pub String);

impl Display for CodecError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "codec: {}", self.0)
    }
}

impl std::error::Error for CodecError {}

fn encode<T: BorshSerialize>(value: &T) -> Result<Bytes, CodecError> {
    borsh::to_vec(value)
        .map(Bytes::from)
        .map_err(|e| CodecError(e.to_string()))
}

fn decode<T: BorshDeserialize>(bytes: &[u8]) -> Result<T, CodecError> {
    borsh::from_slice(bytes).map_err(|e| CodecError(e.to_string()))
}

macro_rules! borsh_codec {
    ($($ty:ty),* $(,)?) => {
        $(
            impl Codec<$ty> for BorshCodec {
                type Error = CodecError;

                fn decode(&self, bytes: Bytes) -> Result<$ty, CodecError> {
                    decode(&bytes)
                }

                fn encode(&self, msg: &$ty) -> Result<Bytes, CodecError> {
                    encode(msg)
                }
            }
        )*
    };
}

borsh_codec!(
    ProposalPart,
    StreamMessage<ProposalPart>,
    SignedConsensusMsg<FsmcContext>,
    LivenessMsg<FsmcContext>,
    ProposedValue<FsmcContext>,
    PolkaCertificate<FsmcContext>,
    Status<FsmcContext>,
    Request<FsmcContext>,
);

/// The validator proof, field by field.
#[derive(BorshSerialize, BorshDeserialize)]
struct WireProof {
    public_key: Vec<u8>,
    peer_id: Vec<u8>,
    signature: Signature,
}

impl Codec<ValidatorProof<FsmcContext>> for BorshCodec {
    type Error = CodecError;

    fn decode(&self, bytes: Bytes) -> Result<ValidatorProof<FsmcContext>, CodecError> {
        let w: WireProof = decode(&bytes)?;
        Ok(ValidatorProof::new(w.public_key, w.peer_id, w.signature))
    }

    fn encode(&self, msg: &ValidatorProof<FsmcContext>) -> Result<Bytes, CodecError> {
        encode(&WireProof {
            public_key: msg.public_key.clone(),
            peer_id: msg.peer_id.clone(),
            signature: msg.signature,
        })
    }
}

/// A sync response: decided values with their certificates.
#[derive(BorshSerialize, BorshDeserialize)]
struct WireResponse {
    start_height: Height,
    values: Vec<WireDecided>,
}

#[derive(BorshSerialize, BorshDeserialize)]
struct WireDecided {
    value_bytes: Vec<u8>,
    height: Height,
    round: Round,
    value_id: ValueId,
    signatures: Vec<WireCommitSignature>,
}

#[derive(BorshSerialize, BorshDeserialize)]
struct WireCommitSignature {
    address: Address,
    signature: Signature,
    extension: Option<SignedExtension<FsmcContext>>,
}

fn to_wire(response: &Response<FsmcContext>) -> WireResponse {
    let Response::ValueResponse(r) = response;
    WireResponse {
        start_height: r.start_height,
        values: r
            .values
            .iter()
            .map(|v| WireDecided {
                value_bytes: v.value_bytes.to_vec(),
                height: v.certificate.height,
                round: v.certificate.round,
                value_id: v.certificate.value_id,
                signatures: v
                    .certificate
                    .commit_signatures
                    .iter()
                    .map(|s| WireCommitSignature {
                        address: s.address,
                        signature: s.signature,
                        extension: s.extension.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn from_wire(w: WireResponse) -> Response<FsmcContext> {
    Response::ValueResponse(ValueResponse::new(
        w.start_height,
        w.values
            .into_iter()
            .map(|v| {
                RawDecidedValue::new(
                    Bytes::from(v.value_bytes),
                    ExtendedCommitCertificate {
                        height: v.height,
                        round: v.round,
                        value_id: v.value_id,
                        commit_signatures: v
                            .signatures
                            .into_iter()
                            .map(|s| {
                                ExtendedCommitSignature::new(s.address, s.signature, s.extension)
                            })
                            .collect(),
                    },
                )
            })
            .collect(),
    ))
}

impl Codec<Response<FsmcContext>> for BorshCodec {
    type Error = CodecError;

    fn decode(&self, bytes: Bytes) -> Result<Response<FsmcContext>, CodecError> {
        decode(&bytes).map(from_wire)
    }

    fn encode(&self, msg: &Response<FsmcContext>) -> Result<Bytes, CodecError> {
        encode(&to_wire(msg))
    }
}

impl HasEncodedLen<Response<FsmcContext>> for BorshCodec {
    fn encoded_len(&self, msg: &Response<FsmcContext>) -> Result<usize, CodecError> {
        let mut counter = Counter(0);
        to_wire(msg)
            .serialize(&mut counter)
            .map_err(|e| CodecError(e.to_string()))?;
        Ok(counter.0)
    }
}

/// Counts the bytes of an encoding without building it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
