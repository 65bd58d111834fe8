//! `fsmc gen` formats the long lists of a large machine a piece at a time (`codegen::write_generated`): its
//! output must be byte for byte what formatting all the code at once gives, for every shipped spec and for
//! synthetic machines whose lists are just under, at and over the sizes where deferring and pieces start.

use fsmc_driver::{Options, compile, compile_str};
use fsmc_model::codegen;

/// What formatting the whole code at once gives, with the header `write_generated` writes.
fn at_once(checked: &fsmc_model::spec::Checked) -> String {
    format!(
        "{}// Spec: x\n\n{}",
        codegen::HEADER,
        codegen::format(codegen::generate(checked)).expect("the generated code is Rust")
    )
}

fn streamed(checked: &fsmc_model::spec::Checked) -> String {
    codegen::generated_file("x", checked).expect("the generated code is Rust")
}

fn assert_same(name: &str, text: &str) {
    let c = compile_str(
        &format!("{name}.fsm"),
        text,
        &std::env::temp_dir(),
        &Options::default(),
    );
    let checked = c.checked.unwrap_or_else(|| {
        panic!(
            "{name} has errors:\n{}",
            fsmc_base::diag::render::human(&c.sources, &c.diagnostics, false)
        )
    });
    let (whole, pieces) = (at_once(&checked), streamed(&checked));
    if whole != pieces {
        let line = whole
            .lines()
            .zip(pieces.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{name}: the output differs from line {}:\n{:?}\n{:?}",
            line + 1,
            whole.lines().nth(line),
            pieces.lines().nth(line)
        );
    }
}

/// An `abci` machine of `n` rounds of three kinds (one of them custom), with data, timeouts and outcomes.
fn abci(n: usize) -> String {
    let mut s = String::from(
        "machine BigAbciApp: abci {\n event DONE;\n event NO_MAJORITY;\n event NEGATIVE;\n \
         event ROUND_TIMEOUT timeout 30s;\n key estimate: u64;\n",
    );
    for i in 0..n {
        let head = if i == 0 {
            "start default state"
        } else {
            "state"
        };
        s += &match i % 3 {
            _ if i == n - 1 => format!(" final state R{i}Round;\n"),
            0 => format!(
                " {head} R{i}Round: collect_same_until_threshold {{ payload \"u64\"; writes estimate; }}\n"
            ),
            1 => format!(" {head} R{i}Round: voting;\n"),
            _ => format!(" {head} R{i}Round: custom {{ payload \"String\"; }}\n"),
        };
    }
    for i in 0..n - 1 {
        s += &format!(" (R{i}Round, DONE) -> R{}Round;\n", i + 1);
        s += &format!(" (R{i}Round, ROUND_TIMEOUT) -> R{i}Round;\n");
        if i % 3 != 2 {
            s += &format!(" (R{i}Round, NO_MAJORITY) -> R0Round;\n");
        }
        if i % 3 == 1 {
            s += &format!(" (R{i}Round, NEGATIVE) -> R0Round;\n");
        }
    }
    s + "}\n"
}

/// A plain machine of `n` states and as many events, with data, guards and actions.
fn plain(n: usize) -> String {
    let mut s = String::from("machine Big {\n");
    for i in 0..n {
        s += &format!(" event E{i}(amount: u64, note: String);\n");
    }
    for i in 0..n {
        let head = if i == 0 {
            "start default state"
        } else {
            "state"
        };
        s += &format!(" {head} S{i};\n");
    }
    s += " final state Done;\n";
    for i in 0..n {
        let next = if i + 1 < n {
            format!("S{}", i + 1)
        } else {
            "Done".into()
        };
        s += &format!(" (S{i}, E{i}) -> {next} if ready do record;\n");
        s += &format!(" (S{i}, E{i}) -> S0 do reset;\n");
    }
    s + "}\n"
}

#[test]
fn pieces_format_as_the_whole() {
    for n in [3, 63, 64, 65, 129, 200, 300] {
        assert_same(&format!("abci{n}"), &abci(n));
    }
    for n in [63, 64, 130, 300] {
        assert_same(&format!("plain{n}"), &plain(n));
    }
}

#[test]
fn shipped_specs_stream_as_formatted() {
    let mut specs = Vec::new();
    fsmc::cli::collect_specs(&fsmc_testkit::workspace().join("specs"), &mut specs)
        .expect("specs/ is readable");
    for path in specs
        .iter()
        .filter(|p| !p.to_string_lossy().contains("invalid"))
    {
        let c = compile(path, &Options::default()).expect("spec is readable");
        if let Some(checked) = &c.checked {
            assert_eq!(at_once(checked), streamed(checked), "{}", path.display());
        }
    }
}
