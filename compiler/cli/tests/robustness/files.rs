//! Files the loader must refuse or read with care: over the size cap (exactly), unusable entry and imported
//! files, comment-only files, NUL bytes, megabyte identifiers, and a carriage return inside a doc comment.

use crate::*;
use fsmc_driver::compile;
use std::io::Write as _;

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
    let dir = scratch("robustness-big");
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
    let dir = scratch("robustness-under-cap");
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
    let dir = scratch("robustness-entry");
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        ("empty file", write(dir.path(), "empty.fsm", ""), "empty"),
        (
            "whitespace only",
            write(dir.path(), "blank.fsm", " \n\t\r\n  \n"),
            "empty",
        ),
        (
            "binary file",
            write(
                dir.path(),
                "binary.fsm",
                [0x7f, b'E', b'L', b'F', 0, 1, 2, 0, 0xff],
            ),
            "binary",
        ),
        (
            "invalid UTF-8",
            write(dir.path(), "latin1.fsm", b"machine Caf\xe9 { }\n"),
            "UTF-8",
        ),
        (
            "lone surrogate",
            write(
                dir.path(),
                "surrogate.fsm",
                b"machine M { } // \xed\xa0\x80\n",
            ),
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
            write(dir.path(), "empty_fsm_specification.yaml", "\n"),
            "empty",
        ),
        (
            "binary YAML",
            write(dir.path(), "bin_fsm_specification.yaml", b"a: \0"),
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
    let dir = scratch("robustness-comments");
    for (name, text) in [
        ("line.fsm", "// nothing here\n//! nor here\n"),
        ("block.fsm", "/* a /* nested */ comment */\n"),
        ("doc.fsm", "/// a doc comment with nothing to document\n"),
        ("comments_fsm_specification.yaml", "# only a comment\n"),
    ] {
        let path = write(dir.path(), name, text);
        match compile(&path, &Options::default()) {
            Err(e) => assert_one_line(&e),
            Ok(c) => exercise(&c),
        }
    }
}

#[test]
fn unusable_imported_files_are_diagnostics() {
    let dir = scratch("robustness-imports");
    write(dir.path(), "empty.fsm", "");
    write(dir.path(), "binary.fsm", [0u8, 1, 2, 3]);
    write(dir.path(), "latin1.fsm", b"\xe9\n");
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
    let dir = scratch("robustness-nul");
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
    let path = write(dir.path(), "nul.fsm", format!("{valid}\0{valid}"));
    let e = compile(&path, &Options::default()).expect_err("binary");
    assert_one_line(&e);
}

#[test]
fn megabyte_identifiers() {
    let dir = scratch("robustness-long-ident");
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
    let dir = scratch("robustness-cr");
    for text in [
        "/// one\rtwo\nmachine M { event E; start default state A; final state B; (A, E) -> B; }\n",
        "machine M {\n    /// one\rtwo\r\n    event E; start default state A; final state B; (A, E) -> B; }\n",
        "/// CRLF\r\n/// lines\r\nmachine M { event E; start default state A; final state B; (A, E) -> B; }\r\n",
    ] {
        let c = compile_text("cr.fsm", text, dir.path()); // generates and re-parses the code
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
    }
}
