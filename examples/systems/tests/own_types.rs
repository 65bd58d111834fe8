//! A spec whose payload and key are types of the crate: the generated app encodes, decodes and decides with
//! them, and an agent's behaviour and a custom round see the crate's own payload type, not a wrapper.

use fsmc_runtime::app::{Abstain, App, Block, Genesis, Tx, encode};
use fsmc_runtime::borsh::{BorshDeserialize, BorshSerialize};
use std::sync::Arc;

/// A payload: everything `fsmc_runtime::app::Payload` asks for, derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, BorshSerialize, BorshDeserialize)]
#[borsh(crate = "fsmc_runtime::borsh")]
pub struct Money(u64);

/// A key's type: what `fsmc_runtime::app::Key` asks for and nothing more (no `PartialEq`: the writes of a custom
/// round are comparable only when their keys' types are).
#[derive(Clone, Debug, BorshSerialize, BorshDeserialize)]
#[borsh(crate = "fsmc_runtime::borsh")]
pub struct Price {
    total: u64,
}

fsmc_runtime::fsm!(
    r#"
machine PriceAbciApp: abci {
    event DONE;
    key price: crate::Price;
    start default state ObserveRound: custom { payload "crate::Money"; writes price; }
    final state FinishedObserveRound;
    (ObserveRound, DONE) -> FinishedObserveRound;
}
"#
);

use price_abci_app::{
    Behaviour, Context, Deciding, ObserveRoundOutcome, ObserveRoundWrites, Rounds, Spec, State,
};

const AGENTS: [&str; 4] = ["a", "b", "c", "d"];

/// An agent that pays what it is given.
struct Payer(u64);

impl Behaviour for Payer {
    async fn observe_round(&self, ctx: Context) -> Result<Money, Abstain> {
        assert_eq!(ctx.state(), State::ObserveRound);
        Ok(Money(self.0))
    }
}

/// Decides once every agent has paid: the price is the sum of what they paid.
struct Sum;

impl Rounds for Sum {
    fn observe_round(
        &self,
        round: &Deciding<'_, Money>,
    ) -> Option<(ObserveRoundOutcome, ObserveRoundWrites)> {
        let paid = round.payloads();
        (paid.len() == AGENTS.len()).then(|| {
            let total = paid.values().copied().map(|Money(m)| m).sum();
            (
                ObserveRoundOutcome::Done,
                ObserveRoundWrites {
                    price: Price { total },
                },
            )
        })
    }
}

#[test]
fn a_round_of_the_crates_own_types_decides_and_writes_them() {
    let logic: Arc<dyn Rounds> = Arc::new(Sum);
    let mut app = App::<Spec>::with_rounds(Genesis::new(AGENTS, 0), logic).unwrap();
    assert_eq!(app.state(), State::ObserveRound);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let txs = AGENTS
        .iter()
        .zip(1..)
        .map(|(agent, paid)| {
            let ctx = app.context(&agent.to_string()).unwrap();
            let money = runtime.block_on(Payer(paid).observe_round(ctx)).unwrap();
            Tx {
                sender: agent.to_string(),
                data: app.submission(encode(&money).unwrap()),
            }
        })
        .collect();
    app.deliver_block(&Block {
        height: 1,
        time_ms: 1_000,
        txs,
    })
    .unwrap();
    assert_eq!(app.state(), State::FinishedObserveRound);
    assert_eq!(app.data().price().map(|p| p.total), Some(10));
    // `Data` copies and shows the crate's type as derived impls would.
    let data = app.data().clone();
    assert_eq!(
        format!("{data:?}"),
        "Data { price: Some(Price { total: 10 }) }"
    );
}

#[test]
fn the_round_in_progress_and_the_writes_copy_and_show_the_crates_types() {
    let writes = ObserveRoundWrites {
        price: Price { total: 3 },
    };
    assert_eq!(
        format!("{:?}", writes.clone()),
        "ObserveRoundWrites { price: Price { total: 3 } }"
    );
    let logic: Arc<dyn Rounds> = Arc::new(Sum);
    let app = App::<Spec>::with_rounds(Genesis::new(AGENTS, 0), logic).unwrap();
    let round = app.round().cloned().expect("a round in progress");
    let shown = format!("{round:?}");
    assert!(shown.starts_with("ObserveRound(Custom {"), "{shown}");
}

/// The writes of a custom round whose keys' types are comparable are comparable too.
mod comparable {
    fsmc_runtime::fsm!(
        r#"
machine CountAbciApp: abci {
    event DONE;
    key count: u64;
    key label: crate::comparable::Label;
    start default state CountRound: custom { payload "u64"; writes count, label; }
    final state FinishedCountRound;
    (CountRound, DONE) -> FinishedCountRound;
}
"#
    );

    #[derive(
        Clone,
        Debug,
        PartialEq,
        fsmc_runtime::borsh::BorshSerialize,
        fsmc_runtime::borsh::BorshDeserialize,
    )]
    #[borsh(crate = "fsmc_runtime::borsh")]
    pub struct Label(pub String);

    #[test]
    fn writes_compare_by_every_key() {
        use count_abci_app::CountRoundWrites;
        let w = |count, label: &str| CountRoundWrites {
            count,
            label: Label(label.to_owned()),
        };
        assert_eq!(w(1, "a"), w(1, "a"));
        assert_ne!(w(1, "a"), w(2, "a"));
        assert_ne!(w(1, "a"), w(1, "b"));
    }
}
