//! The oracle's three price sources on 127.0.0.1, serving until the process is stopped: for agents that run
//! elsewhere, such as `oracle-node start --price-source URL` on the engine.
//!
//! Prints one line per source: its URL, and the agents the oracle example gives it (agents 0 and 3 the normal
//! source, 1 the slow one, 2 the failing one).

use fsmc_examples::oracle::sources::{SLOW_MS, STALL_MS, Sources};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let sources = Sources::start(runtime.handle())?;
    println!("normal   {}  agents 0 and 3", sources.normal.url());
    println!(
        "slow     {}  agent 1 (answers after {SLOW_MS} ms, every third request after {STALL_MS} ms)",
        sources.slow.url()
    );
    println!("failing  {}  agent 2 (answers 503)", sources.failing.url());
    // The sources serve on the runtime's thread; this one only keeps the process alive until it is stopped.
    loop {
        std::thread::park();
    }
}
