//! Robustness against the file system: output targets that are not files, special files and symbolic links as
//! inputs, links that loop or lead out of the allowed directories, output that cannot be written, and long
//! import chains. Each test is a finding that once hung, grew without bound, escaped, or exited 0.
//!
//! Every command runs the real binary with a time limit, so a regression fails instead of hanging the suite.

use fsmc_testkit::{scratch, write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SPEC: &str = "machine Door { event OPEN, CLOSE; start default state Closed; state Opened; \
                    (Closed, OPEN) -> Opened; (Opened, CLOSE) -> Closed; }\n";

struct OutcomeKind {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `fsmc` in `dir` with `args`, killing it after ten seconds (then the test fails: it hung).
fn fsmc_in(dir: &Path, args: &[&str], stdout: Stdio) -> OutcomeKind {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("fsmc starts");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let out = child.wait_with_output().expect("output");
            return OutcomeKind {
                code: status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            };
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fsmc {args:?} did not finish in 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn fsmc(dir: &Path, args: &[&str]) -> OutcomeKind {
    fsmc_in(dir, args, Stdio::piped())
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn a_spec_that_is_a_device_or_a_fifo_is_refused_not_read() {
    let s = scratch("files-special");
    std::os::unix::fs::symlink("/dev/zero", s.path().join("zero.fsm")).expect("symlink");
    mkfifo(&s.path().join("pipe.fsm"));
    for name in ["zero.fsm", "pipe.fsm"] {
        let o = fsmc(s.path(), &["check", name]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(o.stderr.contains("is not a regular file"), "{}", o.stderr);
    }
    // Found by walking a directory, too; the good spec beside them is still checked.
    write(s.path(), "door.fsm", SPEC);
    let o = fsmc(s.path(), &["check", "."]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("checked 1 file, 1 machine: ok; 2 could not be read"),
        "{}",
        o.stderr
    );
    // Imported: a FIFO is refused unread; the link to `/dev/zero` leads outside the allowed directories.
    write(
        s.path(),
        "main.fsm",
        "import \"pipe.fsm\";\nimport \"zero.fsm\";\n",
    );
    let o = fsmc(s.path(), &["check", "main.fsm"]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("is not a regular file"), "{}", o.stdout);
    assert!(o.stdout.contains("error[E0003]"), "{}", o.stdout);
}

#[test]
fn directory_links_that_loop_are_walked_once() {
    let s = scratch("files-loops");
    write(s.path(), "a/door.fsm", SPEC);
    std::os::unix::fs::symlink("..", s.path().join("a/up")).expect("symlink");
    std::os::unix::fs::symlink("../a", s.path().join("a/again")).expect("symlink");
    std::os::unix::fs::symlink("door.fsm", s.path().join("a/same.fsm")).expect("symlink");
    let o = fsmc(s.path(), &["check", "."]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("checked 1 file, 1 machine: ok"),
        "{}",
        o.stderr
    );
}

#[test]
fn an_import_through_a_link_cannot_leave_the_allowed_directories() {
    let s = scratch("files-escape");
    write(
        s.path(),
        "outside.fsm",
        "secret first line\nmachine Secret {}\n",
    );
    std::os::unix::fs::symlink("../outside.fsm", s.path().join("root/link.fsm").as_path())
        .or_else(|_| {
            std::fs::create_dir_all(s.path().join("root"))?;
            std::os::unix::fs::symlink("../outside.fsm", s.path().join("root/link.fsm"))
        })
        .expect("symlink");
    write(
        s.path(),
        "root/main.fsm",
        format!("import \"link.fsm\";\n{SPEC}"),
    );
    let o = fsmc(&s.path().join("root"), &["check", "main.fsm"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.contains("error[E0003]"), "{}", o.stdout);
    assert!(
        !o.stdout.contains("secret"),
        "the outside file was read: {}",
        o.stdout
    );
}

#[test]
fn gen_refuses_an_output_that_is_not_a_file() {
    let s = scratch("files-targets");
    write(s.path(), "door.fsm", SPEC);
    mkfifo(&s.path().join("pipe.rs"));
    std::fs::create_dir_all(s.path().join("dir.rs")).expect("dir");
    for target in ["/dev/full", "/dev/stdout", "pipe.rs", "dir.rs"] {
        let o = fsmc(s.path(), &["gen", "door.fsm", "-o", target]);
        assert_eq!(o.code, 2, "{target}: {}", o.stderr);
        assert!(
            o.stderr.contains("not a regular file"),
            "{target}: {}",
            o.stderr
        );
    }
}

#[test]
fn output_that_cannot_be_written_exits_two() {
    let s = scratch("files-full");
    write(s.path(), "door.fsm", SPEC);
    for args in [
        &["gen", "door.fsm"][..],
        &["explain", "E0101"],
        &["explain"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = fsmc_in(s.path(), args, Stdio::from(full));
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains("cannot write the output"), "{}", o.stderr);
    }
}

#[test]
fn gen_output_does_not_depend_on_the_directory_it_runs_in() {
    let s = scratch("files-cwd");
    write(s.path(), "specs/door.fsm", SPEC);
    std::fs::create_dir_all(s.path().join("src")).expect("dir");
    let o = fsmc(s.path(), &["gen", "specs/door.fsm", "-o", "src/door.rs"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let written = std::fs::read_to_string(s.path().join("src/door.rs")).expect("written");
    assert!(written.contains("// Spec: ../specs/door.fsm"), "{written}");
    // Checked from elsewhere, with other paths to the same files: not stale.
    let o = fsmc(
        &s.path().join("src"),
        &["gen", "../specs/door.fsm", "-o", "door.rs", "--check"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = fsmc(
        &s.path().join("specs"),
        &["gen", "door.fsm", "-o", "../src/door.rs", "--check"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    // On standard output, the spec is named by its file name wherever the command runs.
    let a = fsmc(s.path(), &["gen", "specs/door.fsm"]);
    let b = fsmc(&s.path().join("specs"), &["gen", "door.fsm"]);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn gen_replaces_its_output_whole_or_not_at_all() {
    let s = scratch("files-atomic");
    write(s.path(), "door.fsm", SPEC);
    let o = fsmc(s.path(), &["gen", "door.fsm", "-o", "door.rs"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let good = std::fs::read_to_string(s.path().join("door.rs")).expect("written");
    // A write that cannot finish (the target's directory vanished) leaves no half-written file behind.
    let o = fsmc(s.path(), &["gen", "door.fsm", "-o", "gone/door.rs"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(!s.path().join("gone").exists());
    // A spec that changed rewrites the file whole; no temporary file is left beside it.
    write(s.path(), "door.fsm", SPEC.replace("Opened", "Ajar"));
    let o = fsmc(s.path(), &["gen", "door.fsm", "-o", "door.rs"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let now = std::fs::read_to_string(s.path().join("door.rs")).expect("written");
    assert_ne!(now, good);
    assert!(now.contains("Ajar"));
    let leftovers: Vec<_> = std::fs::read_dir(s.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_long_import_chain_reads_each_file_once() {
    let s = scratch("files-chain");
    let n = 300;
    let mut files = Vec::new();
    for i in 0..n {
        let import = if i + 1 < n {
            format!("import \"f{}.fsm\";\n", i + 1)
        } else {
            String::new()
        };
        files.push(write(
            s.path(),
            &format!("f{i}.fsm"),
            format!(
                "{import}machine M{i} {{ event GO; start default state A{i}; final state B{i}; (A{i}, GO) -> B{i}; }}\n"
            ),
        ));
    }
    // What `fsmc check DIR` does: one compilation for every file, each file read once (not n²/2 times).
    let (compilation, unreadable) =
        fsmc_driver::compile_all(&files, &fsmc_driver::Options::default());
    assert!(unreadable.is_empty());
    assert_eq!(compilation.files_read.len(), n);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let o = fsmc(s.path(), &["check", "."]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains(&format!("checked {n} files, {n} machines: ok")),
        "{}",
        o.stderr
    );
}

#[test]
fn output_errors_are_caught_in_process_too() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::StorageFull.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut err = Vec::new();
    let code = fsmc::cli::run(
        ["fsmc", "explain", "E0101"].map(Into::into),
        &mut Full,
        &mut err,
        false,
    );
    assert_eq!(code, 2);
    assert!(String::from_utf8_lossy(&err).contains("cannot write the output"));
}

#[test]
fn spec_text_never_reaches_the_terminal_raw() {
    let s = scratch("files-escapes");
    // Free-text names in Open Autonomy YAML, a doc comment in `.fsm`, and a file name: all with an escape
    // sequence (it could set the terminal title or the clipboard) and a bidirectional override.
    write(
        s.path(),
        "bad_fsm_specification.yaml",
        "alphabet_in:\n- DONE\ndefault_start_state: \"A\\e]52;c;aGk=\\aRound\"\nfinal_states: []\nlabel: XAbciApp\n\
         start_states:\n- \"A\\e]52;c;aGk=\\aRound\"\nstates:\n- \"A\\e]52;c;aGk=\\aRound\"\ntransition_func:\n    \
         (\"A\\e]52;c;aGk=\\aRound\", DONE\\u202e): A\n",
    );
    write(
        s.path(),
        "doc.fsm",
        "/// \u{1b}]0;title\u{7} and \u{202e}gnirts\nmachine M { event GO; start state A; final state B; (A, GO) -> B; }\n",
    );
    write(s.path(), "e\u{1b}[31mvil.fsm", "not a spec {");
    let o = fsmc(s.path(), &["check", "."]);
    assert_ne!(o.code, 0);
    for text in [&o.stdout, &o.stderr] {
        assert!(
            !text.contains('\u{1b}'),
            "an escape reached the terminal:\n{text}"
        );
        assert!(!text.contains('\u{7}'), "{text}");
        assert!(!text.contains('\u{202e}'), "{text}");
    }
    assert!(o.stdout.contains("error["), "{}", o.stdout);
}

#[test]
fn a_file_name_never_reaches_the_terminal_raw() {
    let s = scratch("files-name-escapes");
    let (good, bad) = ("d\u{1b}[31moor.fsm", "b\u{1b}]0;t\u{7}ad.fsm");
    write(s.path(), good, SPEC);
    write(s.path(), bad, "machine Bad { state }");
    let yaml = "alphabet_in:\n- DONE\ndefault_start_state: ARound\nfinal_states: []\nlabel: XAbciApp\n\
                start_states:\n- ARound\nstates:\n- ARound\ntransition_func:\n    (ARound, DONE): ARound\n";
    write(s.path(), "y\u{1b}[2J_fsm_specification.yaml", yaml);
    write(
        s.path(),
        "z\u{1b}[2J_fsm_specification.yaml",
        "alphabet_in: [\n",
    );
    let runs: [&[&str]; 7] = [
        &["graph", bad, "--format", "dot"],
        &["export", bad, "--format", "oa-yaml"],
        &["import", "y\u{1b}[2J_fsm_specification.yaml"],
        &["import", "z\u{1b}[2J_fsm_specification.yaml"],
        &["check", "--message-format", "github", bad],
        &["gen", good, "-o", "out\u{1b}[31m.rs", "--check"],
        &[
            "graph",
            good,
            "--format",
            "dot",
            "-o",
            "gone\u{1b}[31m/out.dot",
        ],
    ];
    for args in runs {
        let o = fsmc(s.path(), args);
        for text in [&o.stdout, &o.stderr] {
            assert!(!text.contains('\u{1b}'), "{args:?}:\n{text}");
            assert!(!text.contains('\u{7}'), "{args:?}:\n{text}");
        }
    }
}

#[test]
fn every_output_writes_through_links_keeps_modes_and_refuses_read_only_files() {
    use std::os::unix::fs::{PermissionsExt as _, symlink};
    let s = scratch("files-writer");
    write(s.path(), "door.fsm", SPEC);
    let outputs: [&[&str]; 3] = [
        &["gen", "door.fsm", "-o"],
        &["graph", "door.fsm", "--format", "dot", "-o"],
        &["export", "door.fsm", "--format", "oa-yaml", "-o"],
    ];
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    for (i, args) in outputs.iter().enumerate() {
        let (real, link, frozen) = (format!("real{i}"), format!("link{i}"), format!("frozen{i}"));
        write(s.path(), &real, "old");
        std::fs::set_permissions(s.path().join(&real), std::fs::Permissions::from_mode(0o600))
            .expect("chmod");
        symlink(&real, s.path().join(&link)).expect("link");
        let o = fsmc(s.path(), &[args, &[link.as_str()][..]].concat());
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        assert!(
            std::fs::symlink_metadata(s.path().join(&link))
                .expect("link")
                .is_symlink()
        );
        assert_ne!(
            std::fs::read_to_string(s.path().join(&real)).expect("read"),
            "old"
        );
        assert_eq!(mode(&s.path().join(&real)), 0o600, "{args:?}");

        write(s.path(), &frozen, "old");
        std::fs::set_permissions(
            s.path().join(&frozen),
            std::fs::Permissions::from_mode(0o444),
        )
        .expect("chmod");
        let o = fsmc(s.path(), &[args, &[frozen.as_str()][..]].concat());
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains("read-only"), "{args:?}: {}", o.stderr);
        assert_eq!(
            std::fs::read_to_string(s.path().join(&frozen)).expect("read"),
            "old"
        );
    }
    // `fmt` rewrites a linked spec in place of its target, with the target's mode.
    write(s.path(), "messy.fsm", SPEC.replace("; ", ";   "));
    std::fs::set_permissions(
        s.path().join("messy.fsm"),
        std::fs::Permissions::from_mode(0o600),
    )
    .expect("chmod");
    symlink("messy.fsm", s.path().join("linked.fsm")).expect("link");
    let o = fsmc(s.path(), &["fmt", "linked.fsm"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        std::fs::symlink_metadata(s.path().join("linked.fsm"))
            .expect("link")
            .is_symlink()
    );
    assert_eq!(mode(&s.path().join("messy.fsm")), 0o600);
    assert!(
        !std::fs::read_to_string(s.path().join("messy.fsm"))
            .expect("read")
            .contains(";   ")
    );
}
