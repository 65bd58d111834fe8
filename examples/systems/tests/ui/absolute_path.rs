fsmc_runtime::include_fsm!("/etc/door.fsm");

fn main() {}
