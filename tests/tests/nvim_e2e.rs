//! End to end with a real editor: Neovim, headless, with its built-in LSP client, opens a spec that imports
//! another one, receives the diagnostics, jumps to the definition of a state declared in the imported file,
//! renames that state across both files and saves them (the script it runs is
//! `tests/fixtures/nvim_e2e/driver.lua`). This test then checks what Neovim recorded against `fsmc check`, and
//! what it wrote to disk.
//!
//! The language server Neovim starts is this test's own executable, run as `nvim_e2e --serve-lsp`: it serves
//! through `fsmc::cli::run` with the arguments `fsmc lsp`, the very entry point of the `fsmc` binary, so the
//! server under test is always the code under test. (Cargo tells a test where a binary is only for binaries of
//! the test's own package, and an `fsmc` binary found elsewhere under `target/` may be stale.) For the same
//! reason this test has no libtest harness (`harness = false` in Cargo.toml): libtest writes to standard
//! output, which is the protocol's channel. It prints libtest's lines itself.
//!
//! Neovim is looked up on `PATH`: without it the test says it is ignored, unless `FSMC_REQUIRE_NVIM=1` (as CI
//! sets), where that is a failure. Neovim 0.7 (Debian bookworm's package) or newer.

use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NAME: &str = "nvim_e2e";
const SERVE_FLAG: &str = "--serve-lsp";
/// What the driver script's steps may take together.
const DRIVER_BUDGET: Duration = Duration::from_secs(30);
/// How long Neovim may run before it is killed (the driver's budget, plus start-up and writing the results).
const NVIM_TIMEOUT: Duration = Duration::from_secs(60);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(SERVE_FLAG) {
        serve();
    }
    let selected = selected(&args);
    if args.iter().any(|a| a == "--list") {
        if selected {
            println!("{NAME}: test");
        }
        return;
    }
    println!(
        "\nrunning {} test{}",
        usize::from(selected),
        if selected { "" } else { "s" }
    );
    if !selected {
        summary("ok", [0, 0, 0, 1], 0.0);
        return;
    }
    let started = Instant::now();
    let outcome = std::panic::catch_unwind(run);
    let secs = started.elapsed().as_secs_f64();
    match outcome {
        Ok(Outcome::Passed) => {
            println!("test {NAME} ... ok");
            summary("ok", [1, 0, 0, 0], secs);
        }
        Ok(Outcome::Skipped(why)) => {
            println!("test {NAME} ... ignored, {why}");
            summary("ok", [0, 0, 1, 0], secs);
        }
        Err(_) => {
            // The panic hook has printed the failure.
            println!("test {NAME} ... FAILED");
            summary("FAILED", [0, 1, 0, 0], secs);
            std::process::exit(101);
        }
    }
}

/// libtest's closing line, which tools that read test output look for.
fn summary(result: &str, [passed, failed, ignored, filtered]: [usize; 4], secs: f64) {
    println!(
        "\ntest result: {result}. {passed} passed; {failed} failed; {ignored} ignored; 0 measured; \
         {filtered} filtered out; finished in {secs:.2}s\n"
    );
}

/// The language server on standard input and output, exactly as `fsmc lsp` runs it.
fn serve() -> ! {
    let stdout = std::io::stdout();
    let argv = ["fsmc", "lsp"].map(OsString::from).to_vec();
    let code = fsmc::cli::run(
        argv,
        &mut stdout.lock(),
        &mut std::io::stderr().lock(),
        false,
    );
    std::process::exit(code);
}

/// Whether libtest's arguments select this test: name filters (`--exact` for a whole name), `--skip`, and
/// `--ignored` (this test is not an ignored one). Options with a value in the next argument skip that value.
fn selected(args: &[String]) -> bool {
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let exact = args.iter().any(|a| a == "--exact");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--ignored" => return false,
            "--skip" => skips.extend(it.next()),
            "--test-threads" | "--color" | "--format" | "--logfile" | "-Z" | "--shuffle-seed" => {
                it.next();
            }
            _ if a.starts_with('-') => {}
            _ => filters.push(a),
        }
    }
    let matches = |f: &String| {
        if exact {
            NAME == f
        } else {
            NAME.contains(f.as_str())
        }
    };
    (filters.is_empty() || filters.iter().any(|f| matches(f))) && !skips.iter().any(|s| matches(s))
}

enum Outcome {
    Passed,
    Skipped(String),
}

fn run() -> Outcome {
    let Some(nvim) = find_on_path("nvim") else {
        assert!(
            std::env::var("FSMC_REQUIRE_NVIM").as_deref() != Ok("1"),
            "FSMC_REQUIRE_NVIM=1 but there is no `nvim` on PATH (Debian: apt-get install neovim)"
        );
        return Outcome::Skipped("no `nvim` on PATH (Debian: apt-get install neovim)".to_string());
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nvim_e2e");
    let tmp = fsmc_testkit::scratch(NAME);
    // Canonical, so that the paths Neovim and the server print are the ones compared here.
    let dir = tmp.path().canonicalize().expect("scratch dir");
    // The specs have a directory of their own: it is the workspace folder, which the server searches.
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).expect("specs dir");
    let copy = |name: &str| {
        let text = std::fs::read_to_string(fixtures.join(name)).expect("fixture");
        let path = specs.join(name);
        std::fs::write(&path, &text).expect("copy fixture");
        Spec { path, text }
    };
    let (main, common) = (copy("main.fsm"), copy("common.fsm"));

    // What `fsmc check` says of the spec, before the editor touches it.
    let expected = check_json(&main.path);
    assert!(
        expected.iter().any(|d| d.code == "E0104"),
        "the fixture should have an unknown state (E0104); fsmc check says {expected:?}"
    );

    let (results, nvim_log) = drive(&nvim, &fixtures.join("driver.lua"), &dir, &specs);
    let context = format!("nvim's results: {results:#}\nits output:\n{nvim_log}");
    assert!(
        results.get("error").is_none(),
        "the driver failed: {context}"
    );
    let messages = results["messages"].as_array().cloned().unwrap_or_default();
    assert!(
        messages.is_empty(),
        "nvim showed messages: {messages:?}\n{context}"
    );
    assert_eq!(results["main_filetype"], "fsm", "{context}");

    diagnostics_are_those_of_check(&results, &main, &expected, &context);
    definition_crosses_files(&results, &common, &context);
    rename_changes_both_files(&results, [&main, &common], &expected, &context);
    shutdown_follows_every_step(&results, &context);
    println!(
        "nvim {} drove `fsmc lsp`: {} diagnostics, a definition across files, a rename across 2 files",
        results["nvim_version"].as_str().unwrap_or("?"),
        expected.len()
    );
    Outcome::Passed
}

/// The diagnostics: those of `fsmc check`, at the same places, and in Neovim's diagnostic list.
fn diagnostics_are_those_of_check(results: &Value, main: &Spec, expected: &[Diag], context: &str) {
    assert_eq!(diagnostics(&results["diagnostics"]), expected, "{context}");
    let ui = results["ui_diagnostics"]
        .as_array()
        .expect("ui diagnostics");
    assert_eq!(ui.len(), expected.len(), "{context}");
    let unknown = results["diagnostics"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "E0104")
        .cloned()
        .expect("E0104");
    assert_eq!(
        unknown["range"],
        range(&main.text, "-> Runing;", 3, "Runing"),
        "{context}"
    );
    assert_eq!(unknown["severity"], 1, "an error: {context}");
    assert_eq!(unknown["source"], "fsmc", "{context}");
    let message = unknown["message"].as_str().expect("message");
    assert!(
        message.contains("`Running`"),
        "no did-you-mean in {message:?}"
    );
}

/// The definition of `Registered`, used in main.fsm, declared in common.fsm: the answer, and the jump.
fn definition_crosses_files(results: &Value, common: &Spec, context: &str) {
    let declared = range(
        &common.text,
        "final state Registered;",
        "final state ".len(),
        "Registered",
    );
    let definition = &results["definition"];
    assert!(definition.get("error").is_none(), "{context}");
    let location = match &definition["result"] {
        Value::Array(locations) => {
            assert_eq!(locations.len(), 1, "{context}");
            locations[0].clone()
        }
        location => location.clone(),
    };
    assert_eq!(
        location["uri"]
            .as_str()
            .and_then(|u| u.strip_prefix("file://")),
        Some(common.path.to_str().expect("UTF-8 path")),
        "{context}"
    );
    assert_eq!(location["range"], declared, "{context}");
    assert_eq!(
        results["jumped_to"],
        serde_json::json!({
            "file": common.path,
            "line": declared["start"]["line"],
            "character": declared["start"]["character"],
        }),
        "{context}"
    );
}

/// The rename, saved: every `Registered` in both files, and nothing else.
fn rename_changes_both_files(results: &Value, specs: [&Spec; 2], expected: &[Diag], context: &str) {
    for spec in specs {
        let renamed = std::fs::read_to_string(&spec.path).expect("renamed file");
        assert_eq!(
            renamed,
            spec.text.replace("Registered", "Enrolled"),
            "{} after the rename; {context}",
            spec.path.display()
        );
    }
    // The renamed files compile to the same diagnostics, in the editor and on the command line.
    assert_eq!(
        diagnostics(&results["diagnostics_after_rename"]),
        expected,
        "{context}"
    );
    assert_eq!(
        check_json(&specs[0].path),
        expected,
        "fsmc check after the rename"
    );
    if let Some(common) = results.get("common_after_rename").filter(|v| !v.is_null()) {
        assert_eq!(common["diagnostics"], serde_json::json!([]), "{context}");
    }
}

/// An orderly shutdown, after every step.
fn shutdown_follows_every_step(results: &Value, context: &str) {
    assert_eq!(results["server_exit"]["code"], 0, "{context}");
    let steps: Vec<&str> = results["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        steps,
        [
            "initialized",
            "diagnostics",
            "definition",
            "rename",
            "diagnostics after rename",
            "shutdown"
        ],
        "{context}"
    );
}

/// A spec copied to the scratch directory, and its text before the editor changed it.
struct Spec {
    path: PathBuf,
    text: String,
}

/// Runs Neovim on the driver script, killing it after [`NVIM_TIMEOUT`]: the results it wrote, and its output.
fn drive(nvim: &Path, driver: &Path, dir: &Path, specs: &Path) -> (Value, String) {
    let results_path = dir.join("results.json");
    let log_path = dir.join("nvim.log");
    let server = serde_json::json!([
        std::env::current_exe().expect("test executable"),
        SERVE_FLAG
    ]);
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut cmd = Command::new(nvim);
    cmd.args(["--headless", "--clean", "-u"])
        .arg(driver)
        .current_dir(specs)
        .env("FSMC_E2E_DIR", specs)
        .env("FSMC_E2E_RESULTS", &results_path)
        .env("FSMC_E2E_SERVER", server.to_string())
        .env("FSMC_E2E_TIMEOUT_MS", DRIVER_BUDGET.as_millis().to_string())
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log file"))
        .stderr(log);
    // Neovim's own files (its LSP log, state, caches) go to the temp dir, not the user's home.
    for (var, sub) in [
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        cmd.env(var, dir.join("xdg").join(sub));
    }
    let mut child = KillOnDrop(cmd.spawn().expect("start nvim"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait for nvim") {
            break status;
        }
        if started.elapsed() > NVIM_TIMEOUT {
            let _ = child.0.kill();
            let _ = child.0.wait();
            panic!(
                "nvim did not finish within {NVIM_TIMEOUT:?}; its output:\n{}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let nvim_log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(
        status.success(),
        "nvim exited with {status}; its output:\n{nvim_log}"
    );
    let results = std::fs::read_to_string(&results_path)
        .unwrap_or_else(|e| panic!("no results from nvim ({e}); its output:\n{nvim_log}"));
    let results = serde_json::from_str(&results)
        .unwrap_or_else(|e| panic!("the results are not JSON ({e}): {results}"));
    (results, nvim_log)
}

/// A diagnostic as both sides can say it: code and 0-based start (line, character).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Diag {
    code: String,
    line: u64,
    character: u64,
}

/// The diagnostics of one `textDocument/publishDiagnostics`, as the driver recorded them.
fn diagnostics(published: &Value) -> Vec<Diag> {
    let mut out: Vec<Diag> = published["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics in {published}"))
        .iter()
        .map(|d| Diag {
            code: d["code"].as_str().unwrap_or_default().to_string(),
            line: d["range"]["start"]["line"].as_u64().expect("line"),
            character: d["range"]["start"]["character"]
                .as_u64()
                .expect("character"),
        })
        .collect();
    out.sort();
    out
}

/// `fsmc check --message-format json SPEC`, in-process: the diagnostics in the spec itself (1-based lines and
/// columns made 0-based; the fixtures are ASCII, so columns are characters in any encoding).
fn check_json(spec: &Path) -> Vec<Diag> {
    let args: [OsString; 4] = [
        "check".into(),
        "--message-format".into(),
        "json".into(),
        spec.into(),
    ];
    let out =
        fsmc_testkit::capture(args, |argv, out, err| fsmc::cli::run(argv, out, err, false)).stdout;
    let name = spec
        .file_name()
        .and_then(|n| n.to_str())
        .expect("file name");
    let mut diags: Vec<Diag> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON diagnostic per line"))
        .filter(|d| {
            d["file"]
                .as_str()
                .is_some_and(|f| Path::new(f).file_name().and_then(|n| n.to_str()) == Some(name))
        })
        .map(|d| Diag {
            code: d["code"].as_str().expect("code").to_string(),
            line: d["line"].as_u64().expect("line") - 1,
            character: d["column"].as_u64().expect("column") - 1,
        })
        .collect();
    diags.sort();
    diags
}

/// The protocol's range of `word`, which starts `offset` bytes into the first occurrence of `needle` in `text`
/// (0-based lines and characters; the fixtures are ASCII, so bytes are characters in any encoding).
fn range(text: &str, needle: &str, offset: usize, word: &str) -> Value {
    let (line, character) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find(needle).map(|c| (i, c + offset)))
        .unwrap_or_else(|| panic!("no `{needle}` in the fixture"));
    assert!(
        text.lines()
            .nth(line)
            .is_some_and(|l| l[character..].starts_with(word))
    );
    serde_json::json!({
        "start": { "line": line, "character": character },
        "end": { "line": line, "character": character + word.len() },
    })
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Neovim, killed if the test fails before it exits.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
