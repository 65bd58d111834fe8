//! The metrics and status endpoints of a running node, scraped over HTTP; a node without them opens no port
//! but its own.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use fsmc_malachite::config::free_ports;

use super::{network, wait};

/// The body of `GET path` on 127.0.0.1:`port`.
fn get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .expect("a body")
}

/// The value of the sample `name{labels}` in a Prometheus text exposition.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no {series} in:\n{text}"))
}

/// The TCP ports process `pid` listens on, from its socket descriptors and the kernel's socket tables.
fn listening_ports(pid: u32) -> BTreeSet<u16> {
    let inodes: BTreeSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("fds")
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let mut ports = BTreeSet::new();
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default();
        for row in text.lines().skip(1) {
            let cols: Vec<&str> = row.split_whitespace().collect();
            // Column 3 is the state (0A: listening), column 9 the socket's inode.
            if cols.len() > 9 && cols[3] == "0A" && inodes.contains(cols[9]) {
                let port = cols[1].rsplit(':').next().expect("port");
                ports.insert(u16::from_str_radix(port, 16).expect("hex port"));
            }
        }
    }
    ports
}

pub(super) fn the_metrics_and_status_endpoints_answer_and_are_off_by_default() {
    let mut net = network("fsmc-endpoints-test", 4, 100, Duration::from_secs(120));
    let ports = free_ports(2).expect("ports");
    let (metrics, status) = (ports[0].to_string(), ports[1].to_string());
    net.start(0, &["--metrics", &metrics, "--status", &status])
        .expect("start");
    for i in 1..4 {
        net.start(i, &[]).expect("start");
    }
    wait(
        &mut net,
        "every node decided 5 heights",
        Duration::from_secs(60),
        |net| (0..4).all(|i| net.height(i) >= 5),
    );

    let first = get(ports[0], "/metrics");
    let height = sample(&first, "fsmc_height{moniker=\"node-0\"}");
    assert!(height >= 5.0, "{height}");
    assert!(
        first.contains("fsmc_app_state{moniker=\"node-0\",state=\"CountRound\"} 1"),
        "{first}"
    );
    assert!(
        first.contains("fsmc_block_apply_seconds_count{moniker=\"node-0\"}"),
        "{first}"
    );
    // The engine's own metrics are in the same registry.
    assert!(
        first.contains("malachitebft_core_consensus_time_per_block"),
        "{first}"
    );
    wait(
        &mut net,
        "node 0 decided 5 heights more",
        Duration::from_secs(30),
        |net| net.height(0) as f64 >= height + 5.0,
    );
    let later = get(ports[0], "/metrics");
    assert!(sample(&later, "fsmc_height{moniker=\"node-0\"}") >= height + 5.0);
    assert!(
        sample(&later, "fsmc_block_apply_seconds_count{moniker=\"node-0\"}")
            > sample(&first, "fsmc_block_apply_seconds_count{moniker=\"node-0\"}")
    );

    let status: serde_json::Value = serde_json::from_str(&get(ports[1], "/status")).expect("json");
    assert!(status["height"].as_u64().expect("height") >= 10, "{status}");
    assert_eq!(
        status["app_hash"].as_str().map(str::len),
        Some(64),
        "{status}"
    );
    assert_eq!(status["state"], "CountRound", "{status}");
    assert_eq!(status["chain_id"], "fsmc-local", "{status}");
    assert_eq!(status["catching_up"], false, "{status}");
    wait(
        &mut net,
        "node 0 counts its 3 peers",
        Duration::from_secs(30),
        |_| {
            let status: serde_json::Value =
                serde_json::from_str(&get(ports[1], "/status")).expect("json");
            status["peers"] == 3
        },
    );
    // Each endpoint answers its own path only.
    let mut stream = TcpStream::connect(("127.0.0.1", ports[1])).expect("connect");
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");

    // Node 0 listens on its p2p port and its two endpoints; node 1, with neither configured, on its p2p port
    // alone.
    let pid0 = net.node(0).and_then(|n| n.pid()).expect("running");
    let pid1 = net.node(1).and_then(|n| n.pid()).expect("running");
    let open0 = listening_ports(pid0);
    assert!(
        open0.contains(&ports[0]) && open0.contains(&ports[1]),
        "{open0:?}"
    );
    assert_eq!(open0.len(), 3, "{open0:?}");
    assert_eq!(
        listening_ports(pid1).len(),
        1,
        "{:?}",
        listening_ports(pid1)
    );
}
