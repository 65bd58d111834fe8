// A payload type of the crate that lacks what a payload needs: one error names the type, the state and the
// spec's line, and nothing inside the runtime is reported.
#[derive(Clone, Debug)]
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
