//! What a replica of an `abci` machine or composed app computes, as facts ([`Facts`]), and their digest, the
//! spec fingerprint ([`Fingerprint`]).
//!
//! The facts are exactly what generated code hands the runtime's replica, in a form that does not depend on how
//! the spec is written: the default start, each state by name (the app hash covers the name of the state the
//! app is in), each round's kind, parts (reset, registration, keeper election), payload type, the keys it
//! writes and where each of its outcomes and its timeout lead, the position of each round among the rounds (the
//! tag of the round in progress, under the app hash) and the synchronized data's keys in encoding order. Event
//! names, docs, transition order and everything user code alone sees are left out: two specs with equal facts
//! give replicas that compute the same states and app hashes for the same blocks.
//!
//! A machine whose rounds are not all run by the runtime (a `custom` round, an Open Autonomy YAML spec without
//! kinds) has no generated replica; its rounds are the app's own code, keyed by the spec's state and event
//! names. Its facts are then every transition by event name, with what each round says of itself.
//!
//! `encode` writes the facts canonically; the fingerprint is the SHA-256 of that encoding.

mod encode;

use crate::spec::{EventId, Machine, StateId};
use fsmc_base::source::{SmolStr, Span};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use std::fmt;

/// A value with where it was written. Two are equal when their values are: where a fact was written is not a
/// fact.
#[derive(Clone, Debug)]
pub struct At<T> {
    pub value: T,
    pub span: Span,
}

impl<T: PartialEq> PartialEq for At<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for At<T> {}

fn at<T>(value: T, span: Span) -> At<T> {
    At { value, span }
}

/// What a replica of one `abci` machine or composed app computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Whether generated code runs the machine as a replicated app (its `Spec` and `App`): every round that is
    /// not final has a kind the runtime decides, and there is a default start state. Spanned at the machine's
    /// name.
    pub runs: At<bool>,
    /// The default start state.
    pub start: Option<At<SmolStr>>,
    /// Every state, by name.
    pub states: Vec<StateFacts>,
    /// The keys of the synchronized data: in declaration order (the order of their encoding under the app hash)
    /// when the machine runs, by name otherwise.
    pub keys: Vec<KeyFacts>,
}

/// One state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateFacts {
    pub name: At<SmolStr>,
    pub is_final: bool,
    /// A start state, for a machine that does not run (a replica starts only at the default start).
    pub start: bool,
    /// What the state does as a round; `None` for a final state.
    pub round: Option<RoundFacts>,
}

/// What a round is and decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundFacts {
    /// The kind; `None` for a custom round. Spanned at the kind as written, else at the state's name.
    pub kind: At<Option<RoundKind>>,
    /// The round's position among the rounds, in declaration order: the tag of the round in progress in the
    /// app hash's encoding. Only for a machine that runs.
    pub tag: Option<u32>,
    pub reset: At<bool>,
    pub registration: At<bool>,
    pub elects_keeper: At<bool>,
    /// The payload type as tokens. When the machine runs, the type the round takes: `AgentId` for a keeper
    /// election, `()` for a round without a payload.
    pub payload: At<Option<SmolStr>>,
    /// The keys the decided value is written to, in order (a tuple's elements go to them one by one).
    pub writes: At<Vec<SmolStr>>,
    /// Where the round goes, sorted by what triggers it.
    pub exits: Vec<Exit>,
}

/// One way out of a round.
#[derive(Clone, Debug)]
pub struct Exit {
    pub on: Trigger,
    /// The guards of the transition, for a machine that does not run.
    pub guards: Vec<(bool, SmolStr)>,
    /// The state entered; `None` when the trigger's only transitions have guards (the runtime's transition
    /// function takes none of them). Spanned at the target as written.
    pub to: At<Option<SmolStr>>,
    /// The timeout, in nanoseconds: of a round's timeout, or of the event that triggers the exit.
    pub after: Option<u64>,
    /// The whole transition, for messages.
    pub span: Span,
}

impl PartialEq for Exit {
    /// Where the transition was written is not a fact.
    fn eq(&self, other: &Self) -> bool {
        (&self.on, &self.guards, &self.to, self.after)
            == (&other.on, &other.guards, &other.to, other.after)
    }
}

impl Eq for Exit {}

/// What takes a round out.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trigger {
    /// The round decided this outcome.
    Outcome(OutcomeKind),
    /// The round's timeout passed.
    Timeout,
    /// The app's own code fired this event (a machine that does not run).
    Event(SmolStr),
    /// A transition without an event, chosen by the state's handler (a machine that does not run).
    Direct,
}

/// One key of the synchronized data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyFacts {
    pub name: At<SmolStr>,
    /// The type as tokens.
    pub ty: At<SmolStr>,
    pub cross_period: At<bool>,
}

/// The spec fingerprint: the SHA-256 of the canonical encoding of a machine's [`Facts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The first `bytes` bytes in hexadecimal, for people.
    pub fn short(&self, bytes: usize) -> String {
        hex(&self.0[..bytes.min(32)])
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex(&self.0))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Facts {
    /// The canonical encoding of the facts: what the fingerprint digests.
    pub fn encode(&self) -> Vec<u8> {
        encode::encode(self)
    }

    pub fn fingerprint(&self) -> Fingerprint {
        encode::digest(self)
    }

    pub fn state(&self, name: &str) -> Option<&StateFacts> {
        self.states
            .binary_search_by(|s| s.name.value.as_str().cmp(name))
            .ok()
            .map(|i| &self.states[i])
    }
}

/// The fingerprint of an `abci` machine or composed app.
pub fn fingerprint(m: &Machine) -> Fingerprint {
    facts(m).fingerprint()
}

/// The facts of an `abci` machine or composed app (see the module's docs).
pub fn facts(m: &Machine) -> Facts {
    let reading = Reading::new(m);
    let runs = reading.runs();
    let mut tag = 0u32;
    let mut states: Vec<StateFacts> = m
        .state_ids()
        .map(|sid| {
            let s = m.state(sid);
            let round = (!s.is_final).then(|| {
                let t = tag;
                tag += 1;
                reading.round(sid, runs.then_some(t))
            });
            StateFacts {
                name: at(s.name.text.clone(), s.name.span),
                is_final: s.is_final,
                start: s.start && !runs,
                round,
            }
        })
        .collect();
    states.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    let mut keys: Vec<KeyFacts> = m
        .keys
        .iter()
        .map(|k| KeyFacts {
            name: at(k.name.text.clone(), k.name.span),
            ty: at(type_tokens(&k.ty.text), k.ty.span),
            cross_period: at(k.cross_period, k.name.span),
        })
        .collect();
    if !runs {
        keys.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    }
    Facts {
        runs: at(runs, m.name.span),
        start: m.default_start().map(|d| {
            let s = m.state(d);
            at(s.name.text.clone(), s.name.span)
        }),
        states,
        keys,
    }
}

/// A type as its tokens, so that spacing does not count; text that is not a type (refused by the checks) as
/// written, without whitespace.
fn type_tokens(text: &str) -> SmolStr {
    match syn::parse_str::<syn::Type>(text) {
        Ok(t) => SmolStr::new(quote::ToTokens::to_token_stream(&t).to_string()),
        Err(_) => text.split_whitespace().collect::<String>().into(),
    }
}

/// A machine as the facts read it: its transitions by source state, the target the transition function gives
/// each (state, event), and the events outcomes are named by convention.
struct Reading<'m> {
    m: &'m Machine,
    outgoing: Vec<Vec<usize>>,
    conventional: Vec<Option<EventId>>,
}

impl<'m> Reading<'m> {
    fn new(m: &'m Machine) -> Reading<'m> {
        Reading {
            m,
            outgoing: m.outgoing(),
            conventional: m.conventional_outcome_events(),
        }
    }

    /// Whether generated code runs the machine: a default start, and a kind the runtime decides for every round
    /// that is not final.
    fn runs(&self) -> bool {
        let m = self.m;
        m.default_start().is_some()
            && m.states.iter().all(|s| {
                s.is_final || !matches!(s.round_kind(), RoundKind::Custom | RoundKind::Degenerate)
            })
    }

    fn round(&self, sid: StateId, tag: Option<u32>) -> RoundFacts {
        let m = self.m;
        let s = m.state(sid);
        let round = s.round();
        let flag = |f: Option<Span>| at(f.is_some(), f.unwrap_or(s.name.span));
        let elects = flag(round.and_then(|r| r.elects_keeper));
        let runs = tag.is_some();
        let payload = match (runs, s.payload()) {
            (true, _) if elects.value => Some(SmolStr::new_static("AgentId")),
            (true, None) => Some(SmolStr::new_static("()")),
            (_, written) => written.map(type_tokens),
        };
        // A round with no kind written is a custom one: an Open Autonomy spec says so, a `.fsm` one need not.
        let kind = if runs {
            Some(s.round_kind())
        } else {
            round
                .and_then(|r| r.kind)
                .filter(|k| *k != RoundKind::Custom)
        };
        let mut exits = self.outcome_exits(sid, runs);
        if runs {
            exits.extend(self.timeout_exit(sid));
        } else {
            exits.extend(self.event_exits(sid));
        }
        exits.sort_by(|a, b| (&a.on, &a.guards, &a.to.value).cmp(&(&b.on, &b.guards, &b.to.value)));
        RoundFacts {
            kind: at(kind, s.kind_span.unwrap_or(s.name.span)),
            tag,
            reset: at(
                round.is_some_and(|r| r.reset),
                s.kind_span.unwrap_or(s.name.span),
            ),
            registration: flag(round.and_then(|r| r.registration)),
            elects_keeper: elects,
            payload: at(payload, s.payload_span().unwrap_or(s.name.span)),
            writes: at(
                s.writes
                    .iter()
                    .map(|(k, _)| m.key(*k).name.text.clone())
                    .collect(),
                s.writes
                    .iter()
                    .map(|(_, sp)| *sp)
                    .reduce(Span::to)
                    .unwrap_or(s.name.span),
            ),
            exits,
        }
    }

    /// The transitions out of `sid` on `event`, in spec order.
    fn on(&self, sid: StateId, event: EventId) -> impl Iterator<Item = usize> + '_ {
        self.outgoing[sid.index()]
            .iter()
            .copied()
            .filter(move |&t| self.m.transitions[t].event == Some(event))
    }

    /// Where the transition function takes `sid` on `event`: the first unguarded transition's target, unless a
    /// transition of the pair has guards (then only the hooks can take it). With the transition, for spans.
    fn target(&self, sid: StateId, event: EventId) -> Option<(Option<StateId>, usize)> {
        let first = self.on(sid, event).next()?;
        let guarded = self
            .on(sid, event)
            .any(|t| !self.m.transitions[t].guards.is_empty());
        Some(((!guarded).then(|| self.m.transitions[first].to), first))
    }

    fn exit(&self, on: Trigger, to: Option<StateId>, t: usize, after: Option<u64>) -> Exit {
        let tr = &self.m.transitions[t];
        Exit {
            on,
            guards: Vec::new(),
            to: at(to.map(|s| self.m.state(s).name.text.clone()), tr.to_span),
            after,
            span: tr.span,
        }
    }

    /// Where each outcome the round's kind decides leads, for the outcomes its state has a transition for (the
    /// others never end the round).
    fn outcome_exits(&self, sid: StateId, runs: bool) -> Vec<Exit> {
        let m = self.m;
        let kind = if runs {
            m.state(sid).round_kind()
        } else {
            match m.state(sid).round().and_then(|r| r.kind) {
                Some(k) => k,
                None => return Vec::new(),
            }
        };
        kind.outcomes()
            .iter()
            .filter_map(|(o, _)| {
                let e = m.outcome_event_in(sid, *o, &self.conventional)?;
                let (to, t) = self.target(sid, e)?;
                Some(self.exit(Trigger::Outcome(*o), to, t, None))
            })
            .collect()
    }

    /// The round's timeout, as the runtime's rules give it: the first event with a timeout among the state's
    /// transitions, in spec order.
    fn timeout_exit(&self, sid: StateId) -> Option<Exit> {
        let m = self.m;
        let (e, nanos) = self.outgoing[sid.index()]
            .iter()
            .filter_map(|&t| m.transitions[t].event)
            .find_map(|e| {
                m.event(e)
                    .timeout
                    .map(|t| (e, u64::try_from(t.duration.as_nanos()).unwrap_or(u64::MAX)))
            })?;
        let (to, t) = self.target(sid, e)?;
        Some(self.exit(Trigger::Timeout, to, t, Some(nanos)))
    }

    /// Every transition out of `sid`, by event name, with its guards and the event's timeout.
    fn event_exits(&self, sid: StateId) -> Vec<Exit> {
        let m = self.m;
        self.outgoing[sid.index()]
            .iter()
            .map(|&t| {
                let tr = &m.transitions[t];
                let (on, after) = match tr.event {
                    Some(e) => (
                        Trigger::Event(m.event(e).name.text.clone()),
                        m.event(e)
                            .timeout
                            .map(|t| u64::try_from(t.duration.as_nanos()).unwrap_or(u64::MAX)),
                    ),
                    None => (Trigger::Direct, None),
                };
                let mut exit = self.exit(on, Some(tr.to), t, after);
                exit.guards = tr
                    .guards
                    .iter()
                    .map(|g| (g.negated, g.name.text.clone()))
                    .collect();
                exit
            })
            .collect()
    }
}
