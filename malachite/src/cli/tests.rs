//! The command line as clap reads it, with an app's own flags; the trace lines it prints and reads back; the
//! periods it times.

use clap::Parser;

use super::{Cli, Command, NoArgs};
use crate::launch::{Periods, TraceLine};
use fsmc_runtime::app::AppHash;

#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
struct Flags {
    /// A flag of the app's own.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
}

#[test]
fn start_takes_the_apps_own_flags_and_run_passes_them_on() {
    let cli = Cli::<Flags>::try_parse_from(["node", "start", "--home", "h", "--think-ms", "7"])
        .expect("parses");
    let Command::Start(start) = cli.command else {
        panic!("not start");
    };
    assert_eq!(start.home, std::path::PathBuf::from("h"));
    assert_eq!(start.app, Flags { think_ms: 7 });

    let cli = Cli::<Flags>::try_parse_from([
        "node",
        "run",
        "--nodes",
        "3",
        "--periods",
        "2",
        "--",
        "--think-ms",
        "5",
    ])
    .expect("parses");
    let Command::Run(run) = cli.command else {
        panic!("not run");
    };
    assert_eq!(run.net.nodes, 3);
    assert_eq!(run.periods, Some(2));
    assert_eq!(run.start_args, ["--think-ms", "5"]);

    // An app without flags refuses one.
    assert!(
        Cli::<NoArgs>::try_parse_from(["node", "start", "--home", "h", "--think-ms", "7"]).is_err()
    );
    assert!(
        Cli::<NoArgs>::try_parse_from(["node", "start"]).is_err(),
        "--home is required"
    );
}

/// A program with a command line of its own: the node's commands beside its own.
#[derive(clap::Parser)]
struct Mine {
    #[command(subcommand)]
    command: MyCommand,
}

#[derive(clap::Subcommand)]
enum MyCommand {
    /// The node's commands, flattened among the program's own.
    #[command(flatten)]
    Node(Command<Flags>),
    /// A command of the program's own.
    Hello,
}

#[test]
fn a_program_puts_the_node_commands_beside_its_own() {
    let mine = Mine::try_parse_from(["mine", "hello"]).expect("parses");
    assert!(matches!(mine.command, MyCommand::Hello));
    let mine =
        Mine::try_parse_from(["mine", "start", "--home", "h", "--think-ms", "3"]).expect("parses");
    let MyCommand::Node(Command::Start(start)) = mine.command else {
        panic!("not the node's start");
    };
    assert_eq!(start.app, Flags { think_ms: 3 });
    let mine = Mine::try_parse_from(["mine", "inspect", "--home", "h"]).expect("parses");
    assert!(matches!(
        mine.command,
        MyCommand::Node(Command::Inspect { .. })
    ));
}

fn line(height: u64, period: u64, time_ms: u64) -> TraceLine {
    TraceLine {
        height,
        app_hash: AppHash([height as u8; 32]),
        period,
        keeper: None,
        state: "SomeRound".into(),
        txs: 2,
        time_ms,
    }
}

#[test]
fn a_trace_line_reads_back_as_written() {
    let mut l = line(12, 3, 4_025);
    l.keeper = Some("ab12".into());
    let text = l.format("rejected=0 A-DONE->B");
    assert!(text.contains(" time=+4.025s "), "{text}");
    assert_eq!(TraceLine::parse(&text), Some(l));
    assert_eq!(
        TraceLine::parse("acted height=3 round=2 abstained: down"),
        None
    );
    assert_eq!(TraceLine::parse("applied height=1"), None);
}

#[test]
fn periods_are_timed_from_one_period_start_to_the_next_leaving_out_the_first() {
    // Period 0 (registration) from height 1, period 1 from 4, period 2 from 12, period 3 from 19.
    let mut trace = Vec::new();
    for h in 1..=20u64 {
        let period = match h {
            1..=3 => 0,
            4..=11 => 1,
            12..=18 => 2,
            _ => 3,
        };
        trace.push(line(h, period, h * 20));
    }
    let periods = Periods::of(&trace);
    assert_eq!(periods.heights, [8, 7]);
    assert_eq!(periods.ms, [160, 140]);
    assert_eq!(periods.median_heights(), Some(8));
    assert_eq!(periods.median_ms(), Some(160));
    assert_eq!(periods.height_ms.len(), 15);
    assert_eq!(periods.median_height_ms(), Some(20));
    assert_eq!(
        Periods::of(&trace[..5]),
        Periods::default(),
        "no whole period yet"
    );
}

#[test]
fn testnet_takes_hosts_from_flags_and_a_file_and_start_takes_the_endpoints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("hosts");
    std::fs::write(&file, "# the rest\n10.0.0.2\n\n10.0.0.3:9  # the last\n").expect("write");
    let cli = Cli::<NoArgs>::try_parse_from([
        "node",
        "testnet",
        "--host",
        "10.0.0.1",
        "--hosts",
        &file.display().to_string(),
        "--listen-any",
        "--dir",
        "d",
    ])
    .expect("parses");
    let Command::Testnet { hosts, .. } = cli.command else {
        panic!("not testnet");
    };
    assert_eq!(
        hosts.hosts().expect("read"),
        ["10.0.0.1", "10.0.0.2", "10.0.0.3:9"]
    );
    assert!(hosts.listen_any);
    let missing = super::HostArgs {
        hosts_file: Some(dir.path().join("none")),
        ..super::HostArgs::default()
    };
    assert!(missing.hosts().is_err());

    let cli = Cli::<NoArgs>::try_parse_from([
        "node",
        "start",
        "--home",
        "h",
        "--metrics",
        "9100",
        "--status",
        "0.0.0.0:26657",
    ])
    .expect("parses");
    let Command::Start(start) = cli.command else {
        panic!("not start");
    };
    assert_eq!(start.metrics.as_deref(), Some("9100"));
    assert_eq!(start.status.as_deref(), Some("0.0.0.0:26657"));
}
