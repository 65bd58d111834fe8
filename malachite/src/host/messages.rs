//! The engine's requests to the application, one method per kind of message, as Malachite's own channel
//! example app answers them: [`Host::handle`] only dispatches.

use bytes::Bytes;
use std::ops::RangeInclusive;
use std::time::Instant;
use tracing::{debug, info, warn};

use fsmc_runtime::app::{Block, Tx};
use malachitebft_app_channel::app::consensus::Role;
use malachitebft_app_channel::app::engine::host::{HeightParams, Next, SyncedValueOutcome};
use malachitebft_app_channel::app::streaming::{StreamContent, StreamMessage};
use malachitebft_app_channel::app::types::core::{
    CommitCertificate, ExtendedCommitCertificate, Round, Validity, VoteExtensions,
};
use malachitebft_app_channel::app::types::sync::RawDecidedValue;
use malachitebft_app_channel::app::types::{LocallyProposedValue, ProposedValue};
use malachitebft_app_channel::{AppMsg, Reply};

use super::{Candidate, Host, HostError, MAX_SYNC_BATCH, Tip, ToApp};
use crate::config::now_ms;
use crate::signing::hex;
use crate::store::StoredBlock;
use crate::types::{Address, BlockValue, FsmcContext, Height, ProposalPart, SignedBlock, ValueId};

impl Host {
    /// Answers one message of the engine.
    pub(super) async fn handle(&mut self, msg: AppMsg<FsmcContext>) -> Result<(), HostError> {
        match msg {
            AppMsg::ConsensusReady { reply } => {
                self.consensus_ready(reply);
                Ok(())
            }
            AppMsg::StartedRound {
                height,
                round,
                proposer,
                role,
                reply_value,
            } => self.started_round(height, round, proposer, role, reply_value),
            AppMsg::GetValue {
                height,
                round,
                timeout: _,
                reply,
            } => self.get_value(height, round, reply).await,
            AppMsg::ExtendVote { reply, .. } => {
                let _ = reply.send(None);
                Ok(())
            }
            AppMsg::VerifyVoteExtensions {
                extensions, reply, ..
            } => {
                // Extensions are disabled; the engine never asks, but an answer must line up with the question.
                let _ = reply.send(extensions.into_iter().map(|(a, _)| (a, Ok(()))).collect());
                Ok(())
            }
            AppMsg::RestreamProposal {
                height, value_id, ..
            } => self.restream_proposal(height, value_id).await,
            AppMsg::GetHistoryMinHeight { reply } => {
                // Below it the blocks are pruned, or the history starts at a peer's snapshot: a peer asking
                // for them would get nothing.
                let _ = reply.send(Height(self.store.first_height()));
                Ok(())
            }
            AppMsg::ReceivedProposalPart { part, reply, .. } => {
                self.received_proposal_part(part, reply).await
            }
            AppMsg::Decided {
                certificate, reply, ..
            } => {
                self.decided(certificate).await?;
                let _ = reply.send(());
                Ok(())
            }
            AppMsg::Finalized {
                certificate, reply, ..
            } => {
                self.finalized(&certificate, reply);
                Ok(())
            }
            AppMsg::GetDecidedValues { range, reply } => self.get_decided_values(range, reply),
            AppMsg::ProcessSyncedValue {
                height,
                round,
                proposer,
                value_bytes,
                reply,
            } => {
                self.process_synced_value(height, round, proposer, &value_bytes, reply);
                Ok(())
            }
        }
    }

    /// The engine is ready: it starts at the height after the last committed block.
    fn consensus_ready(&self, reply: Reply<(Height, HeightParams<FsmcContext>)>) {
        let start = Height(self.tip.height.saturating_add(1));
        info!(%start, "consensus ready");
        let _ = reply.send((start, self.params()));
    }

    /// A round started: the values already seen for it go back to the engine.
    fn started_round(
        &mut self,
        height: Height,
        round: Round,
        proposer: Address,
        role: Role,
        reply_value: Reply<Vec<ProposedValue<FsmcContext>>>,
    ) -> Result<(), HostError> {
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
        self.probe.round(round.as_i64());
        let values = self
            .candidates
            .values()
            .filter(|c| c.value.height == height && c.value.round == round)
            .map(|c| c.value.clone())
            .collect();
        let _ = reply_value.send(values);
        Ok(())
    }

    /// This node proposes: a block of the oldest pending transactions, signed, stored and published.
    async fn get_value(
        &mut self,
        height: Height,
        round: Round,
        reply: Reply<LocallyProposedValue<FsmcContext>>,
    ) -> Result<(), HostError> {
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
                self.store.save_proposal(part.clone(), true)?;
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
        self.publish(ProposalPart::Block(part)).await
    }

    /// Publishes again the signed part of a value this node holds.
    async fn restream_proposal(
        &mut self,
        height: Height,
        value_id: ValueId,
    ) -> Result<(), HostError> {
        let part = self
            .candidates
            .get(&(height.0, value_id))
            .and_then(|c| c.part.clone());
        match part {
            Some(part) => self.publish(ProposalPart::Block(part)).await?,
            None => debug!(%height, %value_id, "nothing to restream"),
        }
        Ok(())
    }

    /// A part from the network: forwarded transactions go to the mempool, a block for the next height is
    /// judged (one for a later height waits until this node has committed its parent).
    async fn received_proposal_part(
        &mut self,
        part: StreamMessage<ProposalPart>,
        reply: Reply<Option<ProposedValue<FsmcContext>>>,
    ) -> Result<(), HostError> {
        let answer = match part.content {
            StreamContent::Fin => None,
            StreamContent::Data(ProposalPart::Txs(txs)) => {
                for tx in txs {
                    if let Err(why) = self.tx_ok(&tx) {
                        debug!("dropped a forwarded transaction: {why}");
                        self.probe.rejected("invalid_transaction");
                        continue;
                    }
                    self.note_arrival(&tx);
                    if !self.take(tx) {
                        break;
                    }
                }
                None
            }
            StreamContent::Data(ProposalPart::Chain(hello)) => {
                self.heard_chain(&hello).await?;
                None
            }
            StreamContent::Data(ProposalPart::History(history)) => {
                self.heard_history(&history).await?;
                None
            }
            StreamContent::Data(ProposalPart::SnapshotRequest(request)) => {
                self.heard_request(&request).await?;
                None
            }
            StreamContent::Data(ProposalPart::SnapshotOffer(offer)) => {
                self.heard_offer(*offer).await?;
                None
            }
            StreamContent::Data(ProposalPart::SnapshotChunk(chunk)) => {
                self.heard_chunk(chunk).await?;
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
        Ok(())
    }

    /// The height is final: start the next one (when this node proposes it, perhaps a moment later: see
    /// `pacing`), or restart this one when the decided value never arrived.
    fn finalized(
        &mut self,
        certificate: &CommitCertificate<FsmcContext>,
        reply: Reply<Next<FsmcContext>>,
    ) {
        let height = certificate.height;
        // Past the height when the node has caught up from a peer's snapshot meanwhile: consensus goes on
        // after the snapshot, not after the finalized height.
        let next = if self.tip.height >= height.0 {
            Next::Start(Height(self.tip.height.saturating_add(1)), self.params())
        } else {
            warn!(%height, "decided without the value; restarting the height to sync it");
            Next::Restart(height, self.params())
        };
        self.start_next(next, reply);
    }

    /// Serves committed blocks with their certificates to a peer catching up, a bounded batch at a time.
    fn get_decided_values(
        &mut self,
        range: RangeInclusive<Height>,
        reply: Reply<Vec<RawDecidedValue<FsmcContext>>>,
    ) -> Result<(), HostError> {
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
        Ok(())
    }

    /// A value synced from a peer: decoded, judged and kept as a candidate for its decision.
    fn process_synced_value(
        &mut self,
        height: Height,
        round: Round,
        proposer: Address,
        value_bytes: &Bytes,
        reply: Reply<SyncedValueOutcome<FsmcContext>>,
    ) {
        let Some(value) = BlockValue::decode(value_bytes) else {
            warn!(%height, "a synced value does not decode");
            let _ = reply.send(SyncedValueOutcome::PeerFault);
            return;
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
        let sent = Instant::now();
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
        // Every replica applies the block about now, and its behaviour's payload leaves right after.
        self.applied = Some((height, tokio::time::Instant::now()));
        self.probe.decided(via == "sync", sent.elapsed());
        self.mempool.commit(&value.txs);
        let expired = self.mempool.expire(height);
        if expired > 0 {
            debug!(height, expired, "dropped transactions that waited too long");
            self.probe.rejected_by("expired", expired);
        }
        self.probe.mempool(self.mempool.len());
        let certificate_round = certificate.round;
        self.store.append(StoredBlock {
            height,
            value: value.clone(),
            certificate,
            app_hash: app_hash.0,
        })?;
        self.store_snapshot()?;
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
