//! The engine's side of a node: answers every request Malachite makes of the application, keeps the mempool,
//! forwards transactions, and hands each decided block to the replica, waiting for its app hash before the
//! next height starts.
//!
//! What reaches the replica is only the block content (height, time, transactions with their senders); rounds,
//! proposers, certificates and arrival order stay here.

use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::{self, Display, Formatter};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use fsmc_runtime::app::{AppHash, Block, Tx};
use malachitebft_app_channel::app::engine::host::{HeightParams, Next, SyncedValueOutcome};
use malachitebft_app_channel::app::streaming::{StreamContent, StreamId, StreamMessage};
use malachitebft_app_channel::app::types::core::{
    CommitCertificate, ExtendedCommitCertificate, LinearTimeouts, Round, Validity, VoteExtensions,
};
use malachitebft_app_channel::app::types::sync::RawDecidedValue;
use malachitebft_app_channel::app::types::{LocallyProposedValue, ProposedValue};
use malachitebft_app_channel::{AppMsg, Channels, NetworkMsg};

use crate::config::{NodeSettings, now_ms};
use crate::signing::{PrivateKey, hex};
use crate::store::{BlockStore, StoreError, StoredBlock};
use crate::types::{
    Address, BlockValue, FsmcContext, Height, ProposalPart, SignedBlock, SignedTx, ValidatorSet,
    ValueId,
};

/// The most transactions one block holds.
const MAX_BLOCK_TXS: usize = 1_000;
/// The most bytes of transaction data one block holds.
const MAX_BLOCK_BYTES: usize = 1 << 20;
/// The most transactions waiting in the mempool; more are dropped (their senders forward them again).
const MAX_MEMPOOL: usize = 20_000;
/// The most bytes one transaction holds.
const MAX_TX_BYTES: usize = 64 << 10;
/// How many committed transaction ids are remembered to drop late copies.
const COMMITTED_WINDOW: usize = 100_000;
/// The most decided values served in one sync answer.
const MAX_SYNC_BATCH: u64 = 64;

/// What the engine side hands the replica.
pub(crate) enum ToApp {
    /// The next decided block.
    Block(Block),
    /// The node must stop, for this reason.
    Halt(String),
}

/// The replica's side of the channels, as the host holds them.
pub(crate) struct AppPort {
    pub(crate) blocks: std::sync::mpsc::Sender<ToApp>,
    pub(crate) commits: mpsc::UnboundedReceiver<(u64, AppHash)>,
    pub(crate) submits: mpsc::UnboundedReceiver<Vec<u8>>,
}

/// Why the node stops.
#[derive(Debug)]
pub enum HostError {
    /// The replica's app hash differs from the one the other validators built on.
    Diverged {
        /// The height whose app hash differs.
        height: u64,
        /// This replica's hash there.
        ours: String,
        /// The hash the decided block at the next height names.
        theirs: String,
        /// Who proposed that block.
        proposer: String,
    },
    /// The block store failed or is damaged.
    Store(StoreError),
    /// The engine or the replica stopped, or consensus broke a promise.
    Stopped(String),
}

impl Display for HostError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Diverged {
                height,
                ours,
                theirs,
                proposer,
            } => write!(
                f,
                "app hash diverged at height {height}: this replica has {ours}, but the block the validators \
                 decided at height {} (proposed by {proposer}) builds on {theirs}; halting",
                height.saturating_add(1)
            ),
            Self::Store(e) => write!(f, "{e}; halting"),
            Self::Stopped(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for HostError {}

impl From<StoreError> for HostError {
    fn from(e: StoreError) -> Self {
        HostError::Store(e)
    }
}

/// The last committed block: what the next one builds on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tip {
    pub(crate) height: u64,
    pub(crate) time_ms: u64,
    pub(crate) app_hash: [u8; 32],
}

/// Transactions waiting for a block, in arrival order, without duplicates, minus those already committed.
#[derive(Default)]
struct Mempool {
    pending: BTreeMap<u64, SignedTx>,
    ids: BTreeMap<[u8; 32], u64>,
    committed: BTreeSet<[u8; 32]>,
    committed_order: VecDeque<[u8; 32]>,
    next: u64,
}

impl Mempool {
    /// Adds `tx` unless it is pending or committed already, or the mempool is full; says whether it has room
    /// for more.
    fn add(&mut self, tx: SignedTx) -> bool {
        if self.pending.len() >= MAX_MEMPOOL {
            return false;
        }
        let id = tx.id();
        if self.ids.contains_key(&id) || self.committed.contains(&id) {
            return true;
        }
        self.next = self.next.wrapping_add(1);
        self.ids.insert(id, self.next);
        self.pending.insert(self.next, tx);
        true
    }

    /// The oldest pending transactions that fit in a block (they stay pending until committed).
    fn block(&self) -> Vec<SignedTx> {
        let mut bytes = 0usize;
        self.pending
            .values()
            .take(MAX_BLOCK_TXS)
            .take_while(|tx| {
                bytes = bytes.saturating_add(tx.data.len());
                bytes <= MAX_BLOCK_BYTES
            })
            .cloned()
            .collect()
    }

    /// Forgets the pending copies of `txs` and remembers them as committed.
    fn commit<'a>(&mut self, txs: impl IntoIterator<Item = &'a SignedTx>) {
        for tx in txs {
            let id = tx.id();
            if let Some(seq) = self.ids.remove(&id) {
                self.pending.remove(&seq);
            }
            if self.committed.insert(id) {
                self.committed_order.push_back(id);
            }
        }
        while self.committed_order.len() > COMMITTED_WINDOW {
            if let Some(old) = self.committed_order.pop_front() {
                self.committed.remove(&old);
            }
        }
    }

    /// The pending transactions sent by `who`.
    fn from(&self, who: &Address) -> Vec<SignedTx> {
        self.pending
            .values()
            .filter(|tx| tx.sender == *who)
            .cloned()
            .collect()
    }
}

/// A value seen for the current height: its verdict, and the signed part that carried it (to restream).
struct Candidate {
    value: ProposedValue<FsmcContext>,
    part: Option<SignedBlock>,
}

/// The engine side of one node.
pub(crate) struct Host {
    chain_id: String,
    me: Address,
    key: PrivateKey,
    validators: ValidatorSet,
    settings: NodeSettings,
    timeouts: LinearTimeouts,
    store: BlockStore,
    tip: Tip,
    candidates: BTreeMap<(u64, ValueId), Candidate>,
    /// Proposal parts for heights not started yet.
    early: Vec<SignedBlock>,
    mempool: Mempool,
    streams: u64,
    /// When the current round started: the round latency is logged at each decision.
    round_started: Option<(Height, Round, Instant)>,
    network: mpsc::Sender<NetworkMsg<FsmcContext>>,
    port: AppPort,
}

impl Host {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        chain_id: String,
        key: PrivateKey,
        validators: ValidatorSet,
        settings: NodeSettings,
        store: BlockStore,
        tip: Tip,
        network: mpsc::Sender<NetworkMsg<FsmcContext>>,
        port: AppPort,
    ) -> Host {
        Host {
            chain_id,
            me: key.public_key().address(),
            key,
            validators,
            timeouts: settings.timeouts(),
            settings,
            tip,
            candidates: BTreeMap::new(),
            early: Vec::new(),
            mempool: Mempool::default(),
            store,
            streams: 0,
            round_started: None,
            network,
            port,
        }
    }

    /// Remembers the transactions of already committed blocks (after a restart), so a payload the replica
    /// sends again is not ordered twice.
    pub(crate) fn remember_committed<'a>(&mut self, txs: impl IntoIterator<Item = &'a SignedTx>) {
        self.mempool.commit(txs);
    }

    fn params(&self) -> HeightParams<FsmcContext> {
        let target = (self.settings.block_interval_ms > 0)
            .then(|| Duration::from_millis(self.settings.block_interval_ms));
        HeightParams::new(self.validators.clone(), self.timeouts, target)
    }

    /// Serves the engine until it, the replica or a check stops the node. The replica is told why.
    pub(crate) async fn run(mut self, mut channels: Channels<FsmcContext>) -> HostError {
        let error = self.serve(&mut channels).await;
        let _ = self.port.blocks.send(ToApp::Halt(error.to_string()));
        error
    }

    async fn serve(&mut self, channels: &mut Channels<FsmcContext>) -> HostError {
        let mut resend =
            tokio::time::interval(Duration::from_millis(self.settings.tx_resend_ms.max(100)));
        resend.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let step = tokio::select! {
                msg = channels.consensus.recv() => match msg {
                    Some(msg) => self.handle(msg).await,
                    None => Err(HostError::Stopped("the consensus engine stopped".into())),
                },
                tx = self.port.submits.recv() => match tx {
                    Some(data) => self.submit(data).await,
                    None => Err(HostError::Stopped("the replica stopped".into())),
                },
                _ = resend.tick() => self.resend().await,
            };
            if let Err(e) = step {
                return e;
            }
        }
    }

    async fn publish(&mut self, part: ProposalPart) -> Result<(), HostError> {
        // Every message gets its own stream id, so the pub-sub layer never drops a resent part as a copy.
        self.streams = self.streams.wrapping_add(1);
        let mut id = self.me.0.to_vec();
        id.extend_from_slice(&self.streams.to_be_bytes());
        id.extend_from_slice(&now_ms().to_be_bytes());
        let msg = StreamMessage::new(StreamId::new(Bytes::from(id)), 0, StreamContent::Data(part));
        self.network
            .send(NetworkMsg::PublishProposalPart(msg))
            .await
            .map_err(|_| HostError::Stopped("the network layer stopped".into()))
    }

    /// A payload from this node's replica: signed, queued, and forwarded to every peer at once.
    async fn submit(&mut self, data: Vec<u8>) -> Result<(), HostError> {
        let tx = SignedTx::sign(&self.chain_id, &self.key, data);
        debug!(tx = %hex(&tx.id()[..4]), "submitted");
        // Forwarded even when already pending (the replica acting again after a restart); a full mempool drops
        // it here and peers still take it.
        self.mempool.add(tx.clone());
        self.publish(ProposalPart::Txs(vec![tx])).await
    }

    /// Forwards again this node's transactions still waiting, for peers that were not connected yet.
    async fn resend(&mut self) -> Result<(), HostError> {
        let mine = self.mempool.from(&self.me);
        if mine.is_empty() {
            return Ok(());
        }
        self.publish(ProposalPart::Txs(mine)).await
    }

    /// Checks a transaction's size and signature against the genesis validators.
    fn tx_ok(&self, tx: &SignedTx) -> bool {
        tx.data.len() <= MAX_TX_BYTES
            && self
                .validators
                .get(&tx.sender)
                .is_some_and(|v| tx.verify(&self.chain_id, &v.public_key))
    }

    /// The checks every validator makes of a block, none of them about the app's state: the height and
    /// proposer, the parent's app hash, time after the parent's (and, for a live proposal, not far ahead of
    /// this node's clock), each transaction signed by a validator, no transaction twice.
    fn check(
        &self,
        value: &BlockValue,
        height: Height,
        proposer: &Address,
        live: bool,
    ) -> Result<(), String> {
        if value.height != height.0 {
            return Err(format!(
                "block for height {} proposed at {height}",
                value.height
            ));
        }
        if value.proposer != *proposer {
            return Err(format!(
                "block by {} proposed by {proposer}",
                value.proposer
            ));
        }
        if height.0 == self.tip.height.saturating_add(1) {
            if live && value.prev_app_hash != self.tip.app_hash {
                return Err(format!(
                    "builds on app hash {}, ours is {}",
                    hex(&value.prev_app_hash[..8]),
                    hex(&self.tip.app_hash[..8])
                ));
            }
            if value.time_ms <= self.tip.time_ms {
                return Err(format!(
                    "time {} is not after the parent's {}",
                    value.time_ms, self.tip.time_ms
                ));
            }
        }
        if live && value.time_ms > now_ms().saturating_add(self.settings.max_clock_drift_ms) {
            return Err(format!(
                "time {} is too far ahead of this node's clock",
                value.time_ms
            ));
        }
        if value.txs.len() > MAX_BLOCK_TXS {
            return Err(format!("{} transactions", value.txs.len()));
        }
        let mut seen = BTreeSet::new();
        for tx in &value.txs {
            if !self.tx_ok(tx) {
                return Err(format!(
                    "a transaction from {} is not signed by it",
                    tx.sender
                ));
            }
            if !seen.insert(tx.id()) {
                return Err("a transaction appears twice".into());
            }
        }
        Ok(())
    }

    /// Validates a signed block part for the current height and records it as a candidate, durably (a node that
    /// restarts at this height still holds every proposal it has seen, as the engine's log expects).
    fn receive_block(
        &mut self,
        part: SignedBlock,
    ) -> Result<Option<ProposedValue<FsmcContext>>, HostError> {
        let key = (part.height.0, part.value.id_bytes());
        if let Some(known) = self.candidates.get(&key)
            && known.part.is_some()
            && known.value.round == part.round
        {
            return Ok(Some(known.value.clone()));
        }
        let Some(proposer) = self.validators.proposer(part.height, part.round) else {
            return Ok(None);
        };
        let signed = proposer.public_key.verify(
            &SignedBlock::signing_bytes(part.height, part.round, &part.value),
            &part.signature,
        );
        if !signed {
            warn!(height = %part.height, round = %part.round, "dropped a proposal part not signed by the round's proposer");
            return Ok(None);
        }
        let proposer = proposer.address;
        let validity = match self.check(&part.value, part.height, &proposer, true) {
            Ok(()) => Validity::Valid,
            Err(why) => {
                warn!(height = %part.height, round = %part.round, %proposer, "invalid proposal: {why}");
                Validity::Invalid
            }
        };
        if !self.store.has_proposal(&part) {
            self.store.save_proposal(part.clone())?;
        }
        let value = ProposedValue {
            height: part.height,
            round: part.round,
            valid_round: Round::Nil,
            proposer,
            value: part.value.clone(),
            validity,
        };
        self.candidates.insert(
            key,
            Candidate {
                value: value.clone(),
                part: Some(part),
            },
        );
        Ok(Some(value))
    }

    async fn handle(&mut self, msg: AppMsg<FsmcContext>) -> Result<(), HostError> {
        match msg {
            AppMsg::ConsensusReady { reply } => {
                let start = Height(self.tip.height.saturating_add(1));
                info!(%start, "consensus ready");
                let _ = reply.send((start, self.params()));
            }

            AppMsg::StartedRound {
                height,
                round,
                proposer,
                role,
                reply_value,
            } => {
                debug!(%height, %round, %proposer, ?role, "round started");
                // Parts that arrived before this height started can be judged now.
                let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.early)
                    .into_iter()
                    .partition(|p| p.height == height);
                self.early = later.into_iter().filter(|p| p.height > height).collect();
                // After a restart, the proposals this node had seen (or made) at this height before the crash.
                let seen: Vec<SignedBlock> = self.store.proposals_at(height).cloned().collect();
                for part in now.into_iter().chain(seen) {
                    self.receive_block(part)?;
                }
                self.round_started = Some((height, round, Instant::now()));
                let values = self
                    .candidates
                    .values()
                    .filter(|c| c.value.height == height && c.value.round == round)
                    .map(|c| c.value.clone())
                    .collect();
                let _ = reply_value.send(values);
            }

            AppMsg::GetValue {
                height,
                round,
                timeout: _,
                reply,
            } => {
                // Asked again for the same round (after a restart too), propose the very same block.
                let part = match self.store.proposal_by(&self.me, height, round) {
                    Some(part) => part.clone(),
                    None => {
                        let value = BlockValue {
                            height: height.0,
                            time_ms: now_ms().max(self.tip.time_ms.saturating_add(1)),
                            proposer: self.me,
                            prev_app_hash: self.tip.app_hash,
                            txs: self.mempool.block(),
                        };
                        let signature = self
                            .key
                            .sign(&SignedBlock::signing_bytes(height, round, &value));
                        let part = SignedBlock {
                            height,
                            round,
                            value,
                            signature,
                        };
                        // Durable before anyone sees it: a restarted proposer must not propose another block.
                        self.store.save_proposal(part.clone())?;
                        part
                    }
                };
                debug!(%height, %round, txs = part.value.txs.len(), "proposing");
                self.candidates.insert(
                    (height.0, part.value.id_bytes()),
                    Candidate {
                        value: ProposedValue {
                            height,
                            round,
                            valid_round: Round::Nil,
                            proposer: self.me,
                            value: part.value.clone(),
                            validity: Validity::Valid,
                        },
                        part: Some(part.clone()),
                    },
                );
                let _ = reply.send(LocallyProposedValue::new(height, round, part.value.clone()));
                self.publish(ProposalPart::Block(part)).await?;
            }

            AppMsg::ExtendVote { reply, .. } => {
                let _ = reply.send(None);
            }

            AppMsg::VerifyVoteExtensions {
                extensions, reply, ..
            } => {
                // Extensions are disabled; the engine never asks, but an answer must line up with the question.
                let _ = reply.send(extensions.into_iter().map(|(a, _)| (a, Ok(()))).collect());
            }

            AppMsg::RestreamProposal {
                height, value_id, ..
            } => {
                let part = self
                    .candidates
                    .get(&(height.0, value_id))
                    .and_then(|c| c.part.clone());
                match part {
                    Some(part) => self.publish(ProposalPart::Block(part)).await?,
                    None => debug!(%height, %value_id, "nothing to restream"),
                }
            }

            AppMsg::GetHistoryMinHeight { reply } => {
                // Every block since genesis is kept.
                let _ = reply.send(Height(1));
            }

            AppMsg::ReceivedProposalPart { part, reply, .. } => {
                let answer = match part.content {
                    StreamContent::Fin => None,
                    StreamContent::Data(ProposalPart::Txs(txs)) => {
                        for tx in txs {
                            if self.tx_ok(&tx) && !self.mempool.add(tx) {
                                break;
                            }
                        }
                        None
                    }
                    StreamContent::Data(ProposalPart::Block(block)) => {
                        let next = self.tip.height.saturating_add(1);
                        if block.height.0 < next {
                            None
                        } else if block.height.0 > next {
                            // Not judged before this node has committed the parent.
                            if self.early.len() < 1_000 {
                                self.early.push(block);
                            }
                            None
                        } else {
                            self.receive_block(block)?
                        }
                    }
                };
                let _ = reply.send(answer);
            }

            AppMsg::Decided {
                certificate, reply, ..
            } => {
                self.decided(certificate).await?;
                let _ = reply.send(());
            }

            AppMsg::Finalized {
                certificate, reply, ..
            } => {
                let height = certificate.height;
                let next = if self.tip.height == height.0 {
                    Next::Start(Height(height.0.saturating_add(1)), self.params())
                } else {
                    warn!(%height, "decided without the value; restarting the height to sync it");
                    Next::Restart(height, self.params())
                };
                let _ = reply.send(next);
            }

            AppMsg::GetDecidedValues { range, reply } => {
                let from = range.start().0.max(1);
                let to = range
                    .end()
                    .0
                    .min(self.store.height())
                    .min(from.saturating_add(MAX_SYNC_BATCH - 1));
                let mut values = Vec::new();
                for h in from..=to {
                    let Some(stored) = self.store.get(h)? else {
                        break;
                    };
                    values.push(RawDecidedValue::new(
                        Bytes::from(stored.value.encode()),
                        ExtendedCommitCertificate::from_commit_certificate_and_extensions(
                            stored.certificate,
                            VoteExtensions::default(),
                        ),
                    ));
                }
                let _ = reply.send(values);
            }

            AppMsg::ProcessSyncedValue {
                height,
                round,
                proposer,
                value_bytes,
                reply,
            } => {
                let Some(value) = BlockValue::decode(&value_bytes) else {
                    warn!(%height, "a synced value does not decode");
                    let _ = reply.send(SyncedValueOutcome::PeerFault);
                    return Ok(());
                };
                // A synced value comes with a quorum's certificate: an app hash that differs from ours is not a
                // reason to refuse it but a divergence, caught when it is decided.
                let validity = match self.check(&value, height, &proposer, false) {
                    Ok(()) => Validity::Valid,
                    Err(why) => {
                        warn!(%height, "invalid synced value: {why}");
                        Validity::Invalid
                    }
                };
                let proposed = ProposedValue {
                    height,
                    round,
                    valid_round: Round::Nil,
                    proposer,
                    value: value.clone(),
                    validity,
                };
                self.candidates.insert(
                    (height.0, value.id_bytes()),
                    Candidate {
                        value: proposed.clone(),
                        part: None,
                    },
                );
                let _ = reply.send(SyncedValueOutcome::Verdict(proposed));
            }
        }
        Ok(())
    }

    /// A decision: check that it builds on our app hash, hand the block to the replica, wait for the app hash
    /// it reaches, and store block, certificate and hash durably before acknowledging.
    async fn decided(
        &mut self,
        certificate: CommitCertificate<FsmcContext>,
    ) -> Result<(), HostError> {
        let height = certificate.height.0;
        let next = self.tip.height.saturating_add(1);
        if height != next {
            if height <= self.tip.height {
                // Already committed (a replayed decision): nothing to do.
                return Ok(());
            }
            return Err(HostError::Stopped(format!(
                "consensus decided height {height} while this node expected {next}"
            )));
        }
        let Some(candidate) = self.candidates.get(&(height, certificate.value_id)) else {
            warn!(height, value = %certificate.value_id, "decided a value this node does not hold");
            return Ok(());
        };
        let value = candidate.value.value.clone();
        // Synced values come without a proposal part.
        let via = if candidate.part.is_some() {
            "consensus"
        } else {
            "sync"
        };
        if value.prev_app_hash != self.tip.app_hash {
            return Err(HostError::Diverged {
                height: self.tip.height,
                ours: hex(&self.tip.app_hash),
                theirs: hex(&value.prev_app_hash),
                proposer: value.proposer.to_string(),
            });
        }
        if value.time_ms < self.tip.time_ms {
            return Err(HostError::Stopped(format!(
                "the block decided at height {height} goes back in time"
            )));
        }
        let block = Block {
            height,
            time_ms: value.time_ms,
            txs: value
                .txs
                .iter()
                .map(|tx| Tx {
                    sender: tx.sender.to_string(),
                    data: tx.data.clone(),
                })
                .collect(),
        };
        self.port
            .blocks
            .send(ToApp::Block(block))
            .map_err(|_| HostError::Stopped("the replica stopped".into()))?;
        let app_hash = match self.port.commits.recv().await {
            Some((h, hash)) if h == height => hash,
            Some((h, _)) => {
                return Err(HostError::Stopped(format!(
                    "the replica committed height {h} while {height} was expected"
                )));
            }
            None => return Err(HostError::Stopped("the replica stopped".into())),
        };
        self.mempool.commit(&value.txs);
        let certificate_round = certificate.round;
        self.store.append(StoredBlock {
            height,
            value: value.clone(),
            certificate,
            app_hash: app_hash.0,
        })?;
        self.tip = Tip {
            height,
            time_ms: value.time_ms,
            app_hash: app_hash.0,
        };
        self.candidates.retain(|&(h, _), _| h > height);
        let round_ms = match self.round_started {
            Some((h, _, at)) if h.0 == height => at.elapsed().as_millis(),
            _ => 0,
        };
        debug!(
            height,
            round = %certificate_round,
            via = %via,
            round_ms,
            txs = value.txs.len(),
            app_hash = %app_hash.short(4),
            "committed"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(seed: u8, data: &[u8]) -> SignedTx {
        SignedTx::sign("test", &PrivateKey::from_bytes([seed; 32]), data.to_vec())
    }

    #[test]
    fn the_mempool_keeps_arrival_order_and_drops_copies() {
        let mut pool = Mempool::default();
        let (a, b, c) = (tx(1, b"a"), tx(2, b"b"), tx(1, b"c"));
        for t in [&a, &b, &a, &c, &b] {
            assert!(pool.add(t.clone()));
        }
        assert_eq!(pool.block(), vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(pool.from(&a.sender), vec![a.clone(), c.clone()]);
        // Committed: gone, and a late copy is not taken again.
        pool.commit([&a, &b]);
        assert!(pool.add(a.clone()));
        assert_eq!(pool.block(), vec![c.clone()]);
    }

    #[test]
    fn a_full_mempool_takes_no_more() {
        let mut pool = Mempool::default();
        for i in 0..MAX_MEMPOOL {
            assert!(pool.add(tx(1, &i.to_le_bytes())));
        }
        assert!(!pool.add(tx(2, b"one too many")));
        assert_eq!(pool.block().len(), MAX_BLOCK_TXS);
    }
}
