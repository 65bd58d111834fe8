//! An agent's dialogues, keyed by dialogue reference: how one agent runs many negotiations at once.

use super::message::{Address, DialogueReference, Envelope, FIRST_MESSAGE_ID};
use super::protocol::{Dialogue, DialogueError, ErrorOf, Protocol};
use std::collections::BTreeMap;

/// Every dialogue one agent takes part in, by reference.
///
/// An agent opens a dialogue with [`Dialogues::open`] and answers in it with [`Dialogues::send`]; every
/// incoming message goes through [`Dialogues::receive`], which finds its dialogue by reference, or opens the
/// agent's copy when the message is a valid opening from its initiator. A refused message leaves the store
/// as it was: no dialogue is created, none changes, no nonce is spent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dialogues<P: Protocol> {
    me: Address,
    next_nonce: u64,
    dialogues: BTreeMap<DialogueReference, Dialogue<P>>,
}

impl<P: Protocol> Dialogues<P> {
    /// The dialogues of agent `me`: none yet.
    pub fn new(me: impl Into<Address>) -> Self {
        Self {
            me: me.into(),
            next_nonce: 1,
            dialogues: BTreeMap::new(),
        }
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
        let role = P::sender_role(performative).ok_or(DialogueError::NoRole { performative })?;
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
        self.dialogues
            .get_mut(reference)
            .ok_or_else(|| DialogueError::UnknownDialogue(reference.clone()))?
            .send(message, hooks)
    }

    /// Receives `envelope`: in its dialogue if this agent has it; otherwise, if it opens a dialogue (message
    /// id 1, sent by the reference's initiator), in a new copy where this agent plays the other role.
    /// Returns the dialogue's new state.
    pub fn receive(
        &mut self,
        envelope: &Envelope<P::Message>,
        hooks: &mut P::Hooks,
    ) -> Result<P, ErrorOf<P>> {
        let h = &envelope.header;
        if let Some(dialogue) = self.dialogues.get_mut(&h.dialogue) {
            return dialogue.receive(envelope, hooks);
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
        let performative = P::performative(&envelope.message);
        let opener = P::sender_role(performative).ok_or(DialogueError::NoRole { performative })?;
        let mut dialogue = Dialogue::new(
            h.dialogue.clone(),
            self.me.clone(),
            h.sender.clone(),
            P::other_role(opener),
        );
        let state = dialogue.receive(envelope, hooks)?;
        self.dialogues.insert(h.dialogue.clone(), dialogue);
        Ok(state)
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
