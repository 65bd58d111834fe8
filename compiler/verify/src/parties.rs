//! A dialogue's two parties composed: each runs its own copy of the machine, moving it as it sends a message and
//! as it receives one, and messages cross in flight. Every interleaving of sends and receipts is explored (at
//! most [`IN_FLIGHT`] messages in flight each way), looking for the copies to disagree: a message one party
//! sends that the other's copy refuses, or the parties left in different states with nothing in flight, one of
//! them finished or neither able to send.

use fsmc_base::diag::{Code, Diagnostic};
use fsmc_model::spec::dialogue::Turn;
use fsmc_model::spec::{EventId, Machine, StateId};
use std::collections::{BTreeMap, VecDeque};

/// Messages in flight from one party to the other, at most: a party that could send forever without hearing
/// back would otherwise make the search endless.
const IN_FLIGHT: usize = 3;

const PARTY: [&str; 2] = ["initiator", "responder"];

/// A state of the composition.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Global {
    copy: [StateId; 2],
    /// Messages from party `p` to the other, oldest first: the transition its sender took.
    flight: [Vec<usize>; 2],
    /// The role the initiator plays, once the opening performative fixed it.
    role: Option<usize>,
    opened: bool,
    /// The responder has received the opening: before that, the dialogue does not exist for it.
    heard: bool,
}

/// What the composition found.
pub(crate) struct Parties {
    pub states: usize,
    pub steps: usize,
    pub truncated: bool,
    pub diagnostics: Vec<Diagnostic>,
}

/// Whether party `p` sends `e` in `g`, and the role the initiator then plays.
fn sender(m: &Machine, g: &Global, p: usize, e: EventId) -> Option<Option<usize>> {
    let ev = m.event(e);
    match (ev.turn, ev.role) {
        (Some(Turn::Initiator), _) => (p == 0).then_some(g.role),
        (Some(Turn::Responder), _) => (p == 1).then_some(g.role),
        // The opening performative is sent by the initiator, and fixes the role it plays.
        (None, Some(r)) if !g.opened => (p == 0).then_some(Some(r)),
        (None, Some(r)) => ((g.role == Some(r)) == (p == 0)).then_some(g.role),
        (None, None) => Some(g.role),
    }
}

/// One step of the composition, in words, with the transition it took.
type Move = (usize, String);

pub(crate) fn compose(m: &Machine, outgoing: &[Vec<usize>], max_states: usize) -> Parties {
    let Some(start) = m.default_start() else {
        return Parties {
            states: 0,
            steps: 0,
            truncated: false,
            diagnostics: Vec::new(),
        };
    };
    let init = Global {
        copy: [start, start],
        flight: [Vec::new(), Vec::new()],
        role: None,
        opened: false,
        heard: false,
    };
    let mut index: BTreeMap<Global, u32> = BTreeMap::from([(init.clone(), 0)]);
    let mut states = vec![init];
    let mut parent: Vec<Option<(u32, Move)>> = vec![None];
    let mut queue = VecDeque::from([0u32]);
    let mut steps = 0;
    let mut diagnostics = Vec::new();
    let mut truncated = false;
    while let Some(at) = queue.pop_front() {
        let g = states[at as usize].clone();
        let mut next: Vec<(Global, Move)> = Vec::new();
        for p in 0..2 {
            if g.flight[p].len() < IN_FLIGHT && (p == 0 || g.heard) {
                for &t in &outgoing[g.copy[p].index()] {
                    let tr = &m.transitions[t];
                    let Some(e) = tr.event else { continue };
                    let Some(role) = sender(m, &g, p, e) else {
                        continue;
                    };
                    let mut n = g.clone();
                    n.copy[p] = tr.to;
                    n.flight[p].push(t);
                    n.role = role;
                    n.opened = true;
                    next.push((
                        n,
                        (t, format!("the {} sends `{}`", PARTY[p], m.event(e).name)),
                    ));
                }
            }
            let q = 1 - p;
            if let Some(&t) = g.flight[p].first() {
                let sent = &m.transitions[t];
                let e = sent.event.expect("a sent message has an event");
                // The receiver takes the sender's transition when its copy is where the sender's was, and any
                // transition of that performative otherwise.
                let takes: Vec<usize> = if g.copy[q] == sent.from {
                    vec![t]
                } else {
                    outgoing[g.copy[q].index()]
                        .iter()
                        .copied()
                        .filter(|&u| m.transitions[u].event == Some(e))
                        .collect()
                };
                if takes.is_empty() {
                    let d = refused(m, &g, q, t);
                    diagnostics.push(label(m, &parent, at, d));
                }
                for u in takes {
                    let mut n = g.clone();
                    n.flight[p].remove(0);
                    n.heard |= q == 1;
                    n.copy[q] = m.transitions[u].to;
                    next.push((
                        n,
                        (
                            u,
                            format!("the {} receives `{}`", PARTY[q], m.event(e).name),
                        ),
                    ));
                }
            }
        }
        if let Some(d) = apart(m, &g, next.is_empty()) {
            diagnostics.push(label(m, &parent, at, d));
        }
        steps += next.len();
        for (n, mv) in next {
            if index.contains_key(&n) {
                continue;
            }
            if states.len() >= max_states {
                truncated = true;
                continue;
            }
            index.insert(n.clone(), states.len() as u32);
            states.push(n);
            parent.push(Some((at, mv)));
            queue.push_back(states.len() as u32 - 1);
        }
        // The first disagreement found is reached by a shortest interleaving: one is enough to fix.
        if !diagnostics.is_empty() {
            break;
        }
    }
    Parties {
        states: states.len(),
        steps,
        truncated,
        diagnostics,
    }
}

/// The receiving party `q`'s copy refuses the message its peer sent by transition `t`.
fn refused(m: &Machine, g: &Global, q: usize, t: usize) -> Diagnostic {
    let sent = &m.transitions[t];
    let e = &m
        .event(sent.event.expect("a sent message has an event"))
        .name;
    let here = &m.state(g.copy[q]).name;
    Diagnostic::new(
        Code::DialogueDisagrees,
        format!("the {} can be in `{here}` when `{e}` arrives, and refuses it", PARTY[q]),
    )
    .at(sent.span, format!("the {} sends `{e}` here", PARTY[1 - q]))
    .with(here.span, format!("the {}'s copy has no transition for `{e}` here", PARTY[q]))
    .help("messages cross in flight: give the state a transition for every performative the other party can send meanwhile, or let only one party speak in it")
}

/// Nothing is in flight and the copies differ, with one of them finished or neither able to go on.
fn apart(m: &Machine, g: &Global, stuck: bool) -> Option<Diagnostic> {
    let [a, b] = g.copy;
    let idle = g.flight.iter().all(Vec::is_empty);
    let finished = m.state(a).is_final || m.state(b).is_final;
    if !idle || a == b || !(finished || stuck) {
        return None;
    }
    let (sa, sb) = (&m.state(a).name, &m.state(b).name);
    Some(
        Diagnostic::new(
            Code::DialogueDisagrees,
            format!("the parties can end apart: the initiator in `{sa}`, the responder in `{sb}`"),
        )
        .at(sa.span, "the initiator's copy is here")
        .with(sb.span, "the responder's copy is here")
        .help("messages cross in flight: let only one party speak in a state, or lead both orders of crossing messages to one state"),
    )
}

/// Labels the transitions the interleaving to `at` took, and lists its steps in a note.
fn label(m: &Machine, parent: &[Option<(u32, Move)>], at: u32, mut d: Diagnostic) -> Diagnostic {
    let mut moves = Vec::new();
    let mut cur = at;
    while let Some((from, mv)) = &parent[cur as usize] {
        moves.push(mv.clone());
        cur = *from;
    }
    moves.reverse();
    let mut words = Vec::new();
    for (i, (t, what)) in moves.iter().enumerate() {
        d = d.with(m.transitions[*t].span, format!("step {}", i + 1));
        words.push(format!("{}: {what}", i + 1));
    }
    if !words.is_empty() {
        d = d.note(format!("the interleaving: {}", words.join("; ")));
    }
    d
}
