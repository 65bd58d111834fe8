//! Scale and import graphs: ten thousand machines in a file, import cycles, and chains of imports (fifty files,
//! and two thousand on a small stack).

use crate::*;
use fsmc_driver::compile;

fn small_machine(i: usize) -> String {
    format!(
        "machine M{i} {{ event GO{i}; start default state A{i}; final state B{i}; (A{i}, GO{i}) -> B{i}; }}\n"
    )
}

#[test]
fn ten_thousand_machines() {
    let dir = scratch("robustness-many");
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
    let dir = scratch("robustness-cycle");
    let own = write(
        dir.path(),
        "own.fsm",
        format!("import \"own.fsm\";\n{}", small_machine(0)),
    );
    let c = compile(&own, &Options::default()).expect("readable");
    exercise(&c);
    assert!(has_code(&c, Code::ImportCycle), "{:?}", c.diagnostics);
    write(
        dir.path(),
        "a.fsm",
        format!("import \"b.fsm\";\n{}", small_machine(1)),
    );
    write(
        dir.path(),
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

fn write_chain(dir: &Path, n: usize, close_cycle: bool) -> PathBuf {
    for i in 0..n {
        let next = if i + 1 < n {
            format!("import \"f{}.fsm\";\n", i + 1)
        } else if close_cycle {
            "import \"f0.fsm\";\n".into()
        } else {
            String::new()
        };
        write(
            dir,
            &format!("f{i}.fsm"),
            format!("{next}{}", small_machine(i)),
        );
    }
    dir.join("f0.fsm")
}

#[test]
fn import_chain_of_fifty_files() {
    let dir = scratch("robustness-chain");
    let entry = write_chain(dir.path(), 50, false);
    let c = compile(&entry, &Options::default()).expect("readable");
    exercise(&c);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    assert_eq!(c.files_read.len(), 50);

    let dir = scratch("robustness-chain-cycle");
    let entry = write_chain(dir.path(), 50, true);
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
    let dir = scratch("robustness-long-chain");
    let entry = write_chain(dir.path(), 2_000, false);
    on_small_stack(move || {
        let c = compile(&entry, &Options::default()).expect("readable");
        assert!(!c.has_errors(), "{:?}", c.diagnostics.first());
        assert_eq!(c.files_read.len(), 2_000);
        drop(dir);
    });
}
