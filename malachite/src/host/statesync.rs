//! The host's side of state sync (`crate::statesync`): it publishes where its history is, serves its latest
//! snapshot to a validator that asks, and, when it is behind a peer that can no longer serve its next block
//! (or far behind), asks that peer for its snapshot, verifies it, has the replica restore it, makes it the
//! store's history and restarts consensus at the height after it, from where value sync fetches the rest.
//!
//! Only timing enters here (how long to wait for a peer, how often to serve one); the replica's state comes
//! from the verified snapshot and the decided blocks alone.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tracing::{info, warn};

use malachitebft_engine::consensus::ConsensusMsg;

use super::{Host, HostError, Tip, ToApp};
use crate::signing::Ed25519Provider;
use crate::statesync::Assembly;
use crate::store::StoredBlock;
use crate::types::{
    Address, FsmcContext, Height, History, ProposalPart, SnapshotChunk, SnapshotOffer,
    SnapshotRequest,
};

/// How long a peer asked has to deliver its whole snapshot before another is asked.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a peer whose snapshot was refused (or never came) is not asked again.
const REFUSED_FOR: Duration = Duration::from_secs(60);
/// How often one requester is served at most.
const SERVE_EVERY: Duration = Duration::from_secs(5);

/// Where this node is in catching up from a peer's snapshot.
#[derive(Default)]
pub(crate) struct CatchUp {
    /// The peer asked, since when, and its offer's chunks once its offer verified.
    asking: Option<(Address, Instant, Option<Assembly>)>,
    /// Peers not to ask again before then.
    refused: BTreeMap<Address, Instant>,
    /// When each requester was last served.
    served: BTreeMap<Address, Instant>,
}

impl CatchUp {
    /// Whether a node whose last block is at `tip` asks `peer`, whose history is `history`, for its snapshot
    /// now: it asks no one else, has not refused that peer lately, and the peer is worth asking.
    fn may_ask(&self, peer: &Address, history: &History, tip: u64, now: Instant) -> bool {
        self.asking.is_none()
            && self.refused.get(peer).is_none_or(|until| *until <= now)
            && history.worth_asking(tip)
    }

    /// Stops asking `peer` and does not ask it again for [`REFUSED_FOR`]: the next peer heard is asked.
    fn give_up_on(&mut self, peer: Address, now: Instant) {
        self.refused.insert(peer, now + REFUSED_FOR);
        self.asking = None;
    }

    /// The peer asked, when it has not delivered its snapshot within [`DELIVERY_TIMEOUT`].
    fn overdue(&self, now: Instant) -> Option<Address> {
        self.asking
            .as_ref()
            .filter(|(_, since, _)| now.duration_since(*since) > DELIVERY_TIMEOUT)
            .map(|(peer, _, _)| *peer)
    }
}

impl Host {
    /// Where this node's history is, signed: its last stored height, its first, its latest servable snapshot.
    pub(super) fn history(&self) -> Result<History, HostError> {
        Ok(History::sign(
            &self.chain_id,
            &self.key,
            self.tip.height,
            self.store.first_height(),
            self.store.servable_height()?,
        ))
    }

    /// A peer said where its history is: when this node cannot (or should not) catch up block by block from
    /// it, and is not asking anyone already, it asks that peer for its snapshot.
    pub(super) async fn heard_history(&mut self, history: &History) -> Result<(), HostError> {
        let now = Instant::now();
        let peer = history.sender;
        if peer == self.me
            || !self.catch_up.may_ask(&peer, history, self.tip.height, now)
            || !history.verify(&self.chain_id, &self.validators)
        {
            return Ok(());
        }
        info!(
            height = self.tip.height,
            peer = %peer,
            peer_height = history.tip,
            peer_first = history.first,
            snapshot = history.snapshot,
            "behind a peer that no longer stores the next block, or far ahead: asking it for its snapshot"
        );
        self.catch_up.asking = Some((peer, now, None));
        let request = SnapshotRequest::sign(&self.chain_id, &self.key, peer, self.tip.height);
        self.publish(ProposalPart::SnapshotRequest(request)).await
    }

    /// A validator asks this node for its snapshot: the offer and the chunks go out, at most once per
    /// [`SERVE_EVERY`] for one requester.
    pub(super) async fn heard_request(
        &mut self,
        request: &SnapshotRequest,
    ) -> Result<(), HostError> {
        let now = Instant::now();
        let recently = |at: &Instant| now.duration_since(*at) < SERVE_EVERY;
        if request.peer != self.me
            || self
                .catch_up
                .served
                .get(&request.requester)
                .is_some_and(recently)
            || !request.verify(&self.chain_id, &self.validators)
        {
            return Ok(());
        }
        let Some((snapshot, block, next)) = self.store.servable()? else {
            return Ok(());
        };
        if snapshot.height <= request.tip {
            return Ok(());
        }
        self.catch_up.served.insert(request.requester, now);
        info!(
            height = snapshot.height,
            bytes = snapshot.state.len(),
            to = %request.requester,
            "serving the snapshot"
        );
        let (offer, chunks) = SnapshotOffer::serve(
            &self.chain_id,
            &self.key,
            request.requester,
            &snapshot,
            block,
            next,
        );
        self.publish(ProposalPart::SnapshotOffer(Box::new(offer)))
            .await?;
        for chunk in chunks {
            self.publish(ProposalPart::SnapshotChunk(chunk)).await?;
        }
        Ok(())
    }

    /// The offer of the peer this node asked: verified against the genesis validators, then its chunks are
    /// awaited; a bad one refuses the peer.
    pub(super) async fn heard_offer(&mut self, offer: SnapshotOffer) -> Result<(), HostError> {
        let Some((peer, _, None)) = &self.catch_up.asking else {
            return Ok(());
        };
        let peer = *peer;
        if offer.to != self.me {
            return Ok(());
        }
        let verifier = Ed25519Provider::new(self.key.clone());
        let verified = offer
            .verify(&peer, &self.chain_id, &self.validators, &verifier)
            .await;
        match verified {
            Err(why) => self.refuse(peer, offer.height, &why),
            Ok(()) => {
                if let Some((_, _, assembly)) = &mut self.catch_up.asking {
                    *assembly = Some(Assembly::new(offer));
                }
            }
        }
        Ok(())
    }

    /// A chunk of the snapshot this node awaits: kept, and once all are in, the snapshot is restored.
    pub(super) async fn heard_chunk(&mut self, chunk: SnapshotChunk) -> Result<(), HostError> {
        let Some((peer, _, Some(assembly))) = &mut self.catch_up.asking else {
            return Ok(());
        };
        if chunk.to != self.me || chunk.sender != *peer {
            return Ok(());
        }
        let peer = *peer;
        let height = assembly.offer().height;
        match assembly.add(chunk) {
            Err(why) => {
                self.refuse(peer, height, &why);
                Ok(())
            }
            Ok(None) => Ok(()),
            Ok(Some(snapshot)) => {
                let Some((_, _, Some(assembly))) = self.catch_up.asking.take() else {
                    return Ok(());
                };
                let block = assembly.offer().block.clone();
                let stored = StoredBlock {
                    height: snapshot.height,
                    value: block.value,
                    certificate: block.certificate,
                    app_hash: snapshot.app_hash,
                };
                self.install(peer, stored, snapshot).await
            }
        }
    }

    /// Gives up on a peer that has not delivered its snapshot in time.
    pub(super) fn catch_up_tick(&mut self) {
        let now = Instant::now();
        if let Some(peer) = self.catch_up.overdue(now) {
            warn!(peer = %peer, "validator {peer} did not deliver its snapshot in time; asking another");
            self.catch_up.give_up_on(peer, now);
        }
    }

    /// Refuses `peer`'s snapshot, naming it, and leaves the next history heard to pick another peer.
    fn refuse(&mut self, peer: Address, height: u64, why: &str) {
        warn!(
            peer = %peer,
            "refused the snapshot at height {height} from validator {peer}: {why}; asking another"
        );
        self.probe.rejected("snapshot_refused");
        self.catch_up.give_up_on(peer, Instant::now());
    }

    /// The replica restores the verified snapshot (recomputing its app hash); then it becomes the store's
    /// history and consensus restarts at the next height, which value sync fetches.
    async fn install(
        &mut self,
        peer: Address,
        block: StoredBlock,
        snapshot: crate::store::StoredSnapshot,
    ) -> Result<(), HostError> {
        let height = snapshot.height;
        let (reply, restored) = oneshot::channel();
        self.port
            .blocks
            .send(ToApp::Restore(snapshot.clone(), reply))
            .map_err(|_| HostError::Stopped("the replica stopped".into()))?;
        match restored.await {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                self.refuse(peer, height, &format!("the replica refused it: {why}"));
                return Ok(());
            }
            Err(_) => return Err(HostError::Stopped("the replica stopped".into())),
        }
        let time_ms = block.value.time_ms;
        self.store.install(block, &snapshot)?;
        self.tip = Tip {
            height,
            time_ms,
            app_hash: snapshot.app_hash,
        };
        self.snapshot = None;
        self.candidates.clear();
        self.early.clear();
        self.held = None;
        self.restart_consensus(Height(height.saturating_add(1)))?;
        info!(
            peer = %peer,
            "caught up from the snapshot of validator {peer} at height {height}; value sync fetches the blocks after it"
        );
        Ok(())
    }

    /// Tells the engine's consensus to restart at `height`: the application's channel has no message for it
    /// outside the answer to a finished height, so it goes to the consensus actor, found among the children of
    /// the engine's supervisor by its message type.
    fn restart_consensus(&self, height: Height) -> Result<(), HostError> {
        let consensus = self
            .engine
            .get_children()
            .into_iter()
            .find(|cell| cell.is_message_type_of::<ConsensusMsg<FsmcContext>>() == Some(true))
            .ok_or_else(|| HostError::Stopped("the consensus engine stopped".into()))?;
        consensus
            .send_message(ConsensusMsg::<FsmcContext>::RestartHeight(
                height,
                self.params(),
            ))
            .map_err(|_| HostError::Stopped("the consensus engine stopped".into()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{CatchUp, DELIVERY_TIMEOUT, REFUSED_FOR};
    use crate::signing::PrivateKey;
    use crate::types::History;

    /// The history of the validator of key `seed`: at height 900, blocks from 800 on, a snapshot at 800.
    fn pruned(seed: u8) -> History {
        History::sign("test", &PrivateKey::from_bytes([seed; 32]), 900, 800, 800)
    }

    #[test]
    fn a_refused_or_silent_peer_is_not_asked_again_and_another_is() {
        let mut catch_up = CatchUp::default();
        let (a, b) = (pruned(1), pruned(2));
        let now = Instant::now();
        assert!(catch_up.may_ask(&a.sender, &a, 0, now));
        assert!(
            !catch_up.may_ask(&a.sender, &a, 850, now),
            "value sync serves 851"
        );
        catch_up.asking = Some((a.sender, now, None));
        assert!(
            !catch_up.may_ask(&b.sender, &b, 0, now),
            "one peer at a time"
        );
        assert_eq!(catch_up.overdue(now + DELIVERY_TIMEOUT / 2), None);
        // Its snapshot is refused (or never comes): another peer is asked, and it is not, for a while.
        catch_up.give_up_on(a.sender, now);
        assert!(catch_up.asking.is_none());
        assert!(!catch_up.may_ask(&a.sender, &a, 0, now));
        assert!(catch_up.may_ask(&b.sender, &b, 0, now));
        let later = now + REFUSED_FOR + Duration::from_secs(1);
        assert!(catch_up.may_ask(&a.sender, &a, 0, later));
        catch_up.asking = Some((b.sender, now, None));
        assert_eq!(
            catch_up.overdue(now + DELIVERY_TIMEOUT + Duration::from_millis(1)),
            Some(b.sender)
        );
    }
}
