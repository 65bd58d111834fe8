fsmc_runtime::fsm!("machine Door { event GO; start default state A; (A, GO) -> A; }", strict);

fn main() {}
