//! What Genie Flow adds to a `genie` machine's module: each state's type (user or invoker) and template, the
//! work each invoker state runs (the `Work` enum) and its failure policy, the template files' text, the
//! persistence of each transition, and the runtime's Genie traits.

use super::tokens::variant;
use crate::spec::genie::{FailurePolicy, GenieState};
use crate::spec::{Machine, Spec, State};
use fsmc_base::source::Name;
use fsmc_vocab::genie::{OnFailure, Persistence, StateType};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// The fact a state's docs give about its Genie type, when written.
pub(crate) fn state_fact(genie: &GenieState) -> Option<String> {
    genie.ty.map(|t| format!("a `{}` state", t.name()))
}

/// What Genie adds to every transition its hooks see: the turn (`Transition::profile`).
pub(crate) fn transition_profile() -> TokenStream {
    quote! { ::fsmc_runtime::genie::Turn<'a> }
}

/// The states' types and templates, the template files, the persistence of each transition, and what the
/// runtime's Genie sessions need.
pub(crate) fn generate(m: &Machine, spec: &Spec) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let types = m.states.iter().map(|s| match s.genie().and_then(|g| g.ty) {
        Some(StateType::Invoker) => {
            quote! { ::fsmc_runtime::genie::StateType::Invoker }
        }
        _ => quote! { ::fsmc_runtime::genie::StateType::User },
    });
    let templates = m
        .states
        .iter()
        .map(|s| template(s).map_or("", |t| t.as_str()));
    let sources = sources(m, spec);
    let source_entries = sources.iter().map(|(p, t)| quote! { (#p, #t) });
    let ns = proc_macro2::Literal::usize_unsuffixed(sources.len());
    // In event declaration order, as `State::accepted` lists them.
    let accepted_names = m.accepted_events().into_iter().map(|seen| {
        let names = seen.iter().map(|e| m.event(*e).name.as_str());
        quote! { &[#(#names),*] }
    });
    let overrides = overrides(m);
    let runtime = runtime(m);
    let work = work(m);
    quote! {
        #work

        static STATE_TYPES: [::fsmc_runtime::genie::StateType; #n] = [#(#types),*];
        const TEMPLATES: [&str; #n] = [#(#templates),*];
        /// Every template file the states name, with its text as `fsmc` read it: (path, source).
        static TEMPLATE_SOURCES: [(&str, &str); #ns] = [#(#source_entries),*];
        static ACCEPTED_NAMES: [&[&str]; #n] = [#(#accepted_names),*];

        impl State {
            /// Whether the user or an invoker acts in this state.
            pub fn state_type(self) -> ::fsmc_runtime::genie::StateType {
                STATE_TYPES[self as usize]
            }

            /// The template this state renders, as the spec names it (relative to the spec).
            pub const fn template(self) -> &'static str {
                TEMPLATES[self as usize]
            }

            /// The event names to offer: only `poll` while an invoker's task runs, else the accepted events.
            pub fn next_actions(self, task_running: bool) -> ::std::vec::Vec<&'static str> {
                if task_running {
                    ::std::vec![::fsmc_runtime::genie::POLL]
                } else {
                    ACCEPTED_NAMES[self as usize].to_vec()
                }
            }
        }

        /// The transition type of `from → to`: who acts, and what the dialogue records by default.
        pub fn transition_type(from: State, to: State) -> ::fsmc_runtime::genie::TransitionType {
            ::fsmc_runtime::genie::TransitionType::new(from.state_type(), to.state_type())
        }

        /// What the dialogue records for this transition: the spec's `persist` override, else the default.
        pub fn persistence(from: State, event: Event, to: State) -> ::fsmc_runtime::genie::Persistence {
            #[allow(unreachable_patterns)]
            match (from, event, to) {
                #(#overrides,)*
                _ => transition_type(from, to).default_persistence(),
            }
        }

        #runtime
    }
}

/// Each template file once, in the order states name them, with the text the check read.
fn sources<'m>(m: &'m Machine, spec: &Spec) -> Vec<(&'m str, TokenStream)> {
    let mut sources: Vec<(&str, TokenStream)> = Vec::new();
    for st in &m.states {
        let Some(path) = template(st) else { continue };
        if sources.iter().any(|(p, _)| *p == path.as_str()) {
            continue;
        }
        let text = match spec.templates.get(&path.span) {
            Some(Ok(text)) => quote! { #text },
            // The check refuses a spec whose templates could not be read: this is not reached.
            _ => quote! { ::core::compile_error!("fsmc: a template was not read") },
        };
        sources.push((path.as_str(), text));
    }
    sources
}

/// The `persist` overrides, as arms of `persistence`.
fn overrides(m: &Machine) -> Vec<TokenStream> {
    m.transitions
        .iter()
        .filter_map(|t| {
        let (p, _) = t.persist?;
        let e = t.event?;
        let (s, ev, to) = (
            variant(&m.state(t.from).name.text),
            variant(&m.event(e).name.text),
            variant(&m.state(t.to).name.text),
        );
        let p = Ident::new(
            match p {
                Persistence::None => "None",
                Persistence::Raw => "Raw",
                Persistence::Rendered => "Rendered",
            },
            Span::call_site(),
        );
        Some(quote! { (State::#s, Event::#ev, State::#to) => ::fsmc_runtime::genie::Persistence::#p })
    })
        .collect()
}

/// What the runtime's Genie sessions (`genie::Flow`, with its `genie` feature) need of the machine.
fn runtime(m: &Machine) -> TokenStream {
    let name = m.name.as_str();
    quote! {
        #[automatically_derived]
        impl ::fsmc_runtime::genie::GenieSpec for State {
            const MACHINE: &'static str = #name;
            const START: State = State::DEFAULT_START;
            fn name(self) -> &'static str {
                State::name(self)
            }
            fn state_type(self) -> ::fsmc_runtime::genie::StateType {
                State::state_type(self)
            }
            fn template(self) -> &'static str {
                State::template(self)
            }
            fn templates() -> &'static [(&'static str, &'static str)] {
                &TEMPLATE_SOURCES
            }
            fn accepted_names(self) -> &'static [&'static str] {
                ACCEPTED_NAMES[self as usize]
            }
            type Work = Work;
            fn work(self) -> ::core::option::Option<Work> {
                State::work(self)
            }
            fn on_failure(self) -> ::fsmc_runtime::genie::FailurePolicy {
                State::on_failure(self)
            }
        }

        #[automatically_derived]
        impl<C: Hooks + ?Sized> ::fsmc_runtime::genie::GenieMachine<C> for State {
            fn step(self, event: &str, turn: &::fsmc_runtime::genie::Turn<'_>, context: &mut C) -> ::core::result::Result<::fsmc_runtime::genie::Step<State>, ::fsmc_runtime::genie::GenieError> {
                let ::core::option::Option::Some(event) = Event::from_name(event) else {
                    return ::core::result::Result::Err(::fsmc_runtime::genie::GenieError::unknown_event(self, event));
                };
                let to = self.fire_with(&event, turn, context).map_err(|e| ::fsmc_runtime::genie::GenieError::refused(&e))?;
                let persistence = turn.persistence_override().unwrap_or_else(|| persistence(self, event, to));
                ::core::result::Result::Ok(::fsmc_runtime::genie::Step { from: self, event: event.name(), to, persistence, recorded: turn.derivative() })
            }
        }
    }
}

/// The `Work` enum (one variant per name invoker states give in `runs`, in the order first named), each state's
/// work and failure policy.
fn work(m: &Machine) -> TokenStream {
    let mut names: Vec<&str> = Vec::new();
    for st in &m.states {
        if let Some(n) = st.genie().and_then(|g| g.runs())
            && !names.contains(&n.as_str())
        {
            names.push(n.as_str());
        }
    }
    let variants: Vec<Ident> = names.iter().map(|n| variant(n)).collect();
    let docs = names.iter().map(|n| {
        let by: Vec<String> = m
            .states
            .iter()
            .filter(|s| {
                s.genie()
                    .and_then(|g| g.runs())
                    .is_some_and(|r| r.as_str() == *n)
            })
            .map(|s| format!("`{}`", s.name))
            .collect();
        format!(" `{n}`, run by {}.", by.join(", "))
    });
    let count = proc_macro2::Literal::usize_unsuffixed(names.len());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    let of_state = m
        .states
        .iter()
        .map(|s| match s.genie().and_then(|g| g.runs()) {
            Some(r) => {
                let v = variant(r.as_str());
                quote! { ::core::option::Option::Some(Work::#v) }
            }
            None => quote! { ::core::option::Option::None },
        });
    let policies = m.states.iter().map(|s| {
        let policy = s
            .genie()
            .and_then(|g| m.genie.on_failure(g))
            .map(|(p, _)| p);
        match policy {
            Some(FailurePolicy::Word(OnFailure::Retry)) => {
                quote! { ::fsmc_runtime::genie::FailurePolicy::Retry }
            }
            Some(FailurePolicy::Event(e)) => {
                let name = m.event(e).name.as_str();
                quote! { ::fsmc_runtime::genie::FailurePolicy::Send(#name) }
            }
            Some(FailurePolicy::Word(OnFailure::Continue)) | None => {
                quote! { ::fsmc_runtime::genie::FailurePolicy::Continue }
            }
        }
    });
    quote! {
        /// The work the machine's invoker states run, as the spec names it (`runs NAME;`): what the application's
        /// invoker (`fsmc_runtime::genie::Invoker<Work>`) matches on to plan and run it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Work {
            #(#[doc = #docs] #variants,)*
        }

        impl Work {
            /// Every work, in the order the states first name them.
            pub const ALL: [Work; #count] = [#(Work::#variants),*];

            /// The work's name, as the spec writes it.
            pub const fn name(self) -> &'static str {
                match self {
                    #(Work::#variants => #names,)*
                }
            }
        }

        impl ::core::fmt::Display for Work {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        const WORK: [::core::option::Option<Work>; #n] = [#(#of_state),*];
        const ON_FAILURE: [::fsmc_runtime::genie::FailurePolicy; #n] = [#(#policies),*];

        impl State {
            /// The work an invoker state runs (`runs …;`); `None` for a user state.
            pub const fn work(self) -> ::core::option::Option<Work> {
                WORK[self as usize]
            }

            /// What the state does when its work fails: its `on_failure`, else the machine's, else `continue`.
            pub const fn on_failure(self) -> ::fsmc_runtime::genie::FailurePolicy {
                ON_FAILURE[self as usize]
            }
        }
    }
}

/// The template a state renders.
fn template(s: &State) -> Option<&Name> {
    s.genie().and_then(|g| g.template.as_ref())
}
