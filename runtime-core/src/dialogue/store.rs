//! An agent's dialogues, keyed by dialogue reference: how one agent runs many negotiations at once, and how
//! many one peer may open with it.

use super::message::{Address, DialogueReference, Envelope, FIRST_MESSAGE_ID};
use super::protocol::{Dialogue, DialogueError, ErrorOf, Protocol, Sender};
use std::collections::BTreeMap;

/// How many open dialogues one peer may have with an agent unless the agent says otherwise
/// ([`Dialogues::with_peer_limit`]).
pub const DEFAULT_PEER_LIMIT: usize = 16;

/// Every dialogue one agent takes part in, by reference.
///
/// An agent opens a dialogue with [`Dialogues::open`] and answers in it with [`Dialogues::send`]; every
/// incoming message goes through [`Dialogues::receive`], which finds its dialogue by reference, or opens the
/// agent's copy when the message is a valid opening from its initiator. A refused message leaves the store
/// as it was: no dialogue is created, none changes, no nonce is spent.
///
/// Each dialogue holds state (and, in a negotiation, commitments in the agent's ledger), so one peer may keep
/// at most [`Dialogues::peer_limit`] dialogues it opened with the agent open at once; an opening beyond that is
/// refused with [`DialogueError::TooManyDialogues`] until one of them ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dialogues<P: Protocol> {
    me: Address,
    next_nonce: u64,
    dialogues: BTreeMap<DialogueReference, Dialogue<P>>,
    peer_limit: usize,
    /// For each peer, how many of the dialogues it opened with this agent are open.
    opened_by: BTreeMap<Address, usize>,
}

impl<P: Protocol> Dialogues<P> {
    /// The dialogues of agent `me`: none yet; a peer may keep [`DEFAULT_PEER_LIMIT`] open.
    pub fn new(me: impl Into<Address>) -> Self {
        Self {
            me: me.into(),
            next_nonce: 1,
            dialogues: BTreeMap::new(),
            peer_limit: DEFAULT_PEER_LIMIT,
            opened_by: BTreeMap::new(),
        }
    }

    /// The same store, letting one peer keep at most `limit` dialogues it opened open at once.
    pub fn with_peer_limit(mut self, limit: usize) -> Self {
        self.peer_limit = limit;
        self
    }

    /// How many open dialogues one peer may have opened with this agent.
    pub fn peer_limit(&self) -> usize {
        self.peer_limit
    }

    /// How many of the dialogues `peer` opened with this agent are still open.
    pub fn opened_by(&self, peer: &Address) -> usize {
        self.opened_by.get(peer).copied().unwrap_or(0)
    }

    /// The agent whose dialogues these are.
    pub fn me(&self) -> &Address {
        &self.me
    }

    /// Opens a dialogue with `counterparty` by sending `message`, which must be an opening performative
    /// (one the start state accepts); this agent plays the role that sends it. Returns the envelope to
    /// deliver.
    pub fn open(
        &mut self,
        counterparty: impl Into<Address>,
        message: P::Message,
        hooks: &mut P::Hooks,
    ) -> Result<Envelope<P::Message>, ErrorOf<P>> {
        let counterparty = counterparty.into();
        if counterparty == self.me {
            return Err(DialogueError::SelfDialogue(counterparty));
        }
        let performative = P::performative(&message);
        let role = opener_role::<P>(performative)?;
        let reference = DialogueReference::new(self.me.clone(), self.next_nonce);
        let next_nonce = self
            .next_nonce
            .checked_add(1)
            .ok_or_else(|| DialogueError::Exhausted(reference.clone()))?;
        if self.dialogues.contains_key(&reference) {
            return Err(DialogueError::DuplicateDialogue(reference));
        }
        let mut dialogue = Dialogue::new(reference.clone(), self.me.clone(), counterparty, role);
        let envelope = dialogue.send(message, hooks)?;
        self.next_nonce = next_nonce;
        self.dialogues.insert(reference, dialogue);
        Ok(envelope)
    }

    /// Sends `message` as this agent's next message in dialogue `reference`.
    pub fn send(
        &mut self,
        reference: &DialogueReference,
        message: P::Message,
        hooks: &mut P::Hooks,
    ) -> Result<Envelope<P::Message>, ErrorOf<P>> {
        let dialogue = self
            .dialogues
            .get_mut(reference)
            .ok_or_else(|| DialogueError::UnknownDialogue(reference.clone()))?;
        let open = !dialogue.is_ended();
        let out = dialogue.send(message, hooks);
        self.count_end(reference, open);
        out
    }

    /// Receives `envelope`: in its dialogue if this agent has it; otherwise, if it opens a dialogue (message
    /// id 1, sent by the reference's initiator, who has fewer open dialogues with this agent than the limit),
    /// in a new copy where this agent plays the other role. Returns the dialogue's new state.
    pub fn receive(
        &mut self,
        envelope: &Envelope<P::Message>,
        hooks: &mut P::Hooks,
    ) -> Result<P, ErrorOf<P>> {
        let h = &envelope.header;
        if let Some(dialogue) = self.dialogues.get_mut(&h.dialogue) {
            let open = !dialogue.is_ended();
            let out = dialogue.receive(envelope, hooks);
            self.count_end(&h.dialogue, open);
            return out;
        }
        if h.message_id != FIRST_MESSAGE_ID || h.dialogue.initiator == self.me {
            return Err(DialogueError::UnknownDialogue(h.dialogue.clone()));
        }
        if h.sender != h.dialogue.initiator {
            return Err(DialogueError::NotAParty {
                sender: h.sender.clone(),
                expected: h.dialogue.initiator.clone(),
            });
        }
        if self.opened_by(&h.sender) >= self.peer_limit {
            return Err(DialogueError::TooManyDialogues {
                peer: h.sender.clone(),
                limit: self.peer_limit,
            });
        }
        let opener = opener_role::<P>(P::performative(&envelope.message))?;
        let mut dialogue = Dialogue::new(
            h.dialogue.clone(),
            self.me.clone(),
            h.sender.clone(),
            P::other_role(opener),
        );
        let state = dialogue.receive(envelope, hooks)?;
        if !dialogue.is_ended() {
            let count = self.opened_by.entry(h.sender.clone()).or_insert(0);
            *count = count.saturating_add(1);
        }
        self.dialogues.insert(h.dialogue.clone(), dialogue);
        Ok(state)
    }

    /// After a message in dialogue `reference`, which was `open` before it: if the message ended a dialogue
    /// a peer opened, the peer has one open dialogue fewer.
    fn count_end(&mut self, reference: &DialogueReference, open: bool) {
        let Some(d) = self.dialogues.get(reference) else {
            return;
        };
        if open && d.is_ended() && !d.is_self_initiated() {
            let peer = d.counterparty().clone();
            if let Some(count) = self.opened_by.get_mut(&peer) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    self.opened_by.remove(&peer);
                }
            }
        }
    }

    /// The dialogue `reference`, if this agent has it.
    pub fn get(&self, reference: &DialogueReference) -> Option<&Dialogue<P>> {
        self.dialogues.get(reference)
    }

    /// Every dialogue, in reference order.
    pub fn iter(&self) -> impl Iterator<Item = &Dialogue<P>> {
        self.dialogues.values()
    }

    /// The dialogues that have not ended.
    pub fn open_dialogues(&self) -> impl Iterator<Item = &Dialogue<P>> {
        self.iter().filter(|d| !d.is_ended())
    }

    /// How many dialogues there are.
    pub fn len(&self) -> usize {
        self.dialogues.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.dialogues.is_empty()
    }
}

/// The role of the party that sends `performative` to open a dialogue: an opening performative is sent by a
/// role, which fixes the role each party plays for the rest of the dialogue.
fn opener_role<P: Protocol>(performative: P::Event) -> Result<P::Role, ErrorOf<P>> {
    match P::sender(performative) {
        Some(Sender::Role(role)) => Ok(role),
        _ => Err(DialogueError::NoRole { performative }),
    }
}
