//! `State::next`, the pure transition function, and the `Machine` impl every machine with events gets.
//!
//! `State::next` indexes a dense `[[Option<State>; STATES]; EVENTS]` table: one load and one compare per event,
//! no search and no branch mispredictions from a large `match`. `Option<State>` costs one byte per cell
//! because the enum's unused discriminants give `None` a niche. A `(state, event)` pair whose transitions have
//! guards has no cell: only `fire`, which asks the guards, can take it; `next` says so in its error.

use super::lists::{Kind, Lists};
use super::tokens::variant;
use crate::spec::{EventId, Machine, StateId};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::rc::Rc;

/// Up to this many cells (states × events), `next` indexes a dense table; beyond, the table would grow with
/// states × events instead of transitions (a 3000 × 3000 machine is nine million cells), so `next` searches
/// each event's sorted list of transitions instead: code and memory in proportion to the transitions.
pub const DENSE_TABLE_LIMIT: usize = 1 << 16;

/// The transitions of each `(state, event)` pair, as indices into `m.transitions` in spec order; pairs sorted
/// by (state, event) in declaration order, so reordering transitions does not change the output.
pub(crate) fn pairs(m: &Machine) -> Vec<((StateId, EventId), Vec<usize>)> {
    let mut pairs: Vec<((StateId, EventId), Vec<usize>)> = Vec::new();
    let mut order: Vec<usize> = (0..m.transitions.len()).collect();
    // A stable sort keeps spec order inside a pair, which is the order guards are tried in.
    order.sort_by_key(|&i| (m.transitions[i].from, m.transitions[i].event));
    for i in order {
        let t = &m.transitions[i];
        let Some(e) = t.event else { continue };
        match pairs.last_mut() {
            Some((key, list)) if *key == (t.from, e) => list.push(i),
            _ => pairs.push(((t.from, e), vec![i])),
        }
    }
    pairs
}

/// Whether a pair needs its guards asked: one of its transitions has a guard. (Checked specs have one
/// unguarded transition per pair at most, and it comes last.)
pub(crate) fn is_guarded(m: &Machine, list: &[usize]) -> bool {
    list.iter().any(|&i| !m.transitions[i].guards.is_empty())
}

/// The target of an unguarded pair (the first transition written, should a spec with errors have several).
fn unguarded_targets(m: &Machine) -> Vec<((StateId, EventId), StateId)> {
    pairs(m)
        .into_iter()
        .filter(|(_, list)| !is_guarded(m, list))
        .filter_map(|(key, list)| list.first().map(|&i| (key, m.transitions[i].to)))
        .collect()
}

pub(crate) fn generate<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let any_guarded = pairs(m).iter().any(|(_, list)| is_guarded(m, list));
    // The error for a missing cell: a pair with guarded transitions is accepted, but not by `next`.
    let refused = if any_guarded {
        quote! {
            ::fsmc_runtime::InvalidTransition::new(self, event, if self.accepted().contains(&event) {
                ::fsmc_runtime::Reason::NeedsGuards
            } else {
                ::fsmc_runtime::Reason::NotAccepted
            })
        }
    } else {
        quote! { ::fsmc_runtime::InvalidTransition::for_state(self, event) }
    };
    let guards_doc = any_guarded.then(|| {
        quote! {
            #[doc = ""]
            /// A pair whose transitions have guards is refused with `Reason::NeedsGuards`: [`State::fire`] asks
            /// the guards.
        }
    });
    let next = if m.states.len().saturating_mul(m.events.len()) > DENSE_TABLE_LIMIT {
        sparse(m, &refused, guards_doc, lists)
    } else {
        dense(m, &refused, guards_doc, lists)
    };
    let coverage = coverage(m, lists);
    quote! {
        #coverage

        #next

        #[automatically_derived]
        impl ::fsmc_runtime::Machine for State {
            type Event = Event;
            type Message = Message;
            type Hooks = dyn Hooks;
            const ALL: &'static [State] = State::ALL;

            fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                State::next(self, event)
            }
            fn fire(self, message: &Message, hooks: &mut (dyn Hooks + 'static)) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                State::fire(self, message, hooks)
            }
            fn is_final(self) -> bool {
                State::is_final(self)
            }
            fn accepted(self) -> &'static [Event] {
                State::accepted(self)
            }
            fn name(self) -> &'static str {
                State::name(self)
            }
        }
    }
}

fn dense<'a>(
    m: &'a Machine,
    refused: &TokenStream,
    guards_doc: Option<TokenStream>,
    lists: &Lists<'a>,
) -> TokenStream {
    let (ns, ne) = (m.states.len(), m.events.len());
    let (ns_lit, ne_lit) = (Literal::usize_unsuffixed(ns), Literal::usize_unsuffixed(ne));
    // Indexed `TABLE[event][state]`: the state is the value each lookup depends on, and keeping the row
    // multiplication on the event (known from the input) takes it off that dependency chain.
    let mut cells = vec![vec![None; ns]; ne];
    let targets = unguarded_targets(m);
    for ((from, e), to) in &targets {
        cells[e.index()][from.index()] = Some(*to);
    }
    let cells = Rc::new(cells);
    let cell = move |cells: &[Vec<Option<StateId>>], e: usize, i: usize| match cells[e][i] {
        Some(s) => {
            let v = variant(&m.state(s).name.text);
            quote! { ::core::option::Option::Some(State::#v), }
        }
        None => quote! { ::core::option::Option::None, },
    };
    let rows = nested(lists, ne, ns, move |e, i| cell(&cells, e, i), move |_| ns);
    let example = targets.first().map(|((from, e), to)| {
        let doc = format!(
            " `State::{}.next(Event::{})` is `Ok(State::{})`.",
            variant(&m.state(*from).name.text),
            variant(&m.event(*e).name.text),
            variant(&m.state(*to).name.text)
        );
        quote! { #[doc = ""] #[doc = #doc] }
    });
    // An empty cell names no transition: one past the last, the counters' spare.
    let mut index = vec![vec![m.transitions.len(); ns]; ne];
    let site = site_of(m);
    for ((from, e), list) in pairs(m) {
        if let Some(&i) = list.first() {
            index[e.index()][from.index()] = site[i];
        }
    }
    let ty = index_type(m);
    // Made at once, not through `lists`: prettyplease packs short numbers several to a line, which a list made a
    // piece at a time would not, and a number is a few bytes.
    let index_rows = numbers(&index, false);
    quote! {
        /// The transition table: `TABLE[event][state]` is the next state, if the event alone decides it.
        static TABLE: [[::core::option::Option<State>; #ns_lit]; #ne_lit] = [#rows];

        /// `TRANSITION_OF[event][state]`: the index of the transition `TABLE` takes (one past the last for an
        /// empty cell), for [`COVERAGE`] (only read when the runtime's `coverage` feature is on).
        static TRANSITION_OF: [[#ty; #ns_lit]; #ne_lit] = [#index_rows];

        impl State {
            /// The state `event` leads to from here, or an error naming this state and the events it accepts.
            ///
            /// A table lookup: no allocation, no search, no hooks.
            #guards_doc
            #example
            #[inline]
            pub fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                let next = TABLE[event as usize][self as usize];
                // Counted whatever the cell holds (an empty cell counts in a spare counter): no branch on it.
                COVERAGE.hit(TRANSITION_OF[event as usize][self as usize] as usize);
                match next {
                    ::core::option::Option::Some(next) => ::core::result::Result::Ok(next),
                    ::core::option::Option::None => ::core::result::Result::Err(#refused),
                }
            }
        }
    }
}

/// `next` for a large machine: per event, its transitions sorted by source state, found by binary search.
fn sparse<'a>(
    m: &'a Machine,
    refused: &TokenStream,
    guards_doc: Option<TokenStream>,
    lists: &Lists<'a>,
) -> TokenStream {
    let ne = m.events.len();
    let ne_lit = Literal::usize_unsuffixed(ne);
    let mut rows: Vec<Vec<(StateId, StateId)>> = vec![Vec::new(); ne];
    let mut indices: Vec<Vec<usize>> = vec![Vec::new(); ne];
    let site = site_of(m);
    // Pairs come sorted by source state, so each row is sorted too.
    for ((from, e), list) in pairs(m) {
        if is_guarded(m, &list) {
            continue;
        }
        if let Some(&i) = list.first() {
            rows[e.index()].push((from, m.transitions[i].to));
            indices[e.index()].push(site[i]);
        }
    }
    let rows = Rc::new(rows);
    let lens = Rc::clone(&rows);
    let pair = move |e: usize, i: usize| {
        let (from, to) = rows[e][i];
        let (f, t) = (
            variant(&m.state(from).name.text),
            variant(&m.state(to).name.text),
        );
        quote! { (State::#f, State::#t), }
    };
    let rows = nested(lists, ne, 0, pair, move |e| lens[e].len());
    let ty = index_type(m);
    // At once, as in `dense`.
    let index_rows = numbers(&indices, true);
    quote! {
        /// The transitions of each event that the event alone decides, sorted by source state: `ROWS[event]`
        /// holds `(from, to)` pairs.
        static ROWS: [&[(State, State)]; #ne_lit] = [#rows];

        /// The index of each transition of `ROWS`, for [`COVERAGE`] (only read when the runtime's `coverage`
        /// feature is on).
        static TRANSITION_OF: [&[#ty]; #ne_lit] = [#index_rows];

        impl State {
            /// The state `event` leads to from here, or an error naming this state and the events it accepts.
            ///
            /// A binary search in the event's transitions: no allocation, no hooks, and code in proportion to
            /// the transitions rather than to states × events.
            #guards_doc
            #[inline]
            pub fn next(self, event: Event) -> ::core::result::Result<State, ::fsmc_runtime::InvalidTransition<State, Event>> {
                let row = ROWS[event as usize];
                match row.binary_search_by_key(&(self as usize), |(from, _)| *from as usize) {
                    ::core::result::Result::Ok(i) => match row.get(i) {
                        ::core::option::Option::Some((_, to)) => {
                            if let ::core::option::Option::Some(&t) = TRANSITION_OF[event as usize].get(i) {
                                COVERAGE.hit(t as usize);
                            }
                            ::core::result::Result::Ok(*to)
                        }
                        ::core::option::Option::None => ::core::result::Result::Err(#refused),
                    },
                    ::core::result::Result::Err(_) => ::core::result::Result::Err(#refused),
                }
            }
        }
    }
}

/// The rows of a table, `rows` of them, row `e` holding `len(e)` elements made by `cell(e, i)`: an array per
/// row (a slice when `width` is 0), each followed by a comma. Either the rows or the elements of each row are
/// deferred, never both (see [`Lists::defers`]).
fn nested<'a>(
    lists: &Lists<'a>,
    rows: usize,
    width: usize,
    cell: impl Fn(usize, usize) -> TokenStream + 'a,
    len: impl Fn(usize) -> usize + 'a,
) -> TokenStream {
    let wrap = move |inner: TokenStream| {
        if width == 0 {
            quote! { &[#inner], }
        } else {
            quote! { [#inner], }
        }
    };
    if lists.defers(rows) {
        return lists.list(Kind::Elem, rows, move |e| {
            wrap((0..len(e)).map(|i| cell(e, i)).collect())
        });
    }
    let cell = Rc::new(cell);
    (0..rows)
        .map(|e| {
            let cell = Rc::clone(&cell);
            wrap(lists.list(Kind::Elem, len(e), move |i| cell(e, i)))
        })
        .collect()
}

/// The smallest unsigned type that numbers the machine's transitions.
fn index_type(m: &Machine) -> TokenStream {
    if m.transitions.len() <= usize::from(u16::MAX) {
        quote! { u16 }
    } else {
        quote! { u32 }
    }
}

/// The order of the coverage counters: the transitions of each `(state, event)` pair as [`pairs`] lists them,
/// then the moves no event makes (a staged machine's) by source and target. It does not depend on the order the
/// spec writes its transitions in, except among a pair's guarded alternatives, whose order is their meaning.
fn site_order(m: &Machine) -> Vec<usize> {
    let mut order: Vec<usize> = pairs(m).into_iter().flat_map(|(_, list)| list).collect();
    let mut moves: Vec<usize> = (0..m.transitions.len())
        .filter(|&i| m.transitions[i].event.is_none())
        .collect();
    moves.sort_by_key(|&i| (m.transitions[i].from, m.transitions[i].to));
    order.extend(moves);
    order
}

/// For each transition (by its index in the spec), its coverage counter.
pub(crate) fn site_of(m: &Machine) -> Vec<usize> {
    let mut site = vec![0; m.transitions.len()];
    for (k, i) in site_order(m).into_iter().enumerate() {
        site[i] = k;
    }
    site
}

/// The machine's transitions as coverage names them, in counter order, and its `COVERAGE` counters.
pub(crate) fn coverage<'a>(m: &'a Machine, lists: &Lists<'a>) -> TokenStream {
    let n = Literal::usize_unsuffixed(m.transitions.len());
    // One counter per transition, and the spare (see `fsmc_runtime::coverage::Counters`).
    let spare = Literal::usize_unsuffixed(m.transitions.len() + 1);
    // Each site's ordinal among the transitions with its source, event and target, counted once up front; the
    // sites' tokens are made as the list is written (see `Lists`).
    let order = site_order(m);
    let name_of = move |i: usize| {
        let t = &m.transitions[i];
        let from = m.state(t.from).name.text.as_str();
        let event = t.event.map_or("-", |e| m.event(e).name.text.as_str());
        (from, event, m.state(t.to).name.text.as_str())
    };
    let mut seen: std::collections::BTreeMap<(&str, &str, &str), u32> =
        std::collections::BTreeMap::new();
    let ordinals: Vec<u32> = order
        .iter()
        .map(|&i| {
            let n = seen.entry(name_of(i)).or_insert(0);
            *n += 1;
            *n - 1
        })
        .collect();
    let sites = lists.list(Kind::Elem, order.len(), move |k| {
        let (from, event, to) = name_of(order[k]);
        let ordinal = ordinals[k];
        quote! { ::fsmc_runtime::coverage::Site { from: #from, event: #event, to: #to, n: #ordinal }, }
    });
    let name = m.name.text.as_str();
    let doc = format!(
        " How often a run took each transition of `{name}` (counted only with the runtime's `coverage` feature; \
         see `fsmc_runtime::coverage`)."
    );
    quote! {
        /// The transitions of the spec as coverage names them.
        static COVERAGE_SITES: [::fsmc_runtime::coverage::Site; #n] = [#sites];

        #[doc = #doc]
        pub static COVERAGE: ::fsmc_runtime::coverage::Counters<#spare> =
            ::fsmc_runtime::coverage::Counters::new(#name, &COVERAGE_SITES);
    }
}

/// Rows of counter indices as a generated array's elements: arrays, or slices when `slices`.
fn numbers(rows: &[Vec<usize>], slices: bool) -> TokenStream {
    rows.iter()
        .map(|row| {
            let cells = row.iter().map(|&i| Literal::usize_unsuffixed(i));
            if slices {
                quote! { &[#(#cells),*], }
            } else {
                quote! { [#(#cells),*], }
            }
        })
        .collect()
}
