//! The parts a round plays in a period besides deciding: `registration;` (it makes the agents it collected the
//! participants) and `elects_keeper;` (it agrees on the keeper of later `only_keeper_sends` rounds), each on a
//! round kind that can play it; and `confirmations N;` (it keeps collecting after its threshold) on a round a
//! threshold decides.

use crate::spec::State;
use crate::spec::abci::Round;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_vocab::abci::RoundKind;

/// `registration;` and `elects_keeper;` on rounds that can play those parts, and `confirmations N;` on a round
/// a threshold decides.
pub(super) fn check(st: &State, round: &Round, kind: RoundKind, out: &mut Vec<Diagnostic>) {
    use RoundKind as K;
    if let Some((_, span)) = round.confirmations
        && !matches!(
            kind,
            K::CollectSameUntilThreshold
                | K::CollectDifferentUntilThreshold
                | K::CollectNonEmptyUntilThreshold
        )
    {
        out.push(
            Diagnostic::new(
                Code::BadConfirmations,
                format!("a `{}` round does not wait for confirmations", kind.name()),
            )
            .at(span, "only a round a threshold decides keeps collecting after it")
            .help(
                "confirmations belong to a `collect_same_until_threshold`, `collect_different_until_threshold` \
                 or `collect_non_empty_until_threshold` round",
            ),
        );
    }
    if let Some(span) = round.registration
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
    let Some(span) = round.elects_keeper else {
        return;
    };
    if let Some(reg) = round.registration {
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
