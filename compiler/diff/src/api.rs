//! The generated code's interface and the behaviour no replica sees, compared: events, the transition function,
//! start states, conditions, attributes, roles and agents, each system's own data, and a composed app's
//! origins. Every difference is code-breaking. For an `abci` item, what the facts already compare (its states,
//! keys, and the transitions a replica takes) is left to them.

use crate::{Class, Cx, Entry, Pair, Rule, list, pairs};
use fsmc_base::source::{SmolStr, Span};
use fsmc_model::spec::{EventId, Machine, StateData, StateId};
use fsmc_vocab::abci::RoundKind;
use std::collections::BTreeSet;

pub(crate) fn compare(old: &Entry<'_>, new: &Entry<'_>, cx: &mut Cx<'_>) {
    let replicated = new.replicated();
    events(old.machine, new.machine, cx);
    let running = replicated && runs(old.machine) && runs(new.machine);
    if !replicated {
        states(old.machine, new.machine, cx);
        keys(old.machine, new.machine, cx);
    } else if running {
        other_starts(old.machine, new.machine, cx);
    }
    transitions(old.machine, new.machine, replicated, running, cx);
    for (so, sn) in common_states(old.machine, new.machine) {
        state(old, new, so, sn, replicated, cx);
    }
    participants(old.machine, new.machine, cx);
    if let (Some(oo), Some(on)) = (old.origin, new.origin) {
        origins(old, new, oo, on, cx);
    }
}

/// Whether generated code runs an `abci` machine as a replicated app (as the facts say).
fn runs(m: &Machine) -> bool {
    fsmc_model::fingerprint::facts(m).runs.value
}

/// The states both machines have, by name, in the new machine's order.
fn common_states(old: &Machine, new: &Machine) -> Vec<(StateId, StateId)> {
    new.state_ids()
        .filter_map(|n| old.find_state(&new.state(n).name.text).map(|o| (o, n)))
        .collect()
}

/// Someone's name with its id, sorted by name: what `pairs` walks.
fn by_name<I: Copy>(items: impl Iterator<Item = (SmolStr, I)>) -> Vec<(SmolStr, I)> {
    let mut v: Vec<(SmolStr, I)> = items.collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn events(old: &Machine, new: &Machine, cx: &mut Cx<'_>) {
    let ids = |m: &Machine| {
        by_name(
            m.events
                .iter()
                .enumerate()
                .map(|(i, e)| (e.name.text.clone(), EventId(i as u32))),
        )
    };
    let (o, n) = (ids(old), ids(new));
    for pair in pairs(&o, &n, |(name, _)| name.clone()) {
        match pair {
            Pair::Old((name, e)) => {
                let at = cx.new_item(format!("`{}` no longer has it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::Event,
                    format!("event `{name}` was removed"),
                    Some((old.event(*e).name.span, "removed".into())),
                    at,
                );
            }
            Pair::New((name, e)) => {
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::Event,
                    format!("event `{name}` was added"),
                    at,
                    Some((new.event(*e).name.span, "new".into())),
                );
            }
            Pair::Both((name, a), (_, b)) => {
                let (a, b) = (old.event(*a), new.event(*b));
                let fields = |e: &fsmc_model::spec::Event| -> Vec<(SmolStr, String)> {
                    e.fields
                        .iter()
                        .map(|f| (f.name.text.clone(), f.ty.text.split_whitespace().collect()))
                        .collect()
                };
                let role = |m: &Machine, e: &fsmc_model::spec::Event| {
                    e.role.and_then(|r| m.roles.get(r)).map(|r| r.text.clone())
                };
                let timeout = |e: &fsmc_model::spec::Event| e.timeout.map(|t| t.duration);
                let mut what = Vec::new();
                if fields(a) != fields(b) {
                    what.push("its fields");
                }
                if role(old, a) != role(new, b) {
                    what.push("the role that sends it");
                }
                if timeout(a) != timeout(b) {
                    what.push("its timeout");
                }
                if !what.is_empty() {
                    cx.push(
                        Class::Code,
                        Rule::Event,
                        format!("event `{name}`: {} changed", what.join(", ")),
                        Some((a.name.span, "before".into())),
                        Some((b.name.span, "now".into())),
                    );
                }
            }
        }
    }
}

fn state_ids(m: &Machine) -> Vec<(SmolStr, StateId)> {
    by_name(m.state_ids().map(|s| (m.state(s).name.text.clone(), s)))
}

/// The states of a machine no replica runs: which there are, and which start and end it.
fn states(old: &Machine, new: &Machine, cx: &mut Cx<'_>) {
    let (o, n) = (state_ids(old), state_ids(new));
    for pair in pairs(&o, &n, |(name, _)| name.clone()) {
        match pair {
            Pair::Old((name, s)) => {
                let at = cx.new_item(format!("`{}` no longer has it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::StateRemoved,
                    format!("state `{name}` was removed"),
                    Some((old.state(*s).name.span, "removed".into())),
                    at,
                );
            }
            Pair::New((name, s)) => {
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::StateAdded,
                    format!("state `{name}` was added"),
                    at,
                    Some((new.state(*s).name.span, "new".into())),
                );
            }
            Pair::Both((name, a), (_, b)) => {
                let (a, b) = (old.state(*a), new.state(*b));
                let flags = [
                    (
                        a.default_start,
                        b.default_start,
                        Rule::Start,
                        "the default start state",
                    ),
                    (a.start, b.start, Rule::StartState, "a start state"),
                    (a.is_final, b.is_final, Rule::Final, "final"),
                ];
                for (x, y, rule, what) in flags {
                    if x != y {
                        let now = if y { "now" } else { "no longer" };
                        cx.push(
                            Class::Code,
                            rule,
                            format!("state `{name}` is {now} {what}"),
                            Some((a.name.span, "before".into())),
                            Some((b.name.span, "now".into())),
                        );
                    }
                }
            }
        }
    }
}

/// The start states besides the default one, of a machine that runs: no replica starts there, but the
/// generated `State::START` lists them.
fn other_starts(old: &Machine, new: &Machine, cx: &mut Cx<'_>) {
    for (a, b) in common_states(old, new) {
        let (a, b) = (old.state(a), new.state(b));
        if a.start != b.start {
            let now = if b.start { "now" } else { "no longer" };
            cx.push(
                Class::Code,
                Rule::StartState,
                format!("state `{}` is {now} a start state", b.name),
                Some((a.name.span, "before".into())),
                Some((b.name.span, "now".into())),
            );
        }
    }
}

/// The keys of a machine no replica runs: its generated `Data`.
fn keys(old: &Machine, new: &Machine, cx: &mut Cx<'_>) {
    let ids = |m: &Machine| {
        by_name(
            m.keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.name.text.clone(), i)),
        )
    };
    let (o, n) = (ids(old), ids(new));
    for pair in pairs(&o, &n, |(name, _)| name.clone()) {
        match pair {
            Pair::Old((name, k)) => {
                let at = cx.new_item(format!("`{}` no longer has it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::KeyRemoved,
                    format!("key `{name}` was removed"),
                    Some((old.keys[*k].name.span, "removed".into())),
                    at,
                );
            }
            Pair::New((name, k)) => {
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::KeyAdded,
                    format!("key `{name}` was added"),
                    at,
                    Some((new.keys[*k].name.span, "new".into())),
                );
            }
            Pair::Both((name, a), (_, b)) => {
                let (a, b) = (&old.keys[*a], &new.keys[*b]);
                let ty = |t: &str| t.split_whitespace().collect::<String>();
                if ty(&a.ty.text) != ty(&b.ty.text) {
                    cx.push(
                        Class::Code,
                        Rule::KeyType,
                        format!("key `{name}` is now `{}` (was `{}`)", b.ty, a.ty),
                        Some((a.ty.span, "before".into())),
                        Some((b.ty.span, "now".into())),
                    );
                }
                if a.cross_period != b.cross_period {
                    let now = if b.cross_period { "now" } else { "no longer" };
                    cx.push(
                        Class::Code,
                        Rule::CrossPeriod,
                        format!("key `{name}` is {now} carried into each new period"),
                        Some((a.name.span, "before".into())),
                        Some((b.name.span, "now".into())),
                    );
                }
            }
        }
    }
}

/// A transition as the generated transition function sees it: from, event (`None`: direct), guards, and for a
/// direct one its target (a state may have several).
type TransitionKey = (
    SmolStr,
    Option<SmolStr>,
    Vec<(bool, SmolStr)>,
    Option<SmolStr>,
);

fn transition_keys(m: &Machine) -> Vec<(TransitionKey, usize)> {
    let mut v: Vec<(TransitionKey, usize)> = m
        .transitions
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let event = t.event.map(|e| m.event(e).name.text.clone());
            let direct = event.is_none().then(|| m.state(t.to).name.text.clone());
            let guards = t
                .guards
                .iter()
                .map(|g| (g.negated, g.name.text.clone()))
                .collect();
            (
                (m.state(t.from).name.text.clone(), event, guards, direct),
                i,
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The (state, event) pairs a replica of a machine that runs takes: each round's handled outcome events and its
/// timeout event. The facts compare where those lead.
fn fired(m: &Machine) -> BTreeSet<(SmolStr, SmolStr)> {
    let mut out = BTreeSet::new();
    let outgoing = m.outgoing();
    for sid in m.state_ids() {
        let s = m.state(sid);
        let has = |e: EventId| {
            outgoing[sid.index()]
                .iter()
                .any(|&t| m.transitions[t].event == Some(e))
        };
        let kind: RoundKind = s.round_kind();
        let mut events: Vec<EventId> = kind
            .outcomes()
            .iter()
            .filter_map(|(o, _)| m.outcome_event(sid, *o))
            .filter(|e| has(*e))
            .collect();
        events.extend(
            outgoing[sid.index()]
                .iter()
                .filter_map(|&t| m.transitions[t].event)
                .find(|e| m.event(*e).timeout.is_some()),
        );
        for e in events {
            out.insert((s.name.text.clone(), m.event(e).name.text.clone()));
        }
    }
    out
}

/// The transition function (and each transition's actions and persistence), for the pairs neither a state's
/// nor an event's coming or going already explains, nor the facts compare.
fn transitions(old: &Machine, new: &Machine, replicated: bool, running: bool, cx: &mut Cx<'_>) {
    let (o, n) = (transition_keys(old), transition_keys(new));
    let (fired_old, fired_new) = if running {
        (fired(old), fired(new))
    } else {
        Default::default()
    };
    let known = |key: &TransitionKey| {
        old.find_state(&key.0).is_some()
            && new.find_state(&key.0).is_some()
            && key
                .1
                .as_ref()
                .is_none_or(|e| old.find_event(e).is_some() && new.find_event(e).is_some())
    };
    // A machine that does not run has its transitions among its facts: only what rides on them is left.
    let targets_are_facts = replicated && !running;
    // What a replica fires on either side, the facts compare: a change there is theirs to report.
    let in_facts = |key: &TransitionKey| {
        key.1.as_ref().is_some_and(|e| {
            let pair = (key.0.clone(), e.clone());
            fired_old.contains(&pair) || fired_new.contains(&pair)
        })
    };
    for pair in pairs(&o, &n, |(key, _)| key.clone()) {
        match pair {
            Pair::Old((key, t)) if known(key) && !targets_are_facts && !in_facts(key) => {
                let at = cx.new_item(format!("`{}` no longer has it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::Transition,
                    format!("the transition {} was removed", describe(key)),
                    Some((old.transitions[*t].span, "removed".into())),
                    at,
                );
            }
            Pair::New((key, t)) if known(key) && !targets_are_facts && !in_facts(key) => {
                let to = &new.state(new.transitions[*t].to).name;
                let at = cx.old_item(format!("`{}` did not have it", cx.item()));
                cx.push(
                    Class::Code,
                    Rule::Transition,
                    format!("the transition {} to `{to}` was added", describe(key)),
                    at,
                    Some((new.transitions[*t].span, "new".into())),
                );
            }
            Pair::Both((key, a), (_, b)) => {
                let (a, b) = (&old.transitions[*a], &new.transitions[*b]);
                let (ta, tb) = (&old.state(a.to).name, &new.state(b.to).name);
                if ta.text != tb.text && !targets_are_facts && !in_facts(key) {
                    cx.push(
                        Class::Code,
                        Rule::Transition,
                        format!(
                            "the transition {} now goes to `{tb}` (was `{ta}`)",
                            describe(key)
                        ),
                        Some((a.to_span, "before".into())),
                        Some((b.to_span, "now".into())),
                    );
                }
                // As written, sides included: a side decides which party's copy runs the action.
                let actions = |t: &fsmc_model::spec::Transition| -> String {
                    fsmc_model::spec::Action::written(&t.actions)
                };
                let persist = |t: &fsmc_model::spec::Transition| t.persist.map(|p| p.0);
                if actions(a) != actions(b) || persist(a) != persist(b) {
                    cx.push(
                        Class::Code,
                        Rule::Transition,
                        format!(
                            "the transition {}: its actions or persistence changed",
                            describe(key)
                        ),
                        Some((a.span, "before".into())),
                        Some((b.span, "now".into())),
                    );
                }
            }
            _ => {}
        }
    }
}

fn describe(key: &TransitionKey) -> String {
    let guards = if key.2.is_empty() {
        String::new()
    } else {
        let g: Vec<String> = key
            .2
            .iter()
            .map(|(neg, g)| format!("{}{g}", if *neg { "!" } else { "" }))
            .collect();
        format!(" [{}]", g.join(", "))
    };
    match &key.1 {
        Some(e) => format!("(`{}`, `{e}`){guards}", key.0),
        None => format!(
            "(`{}`) -> `{}`{guards}",
            key.0,
            key.3.as_deref().unwrap_or("?")
        ),
    }
}

/// What generated code says of a state besides its round: the keys it reads, requires and ensures (and writes,
/// outside a replicated app), its free attributes, and its system's data.
fn state(
    old: &Entry<'_>,
    new: &Entry<'_>,
    so: StateId,
    sn: StateId,
    replicated: bool,
    cx: &mut Cx<'_>,
) {
    let (mo, mn) = (old.machine, new.machine);
    let (a, b) = (mo.state(so), mn.state(sn));
    let keys = |m: &Machine, list: &[(fsmc_model::spec::KeyId, Span)]| -> Vec<SmolStr> {
        list.iter()
            .map(|(k, _)| m.key(*k).name.text.clone())
            .collect()
    };
    let mut lists = vec![
        ("reads", keys(mo, &a.reads), keys(mn, &b.reads)),
        ("requires", keys(mo, &a.requires), keys(mn, &b.requires)),
        ("ensures", keys(mo, &a.ensures), keys(mn, &b.ensures)),
    ];
    if !replicated {
        lists.push(("writes", keys(mo, &a.writes), keys(mn, &b.writes)));
    }
    for (what, x, y) in lists {
        if x != y {
            cx.push(
                Class::Code,
                Rule::Conditions,
                format!(
                    "state `{}` now {what} {} (was {})",
                    b.name,
                    list(&y),
                    list(&x)
                ),
                Some((a.name.span, "before".into())),
                Some((b.name.span, "now".into())),
            );
        }
    }
    // A round's payload is among the facts of a replicated item.
    let attrs = |s: &fsmc_model::spec::State| -> Vec<(SmolStr, Option<String>)> {
        let mut v: Vec<(SmolStr, Option<String>)> = s
            .attributes
            .iter()
            .filter(|(n, _)| !(replicated && n.text == "payload"))
            .map(|(n, v)| (n.text.clone(), v.clone()))
            .collect();
        v.sort();
        v
    };
    if attrs(a) != attrs(b) {
        cx.push(
            Class::Code,
            Rule::Attribute,
            format!("state `{}`: its attributes changed", b.name),
            Some((a.name.span, "before".into())),
            Some((b.name.span, "now".into())),
        );
    }
    if system_data(old, a) != system_data(new, b) {
        cx.push(
            Class::Code,
            Rule::SystemData,
            format!("state `{}`: what its system says of it changed", b.name),
            Some((a.name.span, "before".into())),
            Some((b.name.span, "now".into())),
        )
        .notes
        .push(
            "a Genie state's type, template or template text, or a stage's agents or handler"
                .into(),
        );
    }
}

/// A Genie state's type, template path and text, or a stage's acting and rewarded agents (by name) and whether
/// a handler chooses its next stage; nothing for the other systems, whose states' data the facts compare or
/// which have none.
fn system_data(e: &Entry<'_>, s: &fsmc_model::spec::State) -> Option<String> {
    let agents = |list: &[(usize, Span)]| -> Vec<String> {
        list.iter()
            .map(|(i, _)| {
                e.machine
                    .agents
                    .get(*i)
                    .map_or(String::new(), |a| a.text.to_string())
            })
            .collect()
    };
    match &s.system {
        StateData::Genie(g) => {
            let template = g.template.as_ref().map(|t| {
                let text = match e.spec.templates.get(&t.span) {
                    Some(Ok(text)) => text.as_str(),
                    _ => "",
                };
                (t.text.to_string(), text)
            });
            Some(format!("{:?} {:?}", g.ty, template))
        }
        StateData::Staged(stage) => Some(format!(
            "{:?} {:?} {}",
            agents(&stage.acting),
            stage.rewarded.as_deref().map(agents),
            stage.handler.is_some()
        )),
        StateData::Plain | StateData::Abci(_) | StateData::Dialogue => None,
    }
}

/// A dialogue's roles and a staged environment's agents.
fn participants(old: &Machine, new: &Machine, cx: &mut Cx<'_>) {
    let names = |v: &[fsmc_base::source::Name]| -> Vec<SmolStr> {
        v.iter().map(|n| n.text.clone()).collect()
    };
    for (what, a, b) in [
        ("roles", names(&old.roles), names(&new.roles)),
        ("agents", names(&old.agents), names(&new.agents)),
    ] {
        if a != b {
            cx.push(
                Class::Code,
                Rule::Participants,
                format!("the {what} are now {} (was {})", list(&b), list(&a)),
                Some((old.name.span, "before".into())),
                Some((new.name.span, "now".into())),
            );
        }
    }
}

/// Which machine of a composed app each state came from (`State::machine`).
fn origins(
    old: &Entry<'_>,
    new: &Entry<'_>,
    oo: &[fsmc_model::spec::MachineId],
    on: &[fsmc_model::spec::MachineId],
    cx: &mut Cx<'_>,
) {
    for (so, sn) in common_states(old.machine, new.machine) {
        let (a, b) = (
            &old.spec.machine(oo[so.index()]).name,
            &new.spec.machine(on[sn.index()]).name,
        );
        if a.text != b.text {
            let s = &new.machine.state(sn).name;
            cx.push(
                Class::Code,
                Rule::Origin,
                format!("state `{s}` now comes from `{b}` (was `{a}`)"),
                Some((old.machine.state(so).name.span, format!("from `{a}`"))),
                Some((s.span, format!("from `{b}`"))),
            );
        }
    }
}
