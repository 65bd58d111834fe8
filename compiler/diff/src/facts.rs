//! What a replica computes, compared ([`Facts`] of two `abci` items): every difference is consensus-breaking,
//! except those that only move bytes under the app hash (the rounds' order, the keys' order, types and set),
//! which are replay-breaking. A difference in the facts always gives a finding here, so an item's fingerprint
//! changes exactly when this layer reports something.

use crate::{Class, Cx, Pair, Rule, list, pairs};
use fsmc_base::source::SmolStr;
use fsmc_model::fingerprint::{Exit, Facts, KeyFacts, RoundFacts, StateFacts, Trigger};

pub(crate) fn compare(old: &Facts, new: &Facts, cx: &mut Cx<'_>) {
    let runs = old.runs.value && new.runs.value;
    if old.runs != new.runs {
        let (now, was) = if new.runs.value {
            ("now runs", "did not run")
        } else {
            ("no longer runs", "ran")
        };
        cx.push(
            Class::Consensus,
            Rule::Runs,
            format!("generated code {now} `{}` as a replicated app", cx.item()),
            Some((old.runs.span, format!("{was} as a replicated app"))),
            Some((new.runs.span, format!("{now} as a replicated app"))),
        )
        .notes
        .push(
            "an `abci` machine runs as a replicated app when every round that is not final has a kind the runtime \
             decides (not `custom`) and it has a default start state"
                .into(),
        );
    }
    if old.start != new.start {
        let name = |s: &Option<fsmc_model::fingerprint::At<SmolStr>>| {
            s.as_ref()
                .map_or("none".to_string(), |s| format!("`{}`", s.value))
        };
        let (o, n) = (name(&old.start), name(&new.start));
        cx.push(
            Class::Consensus,
            Rule::Start,
            format!("the default start state is now {n} (was {o})"),
            old.start
                .as_ref()
                .map(|s| (s.span, "the old default start".into()))
                .or(cx.old_item("")),
            new.start
                .as_ref()
                .map(|s| (s.span, "the new default start".into()))
                .or(cx.new_item("")),
        );
    }
    for pair in pairs(&old.states, &new.states, |s| s.name.value.clone()) {
        match pair {
            Pair::Old(s) => {
                let label = format!("`{}` no longer has it", cx.item());
                let at = cx.new_item(label);
                cx.push(
                    Class::Consensus,
                    Rule::StateRemoved,
                    format!("state `{}` was removed", s.name.value),
                    Some((s.name.span, "removed".into())),
                    at,
                );
            }
            Pair::New(s) => {
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                cx.push(
                    Class::Consensus,
                    Rule::StateAdded,
                    format!("state `{}` was added", s.name.value),
                    at,
                    Some((s.name.span, "new".into())),
                );
            }
            Pair::Both(o, n) => state(o, n, cx),
        }
    }
    if runs {
        round_order(old, new, cx);
    }
    keys(old, new, runs, cx);
}

/// One state in both specs.
fn state(o: &StateFacts, n: &StateFacts, cx: &mut Cx<'_>) {
    let name = &n.name.value;
    let flag = |b: bool, yes: &str, no: &str| if b { yes.to_string() } else { no.to_string() };
    if o.is_final != n.is_final {
        cx.push(
            Class::Consensus,
            Rule::Final,
            format!(
                "state `{name}` {}",
                flag(n.is_final, "is now final", "is no longer final")
            ),
            Some((o.name.span, flag(o.is_final, "final", "not final"))),
            Some((n.name.span, flag(n.is_final, "final", "not final"))),
        );
    }
    if o.start != n.start {
        cx.push(
            Class::Consensus,
            Rule::StartState,
            format!(
                "state `{name}` {}",
                flag(
                    n.start,
                    "is now a start state",
                    "is no longer a start state"
                )
            ),
            Some((
                o.name.span,
                flag(o.start, "a start state", "not a start state"),
            )),
            Some((
                n.name.span,
                flag(n.start, "a start state", "not a start state"),
            )),
        );
    }
    if let (Some(ro), Some(rn)) = (&o.round, &n.round) {
        round(name, ro, rn, cx);
        // A machine that runs and one that does not read exits differently (outcomes and the timeout against
        // every transition); the change of mode is reported once, as `runs`.
        if ro.tag.is_some() == rn.tag.is_some() {
            exits(name, o, n, ro, rn, cx);
        }
    }
}

fn round(name: &str, o: &RoundFacts, n: &RoundFacts, cx: &mut Cx<'_>) {
    if o.kind != n.kind {
        let kind = |k: Option<fsmc_vocab::abci::RoundKind>| k.map_or("custom", |k| k.name());
        let (a, b) = (kind(o.kind.value), kind(n.kind.value));
        cx.push(
            Class::Consensus,
            Rule::RoundKind,
            format!("round `{name}` is now `{b}` (was `{a}`)"),
            Some((o.kind.span, format!("`{a}`"))),
            Some((n.kind.span, format!("`{b}`"))),
        );
    }
    let parts = [
        (
            &o.reset,
            &n.reset,
            "starts a new period when it is done (`reset`)",
        ),
        (
            &o.registration,
            &n.registration,
            "registers the participants (`registration`)",
        ),
        (
            &o.elects_keeper,
            &n.elects_keeper,
            "elects the keeper (`elects_keeper`)",
        ),
    ];
    for (a, b, what) in parts {
        if a != b {
            let now = if b.value { "now" } else { "no longer" };
            cx.push(
                Class::Consensus,
                Rule::RoundPart,
                format!("round `{name}` {now} {what}"),
                Some((a.span, if a.value { "did" } else { "did not" }.into())),
                Some((b.span, if b.value { "does" } else { "does not" }.into())),
            );
        }
    }
    // A machine that runs and one that does not read payloads differently (the runtime's type against the
    // written one); the change of mode is reported once, as `runs`.
    if o.payload != n.payload && o.tag.is_some() == n.tag.is_some() {
        let ty = |t: &Option<SmolStr>| {
            t.as_ref()
                .map_or("no payload".to_string(), |t| format!("`{t}`"))
        };
        let (a, b) = (ty(&o.payload.value), ty(&n.payload.value));
        cx.push(
            Class::Consensus,
            Rule::Payload,
            format!("round `{name}` now takes {b} (was {a})"),
            Some((o.payload.span, a)),
            Some((n.payload.span, b)),
        )
        .notes
        .push("a replica decodes each transaction's payload as this type; the round keeps the values it decoded".into());
    }
    if o.writes != n.writes {
        let (a, b) = (list(&o.writes.value), list(&n.writes.value));
        cx.push(
            Class::Consensus,
            Rule::Writes,
            format!("round `{name}` now writes {b} (was {a})"),
            Some((o.writes.span, format!("wrote {a}"))),
            Some((n.writes.span, format!("writes {b}"))),
        );
    }
}

/// A way out of a round, for messages.
fn trigger(e: &Exit) -> String {
    let guards = if e.guards.is_empty() {
        String::new()
    } else {
        let g: Vec<String> = e
            .guards
            .iter()
            .map(|(neg, g)| format!("{}{g}", if *neg { "!" } else { "" }))
            .collect();
        format!(" [{}]", g.join(", "))
    };
    match &e.on {
        Trigger::Outcome(o) => format!("outcome `{o}`"),
        Trigger::Timeout => "its timeout".into(),
        Trigger::Event(ev) => format!("event `{ev}`{guards}"),
        Trigger::Direct => format!(
            "the direct transition to `{}`{guards}",
            e.to.value.as_deref().unwrap_or("?")
        ),
    }
}

fn target(to: &Option<SmolStr>) -> String {
    to.as_ref().map_or_else(
        || "no state (its transitions have guards)".to_string(),
        |t| format!("`{t}`"),
    )
}

/// What identifies an exit among a round's: its trigger and guards (and its target, for a direct one).
fn exit_key(e: &Exit) -> (Trigger, Vec<(bool, SmolStr)>, Option<SmolStr>) {
    let direct = (e.on == Trigger::Direct)
        .then(|| e.to.value.clone())
        .flatten();
    (e.on.clone(), e.guards.clone(), direct)
}

fn exits(
    name: &str,
    so: &StateFacts,
    sn: &StateFacts,
    o: &RoundFacts,
    n: &RoundFacts,
    cx: &mut Cx<'_>,
) {
    for pair in pairs(&o.exits, &n.exits, exit_key) {
        match pair {
            Pair::Old(e) => {
                cx.push(
                    Class::Consensus,
                    Rule::Exit,
                    format!("round `{name}`: {} no longer leaves the round", trigger(e)),
                    Some((e.span, format!("led to {}", target(&e.to.value)))),
                    Some((sn.name.span, "no such way out any more".into())),
                );
            }
            Pair::New(e) => {
                cx.push(
                    Class::Consensus,
                    Rule::Exit,
                    format!(
                        "round `{name}`: {} now leads to {}",
                        trigger(e),
                        target(&e.to.value)
                    ),
                    Some((so.name.span, "no such way out before".into())),
                    Some((e.span, "new".into())),
                );
            }
            Pair::Both(a, b) => {
                if a.to != b.to {
                    cx.push(
                        Class::Consensus,
                        Rule::Exit,
                        format!(
                            "round `{name}`: {} now leads to {} (was {})",
                            trigger(b),
                            target(&b.to.value),
                            target(&a.to.value)
                        ),
                        Some((a.to.span, format!("was {}", target(&a.to.value)))),
                        Some((b.to.span, format!("now {}", target(&b.to.value)))),
                    );
                }
                if a.after != b.after {
                    let d = |t: Option<u64>| t.map_or("none".to_string(), duration);
                    let what = match b.on {
                        Trigger::Timeout => "its timeout".to_string(),
                        _ => format!("the timeout of {}", trigger(b)),
                    };
                    cx.push(
                        Class::Consensus,
                        Rule::Exit,
                        format!(
                            "round `{name}`: {what} is now {} (was {})",
                            d(b.after),
                            d(a.after)
                        ),
                        Some((a.span, d(a.after))),
                        Some((b.span, d(b.after))),
                    );
                }
            }
        }
    }
}

/// A duration in nanoseconds as a spec writes it: `30s`, `1500ms`, `2m`.
pub(crate) fn duration(nanos: u64) -> String {
    const UNITS: [(u64, &str); 6] = [
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    UNITS
        .iter()
        .find(|(unit, _)| nanos.is_multiple_of(*unit) && nanos >= *unit)
        .map_or("0s".to_string(), |(unit, name)| {
            format!("{}{name}", nanos / unit)
        })
}

/// The rounds' positions: one finding naming every round whose position among the rounds moved.
fn round_order(old: &Facts, new: &Facts, cx: &mut Cx<'_>) {
    let mut moved = Vec::new();
    for pair in pairs(&old.states, &new.states, |s| s.name.value.clone()) {
        if let Pair::Both(o, n) = pair {
            let tag = |s: &StateFacts| s.round.as_ref().and_then(|r| r.tag);
            if let (Some(a), Some(b)) = (tag(o), tag(n))
                && a != b
            {
                moved.push((o, n, a, b));
            }
        }
    }
    let Some(&(first_old, first_new, _, _)) = moved.iter().min_by_key(|m| m.3) else {
        return;
    };
    let names: Vec<String> = moved
        .iter()
        .map(|(_, n, a, b)| format!("`{}` is round {} (was {})", n.name.value, b + 1, a + 1))
        .collect();
    cx.push(
        Class::Replay,
        Rule::RoundOrder,
        format!("the rounds' order changed: {}", names.join(", ")),
        Some((first_old.name.span, "here before".into())),
        Some((first_new.name.span, "moved".into())),
    )
    .notes
    .push(
        "the app hash encodes the round in progress by its position among the rounds that are not final, in \
         declaration order"
            .into(),
    );
}

/// The synchronized data's keys. When both machines run, a key's presence, place and type are the data's
/// encoding (replay-breaking) and whether it crosses periods is a decision (consensus-breaking); for a machine
/// that does not run, every difference is its rounds' own code's business, so consensus-breaking.
fn keys(old: &Facts, new: &Facts, runs: bool, cx: &mut Cx<'_>) {
    let encoding = if runs {
        Class::Replay
    } else {
        Class::Consensus
    };
    let (o, n) = (by_name(&old.keys), by_name(&new.keys));
    let note = "the app hash encodes every key of the synchronized data, in declaration order";
    for pair in pairs(&o, &n, |k| k.name.value.clone()) {
        match pair {
            Pair::Old(k) => {
                let at = cx.new_item(format!("`{}` no longer has it", cx.item()));
                let f = cx.push(
                    encoding,
                    Rule::KeyRemoved,
                    format!("key `{}` was removed", k.name.value),
                    Some((k.name.span, "removed".into())),
                    at,
                );
                if runs {
                    f.notes.push(note.into());
                }
            }
            Pair::New(k) => {
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                let f = cx.push(
                    encoding,
                    Rule::KeyAdded,
                    format!("key `{}` was added", k.name.value),
                    at,
                    Some((k.name.span, "new".into())),
                );
                if runs {
                    f.notes.push(note.into());
                }
            }
            Pair::Both(a, b) => key(a, b, encoding, cx),
        }
    }
    if runs {
        let common = |keys: &[KeyFacts], other: &[KeyFacts]| -> Vec<SmolStr> {
            keys.iter()
                .map(|k| k.name.value.clone())
                .filter(|k| other.iter().any(|o| o.name.value == *k))
                .collect()
        };
        let (a, b) = (common(&old.keys, &new.keys), common(&new.keys, &old.keys));
        if a != b
            && let (Some(first_old), Some(first_new)) = (old.keys.first(), new.keys.first())
        {
            cx.push(
                Class::Replay,
                Rule::KeyOrder,
                format!(
                    "the keys' order changed: now {} (was {})",
                    list(&b),
                    list(&a)
                ),
                Some((first_old.name.span, "the old order starts here".into())),
                Some((first_new.name.span, "the new order starts here".into())),
            )
            .notes
            .push(note.into());
        }
    }
}

fn by_name(keys: &[KeyFacts]) -> Vec<&KeyFacts> {
    let mut v: Vec<&KeyFacts> = keys.iter().collect();
    v.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    v
}

fn key(a: &KeyFacts, b: &KeyFacts, encoding: Class, cx: &mut Cx<'_>) {
    let name = &b.name.value;
    if a.ty != b.ty {
        cx.push(
            encoding,
            Rule::KeyType,
            format!(
                "key `{name}` is now `{}` (was `{}`)",
                b.ty.value, a.ty.value
            ),
            Some((a.ty.span, format!("`{}`", a.ty.value))),
            Some((b.ty.span, format!("`{}`", b.ty.value))),
        );
    }
    if a.cross_period != b.cross_period {
        let now = if b.cross_period.value {
            "now"
        } else {
            "no longer"
        };
        cx.push(
            Class::Consensus,
            Rule::CrossPeriod,
            format!("key `{name}` is {now} carried into each new period (`cross_period`)"),
            Some((
                a.cross_period.span,
                if a.cross_period.value {
                    "carried"
                } else {
                    "not carried"
                }
                .into(),
            )),
            Some((
                b.cross_period.span,
                if b.cross_period.value {
                    "carried"
                } else {
                    "not carried"
                }
                .into(),
            )),
        );
    }
}
