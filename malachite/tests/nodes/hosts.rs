//! A network whose nodes are on four hosts, for real but without leaving the machine: four network namespaces,
//! each with its own address, joined by a bridge in a fifth, one node in each. One node is killed with
//! SIGKILL and restarted; every node commits the same app hashes. It needs root and `ip`: without either it
//! says so and passes. Every namespace it made is deleted when it ends, on failure too (deleting a namespace
//! deletes the links in it).

use std::process::Command;
use std::time::Duration;

use fsmc_malachite::config::TestnetOptions;
use fsmc_malachite::local::LocalNet;
use fsmc_runtime::app::AppSpec;

use super::{chain, nodes_agree, wait};

/// Runs `ip` with `args`; fails with its error output.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The network namespaces made so far, deleted when dropped.
struct Namespaces(Vec<String>);

impl Namespaces {
    fn add(&mut self, name: String) -> Result<(), String> {
        ip(&["netns", "add", &name])?;
        self.0.push(name);
        Ok(())
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in self.0.iter().rev() {
            if let Err(e) = ip(&["netns", "delete", name]) {
                eprintln!("cleaning up: {e}");
            }
        }
    }
}

/// Why this machine cannot run the test, if it cannot.
fn unable() -> Option<String> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("not root".into());
    }
    match Command::new("ip").arg("-V").output() {
        Ok(out) if out.status.success() => None,
        _ => Some("`ip` (iproute2) is missing".into()),
    }
}

/// Namespaces `{tag}-0` … for `n` nodes, node I at 10.77.0.(I+1)/24, their links joined by a bridge in
/// `{tag}-hub`; nothing is made in the machine's own namespace.
fn bridged(tag: &str, n: usize, made: &mut Namespaces) -> Result<Vec<String>, String> {
    let hub = format!("{tag}-hub");
    made.add(hub.clone())?;
    ip(&["-n", &hub, "link", "add", "br0", "type", "bridge"])?;
    ip(&["-n", &hub, "link", "set", "br0", "up"])?;
    let mut names = Vec::new();
    for i in 0..n {
        let ns = format!("{tag}-{i}");
        made.add(ns.clone())?;
        let (inner, outer) = (format!("v{i}"), format!("p{i}"));
        ip(&[
            "-n", &hub, "link", "add", &inner, "type", "veth", "peer", "name", &outer,
        ])?;
        ip(&["-n", &hub, "link", "set", &inner, "netns", &ns])?;
        ip(&["-n", &hub, "link", "set", &outer, "master", "br0", "up"])?;
        let addr = format!("10.77.0.{}/24", i + 1);
        ip(&["-n", &ns, "addr", "add", &addr, "dev", &inner])?;
        ip(&["-n", &ns, "link", "set", &inner, "up"])?;
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        names.push(ns);
    }
    Ok(names)
}

pub(super) fn four_nodes_on_four_network_namespaces_survive_a_kill() {
    if let Some(why) = unable() {
        println!("skipped: four network namespaces need root and `ip`: {why}");
        return;
    }
    // Declared first, dropped last: the nodes are killed before their namespaces are deleted.
    let mut made = Namespaces(Vec::new());
    let tag = format!("fsmc{}", std::process::id());
    let spaces = bridged(&tag, 4, &mut made).unwrap_or_else(|e| panic!("{e}"));
    let options = TestnetOptions {
        block_interval_ms: 100,
        timeout_propose_ms: 600,
        hosts: (1..=4).map(|i| format!("10.77.0.{i}")).collect(),
        ..TestnetOptions::new(0, chain::toy_abci_app::Spec::FINGERPRINT)
    };
    let program = std::env::current_exe().expect("this program");
    let mut net = LocalNet::new(
        "fsmc-hosts-test",
        &program,
        &[],
        &options,
        Duration::from_secs(150),
    )
    .expect("testnet");
    let start = |net: &mut LocalNet, i: usize| {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", &spaces[i]])
            .arg(&program)
            .args(["chain-spec", "start", "--home"])
            .arg(&net.homes()[i]);
        net.spawn(i, command).expect("start");
    };
    for i in 0..4 {
        start(&mut net, i);
    }
    wait(
        &mut net,
        "every node decided 10 heights",
        Duration::from_secs(60),
        |net| (0..4).all(|i| net.height(i) >= 10),
    );
    net.kill(2).expect("kill -9");
    let before = net.height(0);
    wait(
        &mut net,
        "three nodes go on for 10 heights",
        Duration::from_secs(30),
        |net| [0, 1, 3].iter().all(|&i| net.height(i) >= before + 10),
    );
    start(&mut net, 2);
    let target = net.height(0) + 5;
    wait(
        &mut net,
        "the restarted node catches up",
        Duration::from_secs(60),
        |net| net.height(2) >= target,
    );
    net.stop_all();
    nodes_agree(&net, &[0, 1, 2, 3], 20);
}
