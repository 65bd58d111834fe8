//! Every revision of every `fsm_specification*.yaml` in a git repository's history (upstream Open Autonomy's, in
//! practice), classified by `fsmc diff`: a file added or removed (a rename counts once), a change of the text
//! only (no change above cosmetic: the resolved machine is the same), of the label only (every change above
//! cosmetic is the app's label or name), or of the machine.
//!
//! A revision is a commit that changes a file, against its first parent, following each path on its own (as
//! `git log --all -- PATH` lists them), over every ref.

use fsmc_base::diag::{Code, Level, LintLevels};
use fsmc_diff::{Class, Finding, Rule};
use fsmc_model::spec::Checked;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// One modification of a file, with what `fsmc diff` found.
#[derive(Clone, Debug)]
pub struct Revision {
    pub commit: String,
    pub path: String,
    pub findings: Vec<Finding>,
}

impl Revision {
    /// The most severe class found, `None` for no change.
    pub fn verdict(&self) -> Option<Class> {
        fsmc_diff::verdict(&self.findings)
    }
}

/// The history, counted.
#[derive(Debug, Default)]
pub struct History {
    /// Files added or removed (a rename is one of these, not two).
    pub added_or_removed: usize,
    /// Modifications whose changes are all cosmetic (or none).
    pub text: Vec<Revision>,
    /// Modifications whose changes above cosmetic are all about the app's label or name.
    pub label: Vec<Revision>,
    /// The other modifications.
    pub machine: Vec<Revision>,
}

impl History {
    pub fn revisions(&self) -> usize {
        self.added_or_removed + self.text.len() + self.label.len() + self.machine.len()
    }
}

const PATHSPEC: &str = "*fsm_specification*.yaml";

fn git(repo: &Path, args: &[&str], input: Option<&str>) -> Result<Vec<u8>, String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        let text = text.to_string();
        // Written from another thread: git answers while it reads, and could fill the pipe first.
        std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    }
    let out = child.wait_with_output().map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// What `rev:path` names: its blob id, or `None` when it does not exist. One `git cat-file` for all of them.
fn blob_ids(repo: &Path, names: &[String]) -> Result<Vec<Option<String>>, String> {
    let input: String = names.iter().map(|n| format!("{n}\n")).collect();
    let out = lines(&git(repo, &["cat-file", "--batch-check"], Some(&input))?);
    Ok(out
        .iter()
        .map(|l| {
            let mut words = l.split(' ');
            match (words.next(), words.next()) {
                (Some(id), Some("blob")) => Some(id.to_string()),
                _ => None,
            }
        })
        .collect())
}

/// The texts of blobs, by id.
fn blob_texts(repo: &Path, ids: &BTreeSet<String>) -> Result<BTreeMap<String, String>, String> {
    let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let out = git(repo, &["cat-file", "--batch"], Some(&input))?;
    let mut rest: &[u8] = &out;
    let mut texts = BTreeMap::new();
    for id in ids {
        let end = rest
            .iter()
            .position(|b| *b == b'\n')
            .ok_or("git cat-file: short answer")?;
        let header = String::from_utf8_lossy(&rest[..end]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("git cat-file: `{header}`"))?;
        let body = rest
            .get(end + 1..end + 1 + size)
            .ok_or("git cat-file: short answer")?;
        texts.insert(id.clone(), String::from_utf8_lossy(body).into_owned());
        rest = rest.get(end + 2 + size..).unwrap_or(&[]);
    }
    Ok(texts)
}

/// Reads and classifies the history of the repository at `repo`.
pub fn classify(repo: &Path) -> Result<History, String> {
    let mut paths: Vec<String> = lines(&git(
        repo,
        &[
            "log",
            "--all",
            "--format=",
            "--name-only",
            "--no-renames",
            "--",
            PATHSPEC,
        ],
        None,
    )?);
    paths.sort();
    paths.dedup();
    // (commit, path) for every commit that touches each path, with the file in the commit and its first parent.
    let mut touches = Vec::new();
    for path in &paths {
        for commit in lines(&git(
            repo,
            &["log", "--all", "--format=%H", "--", path],
            None,
        )?) {
            touches.push((commit, path.clone()));
        }
    }
    let names: Vec<String> = touches
        .iter()
        .flat_map(|(c, p)| [format!("{c}:{p}"), format!("{c}^1:{p}")])
        .collect();
    let ids = blob_ids(repo, &names)?;
    let mut history = History::default();
    let mut modified = Vec::new();
    let mut added_removed: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (commit, path)) in touches.iter().enumerate() {
        match (&ids[2 * i + 1], &ids[2 * i]) {
            (Some(old), Some(new)) if old != new => modified.push((commit, path, old, new)),
            (Some(_), Some(_)) | (None, None) => {}
            _ => *added_removed.entry(commit.clone()).or_default() += 1,
        }
    }
    for (commit, n) in &added_removed {
        // A file renamed in a commit is one of its files removed and one added: counted once.
        let renames = if *n >= 2 {
            lines(&git(
                repo,
                &[
                    "diff",
                    "-M",
                    "--name-status",
                    &format!("{commit}^1"),
                    commit,
                    "--",
                    PATHSPEC,
                ],
                None,
            )?)
            .iter()
            .filter(|l| l.starts_with('R'))
            .count()
        } else {
            0
        };
        history.added_or_removed += n - renames;
    }
    let wanted: BTreeSet<String> = modified
        .iter()
        .flat_map(|(_, _, o, n)| [(*o).clone(), (*n).clone()])
        .collect();
    let texts = blob_texts(repo, &wanted)?;
    for (commit, path, old, new) in modified {
        let (a, b) = (checked(&texts[old])?, checked(&texts[new])?);
        let revision = Revision {
            commit: commit.clone(),
            path: path.clone(),
            findings: fsmc_diff::diff(&a, &b),
        };
        let above: Vec<&Finding> = revision
            .findings
            .iter()
            .filter(|f| f.class > Class::Cosmetic)
            .collect();
        if above.is_empty() {
            history.text.push(revision);
        } else if above
            .iter()
            .all(|f| matches!(f.rule, Rule::Label | Rule::Name | Rule::ItemRenamed))
        {
            history.label.push(revision);
        } else {
            history.machine.push(revision);
        }
    }
    Ok(history)
}

/// A spec's text, checked with every lint allowed (a diff compares what specs mean).
fn checked(text: &str) -> Result<Checked, String> {
    let mut lints = LintLevels::default();
    for code in Code::ALL.iter().filter(|c| c.is_lint()) {
        lints.set(*code, Level::Allow);
    }
    let opts = fsmc_driver::Options {
        lints,
        ..Default::default()
    };
    let c = fsmc_driver::compile_str("fsm_specification.yaml", text, &std::env::temp_dir(), &opts);
    c.checked.ok_or_else(|| {
        let first = c
            .diagnostics
            .first()
            .map_or(String::new(), |d| d.message.clone());
        format!("a revision does not check: {first}")
    })
}
