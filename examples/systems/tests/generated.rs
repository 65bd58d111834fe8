//! The tests fsmc generates from every shipped spec, compiled and run: one per transition of each plain machine
//! and each Open Autonomy app (every round outcome and timeout, on blocks the generator synthesises).

mod oracle {
    fsmc_runtime::include_fsm!("../../specs/oracle/oracle.fsm", tests);
}

mod turnstile {
    fsmc_runtime::include_fsm!("../pregenerated/turnstile.fsm", tests);
}
