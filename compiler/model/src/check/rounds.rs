//! Round rules of Open Autonomy apps: each round kind's outcomes have transitions, at most one timeout and at
//! least one non-timeout transition per non-final round, and final rounds (only those) are degenerate.

use crate::spec::{Machine, Origin, State};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::Profile;
use fsmc_vocab::abci::{Need, RoundKind};

pub(super) fn check(m: &Machine, outgoing: &super::graph::Outgoing, out: &mut Vec<Diagnostic>) {
    if m.profile != Profile::Abci {
        return;
    }
    let conventional = m.conventional_outcome_events();
    for s in m.state_ids() {
        let st = m.state(s);
        let at = st.kind_span.unwrap_or(st.name.span);
        // A final state without a kind is degenerate; a non-final one runs custom decision logic.
        let kind = st.round.unwrap_or(if st.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        });
        if st.is_final && kind != RoundKind::Degenerate {
            out.push(
                Diagnostic::new(
                    Code::FinalNotDegenerate,
                    format!(
                        "final round `{}` is `{}`, not degenerate",
                        st.name,
                        kind.name()
                    ),
                )
                .at(at, "a final round must be `degenerate`")
                .help(format!("write `final state {}: degenerate;`", st.name)),
            );
        }
        if !st.is_final && kind == RoundKind::Degenerate {
            out.push(
                Diagnostic::new(
                    Code::DegenerateNotFinal,
                    format!("degenerate round `{}` is not final", st.name),
                )
                .at(at, "degenerate rounds end the app")
                .help("mark it `final`, or give it a round kind that decides an outcome"),
            );
        }
        // OutcomeKind mappings must be outcomes of this kind, onto non-timeout events.
        for (outcome, e, span) in &st.outcomes {
            if kind != RoundKind::Custom && !kind.outcomes().iter().any(|(o, _)| o == outcome) {
                let can: Vec<String> = kind
                    .outcomes()
                    .iter()
                    .map(|(o, _)| format!("`{}`", o.name()))
                    .collect();
                out.push(
                    Diagnostic::new(
                        Code::BadOutcome,
                        format!(
                            "a `{}` round has no `{}` outcome",
                            kind.name(),
                            outcome.name()
                        ),
                    )
                    .at(*span, "not an outcome of this kind")
                    .help(if can.is_empty() {
                        "this kind emits no outcomes".to_string()
                    } else {
                        format!("its outcomes: {}", can.join(", "))
                    }),
                );
            } else if m.event(*e).timeout.is_some() {
                out.push(
                    Diagnostic::new(
                        Code::BadOutcome,
                        format!(
                            "outcome `{}` is mapped to timeout event `{}`",
                            outcome.name(),
                            m.event(*e).name
                        ),
                    )
                    .at(*span, "a timeout event")
                    .help("timeouts fire on their own; map the outcome to an ordinary event"),
                );
            }
        }
        if st.is_final {
            continue;
        }
        // A composed app's states were checked in their own machines.
        if m.origin != Origin::Composed {
            parts(st, kind, out);
            writes(m, st, kind, out);
        }
        let out_edges = outgoing.of(s);
        // A transition dropped by resolution (reported there) may be the very one these rules look for.
        let partial = m.incomplete || m.transitions.is_empty();
        for (outcome, need) in kind.outcomes() {
            if *need == Need::Optional || partial {
                continue;
            }
            match m.outcome_event_in(s, *outcome, &conventional) {
                Some(e)
                    if out_edges
                        .iter()
                        .any(|&t| m.transitions[t as usize].event == Some(e)) => {}
                Some(e) => out.push(
                    Diagnostic::new(
                        Code::MissingRoundEvent,
                        format!(
                            "round `{}` can emit `{}`{} but has no transition for it",
                            st.name,
                            m.event(e).name,
                            // Name the outcome only when the event is not its conventional name.
                            if m.event(e).name.text == outcome.default_event() {
                                String::new()
                            } else {
                                format!(" (its `{}` outcome)", outcome.name())
                            }
                        ),
                    )
                    .at(st.name.span, format!("a `{}` round", kind.name()))
                    .help(format!(
                        "add `({}, {}) -> NextRound;`",
                        st.name,
                        m.event(e).name
                    )),
                ),
                None => out.push(
                    Diagnostic::new(
                        Code::MissingRoundEvent,
                        format!(
                            "round `{}` can emit `{}` but no event is mapped to it",
                            st.name,
                            outcome.name()
                        ),
                    )
                    .at(st.name.span, format!("a `{}` round", kind.name()))
                    .help(format!(
                        "declare `event {};`, or map the outcome: `{} = EVENT;`",
                        outcome.default_event(),
                        outcome.name()
                    )),
                ),
            }
        }
        // Timeouts are only known for `.fsm` machines: Open Autonomy YAML does not record them.
        if m.origin == Origin::OaYaml || out_edges.is_empty() {
            continue;
        }
        let timeouts: Vec<usize> = out_edges
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| {
                m.transitions[t]
                    .event
                    .is_some_and(|e| m.event(e).timeout.is_some())
            })
            .collect();
        if let [first, rest @ ..] = timeouts.as_slice() {
            for &t in rest {
                out.push(
                    Diagnostic::new(
                        Code::MultipleTimeouts,
                        format!("round `{}` has more than one timeout transition", st.name),
                    )
                    .at(m.transitions[t].event_span, "another timeout")
                    .with(m.transitions[*first].event_span, "first timeout")
                    .help("a round has at most one timeout: keep the shortest and remove the rest"),
                );
            }
        }
        if timeouts.len() == out_edges.len() && !partial {
            out.push(
                Diagnostic::new(
                    Code::OnlyTimeouts,
                    format!("round `{}` can only be left by a timeout", st.name),
                )
                .at(
                    st.name.span,
                    "every transition out of this round is a timeout",
                )
                .help("add a transition on an event the round decides, e.g. `DONE`"),
            );
        }
    }
}

/// `registration;` and `elects_keeper;` on rounds that can play those parts.
fn parts(st: &State, kind: RoundKind, out: &mut Vec<Diagnostic>) {
    use RoundKind as K;
    if let Some(span) = st.registration
        && !matches!(
            kind,
            K::CollectSameUntilAll
                | K::CollectDifferentUntilAll
                | K::CollectSameUntilThreshold
                | K::CollectDifferentUntilThreshold
                | K::CollectNonEmptyUntilThreshold
        )
    {
        out.push(
            Diagnostic::new(
                Code::BadRoundRole,
                format!("a `{}` round cannot register agents", kind.name()),
            )
            .at(
                span,
                "registration needs a round that collects from every agent",
            )
            .help(
                "use a `collect_…` kind: its `done` makes the agents it collected the participants",
            ),
        );
    }
    let Some(span) = st.elects_keeper else {
        return;
    };
    if let Some(reg) = st.registration {
        out.push(
            Diagnostic::new(
                Code::BadRoundRole,
                format!("round `{}` both registers agents and elects a keeper", st.name),
            )
            .at(span, "elects a keeper")
            .with(reg, "registers agents")
            .help("the keeper is chosen among the participants: elect it in a round after registration"),
        );
    }
    if !matches!(kind, K::CollectSameUntilAll | K::CollectSameUntilThreshold) {
        out.push(
            Diagnostic::new(
                Code::BadRoundRole,
                format!("a `{}` round cannot elect a keeper", kind.name()),
            )
            .at(span, "the agents must agree on one keeper")
            .help("elect the keeper in a `collect_same_until_threshold` round"),
        );
    } else if let Some(ty) = st.payload()
        && ty.split_whitespace().collect::<String>() != "String"
    {
        out.push(
            Diagnostic::new(
                Code::BadRoundRole,
                format!("a keeper election's payload is an agent address (`String`), not `{ty}`"),
            )
            .at(st.payload_span().unwrap_or(span), "not an agent address")
            .with(span, "elects a keeper")
            .help(
                "remove `payload`: an election's payload is the address of the agent it proposes",
            ),
        );
    }
}

/// What a round writes must fit what it decides: one key takes the value, several keys take the fields of a
/// tuple value in order (upstream's tuple `selection_key`). Collections and ballots go to one key. Generated code
/// assigns the value to the key, so their types must be the same (compared as written, ignoring path prefixes:
/// `std::collections::BTreeMap<String, u64>` is `BTreeMap<String, u64>`).
fn writes(m: &Machine, st: &State, kind: RoundKind, out: &mut Vec<Diagnostic>) {
    use RoundKind as K;
    let (Some(first), Some(last)) = (st.writes.first(), st.writes.last()) else {
        return;
    };
    let n = st.writes.len();
    let span = first.1.to(last.1);
    let payload = if st.elects_keeper.is_some() {
        "String"
    } else {
        st.payload().unwrap_or("()")
    };
    let Ok(payload_ty) = syn::parse_str::<syn::Type>(payload) else {
        return;
    };
    let t = canonical(&payload_ty);
    // The value a `DONE` writes, as canonical type text, or why several keys cannot take it.
    let value = match kind {
        K::Custom | K::Degenerate => return,
        K::CollectDifferentUntilAll
        | K::CollectDifferentUntilThreshold
        | K::CollectNonEmptyUntilThreshold => Err((
            format!("BTreeMap<String, {t}>"),
            format!(
                "a `{}` round decides a collection of payloads by agent: it writes one key",
                kind.name()
            ),
        )),
        K::Voting => Err((
            "BTreeMap<String, Option<bool>>".to_string(),
            "a `voting` round decides the ballots by agent: it writes one key".to_string(),
        )),
        _ if st.elects_keeper.is_some() => Err((
            t.clone(),
            "a keeper election decides one agent address: it writes at most one key".to_string(),
        )),
        K::CollectSameUntilAll | K::CollectSameUntilThreshold | K::OnlyKeeperSends => Ok(t.clone()),
    };
    let keys: Vec<String> = st
        .writes
        .iter()
        .map(|(k, _)| format!("`{}`", m.key(*k).name))
        .collect();
    let help = "a round writes its decided value to one key, or the fields of a tuple payload to as many keys, in order";
    let mut push = |message: String, at: fsmc_base::source::Span, label: String| {
        let mut d = Diagnostic::new(Code::BadRoundWrites, message)
            .at(at, label)
            .help(help);
        if let Some(p) = st.payload_span() {
            d = d.with(p, "the payload type");
        }
        out.push(d);
    };
    // The types each written key must have, in order.
    let expected: Vec<String> = match (&value, n) {
        (Ok(v) | Err((v, _)), 1) => vec![v.clone()],
        (Err((_, why)), _) => {
            push(why.clone(), span, format!("writes {}", keys.join(", ")));
            return;
        }
        (Ok(_), _) => match &payload_ty {
            syn::Type::Tuple(tuple) if tuple.elems.len() == n => {
                tuple.elems.iter().map(canonical).collect()
            }
            _ => {
                push(
                    format!(
                        "round `{}` writes {n} keys, but its payload `{payload}` is not a tuple of {n}",
                        st.name
                    ),
                    span,
                    format!("writes {}", keys.join(", ")),
                );
                return;
            }
        },
    };
    for ((k, at), want) in st.writes.iter().zip(&expected) {
        let key = m.key(*k);
        let Ok(key_ty) = syn::parse_str::<syn::Type>(&key.ty.text) else {
            continue;
        };
        if canonical(&key_ty) != *want {
            push(
                format!(
                    "round `{}` writes `{}` a `{want}`, but the key is declared `{}`",
                    st.name, key.name, key.ty
                ),
                *at,
                format!("the round decides a `{want}` here"),
            );
        }
    }
}

/// A type as text, with each path reduced to its last segment (and its generic arguments), so the same type
/// written with or without its module path compares equal. The runtime's `AgentId` is a `String`.
/// Text that is not a type (reported elsewhere) compares as written, without spaces.
pub(super) fn canonical_text(text: &str) -> String {
    match syn::parse_str::<syn::Type>(text) {
        Ok(ty) => canonical(&ty),
        Err(_) => text.split_whitespace().collect(),
    }
}

pub(super) fn canonical(ty: &syn::Type) -> String {
    use quote::ToTokens;
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return String::new();
            };
            let name = match last.ident.to_string().as_str() {
                "AgentId" => "String".to_string(),
                other => other.to_string(),
            };
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => {
                    let inner: Vec<String> = args
                        .args
                        .iter()
                        .map(|a| match a {
                            syn::GenericArgument::Type(t) => canonical(t),
                            other => other.to_token_stream().to_string(),
                        })
                        .collect();
                    format!("{name}<{}>", inner.join(", "))
                }
                _ => name,
            }
        }
        syn::Type::Tuple(t) => {
            let inner: Vec<String> = t.elems.iter().map(canonical).collect();
            if inner.len() == 1 {
                format!("({},)", inner.join(", "))
            } else {
                format!("({})", inner.join(", "))
            }
        }
        syn::Type::Array(a) => format!(
            "[{}; {}]",
            canonical(&a.elem),
            a.len.to_token_stream().to_string().replace(' ', "")
        ),
        syn::Type::Slice(s) => format!("[{}]", canonical(&s.elem)),
        syn::Type::Paren(p) => canonical(&p.elem),
        syn::Type::Group(g) => canonical(&g.elem),
        syn::Type::Reference(r) => format!(
            "&{}{}",
            if r.mutability.is_some() { "mut " } else { "" },
            canonical(&r.elem)
        ),
        other => other.to_token_stream().to_string(),
    }
}

/// Events that some non-final round must emit (a required outcome) and that no transition uses: each is
/// reported as a missing round event (E0401), which says more than "unused event" (E0304) would.
pub(super) fn required_but_unused(m: &Machine) -> Vec<bool> {
    let mut out = vec![false; m.events.len()];
    if m.profile != Profile::Abci {
        return out;
    }
    let conventional = m.conventional_outcome_events();
    for s in m.state_ids() {
        let st = m.state(s);
        let kind = st.round.unwrap_or(if st.is_final {
            RoundKind::Degenerate
        } else {
            RoundKind::Custom
        });
        if st.is_final {
            continue;
        }
        for (outcome, need) in kind.outcomes() {
            if let (Need::Required, Some(e)) =
                (*need, m.outcome_event_in(s, *outcome, &conventional))
            {
                out[e.index()] = true;
            }
        }
    }
    for t in &m.transitions {
        if let Some(e) = t.event {
            out[e.index()] = false;
        }
    }
    out
}
