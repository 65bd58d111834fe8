// A payload type without `Debug` (nor `Ord` or borsh), which the generated `Round` shows: still one error, the
// `fsm!` macro's, and none from the generated `Debug` of `Round`.
#[derive(Clone)]
pub struct Money(u64);

fsmc_runtime::fsm!(r#"
machine PriceAbciApp: abci {
    event DONE;
    start default state ObserveRound: custom { payload "crate::Money"; }
    final state FinishedObserveRound;
    (ObserveRound, DONE) -> FinishedObserveRound;
}
"#);

fn main() {}
