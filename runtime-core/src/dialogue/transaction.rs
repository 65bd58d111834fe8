//! Transactions as TAC's agents and controller see them: holdings, the request each party sends the controller,
//! and the transaction id both derive from it, a digest of the dialogue and the terms.

use super::message::{Address, DialogueReference};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::{self, Debug, Display, Formatter};

/// A point in a negotiation's logical time: what pending entries are stamped with, and what their timeouts
/// count. The transport that delivers messages keeps the clock (one tick per delivery, say); nothing here reads
/// a wall clock, so a run is a function of its inputs.
pub type Tick = u64;

/// Names one transaction for both parties and the controller: the SHA-256 digest of the dialogue it was
/// negotiated in and its terms (buyer, seller, amount, fee, goods), as TAC's transaction ids are digests of
/// their terms.
///
/// Nobody chooses an id: each party computes it from its own view ([`TransactionRequest::id`]), and so does the
/// controller from every request it gets. Two views agree on the id exactly when they agree on the dialogue and
/// every term, and a third agent cannot make a request that carries another pair's id without naming that pair
/// and their terms, which only they may request.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransactionId([u8; 32]);

impl TransactionId {
    /// The digest.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The digest in hexadecimal (64 digits).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The first 12 hexadecimal digits, enough to tell transactions apart in a trace; [`TransactionId::to_hex`] is
/// the whole.
impl Display for TransactionId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let hex = self.to_hex();
        f.write_str(hex.get(..12).unwrap_or(&hex))
    }
}

impl Debug for TransactionId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "TransactionId({})", self.to_hex())
    }
}

/// A transaction as one party sees it, and the request it sends the controller to settle it: TAC's
/// `Transaction` (sender, counterparty, whether the sender buys, amount, fee, quantities by good), with the
/// dialogue it was negotiated in. Its id is computed, never carried ([`TransactionRequest::id`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransactionRequest<G: Ord> {
    /// The dialogue the transaction was negotiated in.
    pub dialogue: DialogueReference,
    /// The party this is the view of, which sends the request.
    pub sender: Address,
    /// The other party.
    pub counterparty: Address,
    /// Whether the sender buys (pays `amount` and the fee, and receives the goods) or sells.
    pub is_sender_buyer: bool,
    /// The money the buyer pays the seller.
    pub amount: u64,
    /// The transaction fee the buyer pays the controller on top of `amount` (TAC's `tx_fee`).
    pub fee: u64,
    /// The goods the seller hands the buyer, by good.
    pub quantities: BTreeMap<G, u64>,
}

impl<G: Ord + Clone + AsRef<str>> TransactionRequest<G> {
    /// The transaction's id: the digest of the dialogue reference, the buyer and the seller, the amount, the
    /// fee and the goods, in that order and in one encoding, so that both parties' views of the same terms give
    /// the same id and any other terms another.
    pub fn id(&self) -> TransactionId {
        let mut h = Sha256::new();
        h.update(b"fsmc tac transaction 1\0");
        let text = |h: &mut Sha256, s: &str| {
            h.update((s.len() as u64).to_be_bytes());
            h.update(s.as_bytes());
        };
        text(&mut h, self.dialogue.initiator.as_str());
        h.update(self.dialogue.nonce.to_be_bytes());
        text(&mut h, self.buyer().as_str());
        text(&mut h, self.seller().as_str());
        h.update(self.amount.to_be_bytes());
        h.update(self.fee.to_be_bytes());
        h.update((self.quantities.len() as u64).to_be_bytes());
        for (good, n) in &self.quantities {
            text(&mut h, good.as_ref());
            h.update(n.to_be_bytes());
        }
        TransactionId(h.finalize().into())
    }

    /// The party that pays.
    pub fn buyer(&self) -> &Address {
        if self.is_sender_buyer {
            &self.sender
        } else {
            &self.counterparty
        }
    }

    /// The party that hands the goods over.
    pub fn seller(&self) -> &Address {
        if self.is_sender_buyer {
            &self.counterparty
        } else {
            &self.sender
        }
    }

    /// Whether `other` is the counterparty's request for the same transaction, as TAC's controller decides:
    /// same dialogue, senders and counterparties swapped, one buyer and one seller, same amount, fee and
    /// quantities (and so the same id).
    pub fn matches(&self, other: &Self) -> bool {
        self.dialogue == other.dialogue
            && self.sender == other.counterparty
            && self.counterparty == other.sender
            && self.is_sender_buyer != other.is_sender_buyer
            && self.amount == other.amount
            && self.fee == other.fee
            && self.quantities == other.quantities
    }

    /// The same transaction as the counterparty sees it.
    pub fn mirror(&self) -> Self {
        Self {
            dialogue: self.dialogue.clone(),
            sender: self.counterparty.clone(),
            counterparty: self.sender.clone(),
            is_sender_buyer: !self.is_sender_buyer,
            amount: self.amount,
            fee: self.fee,
            quantities: self.quantities.clone(),
        }
    }
}

impl<G: Ord + Display> Display for TransactionRequest<G> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (verb, dir) = if self.is_sender_buyer {
            ("buys", "from")
        } else {
            ("sells", "to")
        };
        write!(f, "{} {verb} ", self.sender)?;
        for (i, (good, n)) in self.quantities.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} {good}")?;
        }
        write!(f, " {dir} {} for {}", self.counterparty, self.amount)?;
        if self.fee > 0 {
            write!(f, " + fee {}", self.fee)?;
        }
        write!(f, " ({})", self.dialogue)
    }
}

/// An agent's money and goods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Holdings<G: Ord> {
    /// Money.
    pub money: u64,
    /// Quantity held of each good.
    pub goods: BTreeMap<G, u64>,
}

impl<G: Ord + Clone> Holdings<G> {
    /// Holdings of `money` and `goods`.
    pub fn new(money: u64, goods: impl IntoIterator<Item = (G, u64)>) -> Self {
        Self {
            money,
            goods: goods.into_iter().collect(),
        }
    }

    /// The quantity held of `good`.
    pub fn quantity(&self, good: &G) -> u64 {
        self.goods.get(good).copied().unwrap_or(0)
    }

    /// These holdings after `tx` settles, for its sender (a buyer pays the amount and the fee); `None` when they
    /// cannot cover it (a buyer short of money, a seller short of a good) or a total would overflow.
    pub fn apply(&self, tx: &TransactionRequest<G>) -> Option<Self> {
        let mut next = self.clone();
        next.money = if tx.is_sender_buyer {
            self.money.checked_sub(tx.amount.checked_add(tx.fee)?)?
        } else {
            self.money.checked_add(tx.amount)?
        };
        for (good, &n) in &tx.quantities {
            let held = self.quantity(good);
            let after = if tx.is_sender_buyer {
                held.checked_add(n)?
            } else {
                held.checked_sub(n)?
            };
            next.goods.insert(good.clone(), after);
        }
        Some(next)
    }
}
