//! Staged environments' rules (`machine M: staged`), after Phantom's definition: stages move directly (a handler
//! picks the next stage, or there is exactly one), there is no final stage, scripted agents are never rewarded,
//! and the names the generated `Environment` trait takes are reserved.
//!
//! Phantom: "Stage without handler must have exactly one next stage" (zero included), and a stage may have no
//! acting agents. Phantom has no final stage: an episode ends by `num_steps` or when the environment says it is
//! terminated, so `final` is refused rather than given a meaning of our own.

use super::graph::{Graph, Quiet, Set};
use super::system::System;
use crate::spec::Machine;
use crate::{hooks, ident};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::NOBODY;
use std::collections::BTreeSet;

pub(super) struct Staged;

/// The methods of a staged machine's `Environment` trait besides the handlers, which are named after their
/// stages (`snake_case`), and the agents' `observe_<agent>` and `act_<agent>`: a handler must not take one of
/// these names.
const ENVIRONMENT_METHODS: &[&str] = &[
    "reset",
    "info",
    "resolve",
    "reward",
    "agent_terminated",
    "is_terminated",
    "is_truncated",
];

/// Every method of `Environment` but the handlers: the fixed ones, and each agent's (a scripted agent only
/// acts).
fn environment_methods(m: &Machine) -> Vec<String> {
    let mut out: Vec<String> = ENVIRONMENT_METHODS.iter().map(|s| s.to_string()).collect();
    for (i, a) in m.agents.iter().enumerate() {
        if !m.roster.is_scripted(i) {
            out.push(hooks::method("observe", &a.text));
        }
        out.push(hooks::method("act", &a.text));
    }
    out
}

impl System for Staged {
    fn refuses_finals(&self) -> bool {
        true
    }

    fn moves_directly(&self) -> bool {
        true
    }

    fn quiet(&self, m: &Machine, _g: &Graph) -> Quiet {
        Quiet {
            // A stage without a handler and without a next stage breaks Phantom's "exactly one next stage"
            // rule, which says it in its own words (E0901).
            dead_ends: Set::Some(m.states.iter().map(|s| handler(s).is_none()).collect()),
            // A final stage is itself the error (E0904), not the paths towards it.
            no_path_to_final: Set::All,
            dead_end_help: Some("give it its next stages: `A -> B, C;`"),
            ..Quiet::default()
        }
    }

    /// `none` lists no agents (`rewarded none;`), so it cannot be an agent; and each handler becomes a method of
    /// `Environment`, next to its fixed methods and the other handlers.
    fn names(&self, m: &Machine, out: &mut Vec<Diagnostic>) {
        if let Some(a) = m.agents.iter().find(|a| a.text == NOBODY) {
            out.push(
                Diagnostic::new(
                    Code::ReservedName,
                    format!("the agent name `{NOBODY}` is reserved in staged machines"),
                )
                .at(a.span, "reserved")
                .help(format!(
                    "`rewarded {NOBODY};` means that nobody is rewarded; pick another name for this agent"
                )),
            );
        }
        let methods = environment_methods(m);
        for s in m.states.iter().filter(|s| handler(s).is_some()) {
            let method = ident::snake(&s.name.text);
            if methods.contains(&method) {
                out.push(
                    Diagnostic::new(
                        Code::NameCollision,
                        format!(
                            "the handler of stage `{}` would be the method `{method}` of `Environment`, which has one of that name",
                            s.name
                        ),
                    )
                    .at(s.name.span, format!("its handler becomes `{method}`"))
                    .help(format!(
                        "rename the stage; `Environment` has the methods {}",
                        methods
                            .iter()
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                );
            }
        }
    }

    fn check(&self, m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
        for t in m.transitions.iter().filter(|t| t.event.is_some()) {
            out.push(
                Diagnostic::new(
                    Code::EventInStaged,
                    "a staged machine moves between stages directly, not on events",
                )
                .at(t.event_span, "event not expected here")
                .help(format!("write {}", super::written(m, t, None))),
            );
        }
        stages(m, g, out);
        scripted_rewarded(m, out);
    }
}

/// A scripted agent acts on its own and has no policy to train: Phantom rewards strategic agents only.
fn scripted_rewarded(m: &Machine, out: &mut Vec<Diagnostic>) {
    for s in &m.states {
        let Some(rewarded) = s.stage().and_then(|st| st.rewarded.as_ref()) else {
            continue;
        };
        for &(a, span) in rewarded.iter().filter(|(a, _)| m.roster.is_scripted(*a)) {
            let name = &m.agents[a];
            let mut d = Diagnostic::new(
                Code::ScriptedRewarded,
                format!("stage `{}` rewards `{name}`, a scripted agent", s.name),
            )
            .at(span, "scripted agents are never rewarded");
            if let Some(&(_, at)) = m.roster.scripted.iter().find(|(i, _)| *i == a) {
                d = d.with(at, "scripted here");
            }
            out.push(d.help(
                "a scripted agent acts on its own and observes nothing; reward the agents that take actions",
            ));
        }
    }
}

/// Where `handler;` was written on the stage.
fn handler(s: &crate::spec::State) -> Option<fsmc_base::source::Span> {
    s.stage().and_then(|stage| stage.handler)
}

/// No stage is final, and a stage without a handler has exactly one next stage.
fn stages(m: &Machine, g: &Graph, out: &mut Vec<Diagnostic>) {
    for s in m.state_ids() {
        let st = m.state(s);
        if st.is_final {
            let modifier = if st.start { "start and final" } else { "final" };
            out.push(
                Diagnostic::new(
                    Code::FinalStage,
                    format!("stage `{}` is marked `final`", st.name),
                )
                .at(st.name.span, format!("a {modifier} stage"))
                .note("an episode ends after `num_steps` steps, or when the environment says it is terminated; it never ends in a stage")
                .help("remove `final`, and give the stage its next stages"),
            );
            continue;
        }
        let targets: BTreeSet<_> = g
            .outgoing
            .of(s)
            .iter()
            .map(|&t| m.transitions[t as usize].to)
            .collect();
        if handler(st).is_none() && targets.len() != 1 {
            let (message, label, help) = if targets.is_empty() {
                (
                    format!("stage `{}` has no handler and no next stage", st.name),
                    "where does it go? it has no next stage",
                    format!("give it its next stage: `{} -> …;`", st.name),
                )
            } else {
                (
                    format!(
                        "stage `{}` has no handler but {} next stages",
                        st.name,
                        targets.len()
                    ),
                    "which next stage? only a handler can choose",
                    "add `handler;` to the stage, or keep exactly one next stage".to_string(),
                )
            };
            out.push(
                Diagnostic::new(Code::StageNextCount, message)
                    .at(st.name.span, label)
                    .help(help),
            );
        }
    }
}
