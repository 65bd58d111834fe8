//! Open Autonomy's rules (`machine M: abci`, and apps): rounds ([`rounds`], with the parts they play and what
//! they write), keepers, naming conventions, and the composition of an app's machines ([`chain`], checked by
//! [`compose`]).

mod chain;
pub(super) mod compose;
mod keeper;
mod parts;
mod rounds;
mod types;
mod writes;

use super::dataflow::{Exit, On};
use super::graph::{Graph, Quiet, Set};
use super::system::System;
use crate::spec::{EventId, Machine, Origin, StateId};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::Profile;
use fsmc_vocab::abci::{OutcomeKind, RoundKind};

pub(super) struct Abci;

impl System for Abci {
    fn quiet(&self, m: &Machine, _g: &Graph) -> Quiet {
        Quiet {
            // An event some round must emit is reported as that round's missing transition (E0401) instead.
            unused_events: Set::Some(rounds::required_but_unused(m)),
            ..Quiet::default()
        }
    }

    fn check(&self, m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
        rounds::check(m, &g.outgoing, out);
    }

    /// Open Autonomy naming conventions: app labels end in `AbciApp`, states in `Round`. Upstream checks
    /// naming only once everything else passes; so do we.
    fn conventions(&self, m: &Machine, out: &mut Vec<Diagnostic>) {
        // A YAML spec cannot hold a lint attribute: its help names the command-line flag instead.
        let allow = |lint: &str| {
            if m.origin == Origin::OaYaml {
                format!(
                    "rename it, or allow the lint with `-A {lint}` (a YAML spec holds no attributes)"
                )
            } else {
                format!("rename it, or allow the lint with `#[allow({lint})]`")
            }
        };
        let label = m.label.as_ref().unwrap_or(&m.name);
        if !label.text.ends_with("AbciApp") {
            let what = if m.origin == Origin::Composed {
                "app"
            } else {
                "machine"
            };
            out.push(
                Diagnostic::new(
                    Code::AppNaming,
                    format!("{what} label `{label}` does not end in `AbciApp`"),
                )
                .at(label.span, "Open Autonomy names apps `…AbciApp`")
                .help(allow("app_naming")),
            );
        }
        for s in &m.states {
            if !s.name.text.ends_with("Round") {
                out.push(
                    Diagnostic::new(
                        Code::StateNaming,
                        format!("state `{}` does not end in `Round`", s.name),
                    )
                    .at(s.name.span, "Open Autonomy names rounds `…Round`")
                    .help(allow("state_naming")),
                );
            }
        }
    }
}

/// The rules that follow a machine's rounds wherever they are. They apply to every machine, not only to those of
/// the `abci` profile: a composed app holds the rounds of its machines whatever its first machine's system is.
pub(super) struct Rounds<'m> {
    m: &'m Machine,
    /// The events named by convention for each outcome, looked up once.
    conventional: Vec<Option<EventId>>,
    /// Each state's timeout event, if it has one (a round has at most one): found in one pass.
    timeouts: Vec<Option<EventId>>,
}

impl<'m> Rounds<'m> {
    pub fn new(m: &'m Machine) -> Rounds<'m> {
        let mut timeouts = vec![None; m.states.len()];
        for t in &m.transitions {
            if let Some(e) = t.event
                && m.event(e).timeout.is_some()
            {
                timeouts[t.from.index()] = Some(e);
            }
        }
        Rounds {
            m,
            conventional: m.conventional_outcome_events(),
            timeouts,
        }
    }

    /// How leaving `s` changes the data besides its writes: a round whose outcome the runtime decides (a round
    /// kind of an `abci` machine) writes and resets only on its `done` event; a custom round writes whenever it
    /// decides (every exit but its timeout) and resets on its `done` event, as the runtime runs it. The other
    /// systems' states write on every exit.
    pub fn exit(&self, s: StateId) -> Exit {
        let m = self.m;
        let st = m.state(s);
        let Some(round) = st.round() else {
            return Exit::default();
        };
        let kind = st.round_kind();
        let done_event = m.outcome_event_in(s, OutcomeKind::Done, &self.conventional);
        // The runtime writes on a real `DONE` outcome only: when another outcome of the kind (`fail = DONE;`) or
        // the round's timeout emits the same event, a transition on it may write nothing.
        let aliased = done_event.is_some_and(|d| {
            self.timeouts[s.index()] == Some(d)
                || kind.outcomes().iter().any(|(o, _)| {
                    *o != OutcomeKind::Done
                        && m.outcome_event_in(s, *o, &self.conventional) == Some(d)
                })
        });
        let done = || done_event.filter(|_| !aliased).map_or(On::Never, On::Only);
        let writes = if m.profile != Profile::Abci || kind == RoundKind::Degenerate {
            On::Every
        } else if kind == RoundKind::Custom {
            self.timeouts[s.index()].map_or(On::Every, On::AllBut)
        } else {
            done()
        };
        Exit {
            writes,
            resets: round.reset.then(|| {
                if m.profile == Profile::Abci {
                    // A transition that may start a new period counts as starting one: only the keys that
                    // survive both ways are sure to be there.
                    done_event.map_or(On::Never, On::Only)
                } else {
                    On::Every
                }
            }),
        }
    }

    /// Every keeper round is entered with a keeper elected in the period (E0607).
    pub fn keepers(&self, g: &Graph, out: &mut Vec<Diagnostic>) {
        keeper::check(self.m, g, out);
    }
}
