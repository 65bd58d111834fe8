//! What dialogues and staged machines add to resolution: who sends a performative (a role, or the initiator or
//! the responder), the side a dialogue's actions run on, and a staged machine's groups and scripted agents.

use super::bad_value;
use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::Span;
use fsmc_model::spec::dialogue::{ActionSide, Turn};
use fsmc_model::spec::{Action, Machine};
use fsmc_syntax::ast::{self, PropValue};
use fsmc_vocab::{NOBODY, Profile};

/// The sender of a performative written `by initiator` or `by responder`, which name the parties by who opened
/// the dialogue rather than by role.
pub(super) fn turn(e: &ast::Event) -> Option<Turn> {
    e.role.as_ref().and_then(|r| Turn::parse(&r.text))
}

/// The actions of transition `t` with their sides. A side means something only in a dialogue, whose parties
/// each fire every message on their own copy: elsewhere it is reported, and dropped.
pub(super) fn actions(
    t: &ast::Transition,
    profile: Profile,
    diags: &mut Vec<Diagnostic>,
) -> fsmc_model::spec::ThinVec<Action> {
    let mut reported = false;
    t.actions
        .iter()
        .map(|a| {
            let side = a.side.as_ref().and_then(|s| {
                let side = ActionSide::parse(&s.text)?;
                if profile == Profile::Dialogue {
                    return Some((side, s.span));
                }
                if !std::mem::replace(&mut reported, true) {
                    diags.push(
                        Diagnostic::new(
                            Code::ActionSide,
                            format!("`{s} do` applies only to the actions of a `dialogue` machine"),
                        )
                        .at(s.span, "no sender or receiver here")
                        .help("a transition of this machine fires once: write `do` alone"),
                    );
                }
                None
            });
            Action {
                name: a.name.clone(),
                side,
            }
        })
        .collect()
}

/// `[]` marks a group of agents, in a machine's `agents` only: anywhere else it is reported.
pub(super) fn no_groups(p: &ast::Property, diags: &mut Vec<Diagnostic>) {
    if let Some((_, span)) = p.groups.first() {
        diags.push(
            Diagnostic::new(
                Code::BadPropertyValue,
                format!("`[]` cannot follow a name in `{}`", p.name),
            )
            .at(*span, "marks a group of agents")
            .help("groups are declared once, in the machine's `agents` (`agents traders[];`); elsewhere name the group alone"),
        );
    }
}

/// `agents a, traders[];`: the names, and which are groups (indices into `out.agents`).
pub(super) fn agents(out: &mut Machine, p: &ast::Property, names: &[fsmc_base::source::Name]) {
    let offset = out.agents.len();
    out.agents.extend(names.iter().cloned());
    out.roster.groups.extend(
        p.groups
            .iter()
            .map(|&(i, span)| (offset.saturating_add(i), span)),
    );
}

/// `scripted a, b;`: agents of the machine that act on their own. Read once every `agents` property is.
pub(super) fn scripted(out: &mut Machine, p: &ast::Property, diags: &mut Vec<Diagnostic>) {
    let PropValue::List(list) = &p.value else {
        diags.push(bad_value(p, "a list of agents: `scripted a, b;`"));
        return;
    };
    no_groups(p, diags);
    for a in list {
        if a.text == NOBODY && list.len() == 1 {
            continue;
        }
        match out.agents.iter().position(|x| x.text == a.text) {
            Some(i) => out.roster.scripted.push((i, a.span)),
            None => diags.push(unknown_agent(out, &a.text, a.span)),
        }
    }
}

/// An agent name that `agents` does not declare.
pub(super) fn unknown_agent(out: &Machine, name: &str, span: Span) -> Diagnostic {
    let d = Diagnostic::new(Code::UnknownRole, format!("unknown agent `{name}`"))
        .at(span, "not declared in `agents`");
    match did_you_mean(name, out.agents.iter().map(|x| x.as_str())) {
        Some(h) => d.help(h),
        None => d.help("declare the agents with `agents a, b;`"),
    }
}
