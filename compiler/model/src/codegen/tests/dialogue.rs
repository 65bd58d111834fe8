//! Tests of a dialogue: each walk opens one dialogue between two agents and sends every message of the walk
//! through both parties' copies, the sender's `send` and then the receiver's `receive` of the same envelope,
//! asserting that both copies reach the transition's target and that each ran the actions of its side (`sender
//! do` on the sender's copy, `receiver do` on the receiver's, a plain `do` on both).

use super::plain::{guards_for, message, module_doc, stub};
use super::{Leg, TestOptions, checks, plan};
use crate::codegen::tokens::{snake, variant};
use crate::spec::Machine;
use crate::spec::dialogue::{ActionSide, Turn};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub(super) fn generate(m: &Machine, opts: TestOptions) -> TokenStream {
    let Some(start) = m.default_start() else {
        return TokenStream::new();
    };
    if m.roles.len() != 2 {
        return TokenStream::new();
    }
    let holding: Vec<Option<BTreeSet<String>>> =
        (0..m.transitions.len()).map(|t| guards_for(m, t)).collect();
    let can: Vec<bool> = holding.iter().map(Option::is_some).collect();
    let (legs, missed) = plan(m, &[start], &can, opts);
    let module = snake(&m.name.text);
    let tests_module = format_ident!("{}_tests", module.to_string().trim_start_matches("r#"));
    let stub = stub(m);
    let walks: Vec<TokenStream> = legs.iter().map(|l| walk(m, l, &holding)).collect();
    let tests = checks(m, &legs, &walks, opts);
    let doc = module_doc(m, legs.len(), &missed);
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, dead_code, clippy::all)]
        pub mod #tests_module {
            use super::#module::*;
            use ::fsmc_runtime::dialogue::{Address, DialogueReference};

            #stub

            /// Both parties' copies of one dialogue, `a` (which opens it) and `b`, each with its hooks.
            struct Parties {
                copies: [Dialogue; 2],
                hooks: [Stub; 2],
            }

            impl Parties {
                fn new(opener: Role) -> Self {
                    let reference = DialogueReference::new(Address::new("a"), 1);
                    Parties {
                        copies: [
                            Dialogue::new(reference.clone(), Address::new("a"), Address::new("b"), opener),
                            Dialogue::new(reference, Address::new("b"), Address::new("a"), opener.other()),
                        ],
                        hooks: [Stub::default(), Stub::default()],
                    }
                }

                /// The party whose role sends `event` sends `message`, the other receives the envelope; both
                /// copies must reach `to`, each having run its side's actions.
                fn step(&mut self, event: Event, message: Message, holding: &'static [&'static str], to: State, sent: &[&'static str], received: &[&'static str]) {
                    let role = match self.copies[0].role_sending(event) {
                        ::core::result::Result::Ok(role) => role,
                        ::core::result::Result::Err(e) => ::core::panic!("{event}: {e}"),
                    };
                    let s = if self.copies[0].role() == role { 0 } else { 1 };
                    let r = 1 - s;
                    for h in &mut self.hooks {
                        h.holding = holding;
                        h.actions.clear();
                    }
                    let envelope = match self.copies[s].send(message, &mut self.hooks[s]) {
                        ::core::result::Result::Ok(envelope) => envelope,
                        ::core::result::Result::Err(e) => ::core::panic!("sending {event}: {e}"),
                    };
                    if let ::core::result::Result::Err(e) = self.copies[r].receive(&envelope, &mut self.hooks[r]) {
                        ::core::panic!("receiving {event}: {e}");
                    }
                    ::core::assert_eq!(self.copies[s].state(), to, "the sender's copy after {event}");
                    ::core::assert_eq!(self.copies[r].state(), to, "the receiver's copy after {event}");
                    ::core::assert_eq!(self.hooks[s].actions, sent, "the sender's actions on {event}");
                    ::core::assert_eq!(self.hooks[r].actions, received, "the receiver's actions on {event}");
                }
            }

            #tests
        }
    }
}

/// The role of the party that opens with `event`: the role that sends it, or the first role when the opener
/// sends it whichever role it plays.
fn opener(m: &Machine, l: &Leg) -> Option<Ident> {
    let first = m.transitions[*l.steps.first()?].event?;
    let ev = m.event(first);
    let role = match (ev.role, ev.turn) {
        (Some(r), _) => r,
        (None, Some(Turn::Initiator)) => 0,
        _ => return None,
    };
    Some(variant(&m.roles.get(role)?.text))
}

fn walk(m: &Machine, l: &Leg, holding: &[Option<BTreeSet<String>>]) -> TokenStream {
    let Some(opener) = opener(m, l) else {
        return TokenStream::new();
    };
    let steps = l.steps.iter().map(|&t| {
        let tr = &m.transitions[t];
        let Some(e) = tr.event else {
            return TokenStream::new();
        };
        let ev = variant(&m.event(e).name.text);
        let msg = message(m, e).unwrap_or_default();
        let to = variant(&m.state(tr.to).name.text);
        let guards = holding[t].iter().flatten();
        let on = |side: ActionSide| {
            tr.actions
                .iter()
                .filter(move |a| a.side.is_none_or(|(s, _)| s == side))
                .map(|a| a.name.text.as_str())
        };
        let (sent, received) = (on(ActionSide::Sender), on(ActionSide::Receiver));
        quote! {
            parties.step(Event::#ev, #msg, &[#(#guards),*], State::#to, &[#(#sent),*], &[#(#received),*]);
        }
    });
    quote! {
        {
            let mut parties = Parties::new(Role::#opener);
            #(#steps)*
        }
    }
}
