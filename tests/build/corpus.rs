//! Every app of the Open Autonomy corpus as a runnable app: its generated code (every round of an upstream YAML
//! app is `custom`) and a harness that implements the generated `Behaviour` and `Rounds` traits the way a user
//! porting the skill would start: each agent sends the round's payload, and each custom round, once a threshold
//! of agents has sent, ends with one of that state's own outcomes (chosen by the block time, so that runs go
//! down different branches). `src/lib.rs` runs each on the simulation. Without a corpus (`FSMC_CORPUS` unset)
//! the file is empty and the test says it skipped.

use fsmc_model::ident::{camel, snake};
use fsmc_model::spec::{Item, Machine, StateId};
use fsmc_vocab::abci::RoundKind;
use std::fmt::Write as _;
use std::path::Path;

/// Writes `corpus_apps.rs` into `out_dir`: one module per corpus app, each with its code, its harness and a
/// `run` function, and `APPS`, the list of them.
pub fn write(out_dir: &Path) {
    println!("cargo:rerun-if-changed=build/corpus.rs");
    println!("cargo:rerun-if-env-changed={}", fsmc_testkit::corpus::ENV);
    let corpus = fsmc_testkit::corpus::locate(
        std::env::var_os(fsmc_testkit::corpus::ENV),
        &fsmc_testkit::workspace(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut code = String::new();
    let mut apps = Vec::new();
    if let Some(dir) = corpus {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the corpus is readable")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for path in files {
            if let Some(module) = app(&path, out_dir, &mut code) {
                apps.push((
                    module,
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                ));
            }
        }
    }
    code.push_str("/// Every corpus app that checks clean: its file and its runner.\npub const APPS: &[(&str, Runner)] = &[\n");
    for (module, file) in &apps {
        let _ = writeln!(code, "    ({file:?}, {module}::run),");
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("corpus_apps.rs"), code).expect("OUT_DIR is writable");
}

/// The module of one corpus file, if it checks clean (the corpus holds specs upstream itself fails; those are
/// the corpus verdict test's business).
fn app(path: &Path, out_dir: &Path, code: &mut String) -> Option<String> {
    let compilation = fsmc_driver::compile(path, &fsmc_driver::Options::default()).ok()?;
    let checked = compilation.checked.as_ref()?;
    let machines: Vec<&Machine> = checked
        .spec()
        .entry_items
        .iter()
        .map(|i| match i {
            Item::Machine(id) => checked.spec().machine(*id),
            Item::App(a) => &checked.composed()[*a].machine,
        })
        .collect();
    let [m] = machines[..] else {
        panic!("{}: one app per corpus file", path.display());
    };
    let stem = path.file_stem()?.to_string_lossy().to_lowercase();
    let words: Vec<&str> = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let module = format!("app_{}", words.join("_"));
    let generated = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = out_dir.join(format!("{module}.rs"));
    std::fs::write(&file, generated).expect("OUT_DIR is writable");
    let md = snake(&m.name.text);
    let _ = writeln!(
        code,
        "/// `{}`.\npub mod {module} {{\n    include!({file:?});\n    use {md} as app;",
        path.display()
    );
    let logic = if harness(m, code) {
        "harness"
    } else {
        "::std::sync::Arc::new(fsmc_runtime::app::NoRounds)"
    };
    let _ = writeln!(
        code,
        "    /// Runs the app on the simulation (see `super::run`).\n    pub fn run(seed: u64) -> Result<super::Ran, String> {{\n        \
         let harness = ::std::sync::Arc::new(Harness);\n        \
         super::run::<app::Spec, Harness>(seed, ::std::sync::Arc::clone(&harness), {logic})\n    }}\n}}"
    );
    Some(module)
}

/// `Harness`, implementing the app's `Behaviour` (every non-final round) and `Rounds` (every custom round);
/// whether the app has custom rounds.
fn harness(m: &Machine, code: &mut String) -> bool {
    let rounds: Vec<StateId> = m
        .state_ids()
        .filter(|s| !m.state(*s).is_final && m.state(*s).round_kind() != RoundKind::Degenerate)
        .collect();
    code.push_str("    /// Sends each round's payload; ends each custom round once a threshold has sent.\n    pub struct Harness;\n");
    code.push_str("    impl app::Behaviour for Harness {\n");
    for &s in &rounds {
        let name = &m.state(s).name.text;
        let ty = wire(m, s);
        let _ = writeln!(
            code,
            "        async fn {}(&self, _: app::Context) -> Result<{ty}, fsmc_runtime::app::Abstain> {{ Ok({value}) }}",
            snake(name),
            value = if ty == "()" {
                "()"
            } else {
                "Default::default()"
            },
        );
    }
    code.push_str("    }\n");
    let customs: Vec<StateId> = rounds
        .iter()
        .copied()
        .filter(|s| m.state(*s).round_kind() == RoundKind::Custom)
        .collect();
    if customs.is_empty() {
        return false;
    }
    code.push_str("    impl app::Rounds for Harness {\n");
    for &s in &customs {
        let name = &m.state(s).name.text;
        let outcomes: Vec<String> = outcomes(m, s)
            .iter()
            .map(|e| format!("app::{}Outcome::{}", camel(name), camel(e)))
            .collect();
        let _ = writeln!(
            code,
            "        fn {}(&self, round: &app::Deciding<'_, {}>) -> Option<app::{}Outcome> {{ super::pick(round.threshold_reached(), round.time_ms(), &[{}]) }}",
            snake(name),
            wire(m, s),
            camel(name),
            outcomes.join(", ")
        );
    }
    code.push_str("    }\n");
    true
}

/// The payload type a round's behaviour returns: a custom round's declared payload, `()` when none is.
fn wire(m: &Machine, s: StateId) -> String {
    let st = m.state(s);
    assert_eq!(
        st.round_kind(),
        RoundKind::Custom,
        "a corpus app's rounds are custom"
    );
    st.payload()
        .map_or_else(|| "()".to_string(), |t| t.to_string())
}

/// The events custom round `s` may end with (its transitions' events that are not timeouts), by declaration.
fn outcomes(m: &Machine, s: StateId) -> Vec<String> {
    let mut events: Vec<_> = m
        .transitions
        .iter()
        .filter(|t| t.from == s)
        .filter_map(|t| t.event)
        .filter(|e| m.event(*e).timeout.is_none())
        .collect();
    events.sort();
    events.dedup();
    events
        .into_iter()
        .map(|e| m.event(e).name.text.to_string())
        .collect()
}
