//! Every revision of every `fsm_specification*.yaml` in a clone of upstream Open Autonomy, classified by
//! `fsmc diff`: the counts (files added or removed, text only, label only, machine), then, for the label-only
//! and machine revisions, the class `fsmc diff` gives each.
//!
//! `cargo run -p fsmc-benches --release --bin oa_history -- PATH/TO/open-autonomy [--list]`
//!
//! `--list` prints every modification too, one a line: the commit, the path, what it changes (`text`, `label`,
//! `machine`), the class `fsmc diff` gives it and its most severe finding; to compare with another reading of
//! the same history.
//!
//! The clone needs its history (every ref); a shallow one gives fewer revisions.

use fsmc_benches::history::{Revision, classify};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let list = args.iter().any(|a| a == "--list");
    let Some(repo) = args.iter().find(|a| *a != "--list").map(PathBuf::from) else {
        eprintln!("usage: oa_history PATH/TO/open-autonomy [--list]");
        return ExitCode::from(2);
    };
    let history = match classify(&repo) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("oa_history: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "{} revisions: {} add or remove a file, {} change only the text, {} only the label, {} the machine",
        history.revisions(),
        history.added_or_removed,
        history.text.len(),
        history.label.len(),
        history.machine.len()
    );
    for (what, revisions) in [
        ("label only", &history.label),
        ("machine", &history.machine),
    ] {
        let mut by_class: BTreeMap<String, usize> = BTreeMap::new();
        for r in revisions.iter() {
            *by_class.entry(class(r)).or_default() += 1;
        }
        println!("{what}: {by_class:?}");
    }
    for r in &history.label {
        if class(r) != "interop" {
            let first = r.findings.iter().max_by_key(|f| f.class);
            println!(
                "  {} {}: {}",
                &r.commit[..10],
                r.path,
                first.map_or("", |f| f.message.as_str())
            );
        }
    }
    if list {
        for (what, revisions) in [
            ("text", &history.text),
            ("label", &history.label),
            ("machine", &history.machine),
        ] {
            for r in revisions.iter() {
                let first = r.findings.iter().max_by_key(|f| f.class);
                println!(
                    "{} {} {what} {} {}",
                    r.commit,
                    r.path,
                    r.verdict().map_or("none", |c| c.id()),
                    first.map_or("", |f| f.message.as_str())
                );
            }
        }
    }
    ExitCode::SUCCESS
}

fn class(r: &Revision) -> String {
    r.verdict()
        .map_or("no change".to_string(), |c| c.id().to_string())
}
