//! Tidy: the invariants of the repository that rot quietly, checked on every `cargo test`.
//!
//! - a generated file's header names a command that regenerates it (the package and the test exist);
//! - nothing points at documents outside the repository;
//! - the editor grammar's word lists are the language's vocabulary (`fsmc-vocab`); `FSMC_BLESS=1` rewrites them;
//! - no hand-written source file is over 800 lines, and no function over 120;
//! - no two files of a package import each other (a module may use its parent, which declares it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest hand-written source file, in lines.
const MAX_FILE_LINES: usize = 800;
/// Longest hand-written function (or method), in lines.
const MAX_FN_LINES: usize = 120;

/// Every file of the repository that is ours: not built, not fetched, not version control.
fn files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            // `.git` is a directory in a clone and a file in a worktree: neither is ours.
            if matches!(name.as_ref(), "target" | ".git" | "node_modules") {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fsmc_testkit::workspace(), &mut out);
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(fsmc_testkit::workspace())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A file a tool wrote: its header says `@generated`.
fn is_generated(text: &str) -> bool {
    text.lines().take(3).any(|l| l.contains("@generated"))
}

fn rust_sources() -> Vec<(PathBuf, String)> {
    files()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| text(&p).map(|t| (p, t)))
        .collect()
}

/// The workspace's packages: name → directory.
fn packages() -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for path in files() {
        if path.file_name().is_some_and(|n| n == "Cargo.toml")
            && let Some(t) = text(&path)
            && let Some(name) = t
                .split("[package]")
                .nth(1)
                .and_then(|s| s.lines().find_map(|l| l.strip_prefix("name = ")))
        {
            let dir = path.parent().expect("a manifest has a directory");
            out.insert(name.trim_matches('"').to_string(), dir.to_path_buf());
        }
    }
    out
}

#[test]
fn generated_headers_name_commands_that_exist() {
    let packages = packages();
    let mut problems = Vec::new();
    let mut seen = 0;
    for (path, text) in rust_sources() {
        if !is_generated(&text) {
            continue;
        }
        seen += 1;
        let header: String = text.lines().take(3).collect::<Vec<_>>().join("\n");
        if let Some(spec) = header.lines().find_map(|l| l.strip_prefix("// Spec: ")) {
            // `fsmc gen SPEC -o FILE` wrote it: the spec it names is beside it.
            let spec = path.parent().expect("a file has a directory").join(spec);
            if !spec.is_file() {
                problems.push(format!(
                    "{}: names a spec that does not exist: {}",
                    rel(&path),
                    spec.display()
                ));
            }
            continue;
        }
        // `cargo test -p PACKAGE FILTER` regenerates it: the package exists and holds a test of that name.
        let Some(command) = header
            .split("`cargo test -p ")
            .nth(1)
            .and_then(|s| s.split('`').next())
        else {
            problems.push(format!(
                "{}: a generated file whose header names no command",
                rel(&path)
            ));
            continue;
        };
        let mut words = command.split_whitespace();
        let (Some(package), Some(filter)) = (words.next(), words.next()) else {
            problems.push(format!(
                "{}: `cargo test -p {command}` names no test",
                rel(&path)
            ));
            continue;
        };
        let Some(dir) = packages.get(package) else {
            problems.push(format!(
                "{}: names package `{package}`, which does not exist",
                rel(&path)
            ));
            continue;
        };
        let has_test = rust_sources().iter().any(|(p, t)| {
            p.starts_with(dir) && t.contains(&format!("fn {filter}")) && !is_generated(t)
        });
        if !has_test {
            problems.push(format!(
                "{}: `{package}` has no test matching `{filter}`",
                rel(&path)
            ));
        }
        // The file that holds the test, when the header names one, exists.
        if let Some(named) = header.split(" (").nth(1).and_then(|s| s.split(')').next())
            && named.ends_with(".rs")
            && !fsmc_testkit::workspace().join(named).is_file()
        {
            problems.push(format!(
                "{}: names `{named}`, which does not exist",
                rel(&path)
            ));
        }
    }
    assert!(
        seen >= 2,
        "the generated parser and the pre-generated example have headers"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_hand_written_file_or_function_is_too_long() {
    let mut problems = Vec::new();
    for (path, text) in rust_sources() {
        if is_generated(&text) {
            continue;
        }
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            problems.push(format!(
                "{}: {lines} lines (at most {MAX_FILE_LINES})",
                rel(&path)
            ));
        }
        let Ok(file) = syn::parse_file(&text) else {
            problems.push(format!("{}: does not parse as Rust", rel(&path)));
            continue;
        };
        let mut long = LongFunctions::default();
        syn::visit::Visit::visit_file(&mut long, &file);
        for (name, lines) in long.found {
            problems.push(format!(
                "{}: `{name}` is {lines} lines (at most {MAX_FN_LINES})",
                rel(&path)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[derive(Default)]
struct LongFunctions {
    found: Vec<(String, usize)>,
}

impl LongFunctions {
    fn measure(&mut self, name: &syn::Ident, block: &syn::Block) {
        use syn::spanned::Spanned;
        let span = block.span();
        let lines = span.end().line + 1 - span.start().line;
        if lines > MAX_FN_LINES {
            self.found.push((name.to_string(), lines));
        }
    }
}

impl<'a> syn::visit::Visit<'a> for LongFunctions {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.measure(&f.sig.ident, &f.block);
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.measure(&f.sig.ident, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.measure(&f.sig.ident, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The files of each package's `src/`, and which of the package's other files each one names (by `crate::`,
/// `super::` or a sibling module's name in a `use`).
fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files: Vec<PathBuf> = files()
        .into_iter()
        .filter(|p| p.starts_with(src) && p.extension().is_some_and(|e| e == "rs"))
        .collect();
    // The module path of each file: src/a/b.rs and src/a/b/mod.rs are `a::b`; lib.rs and main.rs the root.
    let module_of = |p: &Path| -> Vec<String> {
        let rel = p.strip_prefix(src).expect("under src");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let last = parts.pop().expect("a file name");
        let stem = last.trim_end_matches(".rs");
        if !matches!(stem, "mod" | "lib" | "main") {
            parts.push(stem.to_string());
        }
        parts
    };
    let by_module: BTreeMap<Vec<String>, PathBuf> =
        files.iter().map(|p| (module_of(p), p.clone())).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let Some(text) = text(file) else { continue };
        // Tests may use what they test and share helpers: only what the code itself names counts.
        if file.file_stem().is_some_and(|s| s == "tests") {
            continue;
        }
        let text = code_only(&text);
        let here = module_of(file);
        let mut uses = BTreeSet::new();
        for path in module_paths(&text) {
            let mut segments = if path[0] == "crate" {
                Vec::new()
            } else if path[0] == "super" {
                // Each `super` is one module up, from a file module and from a `mod.rs` alike.
                let ups = path.iter().take_while(|s| *s == "super").count();
                let mut base = here.clone();
                base.truncate(base.len().saturating_sub(ups));
                base.extend(path[ups..].iter().cloned());
                uses.extend(longest_file(&by_module, &base));
                continue;
            } else {
                continue;
            };
            segments.extend(path[1..].iter().cloned());
            uses.extend(longest_file(&by_module, &segments));
        }
        uses.remove(file);
        graph.insert(file.clone(), uses);
    }
    graph
}

/// The text of a file without its comments and without its test module (everything from `#[cfg(test)]` on: test
/// modules close the files that have one).
fn code_only(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    code.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file that defines the longest prefix of `path` that is a module, if it is not the crate root.
fn longest_file(by_module: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    (1..=path.len())
        .rev()
        .find_map(|n| by_module.get(&path[..n]).cloned())
}

/// The `crate::…` and `super::…` paths a file names, split into segments.
fn module_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        for (i, _) in text.match_indices(start) {
            // Only a path, not a word ending in `crate` or `super`.
            if text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let path: String = text[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            // `use super::{a, b}`: each name in the braces is a path of its own.
            let after = &text[i + path.len()..];
            if let Some(braced) = after.strip_prefix('{') {
                let inner: String = braced.chars().take_while(|c| *c != '}').collect();
                for item in inner.split(',') {
                    let item = item.trim();
                    let name: String = item
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    if !name.is_empty() && name != "self" {
                        let mut p = segments.clone();
                        p.extend(
                            name.split("::")
                                .filter(|s| !s.is_empty())
                                .map(str::to_string),
                        );
                        out.push(p);
                    }
                }
            }
            out.push(segments);
        }
    }
    out
}

#[test]
fn no_two_files_of_a_package_import_each_other() {
    // A module using its parent (which declares it) is how Rust modules are built, not a cycle. Malachite's
    // signing and types pair follows the engine's own `Context` design (the context names the signing scheme,
    // the scheme signs the context's types).
    let allowed: &[(&str, &str)] = &[("malachite/src/signing.rs", "malachite/src/types.rs")];
    let mut problems = Vec::new();
    for dir in packages().values() {
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = import_graph(&src);
        for (a, uses) in &graph {
            for b in uses {
                // b is a's ancestor module: a file under b's directory, or b the root.
                let ancestor = |x: &Path, y: &Path| {
                    let y_dir = if y
                        .file_name()
                        .is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs")
                    {
                        y.parent().expect("a directory").to_path_buf()
                    } else {
                        y.with_extension("")
                    };
                    x.starts_with(&y_dir)
                };
                if a < b
                    && graph.get(b).is_some_and(|u| u.contains(a))
                    && !ancestor(a, b)
                    && !ancestor(b, a)
                    && !allowed.contains(&(rel(a).as_str(), rel(b).as_str()))
                {
                    problems.push(format!("{} and {} import each other", rel(a), rel(b)));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The word lists the editor grammar must hold, each one of the language's vocabulary lists.
fn grammar_lists() -> Vec<(&'static str, Vec<&'static str>)> {
    use fsmc_vocab::{Profile, Value, Where};
    let props = |keep: &dyn Fn(&fsmc_vocab::Property) -> bool| -> Vec<&'static str> {
        let mut names: Vec<&str> = fsmc_vocab::properties()
            .iter()
            .filter(|p| keep(p))
            .map(|p| p.name)
            .collect();
        names.dedup();
        names
    };
    let statement_starts: Vec<&str> = fsmc_vocab::MEMBER_KEYWORDS
        .iter()
        .chain(fsmc_vocab::APP_KEYWORDS)
        .chain(fsmc_vocab::ITEM_KEYWORDS)
        .copied()
        .collect();
    vec![
        ("profiles", Profile::written().map(Profile::name).collect()),
        ("round kinds", fsmc_vocab::abci::RoundKind::NAMES.to_vec()),
        (
            "Genie state types",
            fsmc_vocab::genie::StateType::NAMES.to_vec(),
        ),
        (
            "persistence modes",
            fsmc_vocab::genie::Persistence::ALL
                .iter()
                .map(|p| p.name())
                .collect(),
        ),
        (
            "outcomes",
            fsmc_vocab::abci::OutcomeKind::ALL
                .iter()
                .map(|o| o.name())
                .collect(),
        ),
        ("state modifiers", fsmc_vocab::STATE_MODIFIERS.to_vec()),
        ("item keywords", fsmc_vocab::ITEM_KEYWORDS.to_vec()),
        ("statement keywords", statement_starts),
        (
            "transition keywords",
            fsmc_vocab::TRANSITION_KEYWORDS.to_vec(),
        ),
        ("key properties", props(&|p| p.value == Value::Keys)),
        (
            "agent properties",
            props(&|p| {
                p.value == Value::Agents
                    || (p.value == Value::Names && p.profiles.contains(&Profile::Staged))
            }),
        ),
        (
            "role properties",
            props(&|p| p.value == Value::Names && p.profiles.contains(&Profile::Dialogue)),
        ),
        (
            "other properties",
            props(&|p| {
                matches!(p.value, Value::Text | Value::Flag)
                    && (p.place == Where::State || p.place == Where::Machine)
            }),
        ),
    ]
}

/// Rewrites every word alternation in a regex of the grammar (`(a|b|c)`, `(?:a|b|c)`) that is one of the
/// vocabulary's lists, to that list in the vocabulary's order; returns the new text and the lists that differed.
fn regenerate_grammar(text: &str) -> (String, Vec<String>) {
    let lists = grammar_lists();
    let mut out = String::with_capacity(text.len());
    let mut drift = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (prefix, body_start) = if after.starts_with("?:") {
            ("(?:", 2)
        } else {
            ("(", 0)
        };
        let body = &after[body_start..];
        let words_end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '|'))
            .unwrap_or(body.len());
        let group = &body[..words_end];
        let closes = body[words_end..].starts_with(')');
        let words: BTreeSet<&str> = group.split('|').collect();
        if closes && group.contains('|') && !words.contains("") {
            // The vocabulary list this alternation is: the one it shares most words with.
            let best = lists
                .iter()
                .map(|(name, list)| {
                    let set: BTreeSet<&str> = list.iter().copied().collect();
                    let shared = set.intersection(&words).count();
                    let all = set.union(&words).count();
                    (shared * 1000 / all.max(1), *name, list)
                })
                .max_by_key(|(score, _, _)| *score);
            // More than half the words shared: `(if|unless)`, the guards, is not the transition keywords.
            if let Some((score, name, list)) = best
                && score > 500
            {
                let joined = list.join("|");
                if joined != group {
                    let set: BTreeSet<&str> = list.iter().copied().collect();
                    if set != words {
                        drift.push(format!(
                            "{name}: the grammar has `{group}`, the language `{joined}`"
                        ));
                    }
                }
                out.push_str(prefix);
                out.push_str(&joined);
                out.push(')');
                rest = &body[words_end + 1..];
                continue;
            }
        }
        out.push('(');
        rest = after;
    }
    out.push_str(rest);
    (out, drift)
}

#[test]
fn the_editor_grammar_speaks_the_languages_vocabulary() {
    let path = fsmc_testkit::workspace().join("editors/vscode/syntaxes/fsm.tmLanguage.json");
    let text = std::fs::read_to_string(&path).expect("the TextMate grammar");
    let (fresh, drift) = regenerate_grammar(&text);
    serde_json::from_str::<serde_json::Value>(&fresh).expect("the regenerated grammar is JSON");
    if fresh != text {
        if std::env::var_os("FSMC_BLESS").is_some() {
            std::fs::write(&path, &fresh).expect("write the grammar");
        }
        panic!(
            "{} is out of step with the language's vocabulary (fsmc-vocab){}:\n{}",
            rel(&path),
            if std::env::var_os("FSMC_BLESS").is_some() {
                "; rewritten, run the tests again"
            } else {
                "; `FSMC_BLESS=1 cargo test -p fsmc-tests --test tidy` rewrites its word lists"
            },
            if drift.is_empty() {
                "(only the order of words differs)".to_string()
            } else {
                drift.join("\n")
            }
        );
    }
}

#[test]
fn the_grammar_generator_sees_drift() {
    // A round kind the grammar lacks, and one it has that the language does not.
    let kinds = fsmc_vocab::abci::RoundKind::NAMES;
    let stale = format!(r#"{{"match": "({}|retired_kind)"}}"#, kinds[1..].join("|"));
    let (fresh, drift) = regenerate_grammar(&stale);
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert!(
        fresh.contains(kinds[0]) && !fresh.contains("retired_kind"),
        "{fresh}"
    );
    // A list in another order is rewritten, not reported.
    let (fresh, drift) = regenerate_grammar(r#"{"m": "(staged|abci|genie|dialogue)"}"#);
    assert!(drift.is_empty());
    assert_eq!(fresh, r#"{"m": "(abci|genie|dialogue|staged)"}"#);
    // Alternations of other words are left alone.
    let other = r#"{"m": "(ms|s|m|h)", "n": "(?:\\(|///|#)"}"#;
    assert_eq!(regenerate_grammar(other).0, other);
}

#[test]
fn the_language_docs_give_each_round_kind_its_outcomes() {
    use fsmc_vocab::abci::{Need, RoundKind};
    let text = std::fs::read_to_string(fsmc_testkit::workspace().join("docs/language.md"))
        .expect("docs/language.md");
    let section = text
        .split("### Round kinds (`abci`)")
        .nth(1)
        .and_then(|s| s.split("\n\n").nth(1))
        .expect("the round kinds table");
    let mut documented = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let kind = cells[1].trim_matches('`');
        let (required, optional) = match cells[2].split_once('(') {
            _ if cells[2].starts_with('—') => (String::new(), String::new()),
            Some((r, o)) => (
                r.trim().to_string(),
                o.trim_end_matches(')').trim().to_string(),
            ),
            None => (cells[2].to_string(), String::new()),
        };
        documented.insert(kind.to_string(), (required, optional));
    }
    for kind in RoundKind::ALL {
        let list = |need: Need| {
            kind.outcomes()
                .iter()
                .filter(|(_, n)| *n == need)
                .map(|(o, _)| o.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert_eq!(
            documented.get(kind.name()),
            Some(&(list(Need::Required), list(Need::Optional))),
            "docs/language.md's row for `{kind}`"
        );
    }
    assert_eq!(
        documented.len(),
        RoundKind::ALL.len(),
        "a row for a kind the language lacks"
    );
}
