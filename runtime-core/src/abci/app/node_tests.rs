//! A node driving the test app's replica and its behaviour: one payload per round, work that waits across
//! blocks, cancellation when the round ends, abstentions and panics reported without stopping the node.

use super::tests::{Agent, State, TestApp, agent, everyone, honest, new_app};
use super::*;
use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::Poll;

/// An engine that hands over queued blocks and records what the node sends; it refuses every transaction
/// longer than `limit`, when there is one.
#[derive(Default)]
struct Queue {
    blocks: std::collections::VecDeque<Block>,
    submitted: Vec<Vec<u8>>,
    commits: Vec<(u64, AppHash)>,
    limit: Option<usize>,
}

impl ConsensusLayer for Queue {
    type Error = std::convert::Infallible;
    fn submit(&mut self, tx: Vec<u8>) -> Result<(), Self::Error> {
        self.submitted.push(tx);
        Ok(())
    }
    fn check(&mut self, tx: &[u8]) -> Result<(), String> {
        match self.limit {
            Some(limit) if tx.len() > limit => Err(format!("{} bytes, over {limit}", tx.len())),
            _ => Ok(()),
        }
    }
    fn next_block(&mut self) -> Result<Option<Block>, Self::Error> {
        Ok(self.blocks.pop_front())
    }
    fn commit(&mut self, height: u64, app_hash: AppHash) -> Result<(), Self::Error> {
        self.commits.push((height, app_hash));
        Ok(())
    }
}

#[test]
fn a_node_commits_every_block_and_acts_once_per_round() {
    let mut node: Node<TestApp, Agent> = Node::new(new_app(), agent(0), Arc::new(Agent::default()));
    let mut engine = Queue::default();
    node.step(&mut engine).unwrap();
    node.step(&mut engine).unwrap();
    assert_eq!(engine.submitted.len(), 1, "one payload per round");
    engine.blocks.push_back(Block {
        height: 1,
        time_ms: 2_000,
        txs: vec![],
    });
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(stepped.blocks.len(), 1);
    assert_eq!(engine.commits, [(1, node.app().app_hash())]);
    assert_eq!(engine.submitted.len(), 1, "still the same round");
    // A replayed node reaches the same hash without committing again.
    let mut again: Node<TestApp, Agent> = Node::new(new_app(), "a", Arc::new(Agent::default()));
    let blocks = [Block {
        height: 1,
        time_ms: 2_000,
        txs: vec![],
    }];
    assert_eq!(again.replay(&blocks).unwrap(), node.app().app_hash());
}

/// A behaviour whose work waits for a gate, then submits what `Agent` would; or abstains, or panics.
#[derive(Default)]
struct Gated {
    open: AtomicBool,
    abstain: AtomicBool,
    panic: AtomicBool,
    started: AtomicUsize,
}

impl Drive<Gated> for TestApp {
    fn act(agent: &Arc<Gated>, ctx: Context<TestApp>) -> Option<Pending> {
        let agent = Arc::clone(agent);
        agent.started.fetch_add(1, Ordering::SeqCst);
        Some(Box::pin(async move {
            poll_fn(|_| {
                if agent.open.load(Ordering::SeqCst) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            if agent.panic.load(Ordering::SeqCst) {
                panic!("the price source returned nonsense");
            }
            if agent.abstain.load(Ordering::SeqCst) {
                return Err(Abstain::new("the price source is down"));
            }
            Ok(Agent::default().payload(&ctx)?)
        }))
    }
}

fn gated() -> (Node<TestApp, Gated>, Arc<Gated>) {
    let gate = Arc::new(Gated::default());
    (Node::new(new_app(), "a", Arc::clone(&gate)), gate)
}

fn empty_block(node: &Node<TestApp, Gated>) -> Block {
    Block {
        height: node.app().height() + 1,
        time_ms: node.app().time_ms() + 100,
        txs: vec![],
    }
}

#[test]
fn work_waits_across_blocks_and_submits_once_ready() {
    let (mut node, gate) = gated();
    let mut engine = Queue::default();
    let stepped = node.step(&mut engine).unwrap();
    assert!(stepped.acted.is_empty() && node.is_working());
    for _ in 0..3 {
        engine.blocks.push_back(empty_block(&node));
        let stepped = node.step(&mut engine).unwrap();
        assert_eq!(stepped.blocks.len(), 1, "blocks apply while the work waits");
        assert!(engine.submitted.is_empty());
    }
    gate.open.store(true, Ordering::SeqCst);
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(stepped.acted, [Acted::Submitted { round: 0 }]);
    assert_eq!(engine.submitted.len(), 1);
    assert_eq!(
        gate.started.load(Ordering::SeqCst),
        1,
        "started once for the round"
    );
    node.step(&mut engine).unwrap();
    assert_eq!(engine.submitted.len(), 1, "one payload per round");
}

#[test]
fn work_for_a_round_that_ended_is_cancelled_and_the_next_round_starts() {
    let (mut node, gate) = gated();
    let mut engine = Queue::default();
    node.step(&mut engine).unwrap();
    // Every agent's registration lands in one block (this node's own payload among them, sent by the others'
    // copy of it): the round ends while this node's work still waits.
    let app = node.app().clone();
    engine.blocks.push_back(super::tests::block(
        &app,
        1_000,
        everyone(&app, &mut honest()),
    ));
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(node.app().state(), State::Observe);
    assert_eq!(stepped.acted, [Acted::Cancelled { round: 0 }]);
    assert!(node.is_working(), "the next round's work started");
    assert_eq!(gate.started.load(Ordering::SeqCst), 2);
    gate.open.store(true, Ordering::SeqCst);
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(stepped.acted, [Acted::Submitted { round: 1 }]);
}

#[test]
fn a_payload_the_engine_refuses_is_not_submitted_and_is_reported_as_an_abstention() {
    let mut node: Node<TestApp, Agent> = Node::new(new_app(), agent(0), Arc::new(Agent::default()));
    let mut engine = Queue {
        limit: Some(0),
        ..Queue::default()
    };
    let stepped = node.step(&mut engine).unwrap();
    assert!(engine.submitted.is_empty());
    let [Acted::Abstained { round: 0, reason }] = stepped.acted.as_slice() else {
        panic!("{:?}", stepped.acted);
    };
    assert!(
        reason.starts_with("the engine refused its payload: ") && reason.ends_with("bytes, over 0"),
        "{reason}"
    );
}

#[test]
fn an_abstaining_or_panicking_behaviour_is_reported_and_the_node_goes_on() {
    let (mut node, gate) = gated();
    let mut engine = Queue::default();
    gate.open.store(true, Ordering::SeqCst);
    gate.abstain.store(true, Ordering::SeqCst);
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(
        stepped.acted,
        [Acted::Abstained {
            round: 0,
            reason: "the price source is down".to_string()
        }]
    );
    assert!(engine.submitted.is_empty() && !node.is_working());
    // Not retried in the same round: the round's timeout covers an agent that sends nothing.
    node.step(&mut engine).unwrap();
    assert_eq!(gate.started.load(Ordering::SeqCst), 1);

    let (mut node, gate) = gated();
    gate.open.store(true, Ordering::SeqCst);
    gate.panic.store(true, Ordering::SeqCst);
    let stepped = node.step(&mut engine).unwrap();
    assert_eq!(
        stepped.acted,
        [Acted::Panicked {
            round: 0,
            message: "the price source returned nonsense".to_string()
        }]
    );
    engine.blocks.push_back(empty_block(&node));
    assert_eq!(
        node.step(&mut engine).unwrap().blocks.len(),
        1,
        "the node goes on"
    );
}
