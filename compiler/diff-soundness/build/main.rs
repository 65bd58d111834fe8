//! Draws random edits of the price oracle's spec (seeded), keeps the edited specs that check, asks `fsmc diff`
//! for each pair's verdict, and generates the Rust of every side with its agents' behaviour into OUT_DIR, so
//! that the test runs both sides of each pair on the same schedules. Pairs are drawn until each verdict has its
//! share: most random edits change what replicas compute, and the claim under test is about those that do not.

mod behaviour;
mod edits;

use fsmc_diff::Class;
use fsmc_model::spec::{Checked, Item, Machine};
use fsmc_vocab::abci::RoundKind;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How many pairs, and at most how many of one verdict.
const PAIRS: usize = 32;
const PER_VERDICT: usize = 8;
/// How many edited specs that check the fingerprint is held against (each is cheap: no code is compiled).
const ATTEMPTS: usize = 400;
/// The draw's seed: the same pairs on every build.
const DRAW: u64 = 0x5_1f7d;

struct Pair {
    edits: Vec<String>,
    verdict: Option<Class>,
    findings: Vec<String>,
    checked: Checked,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let spec = root.join("specs/oracle/oracle.fsm");
    println!(
        "cargo:rerun-if-changed={}",
        root.join("specs/oracle").display()
    );
    println!("cargo:rerun-if-changed=build");
    let base = fsmc_driver::compile(&spec, &fsmc_driver::Options::default())
        .expect("the oracle's spec is readable")
        .checked
        .expect("the oracle's spec checks");
    let (pairs, attempts) = draw(&base);
    let mut sides = String::new();
    let mut cases = String::new();
    side(&mut sides, 0, &base);
    for (i, pair) in pairs.iter().enumerate() {
        side(&mut sides, i + 1, &pair.checked);
        let verdict = match pair.verdict {
            Some(c) => format!("::core::option::Option::Some({:?})", c.id()),
            None => "::core::option::Option::None".to_string(),
        };
        let _ = writeln!(
            cases,
            "    crate::Case {{ edits: {:?}, verdict: {verdict}, findings: {:?}, old: run_0, new: run_{} }},",
            pair.edits.join("; "),
            pair.findings.join("\n"),
            i + 1
        );
    }
    let _ = writeln!(
        sides,
        "/// Every pair drawn.\npub const CASES: &[crate::Case] = &[\n{cases}];"
    );
    let attempts: Vec<String> = attempts
        .iter()
        .map(|(moved, verdict)| format!("({moved}, {:?})", verdict.map(Class::id)))
        .collect();
    let _ = writeln!(
        sides,
        "/// Every edited spec that checked, kept or not: whether the app's fingerprint moved, and the verdict.\n\
         pub const ATTEMPTS: &[(bool, ::core::option::Option<&str>)] = &[{}];",
        attempts.join(", ")
    );
    std::fs::write(out.join("sides.rs"), sides).expect("OUT_DIR is writable");
}

/// Edited specs that check, with their verdicts against `base`, until `PAIRS` are drawn; and for every edited
/// spec that checked, whether its app's fingerprint moved and its verdict.
fn draw(base: &Checked) -> (Vec<Pair>, Vec<(bool, Option<Class>)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(DRAW);
    let mut pairs = Vec::new();
    let mut attempts = Vec::new();
    let fingerprint = |c: &Checked| app(c).map(fsmc_model::fingerprint::fingerprint);
    let mut per_verdict: BTreeMap<Option<Class>, usize> = BTreeMap::new();
    for _ in 0..20_000 {
        if pairs.len() == PAIRS && attempts.len() >= ATTEMPTS {
            break;
        }
        let mut spec = base.spec().clone();
        let mut done = Vec::new();
        for _ in 0..1 + rng.next_u64() % 2 {
            done.extend(edits::random(&mut spec, &mut rng));
        }
        if done.is_empty() {
            continue;
        }
        let Some(checked) = fsmc_model::check::check(spec).checked else {
            continue;
        };
        if app(&checked).is_none() {
            continue;
        }
        let findings = fsmc_diff::diff(base, &checked);
        let verdict = fsmc_diff::verdict(&findings);
        attempts.push((fingerprint(base) != fingerprint(&checked), verdict));
        let seen = per_verdict.entry(verdict).or_default();
        if *seen == PER_VERDICT || pairs.len() == PAIRS {
            continue;
        }
        *seen += 1;
        pairs.push(Pair {
            edits: done,
            verdict,
            findings: findings
                .iter()
                .map(|f| format!("{}: {}", f.class, f.message))
                .collect(),
            checked,
        });
    }
    (pairs, attempts)
}

/// The app of a checked spec, if its generated code runs it (every round has a kind the runtime decides).
fn app(c: &Checked) -> Option<&Machine> {
    let m = c.spec().entry_items.iter().find_map(|i| match i {
        Item::App(a) => Some(&c.composed()[*a].machine),
        Item::Machine(_) => None,
    })?;
    fsmc_model::fingerprint::facts(m).runs.value.then_some(m)
}

/// One side: its generated module (as `side_N`), its agents' behaviour, and `run_N`, which runs it.
fn side(out: &mut String, n: usize, checked: &Checked) {
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = fsmc_model::codegen::format(fsmc_model::codegen::generate(checked))
        .expect("generated code formats");
    let file = dir.join(format!("side_{n}.rs"));
    std::fs::write(&file, &code).expect("OUT_DIR is writable");
    let m = app(checked).expect("a side runs");
    let deviates = |method: &str| {
        m.states.iter().any(|s| {
            fsmc_model::ident::snake(&s.name.text) == method
                && !matches!(
                    s.round_kind(),
                    RoundKind::CollectSameUntilAll | RoundKind::CollectDifferentUntilAll
                )
        })
    };
    let side = format!("side_{n}");
    let module = behaviour::module(&code);
    let _ = writeln!(
        out,
        "/// Side {n}.\npub mod {side} {{\n    include!({file:?});\n}}\n{}\n\
         /// Runs side {n} on the schedule of `seed`.\n\
         pub fn run_{n}(seed: u64) -> crate::Run {{\n    \
         crate::run::<{side}::{module}::Spec>(seed)\n}}\n",
        behaviour::implement(&code, &side, &deviates)
    );
}
