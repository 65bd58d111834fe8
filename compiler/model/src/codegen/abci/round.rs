//! How one round of an `abci` machine is generated for the replicated app: its runtime round type, what its
//! behaviour returns, how the decided value is written into the data, and the behaviour method's docs.

use crate::codegen::lists::{Kind, Lists};
use crate::codegen::tokens::{rust_type, snake, variant};
use crate::spec::{Machine, State, StateId};
use fsmc_vocab::abci::RoundKind;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::rc::Rc;

/// How one round is generated for the replicated app.
pub(in crate::codegen) struct AppRound {
    /// The round's state.
    pub sid: StateId,
    pub state: Ident,
    pub method: Ident,
    /// The runtime round type.
    pub round_ty: TokenStream,
    /// What the behaviour returns and the transaction carries.
    pub wire_ty: TokenStream,
    /// The payload submitted to the runtime round, from the decoded wire value `p`.
    pub submit: TokenStream,
    /// Checks on the decoded `p` before it is submitted.
    pub check: TokenStream,
    /// Statements writing the decided value `v` into `data`, and whether they use `v`.
    pub write: TokenStream,
    pub uses_value: bool,
    pub elects: bool,
    /// A custom round: the app's `Rounds` trait decides it.
    pub custom: bool,
    /// How many blocks a threshold round waits after its threshold (`confirmations N;`).
    pub confirmations: u32,
    pub docs: Vec<String>,
}

/// The runtime types of a round.
struct Wire {
    /// The runtime round type.
    round_ty: TokenStream,
    /// What the behaviour returns and the transaction carries.
    wire_ty: TokenStream,
    /// The payload submitted to the runtime round, from the decoded wire value `p`.
    submit: TokenStream,
    /// Whether the wire type wraps the payload in `Option` (a `None` payload is possible).
    optional: bool,
}

/// The rounds of the app (its non-final states), each made again wherever a list needs it: the tokens of every
/// round at once are more than `gen` may hold for a large machine.
pub(super) struct Rounds<'a> {
    pub m: &'a Machine,
    /// Each round's state and whether its `none` outcome has a transition.
    pub states: Vec<(StateId, bool)>,
    /// Whether any round writes its decided value or is custom (`end_block` then needs the data).
    pub uses_data: bool,
    /// The custom rounds, by index into `states`.
    pub customs: Vec<usize>,
}

impl<'a> Rounds<'a> {
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Round `i`; every state in `states` has one (the app is generated only then).
    pub fn get(&self, i: usize) -> Option<AppRound> {
        let (sid, none_handled) = self.states[i];
        app_round(self.m, sid, none_handled)
    }

    /// A list of `kind` with one element per round, made by `make`.
    pub fn list(
        self: &Rc<Self>,
        lists: &Lists<'a>,
        kind: Kind,
        make: fn(&AppRound) -> TokenStream,
    ) -> TokenStream {
        let rounds = Rc::clone(self);
        lists.list(kind, self.len(), move |i| {
            rounds.get(i).map_or_else(TokenStream::new, |r| make(&r))
        })
    }

    /// [`Rounds::list`] over the custom rounds only.
    pub fn custom_list(
        self: &Rc<Self>,
        lists: &Lists<'a>,
        kind: Kind,
        make: impl Fn(&AppRound) -> TokenStream + 'a,
    ) -> TokenStream {
        let rounds = Rc::clone(self);
        lists.list(kind, self.customs.len(), move |i| {
            rounds
                .get(rounds.customs[i])
                .map_or_else(TokenStream::new, |r| make(&r))
        })
    }
}

/// How state `sid` is generated as a round of the app; `None` when the runtime does not run its kind.
/// `none_handled`: the state has a transition for its `none` outcome, so a `None` payload means something.
pub(in crate::codegen) fn app_round(
    m: &Machine,
    sid: StateId,
    none_handled: bool,
) -> Option<AppRound> {
    let s = m.state(sid);
    let kind = s.round_kind();
    let elects = s.round().is_some_and(|r| r.elects_keeper.is_some());
    let wire = wire(s, kind, elects, none_handled)?;
    let check = if !elects {
        quote! {}
    } else if wire.optional {
        quote! {
            if let ::core::option::Option::Some(candidate) = &p {
                keepers.check(candidate)?;
            }
        }
    } else {
        quote! { keepers.check(&p)?; }
    };
    let (write, uses_value) = write(m, s);
    let confirmations = s
        .round()
        .and_then(|r| r.confirmations)
        .map_or(0, |(n, _)| n);
    Some(AppRound {
        sid,
        state: variant(&s.name.text),
        method: snake(&s.name.text),
        round_ty: wire.round_ty,
        wire_ty: wire.wire_ty,
        submit: wire.submit,
        check,
        write,
        uses_value,
        elects,
        custom: kind == RoundKind::Custom,
        confirmations,
        docs: docs(s, kind, elects, none_handled),
    })
}

/// The runtime types of a round of kind `kind`, whose payload is the written one (an agent address when it
/// elects a keeper); `None` for a kind the runtime does not run.
fn wire(s: &State, kind: RoundKind, elects: bool, none_handled: bool) -> Option<Wire> {
    let agent = quote! { ::fsmc_runtime::app::AgentId };
    let t = match s.payload() {
        Some(ty) if !elects => rust_type(ty),
        _ if elects => agent.clone(),
        _ => quote! { () },
    };
    let opt = |ty: &TokenStream| quote! { ::core::option::Option<#ty> };
    let (round_ty, wire_ty, submit, optional) = match kind {
        RoundKind::CollectSameUntilAll => (
            quote! { CollectSameUntilAll<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectDifferentUntilAll => (
            quote! { CollectDifferentUntilAll<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectSameUntilThreshold if none_handled => (
            quote! { CollectSameUntilThreshold<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::CollectSameUntilThreshold => (
            quote! { CollectSameUntilThreshold<#agent, #t> },
            t.clone(),
            quote! { ::core::option::Option::Some(p) },
            false,
        ),
        RoundKind::CollectDifferentUntilThreshold => (
            quote! { CollectDifferentUntilThreshold<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::CollectNonEmptyUntilThreshold => (
            quote! { CollectNonEmptyUntilThreshold<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::OnlyKeeperSends => (
            quote! { OnlyKeeperSends<#agent, #t> },
            opt(&t),
            quote! { p },
            true,
        ),
        RoundKind::Voting if none_handled => (
            quote! { Voting<#agent> },
            quote! { ::core::option::Option<bool> },
            quote! { p },
            true,
        ),
        RoundKind::Voting => (
            quote! { Voting<#agent> },
            quote! { bool },
            quote! { ::core::option::Option::Some(p) },
            false,
        ),
        RoundKind::Custom => (
            quote! { Custom<#agent, #t> },
            t.clone(),
            quote! { p },
            false,
        ),
        RoundKind::Degenerate => return None,
    };
    Some(Wire {
        round_ty,
        wire_ty,
        submit,
        optional,
    })
}

/// Statements writing the decided value `v` into `data` (one key takes it, several the fields of a tuple), and
/// whether they use `v`.
fn write(m: &Machine, s: &State) -> (TokenStream, bool) {
    let fields: Vec<Ident> = s
        .writes
        .iter()
        .map(|(k, _)| snake(&m.key(*k).name.text))
        .collect();
    match fields.as_slice() {
        [] => (quote! {}, false),
        [one] => (
            quote! { data.#one = ::core::option::Option::Some(v); },
            true,
        ),
        many => {
            let parts: Vec<Ident> = (0..many.len())
                .map(|i| Ident::new(&format!("v{i}"), Span::call_site()))
                .collect();
            (
                quote! {
                    let (#(#parts,)*) = v;
                    #(data.#many = ::core::option::Option::Some(#parts);)*
                },
                true,
            )
        }
    }
}

/// The docs of the round's behaviour method.
fn docs(s: &State, kind: RoundKind, elects: bool, none_handled: bool) -> Vec<String> {
    let mut docs = s.docs.to_vec();
    if docs.is_empty() {
        docs.push(format!("The proactive action of `{}`.", s.name));
    }
    docs.push(String::new());
    docs.push(format!(
        "Runs in the `{}` round; returns this agent's payload, or abstains (nothing is sent; the round's timeout \
         covers it). It may wait on I/O across blocks; it is dropped when the round ends.{}",
        kind.name(),
        match kind {
            RoundKind::Custom => " The app's `Rounds` implementation decides the round from every payload.",
            RoundKind::OnlyKeeperSends =>
                " Only the keeper is asked; `None` reports that it failed.",
            RoundKind::CollectNonEmptyUntilThreshold => " `None` contributes nothing.",
            RoundKind::CollectSameUntilThreshold if none_handled =>
                " `None` votes for \"nothing to decide\" (the round's `none` outcome).",
            RoundKind::Voting if none_handled => " `None` abstains.",
            _ => "",
        }
    ));
    if s.round().is_some_and(|r| r.registration.is_some()) {
        docs.push(
            "Every agent of the genesis is asked: the agents whose payloads the round collects become the participants."
                .into(),
        );
    }
    if elects {
        docs.push(
            "The payload is the agent proposed as keeper: a participant that has not failed as keeper in this period \
             (`ctx.next_keeper(seed)` computes one)."
                .into(),
        );
    }
    docs
}
