//! Tests from the spec (`fsmc gen --tests`, `include_fsm!("x.fsm", tests)`): for every machine and app of the
//! entry file, a module `<module>_tests` beside its generated module, with one complete test per transition (or,
//! for a tour, one test that takes every transition along a short walk).
//!
//! A test is a *leg*: a walk from a start state whose last step is the transition under test, every step
//! asserted. How a step is made to happen is the system's: a plain machine's test fires the event with the
//! guards it needs holding (`plain`); an `abci` app's test synthesises the block that makes the round decide
//! the outcome, or lets its timeout pass, on two replicas at once (`abci`). Which transitions can be made to
//! happen, and the shortest walks to them, are worked out here, once for every system.
//!
//! What the generator cannot make up (a payload of the user's own type, what makes a custom round decide) is
//! asked of the user through a `Fixture` trait whose methods have defaults wherever the generator can write
//! them; when every method has one, the module also holds the `#[test]`s themselves.

mod abci;
mod blocks;
mod dialogue;
mod plain;
mod staged;
mod values;

pub use values::sample_from;

use crate::spec::{Checked, Item, Machine, StateId};
use fsmc_vocab::Profile;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::VecDeque;

/// How the tests are laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestOptions {
    /// One test walking a short tour that takes every transition, instead of one test per transition.
    pub tour: bool,
}

/// The test modules of every machine and app of the entry file that fsmc can drive (plain machines and `abci`
/// machines and apps), in the order written; each names its machine's generated module as `super::<module>`.
pub fn generate(checked: &Checked, opts: TestOptions) -> TokenStream {
    let spec = checked.spec();
    let mut out = TokenStream::new();
    for item in &spec.entry_items {
        let m = match *item {
            Item::Machine(id) => spec.machine(id),
            Item::App(a) => &checked.composed()[a].machine,
        };
        out.extend(match m.profile {
            Profile::Abci => abci::generate(m, opts),
            // A Genie machine's transitions fire as a plain machine's do; its session runs them the same way.
            Profile::Plain | Profile::Genie => plain::generate(m, opts),
            Profile::Dialogue => dialogue::generate(m, opts),
            Profile::Staged => staged::generate(m, opts),
        });
    }
    out
}

/// A walk from a start state: transitions (indices into `Machine::transitions`), each leaving the state the
/// previous one entered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Leg {
    pub start: StateId,
    pub steps: Vec<usize>,
}

/// The legs to generate, and the transitions no leg takes (a step the system cannot make, or a source no walk
/// from `starts` reaches). `can` says which transitions a test can make happen.
pub(super) fn plan(
    m: &Machine,
    starts: &[StateId],
    can: &[bool],
    opts: TestOptions,
) -> (Vec<Leg>, Vec<usize>) {
    let outgoing = m.outgoing();
    let legs = if opts.tour {
        tour(m, &outgoing, starts, can)
    } else {
        let (start_of, parent) = bfs(m, &outgoing, starts, can);
        (0..m.transitions.len())
            .filter(|&t| can[t])
            .filter_map(|t| {
                let from = m.transitions[t].from;
                let start = start_of[from.index()]?;
                let mut steps = walk_to(m, &parent, from);
                steps.push(t);
                Some(Leg { start, steps })
            })
            .collect()
    };
    let mut taken = vec![false; m.transitions.len()];
    for leg in &legs {
        for &t in &leg.steps {
            taken[t] = true;
        }
    }
    let missed = (0..m.transitions.len()).filter(|&t| !taken[t]).collect();
    (legs, missed)
}

/// Breadth-first search from `starts` over the transitions a test can make: for each state reached, the start
/// it was reached from and the transition that first entered it.
fn bfs(
    m: &Machine,
    outgoing: &[Vec<usize>],
    starts: &[StateId],
    can: &[bool],
) -> (Vec<Option<StateId>>, Vec<Option<usize>>) {
    let mut start_of = vec![None; m.states.len()];
    let mut parent = vec![None; m.states.len()];
    let mut queue = VecDeque::new();
    for &s in starts {
        if start_of[s.index()].is_none() {
            start_of[s.index()] = Some(s);
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        for &t in &outgoing[s.index()] {
            let to = m.transitions[t].to;
            if can[t] && start_of[to.index()].is_none() {
                start_of[to.index()] = start_of[s.index()];
                parent[to.index()] = Some(t);
                queue.push_back(to);
            }
        }
    }
    (start_of, parent)
}

/// The transitions of the shortest walk the search found to `to`, in order.
fn walk_to(m: &Machine, parent: &[Option<usize>], to: StateId) -> Vec<usize> {
    let mut steps = Vec::new();
    let mut at = to;
    while let Some(t) = parent[at.index()] {
        steps.push(t);
        at = m.transitions[t].from;
    }
    steps.reverse();
    steps
}

/// A short tour: from each start in turn, walk to the nearest transition not yet taken and take it, until none
/// is reachable from where the walk stands; then start a new leg. Every transition reachable from a start is
/// taken, and each leg takes at least one new one, so the tour ends.
fn tour(m: &Machine, outgoing: &[Vec<usize>], starts: &[StateId], can: &[bool]) -> Vec<Leg> {
    let mut taken = vec![false; m.transitions.len()];
    let mut legs = Vec::new();
    for &start in starts {
        loop {
            let mut leg = Leg {
                start,
                steps: Vec::new(),
            };
            let mut at = start;
            while let Some(walk) = nearest_untaken(m, outgoing, at, can, &taken) {
                for &t in &walk {
                    taken[t] = true;
                }
                at = walk.last().map_or(at, |&t| m.transitions[t].to);
                leg.steps.extend(walk);
            }
            if leg.steps.is_empty() {
                break;
            }
            legs.push(leg);
        }
    }
    legs
}

/// The shortest walk from `from` that ends with a transition not yet taken.
fn nearest_untaken(
    m: &Machine,
    outgoing: &[Vec<usize>],
    from: StateId,
    can: &[bool],
    taken: &[bool],
) -> Option<Vec<usize>> {
    let (seen, parent) = bfs(m, outgoing, &[from], can);
    // States in the order the search reached them: the first with an untaken way out is the nearest.
    let mut order: Vec<(usize, StateId)> = m
        .state_ids()
        .filter(|s| seen[s.index()].is_some())
        .map(|s| (walk_to(m, &parent, s).len(), s))
        .collect();
    order.sort();
    order.into_iter().find_map(|(_, s)| {
        let t = outgoing[s.index()]
            .iter()
            .copied()
            .find(|&t| can[t] && !taken[t])?;
        let mut walk = walk_to(m, &parent, s);
        walk.push(t);
        Some(walk)
    })
}

/// The name of a leg's test: its last transition, `<from>_<event>_to_<to>`, numbered when two transitions
/// share it (guarded alternatives).
pub(super) fn test_names(m: &Machine, legs: &[Leg]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(legs.len());
    for leg in legs {
        let Some(&last) = leg.steps.last() else {
            continue;
        };
        let t = &m.transitions[last];
        let event = t.event.map_or("direct".to_string(), |e| {
            crate::ident::snake(&m.event(e).name.text)
        });
        let base = format!(
            "{}_{}_to_{}",
            crate::ident::snake(&m.state(t.from).name.text),
            event,
            crate::ident::snake(&m.state(t.to).name.text)
        )
        .trim_start_matches("r#")
        .replace("r#", "");
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// The checks of a machine whose tests need nothing from the user: a public `check_<test>()` per walk (or one
/// `check_tour()`), `check_all()`, and a `#[test]` calling each. Every check ends by writing the coverage
/// snapshot (`fsmc_runtime::coverage::write_snapshot`, nothing unless coverage is on and asked for).
pub(super) fn checks(
    m: &Machine,
    legs: &[Leg],
    walks: &[TokenStream],
    opts: TestOptions,
) -> TokenStream {
    let (names, bodies): (Vec<Ident>, Vec<TokenStream>) = if opts.tour {
        (
            vec![Ident::new("tour", Span::call_site())],
            vec![quote! { #(#walks)* }],
        )
    } else {
        let names = test_names(m, legs)
            .iter()
            .map(|n| Ident::new(n, Span::call_site()))
            .collect();
        (names, walks.to_vec())
    };
    let checks: Vec<Ident> = names.iter().map(|n| format_ident!("check_{}", n)).collect();
    quote! {
        #(
            /// One walk of the generated tests, every step checked.
            pub fn #checks() {
                #bodies
                snapshot();
            }
        )*

        /// Every check, one after the other.
        pub fn check_all() {
            #(#checks();)*
        }

        /// Writes the coverage snapshot of this process, when coverage is on and a directory is given.
        fn snapshot() {
            if let ::core::result::Result::Err(e) = ::fsmc_runtime::coverage::write_snapshot() {
                ::core::panic!("writing the coverage snapshot: {e}");
            }
        }

        #(
            #[cfg(test)]
            #[test]
            fn #names() {
                #checks();
            }
        )*
    }
}
