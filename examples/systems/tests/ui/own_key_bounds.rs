// A key type of the crate that lacks what a key needs: one error names the type, the key and the spec's line,
// and nothing inside the runtime is reported.
#[derive(Clone, Debug, PartialEq)]
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
