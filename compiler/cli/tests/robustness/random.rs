//! Random input, and grammar-generated specs: random strings and bytes, token soup of both front ends, and
//! syntactically plausible machines and apps with hostile names, to reach resolve, the checks and the code
//! generator.

use crate::mutate::{fsm_tokens, yaml_tokens};
use crate::*;

#[test]
fn random_strings_never_panic() {
    let dir = scratch("robustness-strings");
    run(500, any::<String>(), |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

#[test]
fn random_bytes_never_panic() {
    let dir = scratch("robustness-bytes");
    run(500, prop::collection::vec(any::<u8>(), 0..2048), |bytes| {
        everything(&String::from_utf8_lossy(&bytes), dir.path());
        Ok(())
    });
}

#[test]
fn random_token_soup_never_panics() {
    let dir = scratch("robustness-fsm-soup");
    let soup =
        prop::collection::vec(prop::sample::select(fsm_tokens()), 0..300).prop_map(|v| v.join(" "));
    let glued =
        prop::collection::vec(prop::sample::select(fsm_tokens()), 0..300).prop_map(|v| v.concat());
    run(600, prop_oneof![soup, glued], |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

#[test]
fn random_yaml_never_panics() {
    let dir = scratch("robustness-yaml-soup");
    let soup =
        prop::collection::vec(prop::sample::select(yaml_tokens()), 0..300).prop_map(|v| v.concat());
    run(600, soup, |s| {
        everything(&s, dir.path());
        Ok(())
    });
}

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
    let dir = scratch("robustness-generated");
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
