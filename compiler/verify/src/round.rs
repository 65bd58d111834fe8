//! A round in progress, abstracted by symmetry, and decided by the runtime's own round kinds.
//!
//! Agents of one group (honest, faulty) are interchangeable, and payloads matter only by what a kind can
//! distinguish, so a round in progress is the number of payloads each group sent of each [`Class`], and the block
//! confirmations counted. To decide it, the verifier builds the runtime's round of that kind over agents
//! `0..n` (honest first), replays what was collected, submits the block's payloads and calls its `end_block`:
//! the decision is the runtime's, not a re-statement of it.

use fsmc_runtime_core::rounds::{
    CollectDifferentUntilAll, CollectDifferentUntilThreshold, CollectNonEmptyUntilThreshold,
    CollectSameUntilAll, CollectSameUntilThreshold, Custom, OnlyKeeperSends, OutcomeKind,
    Participants, Round, RoundKind, Voting,
};
use std::collections::BTreeMap;

/// What a payload is, as far as a round kind can tell: the first value (`A`: the agreed value, a yes vote, a
/// non-empty payload, an agent's own value, the honest candidate for keeper), another value (`B`: a second
/// value, a no vote, a copy of another agent's value, a faulty candidate), or empty (`None`).
pub(crate) const CLASSES: usize = 3;
pub(crate) const A: usize = 0;
pub(crate) const B: usize = 1;
pub(crate) const NONE: usize = 2;

pub(crate) const HONEST: usize = 0;
pub(crate) const FAULTY: usize = 1;

/// The payloads a round collected: `counts[group][class]`, and the block confirmations counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Collected {
    pub counts: [[u8; CLASSES]; 2],
    pub seen: u8,
}

impl Collected {
    pub fn sent(&self, group: usize) -> u8 {
        self.counts[group].iter().sum()
    }
}

/// Who takes part: honest and faulty eligible agents, and the keeper's group when the round has one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Members {
    pub honest: u8,
    pub faulty: u8,
    pub keeper: Option<usize>,
}

impl Members {
    fn id(&self, group: usize, nth: u8) -> u8 {
        if group == HONEST {
            nth
        } else {
            self.honest.saturating_add(nth)
        }
    }

    fn keeper_id(&self) -> Option<u8> {
        self.keeper.map(|g| self.id(g, 0))
    }
}

/// The runtime round of a kind, over agents `u8` and payload values `u16`.
enum Rt {
    SameAll(CollectSameUntilAll<u8, u16>),
    DifferentAll(CollectDifferentUntilAll<u8, u16>),
    SameThreshold(CollectSameUntilThreshold<u8, u16>),
    DifferentThreshold(CollectDifferentUntilThreshold<u8, u16>),
    NonEmpty(CollectNonEmptyUntilThreshold<u8, u16>),
    Keeper(OnlyKeeperSends<u8, u16>),
    Voting(Voting<u8>),
    Custom(Custom<u8, u16>),
}

/// A block's payloads for one round: `(group, class, how many)`, in the order they are delivered.
pub(crate) type Sends = Vec<(usize, usize, u8)>;

/// The result of one end of block: the outcome the kind decided (if any), and what the round holds after it.
pub(crate) struct Ended {
    pub outcome: Option<OutcomeKind>,
    /// For a `done` election: the group of the elected keeper.
    pub elected: Option<usize>,
    pub collected: Collected,
}

impl Rt {
    fn new(kind: RoundKind, members: &Members, confirmations: u32) -> Option<Rt> {
        let ids = (0..members.honest.saturating_add(members.faulty)).collect::<Vec<u8>>();
        let mut p = Participants::new(ids).ok()?;
        if let Some(k) = members.keeper_id() {
            p = p.with_keeper(k).ok()?;
        }
        Some(match kind {
            RoundKind::CollectSameUntilAll => Rt::SameAll(CollectSameUntilAll::new(&p)),
            RoundKind::CollectDifferentUntilAll => {
                Rt::DifferentAll(CollectDifferentUntilAll::new(&p))
            }
            RoundKind::CollectSameUntilThreshold => Rt::SameThreshold(
                CollectSameUntilThreshold::new(&p).with_confirmations(confirmations),
            ),
            RoundKind::CollectDifferentUntilThreshold => Rt::DifferentThreshold(
                CollectDifferentUntilThreshold::new(&p).with_confirmations(confirmations),
            ),
            RoundKind::CollectNonEmptyUntilThreshold => Rt::NonEmpty(
                CollectNonEmptyUntilThreshold::new(&p).with_confirmations(confirmations),
            ),
            RoundKind::OnlyKeeperSends => Rt::Keeper(OnlyKeeperSends::new(&p)),
            RoundKind::Voting => Rt::Voting(Voting::new(&p)),
            RoundKind::Custom | RoundKind::Degenerate => Rt::Custom(Custom::new(&p)),
        })
    }

    /// Submits `class` from agent `who`; `copy_of` is the agent whose value a copy repeats. A rejected payload
    /// changes nothing, as in the runtime.
    fn submit(&mut self, who: u8, class: usize, copy_of: u8) {
        let value = |c: usize| if c == A { 0 } else { 1 };
        let option = |c: usize| (c != NONE).then(|| value(c));
        // Errors are the runtime's rejections: the payload is simply not collected.
        let _ = match self {
            Rt::SameAll(r) => r.submit(who, value(class)),
            Rt::DifferentAll(r) => {
                let of = if class == A { who } else { copy_of };
                r.submit(who, 100 + u16::from(of))
            }
            Rt::SameThreshold(r) => r.submit(who, option(class)),
            Rt::DifferentThreshold(r) => r.submit(who, 0),
            Rt::NonEmpty(r) => r.submit(who, option(class)),
            Rt::Keeper(r) => r.submit(who, option(class)),
            Rt::Voting(r) => r.submit(who, (class != NONE).then_some(class == A)),
            Rt::Custom(r) => r.submit(who, value(class)),
        };
    }

    fn end_block(&mut self) -> Option<(OutcomeKind, Option<u16>)> {
        fn kind<V>(
            o: Option<fsmc_runtime_core::rounds::Outcome<V>>,
        ) -> Option<(OutcomeKind, Option<u16>)> {
            o.map(|o| (o.kind(), None))
        }
        match self {
            Rt::SameAll(r) => r.end_block().map(|o| (o.kind(), done_value(o))),
            Rt::DifferentAll(r) => kind(r.end_block()),
            Rt::SameThreshold(r) => r.end_block().map(|o| (o.kind(), done_value(o))),
            Rt::DifferentThreshold(r) => kind(r.end_block()),
            Rt::NonEmpty(r) => kind(r.end_block()),
            Rt::Keeper(r) => kind(r.end_block()),
            Rt::Voting(r) => kind(r.end_block()),
            Rt::Custom(r) => kind(r.end_block()),
        }
    }

    fn seen(&self) -> u8 {
        let c = match self {
            Rt::SameThreshold(r) => r.confirmations(),
            Rt::DifferentThreshold(r) => r.confirmations(),
            Rt::NonEmpty(r) => r.confirmations(),
            _ => return 0,
        };
        u8::try_from(c.seen).unwrap_or(u8::MAX)
    }

    /// The payloads collected, by sender, as classes.
    fn classes(&self) -> BTreeMap<u8, usize> {
        let class_of = |v: u16| if v == 0 { A } else { B };
        let opt = |v: &Option<u16>| v.map_or(NONE, class_of);
        match self {
            Rt::SameAll(r) => r
                .submissions()
                .iter()
                .map(|(k, v)| (*k, class_of(*v)))
                .collect(),
            Rt::DifferentAll(r) => r
                .submissions()
                .iter()
                .map(|(k, v)| (*k, if *v == 100 + u16::from(*k) { A } else { B }))
                .collect(),
            Rt::SameThreshold(r) => r.submissions().iter().map(|(k, v)| (*k, opt(v))).collect(),
            Rt::DifferentThreshold(r) => r.submissions().keys().map(|k| (*k, A)).collect(),
            Rt::NonEmpty(r) => r.submissions().iter().map(|(k, v)| (*k, opt(v))).collect(),
            Rt::Keeper(r) => r.submissions().iter().map(|(k, v)| (*k, opt(v))).collect(),
            Rt::Voting(r) => r
                .submissions()
                .iter()
                .map(|(k, v)| (*k, v.map_or(NONE, |yes| if yes { A } else { B })))
                .collect(),
            Rt::Custom(r) => r
                .submissions()
                .iter()
                .map(|(k, v)| (*k, class_of(*v)))
                .collect(),
        }
    }
}

fn done_value(o: fsmc_runtime_core::rounds::Outcome<u16>) -> Option<u16> {
    match o {
        fsmc_runtime_core::rounds::Outcome::Done(v) => Some(v),
        _ => None,
    }
}

/// Replays what `collected` holds into a fresh runtime round, delivers `sends`, and ends the block.
/// `None` when the round cannot be built (no eligible agent): the runtime then has no round either.
pub(crate) fn end_block(
    kind: RoundKind,
    members: &Members,
    confirmations: u32,
    collected: &Collected,
    sends: &Sends,
) -> Option<Ended> {
    let mut rt = Rt::new(kind, members, confirmations)?;
    let mut next = [0u8; 2];
    // Honest agents that sent are agents `0..`; the next honest agents to send are the ones a copy targets.
    let honest_sent = collected.sent(HONEST);
    let mut copies = 0u8;
    let mut deliver = |rt: &mut Rt, group: usize, class: usize, next: &mut [u8; 2]| {
        let who = if kind == RoundKind::OnlyKeeperSends {
            members.keeper_id().unwrap_or(0)
        } else {
            members.id(group, next[group])
        };
        let target = honest_sent.saturating_add(copies);
        if class == B && group == FAULTY {
            copies = copies.saturating_add(1);
        }
        rt.submit(who, class, target);
        next[group] = next[group].saturating_add(1);
    };
    for group in [HONEST, FAULTY] {
        for class in 0..CLASSES {
            for _ in 0..collected.counts[group][class] {
                deliver(&mut rt, group, class, &mut next);
            }
        }
    }
    for _ in 0..collected.seen {
        rt.end_block();
    }
    for &(group, class, n) in sends {
        for _ in 0..n {
            deliver(&mut rt, group, class, &mut next);
        }
    }
    let decided = rt.end_block();
    let mut after = Collected {
        seen: rt.seen(),
        ..Collected::default()
    };
    for (who, class) in rt.classes() {
        let group = if who < members.honest { HONEST } else { FAULTY };
        after.counts[group][class] = after.counts[group][class].saturating_add(1);
    }
    let elected = match decided {
        Some((OutcomeKind::Done, Some(v))) => Some(if v == 0 { HONEST } else { FAULTY }),
        _ => None,
    };
    Some(Ended {
        outcome: decided.map(|(o, _)| o),
        elected,
        collected: after,
    })
}
