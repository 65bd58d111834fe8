//! Generates, into `OUT_DIR`, four encodings of one machine for the dispatch benchmark:
//!
//! * `trader.rs`: what `include_fsm!` expands to (fsmc's code generator, run here as a library);
//! * `trader_match.rs`: the same machine as a hand-written `match (state, event)`;
//! * `trader_smlang.rs`: the input of smlang's `statemachine!`;
//! * `trader_rust_fsm.rs`: the input of rust-fsm's `state_machine!`.
//!
//! The machine is the largest Open Autonomy spec of the corpus (found through `FSMC_CORPUS`, as
//! `fsmc_testkit::corpus` says), read at build time: corpus data is never copied into this
//! repository, and `include_fsm!` refuses a path outside the workspace. `FSMC_BENCH_SPEC` names another spec
//! (`.fsm` or YAML, one machine). Without the corpus, a synthetic machine of the same size stands in, with a
//! warning.

use fsmc_model::ident::{camel, snake};
use fsmc_model::spec::Machine;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/synth.rs"]
mod synth;

const TRADER: &str = "trader__packages__valory__skills__trader_abci__fsm_specification.yaml";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/synth.rs");
    println!("cargo:rerun-if-env-changed=FSMC_BENCH_SPEC");
    println!("cargo:rerun-if-env-changed={}", fsmc_testkit::corpus::ENV);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let corpus = fsmc_testkit::corpus::locate(
        std::env::var_os(fsmc_testkit::corpus::ENV),
        &fsmc_testkit::workspace(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let spec = std::env::var_os("FSMC_BENCH_SPEC")
        .map(PathBuf::from)
        .or_else(|| corpus.map(|c| c.join(TRADER)))
        .unwrap_or_default();
    let opts = fsmc_driver::Options::default();
    let compilation = if spec.is_file() {
        println!("cargo:rerun-if-changed={}", spec.display());
        fsmc_driver::compile(&spec, &opts)
            .unwrap_or_else(|e| panic!("cannot read {}: {}", e.path, e.message))
    } else {
        println!(
            "cargo:warning=fsmc-benches: {} not found; the dispatch benchmark uses a synthetic 58-state machine",
            spec.display()
        );
        let text = synth::Synth::generate(58, synth::DEFAULT_SEED).to_yaml();
        fsmc_driver::compile_str(
            "synthetic_fsm_specification.yaml",
            &text,
            &fsmc_testkit::workspace(),
            &opts,
        )
    };
    let Some(checked) = compilation.checked.as_ref() else {
        let text =
            fsmc_base::diag::render::human(&compilation.sources, &compilation.diagnostics, false);
        panic!("{} does not check:\n{text}", spec.display());
    };
    let m = checked
        .spec()
        .entry_items
        .iter()
        .find_map(|i| match i {
            fsmc_model::spec::Item::Machine(id) => Some(checked.spec().machine(*id)),
            fsmc_model::spec::Item::App(_) => None,
        })
        .expect("the spec defines a machine");

    let generated = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
        .unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
    let module = snake(&m.name.text);
    write(
        &out.join("trader.rs"),
        format!(
            "{generated}\n/// The machine's generated module, whatever the spec calls it.\npub use self::{module} as generated;\n"
        ),
    );
    write(&out.join("trader_match.rs"), hand_written(m));
    write(&out.join("trader_smlang.rs"), smlang(m));
    write(&out.join("trader_rust_fsm.rs"), rust_fsm(m));
}

fn write(path: &Path, text: String) {
    // Rewriting identical text would still make cargo rebuild the crates that include it.
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}

fn states(m: &Machine) -> Vec<String> {
    m.states.iter().map(|s| camel(&s.name.text)).collect()
}

fn events(m: &Machine) -> Vec<String> {
    m.events.iter().map(|e| camel(&e.name.text)).collect()
}

/// `(from, event, to)` as variant names, in spec order.
fn transitions(m: &Machine) -> Vec<(String, String, String)> {
    let (s, e) = (states(m), events(m));
    m.transitions
        .iter()
        .filter_map(|t| {
            let ev = t.event?;
            Some((
                s[t.from.index()].clone(),
                e[ev.index()].clone(),
                s[t.to.index()].clone(),
            ))
        })
        .collect()
}

fn default_start(m: &Machine) -> String {
    let d = m
        .default_start()
        .expect("a checked machine has a default start");
    camel(&m.state(d).name.text)
}

/// Both enums, and tables mapping fsmc's variant indices to them, so one event stream drives every encoding.
fn enums_and_tables(out: &mut String, m: &Machine, state_ty: &str, event_ty: &str) {
    let (s, e) = (states(m), events(m));
    let _ = writeln!(out, "/// Every state, in the order of fsmc's `State` enum.");
    let _ = writeln!(out, "pub const STATES: [{state_ty}; {}] = [", s.len());
    for v in &s {
        let _ = writeln!(out, "    {state_ty}::{v},");
    }
    out.push_str("];\n");
    let _ = writeln!(out, "/// Every event, in the order of fsmc's `Event` enum.");
    let _ = writeln!(out, "pub const EVENTS: [{event_ty}; {}] = [", e.len());
    for v in &e {
        let _ = writeln!(out, "    {event_ty}::{v},");
    }
    out.push_str("];\n");
    let _ = writeln!(out, "/// The default start state.");
    let _ = writeln!(
        out,
        "pub const START: {state_ty} = {state_ty}::{};",
        default_start(m)
    );
}

/// The machine as a person would write it: two enums and one `match` on the pair.
fn hand_written(m: &Machine) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "/// The states of `{}`.", m.name.text);
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq)]\n#[allow(clippy::enum_variant_names)] // Open Autonomy names: `…Round`\npub enum State {\n");
    for v in states(m) {
        let _ = writeln!(out, "    {v},");
    }
    out.push_str("}\n\n");
    let _ = writeln!(out, "/// The events of `{}`.", m.name.text);
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub enum Event {\n");
    for v in events(m) {
        let _ = writeln!(out, "    {v},");
    }
    out.push_str("}\n\n");
    out.push_str("impl State {\n");
    out.push_str(
        "    /// The state `event` leads to, or `Err(())` if this state does not accept it.\n",
    );
    out.push_str("    #[allow(clippy::result_unit_err)]\n");
    out.push_str("    pub fn next(self, event: Event) -> Result<State, ()> {\n");
    out.push_str("        match (self, event) {\n");
    for (from, ev, to) in transitions(m) {
        let _ = writeln!(
            out,
            "            (State::{from}, Event::{ev}) => Ok(State::{to}),"
        );
    }
    out.push_str("            _ => Err(()),\n        }\n    }\n}\n\n");
    enums_and_tables(&mut out, m, "State", "Event");
    out
}

/// smlang 0.8: `statemachine! { name: …, transitions: { *Start + Event = Target, … } }`.
fn smlang(m: &Machine) -> String {
    let start = default_start(m);
    let mut ts = transitions(m);
    // `*` marks the starting state on one of its transitions; smlang wants it on the first one listed.
    if let Some(i) = ts.iter().position(|t| t.0 == start) {
        let t = ts.remove(i);
        ts.insert(0, t);
    }
    let mut out = String::new();
    out.push_str("smlang::statemachine! {\n    name: Trader,\n");
    out.push_str("    derive_states: [Clone, Copy, Debug],\n");
    out.push_str("    derive_events: [Clone, Copy, Debug],\n");
    out.push_str("    transitions: {\n");
    for (i, (from, ev, to)) in ts.iter().enumerate() {
        let star = if i == 0 { "*" } else { "" };
        let _ = writeln!(out, "        {star}{from} + {ev} = {to},");
    }
    out.push_str("    }\n}\n\n");
    enums_and_tables(&mut out, m, "TraderStates", "TraderEvents");
    out
}

/// rust-fsm 0.8: `state_machine! { name(Start) From => { Event => Target, … }, … }`.
fn rust_fsm(m: &Machine) -> String {
    let ts = transitions(m);
    let mut out = String::new();
    out.push_str("rust_fsm::state_machine! {\n    #[derive(Clone, Copy, Debug, PartialEq, Eq)]\n");
    let _ = writeln!(out, "    pub trader_fsm({})\n", default_start(m));
    let mut froms: Vec<&str> = Vec::new();
    for t in &ts {
        if !froms.contains(&t.0.as_str()) {
            froms.push(&t.0);
        }
    }
    for from in froms {
        let _ = writeln!(out, "    {from} => {{");
        for (_, ev, to) in ts.iter().filter(|t| t.0 == from) {
            let _ = writeln!(out, "        {ev} => {to},");
        }
        out.push_str("    },\n");
    }
    out.push_str("}\n\n");
    out.push_str("pub use trader_fsm::{Input, State};\n");
    enums_and_tables(&mut out, m, "State", "Input");
    out
}
