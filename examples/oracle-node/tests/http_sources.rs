//! The oracle over Malachite, four processes on 127.0.0.1, with the agents' observations fetched over HTTP from
//! the example's price sources (served by this test): agent 2's source fails, agent 1's is slow and stalls on its
//! first request. The nodes' traces show the abstentions and the observation round's timeout, and the nodes
//! agree on every height. Every wait has a deadline; the processes are killed when the test ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fsmc_examples::oracle::oracle_abci_app::Spec;
use fsmc_examples::oracle::sources::{Sources, TIMEOUT_MS};
use fsmc_malachite::config::{TestnetOptions, write_testnet};
use fsmc_malachite::launch::{NodeProcess, read_trace, trace_files};
use fsmc_runtime::app::{AppHash, AppSpec};

const BINARY: &str = env!("CARGO_BIN_EXE_oracle-node");

/// Everything node `home` printed, across restarts.
fn output(home: &Path) -> String {
    trace_files(home)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect()
}

/// The period node `home` last reported.
fn period(home: &Path) -> u64 {
    read_trace(&trace_files(home))
        .last()
        .map_or(0, |l| l.period)
}

#[test]
fn nodes_fetch_prices_over_http_abstain_and_time_out() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let sources = Sources::start(runtime.handle()).unwrap();
    let dir = tempfile::Builder::new()
        .prefix("fsmc-oracle-http-")
        .tempdir()
        .unwrap();
    let options = TestnetOptions {
        block_interval_ms: 150,
        timeout_propose_ms: 600,
        ..TestnetOptions::new(4, Spec::FINGERPRINT)
    };
    let homes: Vec<PathBuf> = write_testnet(dir.path(), &options).unwrap();
    // Dropping a process kills it, when the test ends or fails.
    let mut nodes: Vec<NodeProcess> = homes
        .iter()
        .enumerate()
        .map(|(i, home)| {
            let url = sources.for_agent(i).url();
            NodeProcess::start(Path::new(BINARY), home, &["--price-source", &url]).unwrap()
        })
        .collect();

    // The first observation round waits for its 30 s timeout (agent 1's first request stalls); a period
    // follows within seconds.
    let started = Instant::now();
    while !homes.iter().all(|h| period(h) >= 1) {
        for (i, node) in nodes.iter_mut().enumerate() {
            assert!(
                node.exited().is_none(),
                "node-{i} exited:\n{}",
                output(&homes[i])
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "no period in 150 s; node-0 printed:\n{}",
            output(&homes[0])
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(nodes);

    let out: Vec<String> = homes.iter().map(|h| output(h)).collect();
    assert!(
        out[2].contains("abstained: price source answered HTTP 503"),
        "{}",
        out[2]
    );
    assert!(
        out[1].contains(&format!(
            "abstained: price source timed out after {TIMEOUT_MS} ms"
        )),
        "{}",
        out[1]
    );
    for o in [&out[0], &out[3]] {
        assert!(!o.contains("abstained"), "{o}");
    }
    assert!(
        out[0].contains("CollectObservationRound-ROUND_TIMEOUT->CollectObservationRound"),
        "{}",
        out[0]
    );
    assert!(sources.failing.requests() >= 1 && sources.normal.requests() >= 2);

    // Every node committed the same hash at every height they share.
    let mut by_height: BTreeMap<u64, AppHash> = BTreeMap::new();
    for (i, home) in homes.iter().enumerate() {
        for line in read_trace(&trace_files(home)) {
            let agreed = *by_height.entry(line.height).or_insert(line.app_hash);
            assert_eq!(agreed, line.app_hash, "node-{i} at height {}", line.height);
        }
    }
}
