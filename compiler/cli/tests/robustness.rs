//! Robustness: the compiler never panics, overflows its stack or hangs on any input (BRIEF §5, "Never panics on
//! any input").
//!
//! Two halves:
//!
//! * property tests (proptest) feed random text, random token soup, grammar-generated specs, mutated shipped specs
//!   and mutated Open Autonomy YAML through the whole pipeline (parse → resolve → check → render diagnostics →
//!   generate → format) and check that nothing panics and that the [`Compilation`] is consistent;
//! * deterministic edge tests: 100k-deep nesting on a 256 KiB stack, files over the size cap, unusable entry files,
//!   NUL bytes, megabyte identifiers, thousands of machines, import cycles and long import chains.
//!
//! This suite is the stable-toolchain twin of the cargo-fuzz target in `fuzz/` (see `fuzz/README.md`). Case
//! counts are sized for a debug build on two cores; raise them with `PROPTEST_CASES=N` for a longer hunt
//! (`PROPTEST_CASES=20000 cargo test --release -p fsmc --test robustness`).
//!
//! Every file this suite writes goes to a fresh directory under the system temp dir, and every spec is compiled
//! with such a directory as its base, so imports in mutated specs cannot reach the repository or anything else.

use fsmc_base::diag::{Code, render};
use fsmc_base::source::FileId;
use fsmc_driver::{Compilation, Options, compile, compile_str};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("fsmc-robustness-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create dir");
        }
        std::fs::write(&p, contents).expect("write temp file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A proptest configuration with `cases` cases, unless `PROPTEST_CASES` says otherwise. No failure persistence:
/// a failure prints its minimal input, which belongs in a named regression test below, not in a seed file.
fn config(cases: u32) -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    c.failure_persistence = None;
    c
}

fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(config(cases));
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// Everything a caller may do with a compilation must work: render the diagnostics in every format, and, for a
/// clean spec, generate and format the code. Also checks that the compilation is consistent.
fn exercise(c: &Compilation) {
    let _ = render::human(&c.sources, &c.diagnostics, false);
    let _ = render::human(&c.sources, &c.diagnostics, true);
    let _ = render::json(&c.sources, &c.diagnostics);
    let _ = render::github(&c.sources, &c.diagnostics);
    let _ = render::summary(&c.diagnostics);
    for d in &c.diagnostics {
        assert!(!d.message.is_empty(), "empty diagnostic message: {d:?}");
        for label in d.primary.iter().chain(&d.secondary) {
            let file = c
                .sources
                .get(label.span.file)
                .unwrap_or_else(|| panic!("span in an unknown file: {d:?}"));
            let (s, e) = (label.span.start as usize, label.span.end as usize);
            assert!(
                s <= e
                    && e <= file.text.len()
                    && file.text.is_char_boundary(s)
                    && file.text.is_char_boundary(e),
                "span {s}..{e} is not a valid range of `{}` ({} bytes): {d:?}",
                file.name,
                file.text.len()
            );
        }
    }
    assert_eq!(
        c.checked.is_some(),
        !c.has_errors(),
        "a checked model exactly when there are no errors"
    );
    if let Some(checked) = &c.checked
        && let Err(e) = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
    {
        panic!("a clean spec generated code that is not Rust: {e}");
    }
}

fn compile_text(name: &str, text: &str, base: &Path) -> Compilation {
    let c = compile_str(name, text, base, &Options::default());
    exercise(&c);
    c
}

/// Runs `f` on a thread with a 256 KiB stack: a recursion proportional to the input overflows it long before
/// 100k levels, so finishing proves the path is iterative or depth-limited.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("small-stack".into())
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// A shipped spec: its path relative to `specs/` and its text.
#[derive(Debug, Clone)]
struct Spec {
    rel: PathBuf,
    text: String,
}

/// The shipped `.fsm` specs (recursively, excluding `specs/invalid`), sorted by path.
fn shipped_specs() -> Vec<Spec> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Spec>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            let rel = p.strip_prefix(root).expect("under root").to_path_buf();
            if p.is_dir() {
                if rel != Path::new("invalid") {
                    walk(root, &p, out);
                }
            } else if p.extension().is_some_and(|e| e == "fsm") {
                let text = std::fs::read_to_string(&p).expect("read spec");
                out.push(Spec { rel, text });
            }
        }
    }
    let root = fsmc_testkit::specs();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    assert!(!out.is_empty(), "no specs found under {}", root.display());
    out
}

/// A copy of the shipped specs in a temp dir, so a mutated spec's imports find its (unmutated) siblings, with
/// the other files the specs name (Genie templates).
fn spec_tree(specs: &[Spec]) -> TempDir {
    fn copy_others(root: &Path, dir: &Path, tree: &TempDir) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            let rel = p.strip_prefix(root).expect("under root");
            if p.is_dir() {
                if rel != Path::new("invalid") {
                    copy_others(root, &p, tree);
                }
            } else if p.extension().is_none_or(|e| e != "fsm") {
                let bytes = std::fs::read(&p).expect("read");
                tree.write(rel.to_str().expect("utf-8 path"), bytes);
            }
        }
    }
    let tree = TempDir::new("specs");
    for s in specs {
        tree.write(s.rel.to_str().expect("utf-8 path"), &s.text);
    }
    let root = fsmc_testkit::specs();
    copy_others(&root, &root, &tree);
    tree
}

/// A small valid Open Autonomy spec, so the YAML tests have a seed without the corpus.
const SEED_YAML: &str = "\
alphabet_in:
- DONE
- NO_MAJORITY
- ROUND_TIMEOUT
default_start_state: RegistrationRound
final_states:
- FinishedRegistrationRound
label: packages.valory.skills.registration_abci.rounds.AgentRegistrationAbciApp
start_states:
- RegistrationRound
states:
- FinishedRegistrationRound
- RegistrationRound
transition_func:
    (RegistrationRound, DONE): FinishedRegistrationRound
    (RegistrationRound, NO_MAJORITY): RegistrationRound
    (RegistrationRound, ROUND_TIMEOUT): RegistrationRound
";

/// Open Autonomy YAML to mutate: the seed, the YAML specs in `specs/invalid`, and the upstream corpus when this
/// machine has it (it is read in place, never copied into the repository).
fn yaml_seeds() -> Vec<String> {
    let mut out = vec![SEED_YAML.to_string()];
    let mut dirs = vec![fsmc_testkit::specs().join("invalid")];
    dirs.extend(fsmc_testkit::corpus::for_test("yaml mutations"));
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == "yaml" || e == "yml")
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                out.push(text);
            }
        }
    }
    out
}

fn has_code(c: &Compilation, code: Code) -> bool {
    c.diagnostics.iter().any(|d| d.code == code)
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------------------------

const FSM_TOKENS: &[&str] = &[
    "machine",
    "app",
    "state",
    "start",
    "default",
    "final",
    "event",
    "key",
    "cross_period",
    "import",
    "as",
    "chain",
    "timeout",
    "by",
    "if",
    "unless",
    "do",
    "persist",
    "reads",
    "writes",
    "requires",
    "ensures",
    "handler",
    "reset",
    "template",
    "label",
    "done",
    "acting",
    "rewarded",
    "agents",
    "roles",
    "abci",
    "genie",
    "dialogue",
    "staged",
    "user",
    "invoker",
    "voting",
    "custom",
    "degenerate",
    "raw",
    "rendered",
    "none",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ";",
    ",",
    ":",
    "::",
    "->",
    "=",
    "#",
    "!",
    "#![allow(unused_key)]",
    "#[deny(W0303)]",
    "#[warn(",
    "\"x.fsm\"",
    "\"fsm_specification.yaml\"",
    "\"../x.fsm\"",
    "\"/etc/passwd\"",
    "\"\"",
    "\"",
    "\\",
    "30s",
    "1.5m",
    "500ms",
    "99999999999999999999h",
    "32",
    "0",
    "/*",
    "*/",
    "//",
    "///",
    "//!",
    "\n",
    " ",
    "\t",
    "\r\n",
    "A",
    "B",
    "C",
    "DONE",
    "M",
    "u64",
    "Vec",
    "String",
    "Self",
    "self",
    "crate",
    "super",
    "r#type",
    "_",
    "é",
    "𝔸",
    "\u{FEFF}",
    "\0",
    "\u{202E}",
    "\u{10FFFF}",
];

const YAML_TOKENS: &[&str] = &[
    "alphabet_in",
    "default_start_state",
    "final_states",
    "label",
    "start_states",
    "states",
    "transition_func",
    ":",
    ": ",
    "- ",
    "-",
    "\n",
    "  ",
    "    ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\"",
    "'",
    "(A, DONE)",
    "(A,B)",
    "(A, B, C)",
    "()",
    "(, )",
    "A",
    "B",
    "DONE",
    "~",
    "null",
    "yes",
    "No",
    "12",
    "0x1F",
    "1e3",
    ".inf",
    "&a ",
    "*a",
    "!!str ",
    "!!map ",
    "!!seq ",
    "!!int ",
    "!foo ",
    "!<tag:x> ",
    "---",
    "...",
    "# c",
    "|",
    "|-",
    ">",
    "? ",
    "%YAML 1.2\n",
    "%TAG ! tag:x:\n",
    "é",
    "𝔸",
    "\u{FEFF}",
    "\0",
    "\r",
    "\r\n",
    "\\",
    "@",
    "`",
    "\u{85}",
    "\u{2028}",
];

/// One edit of a text. Indices are reduced modulo the current length, so every mutation applies to any text.
#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    MoveLine(usize, usize),
    Indent(usize, u8),
    Dedent(usize),
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    InsertToken(usize, usize),
    ReplaceIdent(usize, usize),
    DeleteChars(usize, u8),
    InsertChar(usize, char),
    Truncate(usize),
    RemoveAll(char),
    RemoveOne(char, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    use Mutation::*;
    let i = any::<usize>;
    prop_oneof![
        1 => i().prop_map(DeleteLine),
        1 => i().prop_map(DuplicateLine),
        1 => (i(), i()).prop_map(|(a, b)| SwapLines(a, b)),
        1 => (i(), i()).prop_map(|(a, b)| MoveLine(a, b)),
        1 => (i(), 1..9u8).prop_map(|(a, n)| Indent(a, n)),
        1 => i().prop_map(Dedent),
        3 => i().prop_map(DeleteToken),
        1 => i().prop_map(DuplicateToken),
        1 => (i(), i()).prop_map(|(a, b)| SwapTokens(a, b)),
        3 => (i(), i()).prop_map(|(a, b)| InsertToken(a, b)),
        3 => (i(), i()).prop_map(|(a, b)| ReplaceIdent(a, b)),
        1 => (i(), 1..64u8).prop_map(|(a, n)| DeleteChars(a, n)),
        1 => (i(), any::<char>()).prop_map(|(a, c)| InsertChar(a, c)),
        1 => i().prop_map(Truncate),
        1 => prop::sample::select(vec![';', '{', '}', '(', ')', ',', '\n', ' ', ':', '-', '"']).prop_map(RemoveAll),
        1 => (prop::sample::select(vec![';', '{', '}', '(', ')', '"', '>', '[', ']', ':']), i())
            .prop_map(|(c, a)| RemoveOne(c, a)),
    ]
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits text into tokens that join back to it: identifier runs, whitespace runs, and single other characters
/// (two for `->`, `::`, `//`, `/*`, `*/`).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = if is_ident_char(c) {
            rest.find(|c| !is_ident_char(c)).unwrap_or(rest.len())
        } else if c.is_whitespace() {
            rest.find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len())
        } else if ["->", "::", "//", "/*", "*/"]
            .iter()
            .any(|p| rest.starts_with(p))
        {
            2
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

fn idents(text: &str) -> Vec<String> {
    let mut v: Vec<String> = tokens(text)
        .into_iter()
        .filter(|t| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

fn apply(text: &str, m: &Mutation, pool: &[&str], names: &[String]) -> String {
    use Mutation::*;
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let toks = tokens(text);
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize, n: usize| if n == 0 { 0 } else { i % n };
    match *m {
        DeleteLine(i) if !lines.is_empty() => {
            lines.remove(at(i, lines.len()));
            lines.concat()
        }
        DuplicateLine(i) if !lines.is_empty() => {
            let i = at(i, lines.len());
            lines.insert(i, lines[i]);
            lines.concat()
        }
        SwapLines(a, b) if !lines.is_empty() => {
            let n = lines.len();
            lines.swap(at(a, n), at(b, n));
            lines.concat()
        }
        MoveLine(a, b) if !lines.is_empty() => {
            let line = lines.remove(at(a, lines.len()));
            lines.insert(at(b, lines.len() + 1), line);
            lines.concat()
        }
        Indent(i, n) if !lines.is_empty() => {
            let i = at(i, lines.len());
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[i] = format!("{}{}", " ".repeat(n as usize), out[i]);
            out.concat()
        }
        Dedent(i) if !lines.is_empty() => {
            let i = at(i, lines.len());
            lines[i] = lines[i].trim_start_matches([' ', '\t']);
            lines.concat()
        }
        DeleteToken(i) if !toks.is_empty() => {
            let mut t = toks;
            t.remove(at(i, t.len()));
            t.concat()
        }
        DuplicateToken(i) if !toks.is_empty() => {
            let mut t = toks;
            let i = at(i, t.len());
            t.insert(i, t[i]);
            t.concat()
        }
        SwapTokens(a, b) if !toks.is_empty() => {
            let mut t = toks;
            let n = t.len();
            t.swap(at(a, n), at(b, n));
            t.concat()
        }
        InsertToken(i, p) => {
            let mut t = toks;
            let i = at(i, t.len() + 1);
            t.insert(i, pool[p % pool.len()]);
            t.concat()
        }
        ReplaceIdent(i, j) if !names.is_empty() => {
            let positions: Vec<usize> = (0..toks.len())
                .filter(|&k| names.binary_search_by(|n| n.as_str().cmp(toks[k])).is_ok())
                .collect();
            if positions.is_empty() {
                return text.to_string();
            }
            let mut t = toks;
            let k = positions[at(i, positions.len())];
            t[k] = &names[at(j, names.len())];
            t.concat()
        }
        DeleteChars(i, n) if !chars.is_empty() => {
            let i = at(i, chars.len());
            let end = (i + n as usize).min(chars.len());
            chars[..i].iter().chain(&chars[end..]).collect()
        }
        InsertChar(i, c) => {
            let i = at(i, chars.len() + 1);
            chars[..i]
                .iter()
                .chain(std::iter::once(&c))
                .chain(&chars[i..])
                .collect()
        }
        Truncate(i) => {
            let i = at(i, chars.len() + 1);
            chars[..i].iter().collect()
        }
        RemoveAll(c) => text.replace(c, ""),
        RemoveOne(c, i) => {
            let found: Vec<usize> = text.match_indices(c).map(|(k, _)| k).collect();
            if found.is_empty() {
                return text.to_string();
            }
            let k = found[at(i, found.len())];
            format!("{}{}", &text[..k], &text[k + c.len_utf8()..])
        }
        _ => text.to_string(),
    }
}

fn mutate(text: &str, mutations: &[Mutation], pool: &[&str]) -> String {
    let names = idents(text);
    mutations
        .iter()
        .fold(text.to_string(), |t, m| apply(&t, m, pool, &names))
}

// ---------------------------------------------------------------------------------------------------------------
// (a) Random input
// ---------------------------------------------------------------------------------------------------------------

/// Feeds `text` to both front ends directly and through the whole pipeline as `.fsm` and as YAML.
fn everything(text: &str, base: &Path) {
    let _ = fsmc_syntax::parse(FileId(0), text);
    let _ = fsmc_driver::yaml::parse(FileId(0), text);
    compile_text("fuzz.fsm", text, base);
    compile_text("fuzz_fsm_specification.yaml", text, base);
}

#[test]
fn random_strings_never_panic() {
    let dir = TempDir::new("strings");
    run(500, any::<String>(), |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

#[test]
fn random_bytes_never_panic() {
    let dir = TempDir::new("bytes");
    run(500, prop::collection::vec(any::<u8>(), 0..2048), |bytes| {
        everything(&String::from_utf8_lossy(&bytes), dir.path());
        Ok(())
    });
}

#[test]
fn random_token_soup_never_panics() {
    let dir = TempDir::new("fsm-soup");
    let soup =
        prop::collection::vec(prop::sample::select(FSM_TOKENS), 0..300).prop_map(|v| v.join(" "));
    let glued =
        prop::collection::vec(prop::sample::select(FSM_TOKENS), 0..300).prop_map(|v| v.concat());
    run(600, prop_oneof![soup, glued], |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

#[test]
fn random_yaml_never_panics() {
    let dir = TempDir::new("yaml-soup");
    let soup =
        prop::collection::vec(prop::sample::select(YAML_TOKENS), 0..300).prop_map(|v| v.concat());
    run(600, soup, |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Grammar-generated specs: syntactically plausible machines with hostile names, to reach resolve, the checks and
// the code generator.
// ---------------------------------------------------------------------------------------------------------------

const NAMES: &[&str] = &[
    "A",
    "B",
    "C",
    "Done",
    "DONE",
    "done",
    "a",
    "_",
    "__",
    "A_",
    "a_b",
    "AB",
    "Ab",
    "aB",
    "self",
    "Self",
    "super",
    "crate",
    "type",
    "fn",
    "match",
    "r",
    "State",
    "Event",
    "Error",
    "Result",
    "Option",
    "core",
    "std",
    "fsmc_runtime",
    "x1",
    "_1",
    "NONE",
    "NO_MAJORITY",
    "FAIL",
    "NEGATIVE",
    "ROUND_TIMEOUT",
    "poll",
    "answer",
    "buyer",
    "seller",
    "RegistrationRound",
    "registration_round",
    "Round",
    "round",
];
const PROFILES: &[&str] = &["", ": abci", ": genie", ": dialogue", ": staged", ": abc"];
const KINDS: &[&str] = &[
    "",
    ": collect_same_until_all",
    ": collect_same_until_threshold",
    ": collect_non_empty_until_threshold",
    ": only_keeper_sends",
    ": voting",
    ": degenerate",
    ": custom",
    ": user",
    ": invoker",
    ": A",
];
const TYPES: &[&str] = &[
    "u64",
    "String",
    "Vec<u8>",
    "[u8; 32]",
    "(u8, String)",
    "()",
    "Option<u64>",
    "Self",
    "self::A",
    "A",
    "std::collections::BTreeMap<String, u64>",
    "Vec<(String, [u8; 0])>",
    "r#type",
];
const PROPS: &[&str] = &[
    "reads a;",
    "writes a, b;",
    "requires a;",
    "ensures b;",
    "handler;",
    "reset;",
    "template \"t.j2\";",
    "label \"L\";",
    "done = A;",
    "acting buyer;",
    "rewarded seller, buyer;",
    "owner \"x\";",
    "foo;",
    "reads;",
    "done = DONE;",
    "roles buyer, seller;",
    "agents buyer, seller;",
];

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(pool)
}

fn names(max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(pick(NAMES), 1..max)
}

fn machine_text() -> impl Strategy<Value = String> {
    let event = (
        pick(NAMES),
        prop::option::of(prop::collection::vec((pick(NAMES), pick(TYPES)), 0..3)),
        prop::option::of(prop::sample::select(vec![
            "0s",
            "30s",
            "1.5m",
            "500ms",
            "99999999999h",
        ])),
        prop::option::of(pick(NAMES)),
    )
        .prop_map(|(n, fields, t, by)| {
            let mut s = n.to_string();
            if let Some(f) = fields {
                let f: Vec<String> = f.iter().map(|(a, b)| format!("{a}: {b}")).collect();
                s += &format!("({})", f.join(", "));
            }
            if let Some(t) = t {
                s += &format!(" timeout {t}");
            }
            if let Some(by) = by {
                s += &format!(" by {by}");
            }
            format!("    event {s};\n")
        });
    let key = (any::<bool>(), pick(NAMES), pick(TYPES)).prop_map(|(cp, n, t)| {
        format!(
            "    {}key {n}: {t};\n",
            if cp { "cross_period " } else { "" }
        )
    });
    let state = (
        prop::sample::subsequence(vec!["start", "default", "final"], 0..=3),
        pick(NAMES),
        pick(KINDS),
        prop::option::of(prop::collection::vec(pick(PROPS), 0..4)),
    )
        .prop_map(|(mods, n, kind, props)| match props {
            None => format!("    {} state {n}{kind};\n", mods.join(" ")),
            Some(p) => format!(
                "    {} state {n}{kind} {{ {} }}\n",
                mods.join(" "),
                p.join(" ")
            ),
        });
    let transition = (
        pick(NAMES),
        pick(NAMES),
        pick(NAMES),
        prop::collection::vec(
            prop::sample::select(vec![
                " if g",
                " unless h",
                " do log, notify",
                " persist raw",
                " persist none",
                " if A",
            ]),
            0..3,
        ),
    )
        .prop_map(|(a, e, b, opts)| format!("    ({a}, {e}) -> {b}{};\n", opts.concat()));
    let direct =
        (pick(NAMES), names(4)).prop_map(|(a, bs)| format!("    {a} -> {};\n", bs.join(", ")));
    let prop = pick(PROPS).prop_map(|p| format!("    {p}\n"));
    let member =
        prop_oneof![2 => event, 1 => key, 3 => state, 4 => transition, 1 => direct, 1 => prop];
    (
        pick(NAMES),
        pick(PROPS),
        pick(PROFILES),
        prop::collection::vec(member, 0..16),
        any::<bool>(),
    )
        .prop_map(|(name, _, profile, members, doc)| {
            let doc = if doc { "/// A machine.\n" } else { "" };
            format!("{doc}machine {name}{profile} {{\n{}}}\n", members.concat())
        })
}

fn app_text() -> impl Strategy<Value = String> {
    (
        pick(NAMES),
        names(4),
        prop::collection::vec((pick(NAMES), pick(NAMES), any::<bool>()), 0..4),
    )
        .prop_map(|(name, chain, maps)| {
            let maps: Vec<String> = maps
                .iter()
                .map(|(a, b, q)| {
                    if *q {
                        format!("    A::{a} -> B::{b};\n")
                    } else {
                        format!("    {a} -> {b};\n")
                    }
                })
                .collect();
            format!(
                "app {name} {{\n    chain {};\n{}}}\n",
                chain.join(", "),
                maps.concat()
            )
        })
}

#[test]
fn generated_specs_never_panic() {
    let dir = TempDir::new("generated");
    let spec = (
        prop::collection::vec(machine_text(), 1..4),
        prop::option::of(app_text()),
    )
        .prop_map(|(ms, app)| format!("{}{}", ms.concat(), app.unwrap_or_default()));
    run(600, spec, |s| {
        compile_text("gen.fsm", &s, dir.path());
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// (b) Mutated shipped specs
// ---------------------------------------------------------------------------------------------------------------

#[test]
fn shipped_specs_compile_cleanly() {
    let specs = shipped_specs();
    let tree = spec_tree(&specs);
    for s in &specs {
        let base = tree.path().join(s.rel.parent().unwrap_or(Path::new("")));
        let name = s
            .rel
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        let c = compile_text(name, &s.text, &base);
        let errors = render::human(&c.sources, &c.diagnostics, false);
        assert!(
            !c.has_errors(),
            "{} does not compile:\n{errors}",
            s.rel.display()
        );
    }
}

#[test]
fn mutated_specs_never_panic() {
    let specs = shipped_specs();
    let tree = spec_tree(&specs);
    let strategy = (0..specs.len(), prop::collection::vec(mutation(), 1..6));
    run(1000, strategy, |(i, mutations)| {
        let s = &specs[i];
        let text = mutate(&s.text, &mutations, FSM_TOKENS);
        let base = tree.path().join(s.rel.parent().unwrap_or(Path::new("")));
        let name = s
            .rel
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        compile_text(name, &text, &base);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// (c) Mutated Open Autonomy YAML
// ---------------------------------------------------------------------------------------------------------------

#[test]
fn mutated_yaml_never_panics() {
    let seeds = yaml_seeds();
    let dir = TempDir::new("yaml");
    let strategy = (
        0..seeds.len(),
        prop::collection::vec(mutation(), 1..6),
        any::<bool>(),
    );
    run(800, strategy, |(i, mutations, import)| {
        let text = mutate(&seeds[i], &mutations, YAML_TOKENS);
        let _ = fsmc_driver::yaml::parse(FileId(0), &text);
        compile_text("mutated_fsm_specification.yaml", &text, dir.path());
        if import {
            // The same file imported, renamed and chained, reaches the import and composition paths.
            dir.write("imported/fsm_specification.yaml", &text);
            let importer = "import \"imported/fsm_specification.yaml\" as Imported;\n\
                            import \"imported/fsm_specification.yaml\";\n\
                            app Composed { chain Imported; }\n";
            compile_text("importer.fsm", importer, dir.path());
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Deterministic edge cases
// ---------------------------------------------------------------------------------------------------------------

const DEEP: usize = 100_000;

fn assert_fsm_rejected_on_small_stack(label: &'static str, text: String) {
    on_small_stack(move || {
        let dir = TempDir::new("deep");
        let (ast, diags) = fsmc_syntax::parse(FileId(0), &text);
        assert!(
            ast.is_none() && !diags.is_empty(),
            "{label}: parsed without error"
        );
        let c = compile_str("deep.fsm", &text, dir.path(), &Options::default());
        assert!(c.has_errors(), "{label}: compiled without error");
        assert!(
            has_code(&c, Code::Syntax),
            "{label}: not a syntax error: {:?}",
            c.diagnostics
        );
        let _ = render::human(&c.sources, &c.diagnostics, false);
    });
}

#[test]
fn deep_fsm_nesting_is_an_error_not_a_stack_overflow() {
    let cases: Vec<(&'static str, String)> = vec![
        ("bare (", "(".repeat(DEEP)),
        ("bare {", "{".repeat(DEEP)),
        ("bare [", "[".repeat(DEEP)),
        ("bare <", "<".repeat(DEEP)),
        ("machine braces", format!("machine M {}", "{".repeat(DEEP))),
        (
            "tuple type",
            format!("machine M {{ key k: {}", "(".repeat(DEEP)),
        ),
        (
            "closed tuple type",
            format!(
                "machine M {{ key k: {}{}; }}",
                "(".repeat(DEEP),
                ")".repeat(DEEP)
            ),
        ),
        (
            "array type",
            format!("machine M {{ key k: {}", "[".repeat(DEEP)),
        ),
        (
            "generic type",
            format!("machine M {{ key k: Vec{}", "<Vec".repeat(DEEP)),
        ),
        (
            "event fields",
            format!("machine M {{ event E{}", "(a: ".repeat(DEEP)),
        ),
        (
            "nested comments",
            format!("{}{}", "/*".repeat(DEEP), "*/".repeat(DEEP)),
        ),
        ("unclosed comments", "/*".repeat(DEEP)),
        (
            "comments in a machine",
            format!("machine M {{ {} }}", "/*".repeat(DEEP)),
        ),
        // Characters that hide the brackets from a naive pre-scan: a quote or `//` inside a block comment.
        (
            "quote in comment",
            format!("machine M {{ key k: /* \" */ {}", "(".repeat(DEEP)),
        ),
        (
            "line comment in comment",
            format!("machine M {{ key k: /* // */ {}", "(".repeat(DEEP)),
        ),
        (
            "strings in comment",
            format!("machine M {{ {}", "/*\"".repeat(DEEP)),
        ),
        (
            "escaped newline",
            format!("machine M {{ key k: \"\\\n\" {}", "(".repeat(DEEP)),
        ),
    ];
    for (label, text) in cases {
        assert_fsm_rejected_on_small_stack(label, text);
    }
}

/// The deepest nesting the parser accepts still parses on the default test-thread stack.
#[test]
fn nesting_at_the_limit_parses() {
    let depth = fsmc_syntax::parser::MAX_NESTING - 2; // the machine's `{` and the key's type take the rest
    let text = format!(
        "machine M {{ key k: {}u8{}; start default state A; final state B; event E; (A, E) -> B; }}",
        "(".repeat(depth),
        ",)".repeat(depth)
    );
    let dir = TempDir::new("limit");
    let c = compile_text("limit.fsm", &text, dir.path());
    assert!(!has_code(&c, Code::Syntax), "{:?}", c.diagnostics);
}

#[test]
fn deep_yaml_nesting_is_an_error_not_a_stack_overflow() {
    let cases: Vec<(&'static str, String)> = vec![
        ("flow sequences", "[".repeat(DEEP)),
        ("flow mappings", "{".repeat(DEEP)),
        (
            "closed flow sequences",
            format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)),
        ),
        ("flow mappings with keys", "{a: ".repeat(DEEP)),
        (
            "flow in a value",
            format!("transition_func: {}", "[".repeat(DEEP)),
        ),
        ("block sequences", format!("{}x\n", "- ".repeat(DEEP))),
        ("complex keys", format!("{}x\n", "? ".repeat(DEEP))),
        (
            "block mappings",
            (0..2_000)
                .map(|i| format!("{}a{i}:\n", " ".repeat(i)))
                .collect(),
        ),
    ];
    for (label, text) in cases {
        on_small_stack(move || {
            let dir = TempDir::new("deep-yaml");
            let (spec, diags) = fsmc_driver::yaml::parse(FileId(0), &text);
            assert!(
                spec.is_none() && !diags.is_empty(),
                "{label}: read without error"
            );
            let c = compile_str(
                "deep_fsm_specification.yaml",
                &text,
                dir.path(),
                &Options::default(),
            );
            assert!(c.has_errors(), "{label}: compiled without error");
            let _ = render::human(&c.sources, &c.diagnostics, false);
        });
    }
}

/// Writes `size` bytes to `path` by repeating `unit` after `head`.
fn write_big(path: &Path, head: &str, unit: &str, size: u64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    f.write_all(head.as_bytes()).expect("write");
    let mut written = head.len() as u64;
    while written < size {
        f.write_all(unit.as_bytes()).expect("write");
        written += unit.len() as u64;
    }
    f.flush().expect("flush");
}

fn assert_one_line(e: &fsmc_driver::loader::EntryError) {
    assert!(
        !e.message.trim().is_empty() && !e.message.contains('\n'),
        "not one line: {e:?}"
    );
    assert!(
        !e.path.is_empty() && !e.path.contains('\n'),
        "bad path: {e:?}"
    );
}

#[test]
fn files_over_the_size_cap_are_refused() {
    let dir = TempDir::new("big");
    let size = 50 * 1024 * 1024;
    assert!(size > fsmc_driver::loader::MAX_FILE_SIZE);
    let valid = dir.path().join("valid.fsm");
    write_big(
        &valid,
        "machine Big {\n    event GO;\n    start default state S;\n",
        "    state S1; (S, GO) -> S1;\n",
        size,
    );
    let garbage = dir.path().join("garbage.fsm");
    write_big(&garbage, "", "(((\u{1F4A5}\"\\ }}}} machine ;;\n", size);
    let yaml = dir.path().join("big_fsm_specification.yaml");
    write_big(&yaml, "states:\n", "- S\n", size);
    for p in [valid, garbage, yaml] {
        let e = compile(&p, &Options::default()).expect_err("a 50 MB file must be refused");
        assert_one_line(&e);
        assert!(e.message.contains("larger than"), "{e:?}");
    }
}

/// The cap is exact: one byte over is refused, a large file under it is read and parsed in linear time (8 MiB
/// here, to keep the debug suite fast; the parser's time per byte does not grow with the file).
#[test]
fn the_size_cap_is_exact_and_large_files_under_it_are_read() {
    let dir = TempDir::new("under-cap");
    let over = dir.path().join("over.fsm");
    write_big(
        &over,
        "",
        "// 0123456789abcdef0123456789abcdef0123456789abcdef0123456789\n",
        fsmc_driver::loader::MAX_FILE_SIZE,
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&over)
        .expect("open");
    f.set_len(fsmc_driver::loader::MAX_FILE_SIZE)
        .expect("truncate");
    f.write_all(b"\n").expect("append");
    drop(f);
    assert_eq!(
        std::fs::metadata(&over).expect("stat").len(),
        fsmc_driver::loader::MAX_FILE_SIZE + 1
    );
    let e = compile(&over, &Options::default()).expect_err("one byte over the cap");
    assert!(e.message.contains("larger than"), "{e:?}");

    let path = dir.path().join("big.fsm");
    write_big(
        &path,
        "",
        "// 0123456789abcdef0123456789abcdef0123456789abcdef0123456789\n",
        8 << 20,
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    f.write_all(b"machine M { event E; start default state A; final state B; (A, E) -> B; }\n")
        .expect("append");
    drop(f);
    let c = compile(&path, &Options::default()).expect("under the cap");
    exercise(&c);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
}

#[test]
fn unusable_entry_files_give_one_line_entry_errors() {
    let dir = TempDir::new("entry");
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        ("empty file", dir.write("empty.fsm", ""), "empty"),
        (
            "whitespace only",
            dir.write("blank.fsm", " \n\t\r\n  \n"),
            "empty",
        ),
        (
            "binary file",
            dir.write("binary.fsm", [0x7f, b'E', b'L', b'F', 0, 1, 2, 0, 0xff]),
            "binary",
        ),
        (
            "invalid UTF-8",
            dir.write("latin1.fsm", b"machine Caf\xe9 { }\n"),
            "UTF-8",
        ),
        (
            "lone surrogate",
            dir.write("surrogate.fsm", b"machine M { } // \xed\xa0\x80\n"),
            "UTF-8",
        ),
        (
            "directory",
            {
                std::fs::create_dir_all(dir.path().join("dir.fsm")).expect("mkdir");
                dir.path().join("dir.fsm")
            },
            "directory",
        ),
        (
            "missing file",
            dir.path().join("missing.fsm"),
            "no such file",
        ),
        (
            "missing directory",
            dir.path().join("nope/missing.fsm"),
            "no such file",
        ),
        (
            "empty YAML",
            dir.write("empty_fsm_specification.yaml", "\n"),
            "empty",
        ),
        (
            "binary YAML",
            dir.write("bin_fsm_specification.yaml", b"a: \0"),
            "binary",
        ),
    ];
    for (label, path, expected) in cases {
        match compile(&path, &Options::default()) {
            Err(e) => {
                assert_one_line(&e);
                assert!(e.message.contains(expected), "{label}: {e:?}");
            }
            Ok(c) => panic!("{label}: expected an entry error, got {:?}", c.diagnostics),
        }
    }
}

/// A file of only comments reads fine and holds nothing: no panic, at most diagnostics.
#[test]
fn comment_only_files() {
    let dir = TempDir::new("comments");
    for (name, text) in [
        ("line.fsm", "// nothing here\n//! nor here\n"),
        ("block.fsm", "/* a /* nested */ comment */\n"),
        ("doc.fsm", "/// a doc comment with nothing to document\n"),
        ("comments_fsm_specification.yaml", "# only a comment\n"),
    ] {
        let path = dir.write(name, text);
        match compile(&path, &Options::default()) {
            Err(e) => assert_one_line(&e),
            Ok(c) => exercise(&c),
        }
    }
}

#[test]
fn unusable_imported_files_are_diagnostics() {
    let dir = TempDir::new("imports");
    dir.write("empty.fsm", "");
    dir.write("binary.fsm", [0u8, 1, 2, 3]);
    dir.write("latin1.fsm", b"\xe9\n");
    std::fs::create_dir_all(dir.path().join("dir.fsm")).expect("mkdir");
    let text = "import \"empty.fsm\";\nimport \"binary.fsm\";\nimport \"latin1.fsm\";\nimport \"dir.fsm\";\n\
                import \"missing.fsm\";\nimport \"../outside.fsm\";\nimport \"/etc/hostname\";\n\
                machine M { event E; start default state A; final state B; (A, E) -> B; }\n";
    let c = compile_text("main.fsm", text, dir.path());
    assert!(c.has_errors());
    for d in &c.diagnostics {
        assert!(!d.message.contains('\n'), "not one line: {d:?}");
    }
    assert!(
        has_code(&c, Code::Io)
            && has_code(&c, Code::ImportNotFound)
            && has_code(&c, Code::ImportOutsideRoots)
    );
}

#[test]
fn nul_bytes_in_text() {
    let dir = TempDir::new("nul");
    let valid = "machine M { event E; start default state A; final state B; (A, E) -> B; }\n";
    for text in [
        "\0".to_string(),
        "machine M {\0 event E; }".to_string(),
        format!("// \0\n{valid}"),
        format!("/* \0 */{valid}"),
        format!("{valid}\0"),
        "label: \"a\0b\"\nstates: [\0]\n".to_string(),
    ] {
        everything(&text, dir.path());
    }
    // From a file, a NUL byte makes it binary.
    let path = dir.write("nul.fsm", format!("{valid}\0{valid}"));
    let e = compile(&path, &Options::default()).expect_err("binary");
    assert_one_line(&e);
}

#[test]
fn megabyte_identifiers() {
    let dir = TempDir::new("long-ident");
    let long = |c: char| {
        std::iter::once(c)
            .chain(std::iter::repeat_n('x', 1 << 20))
            .collect::<String>()
    };
    let (m, s, e) = (long('M'), long('S'), long('E'));
    let valid = format!(
        "machine {m} {{ event {e}; start default state {s}; final state B; ({s}, {e}) -> B; }}\n"
    );
    let c = compile_text("long.fsm", &valid, dir.path());
    assert!(
        !c.has_errors(),
        "{:?}",
        c.diagnostics
            .iter()
            .map(|d| &d.message[..d.message.len().min(200)])
            .collect::<Vec<_>>()
    );
    // An unknown megabyte name: the "did you mean" search must not choke, and messages stay printable.
    let unknown = format!(
        "machine M {{ event E; start default state A; final state B; (A, E) -> {s}; (A, {e}) -> {m}; }}\n"
    );
    let c = compile_text("unknown.fsm", &unknown, dir.path());
    assert!(c.has_errors());
    // A megabyte string and a megabyte comment.
    let c = compile_text(
        "string.fsm",
        &format!("import \"{s}\";\n/* {m} */"),
        dir.path(),
    );
    assert!(c.has_errors());
}

/// A carriage return inside a doc line used to reach the generated code, where a bare CR in a doc comment is
/// not Rust: prettyplease prints `#[doc]` as `///`, and the file no longer parsed.
#[test]
fn doc_comment_with_a_lone_carriage_return() {
    let dir = TempDir::new("cr");
    for text in [
        "/// one\rtwo\nmachine M { event E; start default state A; final state B; (A, E) -> B; }\n",
        "machine M {\n    /// one\rtwo\r\n    event E; start default state A; final state B; (A, E) -> B; }\n",
        "/// CRLF\r\n/// lines\r\nmachine M { event E; start default state A; final state B; (A, E) -> B; }\r\n",
    ] {
        let c = compile_text("cr.fsm", text, dir.path()); // generates and re-parses the code
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
    }
}

fn small_machine(i: usize) -> String {
    format!(
        "machine M{i} {{ event GO{i}; start default state A{i}; final state B{i}; (A{i}, GO{i}) -> B{i}; }}\n"
    )
}

#[test]
fn ten_thousand_machines() {
    let dir = TempDir::new("many");
    let text: String = (0..10_000).map(small_machine).collect();
    let c = compile_str("many.fsm", &text, dir.path(), &Options::default());
    assert!(!c.has_errors(), "{:?}", c.diagnostics.first());
    // Every one of them twice: 10k duplicate-name errors, reported without blowing up.
    let c = compile_str(
        "twice.fsm",
        &format!("{text}{text}"),
        dir.path(),
        &Options::default(),
    );
    assert!(c.has_errors());
    let _ = render::human(&c.sources, &c.diagnostics, false);
}

#[test]
fn import_cycles_are_errors() {
    let dir = TempDir::new("cycle");
    let own = dir.write(
        "own.fsm",
        format!("import \"own.fsm\";\n{}", small_machine(0)),
    );
    let c = compile(&own, &Options::default()).expect("readable");
    exercise(&c);
    assert!(has_code(&c, Code::ImportCycle), "{:?}", c.diagnostics);
    dir.write("a.fsm", format!("import \"b.fsm\";\n{}", small_machine(1)));
    dir.write(
        "b.fsm",
        format!("import \"./sub/../a.fsm\";\n{}", small_machine(2)),
    );
    std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");
    let c = compile(&dir.path().join("a.fsm"), &Options::default()).expect("readable");
    exercise(&c);
    assert!(has_code(&c, Code::ImportCycle), "{:?}", c.diagnostics);
    // compile_str: the virtual entry is on the import stack too.
    let c = compile_text(
        "own.fsm",
        &format!("import \"own.fsm\";\n{}", small_machine(0)),
        dir.path(),
    );
    assert!(c.has_errors());
}

fn write_chain(dir: &TempDir, n: usize, close_cycle: bool) -> PathBuf {
    for i in 0..n {
        let next = if i + 1 < n {
            format!("import \"f{}.fsm\";\n", i + 1)
        } else if close_cycle {
            "import \"f0.fsm\";\n".into()
        } else {
            String::new()
        };
        dir.write(&format!("f{i}.fsm"), format!("{next}{}", small_machine(i)));
    }
    dir.path().join("f0.fsm")
}

#[test]
fn import_chain_of_fifty_files() {
    let dir = TempDir::new("chain");
    let entry = write_chain(&dir, 50, false);
    let c = compile(&entry, &Options::default()).expect("readable");
    exercise(&c);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    assert_eq!(c.files_read.len(), 50);

    let dir = TempDir::new("chain-cycle");
    let entry = write_chain(&dir, 50, true);
    let c = compile(&entry, &Options::default()).expect("readable");
    exercise(&c);
    assert_eq!(
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::ImportCycle)
            .count(),
        1,
        "{:?}",
        c.diagnostics
    );
}

/// Loading a long chain of imports must not recurse once per file: 2 000 files on a 256 KiB stack. (The loader
/// used to recurse per import; each level took ~10 KiB of a debug build's stack, so on a 2 MiB test thread a chain
/// of ~215 files made pest's stack guard refuse the next file with a bogus "unexpected `event`".)
#[test]
fn long_import_chain_on_a_small_stack() {
    let dir = TempDir::new("long-chain");
    let entry = write_chain(&dir, 2_000, false);
    on_small_stack(move || {
        let c = compile(&entry, &Options::default()).expect("readable");
        assert!(!c.has_errors(), "{:?}", c.diagnostics.first());
        assert_eq!(c.files_read.len(), 2_000);
        drop(dir);
    });
}

/// A `"` or `//` inside a block comment is comment text; the nesting pre-scan used to take them for a string or
/// a line comment and skip the brackets after the comment, letting 1000-deep types reach the recursive parser.
#[test]
fn comments_cannot_hide_nesting_from_the_depth_limit() {
    for prefix in ["/* \" */", "/* // */", "/* /* \" */ */", "/*\n\"*/"] {
        let text = format!(
            "machine M {{ key k: {prefix} {}u8{}; start default state A; final state B; event E; (A, E) -> B; }}",
            "(".repeat(1000),
            ",)".repeat(1000)
        );
        let (ast, diags) = fsmc_syntax::parse(FileId(0), &text);
        assert!(ast.is_none(), "{prefix}: a 1000-deep type parsed");
        assert!(
            diags[0].message.starts_with("nesting deeper than"),
            "{prefix}: {:?}",
            diags[0]
        );
    }
    // Strings and line comments outside block comments still hide what they hold.
    let text = format!(
        "// {}\nmachine M {{ label \"{}\"; }}",
        "(".repeat(1000),
        "[".repeat(1000)
    );
    let (_, diags) = fsmc_syntax::parse(FileId(0), &text);
    assert!(
        !diags.iter().any(|d| d.message.starts_with("nesting")),
        "{diags:?}"
    );
}

/// The parser has no stack guard of its own (pest is built without `std`): the nesting limit is what keeps it off
/// the stack's end. A spec nested to the limit parses on a 128 KiB stack, a sixteenth of a test thread's and far
/// less than a proc macro's, even unoptimized.
#[test]
fn nesting_at_the_limit_parses_on_a_small_stack() {
    let depth = fsmc_syntax::parser::MAX_NESTING - 2;
    let text = format!(
        "machine M {{ key k: {}u8{}; event E(a: Vec<; }}",
        "(".repeat(depth),
        ",)".repeat(depth)
    );
    let diags = std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(move || fsmc_syntax::parse(FileId(0), &text).1)
        .expect("spawn")
        .join()
        .expect("the parser overflowed a 128 KiB stack");
    // The unclosed event fields make the recovery parse piece by piece too, the deepest path there is.
    assert!(!diags.is_empty());
    assert!(
        diags.iter().all(|d| !d.message.starts_with("nesting")),
        "{diags:?}"
    );
}
