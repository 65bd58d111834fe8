// A payload type of the crate that lacks what a payload needs: the first error names the type, what it lacks,
// and (in the function it is required by) the state and the spec's line.
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
