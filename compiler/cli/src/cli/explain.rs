//! `fsmc explain`: every code with its summary, or one code's long explanation (as `rustc --explain` does).
//!
//! Explanations are Markdown (`diag/explain/*.md`). A terminal shows them as plain text: fences are dropped and
//! code is indented four spaces, so examples stand out without colour and can be copied as they are.

use super::usage_error;
use fsmc_base::diag::{Code, Level, did_you_mean};
use std::io::Write;

pub(super) fn run(code: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(name) = code else {
        let _ = out.write_all(list().as_bytes());
        return 0;
    };
    match Code::lookup(name) {
        Some(c) => {
            let _ = out.write_all(page(c).as_bytes());
            0
        }
        None => {
            let candidates = Code::ALL.iter().flat_map(|c| [c.id(), c.name()]);
            let suggestion = did_you_mean(name, candidates);
            let _ = usage_error(err, &format!("unknown code `{name}`"));
            let _ = match suggestion {
                Some(h) => writeln!(err, "help: {h}"),
                None => writeln!(err, "help: `fsmc explain` lists every code"),
            };
            2
        }
    }
}

/// One line per code: id, name, level and summary, in catalogue order.
fn list() -> String {
    let mut text = String::new();
    for c in Code::ALL {
        let level = match c.default_level() {
            None => "error",
            Some(Level::Deny) => "lint, deny",
            Some(Level::Warn) => "lint, warn",
            Some(Level::Allow) => "lint, allow",
        };
        text.push_str(&format!(
            "{}  {:<32} {:<12} {}\n",
            c.id(),
            c.name(),
            level,
            c.summary()
        ));
    }
    text
}

/// The page for one code: a heading with its summary and level, then the explanation.
fn page(c: Code) -> String {
    let mut text = format!("{} ({}): {}\n", c.id(), c.name(), c.summary());
    text.push_str(&match c.default_level() {
        None => "An error: it cannot be allowed.\n".to_string(),
        // Short enough for one terminal line with the longest lint name.
        Some(Level::Allow) => format!(
            "A lint, allow by default: turn it on with `#![warn({})]` or `-W {}`.\n",
            c.name(),
            c.id()
        ),
        Some(level) => format!(
            "A lint, {} by default: silence it with `#![allow({})]` or `-A {}`.\n",
            level_name(level),
            c.name(),
            c.id()
        ),
    });
    let body = plain(c.explanation());
    if !body.is_empty() {
        text.push('\n');
        text.push_str(&body);
    }
    text
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Allow => "allow",
        Level::Warn => "warn",
        Level::Deny => "deny",
    }
}

/// Markdown as terminal text: fence lines dropped, the lines between them indented four spaces; prose as
/// written (it is already wrapped, and inline `code` reads well as it is).
fn plain(markdown: &str) -> String {
    let mut text = String::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code && !line.is_empty() {
            text.push_str("    ");
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}
