// A key type without `Clone` (nor borsh), which the generated `Data`, `XWrites` and period carry-over copy: still
// one error, the `fsm!` macro's, and none from the generated impls that copy it.
#[derive(Debug)]
pub struct Price(u64);

fsmc_runtime::fsm!(r#"
machine PriceAbciApp: abci {
    event DONE;
    key price: crate::Price;
    start default state ObserveRound: custom { payload "u64"; writes price; }
    final state FinishedObserveRound;
    (ObserveRound, DONE) -> FinishedObserveRound;
}
"#);

fn main() {}
