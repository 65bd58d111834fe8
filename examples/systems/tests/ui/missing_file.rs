fsmc_runtime::include_fsm!("specs/does_not_exist.fsm");

fn main() {}
