//! What a round writes must fit what it decides (E0407): generated code assigns the decided value to the keys.

use super::types;
use crate::spec::abci::Round;
use crate::spec::{Machine, State};
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::abci::RoundKind;

/// What a round writes must fit what it decides: one key takes the value, several keys take the fields of a
/// tuple value in order (upstream's tuple `selection_key`). Collections and ballots go to one key. Generated code
/// assigns the value to the key, so their types must be the same (compared as written, ignoring path prefixes:
/// `std::collections::BTreeMap<String, u64>` is `BTreeMap<String, u64>`).
pub(super) fn check(
    m: &Machine,
    st: &State,
    round: &Round,
    kind: RoundKind,
    out: &mut Vec<Diagnostic>,
) {
    use RoundKind as K;
    let (Some(first), Some(last)) = (st.writes.first(), st.writes.last()) else {
        return;
    };
    let n = st.writes.len();
    let span = first.1.to(last.1);
    let payload = if round.elects_keeper.is_some() {
        "String"
    } else {
        st.payload().unwrap_or("()")
    };
    let Ok(payload_ty) = syn::parse_str::<syn::Type>(payload) else {
        return;
    };
    let t = types::canonical(&payload_ty);
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
        _ if round.elects_keeper.is_some() => Err((
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
                tuple.elems.iter().map(types::canonical).collect()
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
        if types::canonical(&key_ty) != *want {
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
