//! Lowers one `.fsm` machine: declarations first (so order in the file does not matter), then properties,
//! then transitions, reporting every unknown name with a did-you-mean.

use super::{bad_value, duplicate_name, parties, unknown_property};
use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::{Name, Span};
use fsmc_model::hash::NameMap;
use fsmc_model::spec::abci::Round;
use fsmc_model::spec::genie::FailurePolicy;
use fsmc_model::spec::*;
use fsmc_syntax::ast::{self, PropValue};
use fsmc_vocab::abci::{OutcomeKind, RoundKind};
use fsmc_vocab::genie::{OnFailure, Persistence, StateType};
use fsmc_vocab::{NOBODY, Profile, Value, Where};
use std::collections::BTreeMap;
use std::time::Duration;

pub(super) fn lower(m: &ast::Machine, diags: &mut Vec<Diagnostic>) -> Machine {
    let profile = match &m.profile {
        None => Profile::Plain,
        Some(p) => Profile::parse(&p.text).unwrap_or_else(|| {
            let mut d = Diagnostic::new(Code::UnknownKind, format!("unknown profile `{p}`"))
                .at(p.span, "not a profile");
            d = match did_you_mean(&p.text, Profile::ALL.iter().map(|p| p.name())) {
                Some(h) => d.help(h),
                None => {
                    let written: Vec<String> =
                        Profile::written().map(|p| format!("`{p}`")).collect();
                    d.help(format!(
                        "profiles: {} (or none, for a plain machine)",
                        written.join(", ")
                    ))
                }
            };
            diags.push(d);
            Profile::Plain
        }),
    };
    let mut out = Machine::new(m.name.clone(), profile, Origin::Fsm, m.span);
    out.docs = m.docs.clone();

    machine_properties(m, &mut out, diags);
    events(m, &mut out, diags);
    // After the events: a machine's `on_failure = EVENT;` names one.
    genie_machine(m, &mut out, diags);
    keys(m, &mut out, diags);
    let state_index = states(m, &mut out, diags);
    transitions(m, &mut out, &state_index, diags);
    let claims = super::claims::lower(&m.claims, &super::claims::Scope::of(&[&out]), diags);
    out.claims = claims;
    out
}

fn machine_properties(m: &ast::Machine, out: &mut Machine, diags: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for p in &m.properties {
        // As for states: a repeated property is reported, and its names still count.
        if let Some(first) = seen.insert(p.name.as_str(), p.name.span) {
            diags.push(duplicate_property(p, first));
        }
        if p.name.as_str() != "agents" && p.name.as_str() != "scripted" {
            parties::no_groups(p, diags);
        }
        match (p.name.as_str(), &p.value) {
            ("label", PropValue::Text(t)) => out.label = Some(t.clone()),
            ("label", _) => diags.push(bad_value(p, "a string: `label \"MyAbciApp\";`")),
            ("roles", PropValue::List(names)) => {
                out.roles.extend(names.iter().cloned());
                names_unique(&out.roles, diags);
            }
            ("agents", PropValue::List(names)) => {
                parties::agents(out, p, names);
                names_unique(&out.agents, diags);
            }
            ("roles" | "agents", _) => {
                diags.push(bad_value(p, "a list of names: `roles buyer, seller;`"))
            }
            // Read once the events are known, by `genie_machine`.
            ("on_failure", _) => {}
            // Read below, once every agent is known.
            ("scripted", _) => {}
            _ => diags.push(unknown_property(
                p,
                &fsmc_vocab::properties()
                    .iter()
                    .filter(|p| p.place == fsmc_vocab::Where::Machine)
                    .map(|p| p.name)
                    .collect::<Vec<_>>(),
                "a machine",
            )),
        }
    }
    for p in m
        .properties
        .iter()
        .filter(|p| p.name.as_str() == "scripted")
    {
        parties::scripted(out, p, diags);
    }
}

fn names_unique(names: &[Name], diags: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for n in names {
        if let Some(first) = seen.insert(n.as_str(), n.span) {
            diags.push(duplicate_name(Code::DuplicateItem, "name", n, first));
        }
    }
}

fn duplicate_property(p: &ast::Property, first: Span) -> Diagnostic {
    Diagnostic::new(
        Code::DuplicateProperty,
        format!("property `{}` is given more than once", p.name),
    )
    .at(p.name.span, "given again here")
    .with(first, "first given here")
    .help("merge the two into one")
}

/// Parses `30s`, `500ms`, `1.5m`, `2h` (the grammar guarantees the shape).
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (num, unit) = text.split_at(split);
    let value: f64 = num.parse().ok()?;
    let secs = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero() && d.as_secs() < 365 * 24 * 3600)
}

/// Type names the machine's generated module defines besides the fixed ones: a dialogue's message structs.
fn generated_names(m: &ast::Machine, profile: Profile) -> Vec<String> {
    // An event that carries data becomes a struct of the module `messages`, where its fields' types are
    // resolved: a bare event name there names that struct.
    m.events
        .iter()
        .filter(|e| profile == Profile::Dialogue || !e.fields.is_empty())
        .map(|e| fsmc_model::ident::camel(&e.name.text))
        .collect()
}

fn events(m: &ast::Machine, out: &mut Machine, diags: &mut Vec<Diagnostic>) {
    let shadowed = generated_names(m, out.profile);
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for e in &m.events {
        if let Some(first) = seen.insert(e.name.as_str(), e.name.span) {
            diags.push(duplicate_name(
                Code::DuplicateEvent,
                "event",
                &e.name,
                first,
            ));
            continue;
        }
        let timeout = e
            .timeout
            .as_ref()
            .and_then(|t| match parse_duration(&t.text) {
                Some(duration) => Some(Timeout {
                    duration,
                    span: t.span,
                }),
                None => {
                    diags.push(
                        Diagnostic::new(Code::InvalidDuration, format!("invalid timeout `{t}`"))
                            .at(t.span, "must be more than zero and less than a year")
                            .help("write a duration like `30s`, `500ms`, `2m` or `1h`"),
                    );
                    None
                }
            });
        // Roles were read by `machine_properties` (all `roles` properties merged), so indices match `out.roles`.
        let declared = m
            .properties
            .iter()
            .any(|p| p.name.as_str() == "roles" && matches!(p.value, PropValue::List(_)));
        let turn = parties::turn(e);
        let role = e
            .role
            .as_ref()
            .filter(|_| turn.is_none())
            .and_then(|r| match declared {
                true => match out.roles.iter().position(|x| x.text == r.text) {
                    Some(i) => Some(i),
                    None => {
                        let mut d =
                            Diagnostic::new(Code::UnknownRole, format!("unknown role `{r}`"))
                                .at(r.span, "not declared in `roles`");
                        if let Some(h) = did_you_mean(&r.text, out.roles.iter().map(|x| x.as_str()))
                        {
                            d = d.help(h);
                        }
                        diags.push(d);
                        None
                    }
                },
                false => {
                    diags.push(
                        Diagnostic::new(Code::UnknownRole, format!("unknown role `{r}`"))
                            .at(r.span, "this machine declares no roles")
                            .help("declare the roles with `roles buyer, seller;`"),
                    );
                    None
                }
            });
        for f in &e.fields {
            diags.extend(super::types::check(&f.ty.text, f.ty.span, &shadowed));
        }
        out.events.push(Event {
            name: e.name.clone(),
            docs: e.docs.clone(),
            timeout,
            fields: e
                .fields
                .iter()
                .map(|f| Field {
                    name: f.name.clone(),
                    ty: f.ty.clone(),
                })
                .collect(),
            role,
            turn,
            role_span: e.role.as_ref().map(|r| r.span),
        });
    }
}

fn keys(m: &ast::Machine, out: &mut Machine, diags: &mut Vec<Diagnostic>) {
    let shadowed = generated_names(m, out.profile);
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for k in &m.keys {
        if let Some(first) = seen.insert(k.name.as_str(), k.name.span) {
            diags.push(duplicate_name(Code::DuplicateKey, "key", &k.name, first));
            continue;
        }
        diags.extend(super::types::check(&k.ty.text, k.ty.span, &shadowed));
        out.keys.push(Key {
            name: k.name.clone(),
            docs: k.docs.clone(),
            ty: k.ty.clone(),
            cross_period: k.cross_period,
        });
    }
}

/// Returns the states by name, for `transitions`. The index is only looked up, never iterated: a hash map keys by
/// the tree's names without copying them and costs no string comparisons per level on large specs.
fn states<'a>(
    m: &'a ast::Machine,
    out: &mut Machine,
    diags: &mut Vec<Diagnostic>,
) -> NameMap<'a, StateId> {
    let mut index: NameMap<StateId> = NameMap::with_capacity(m.states.len());
    out.states.reserve_exact(m.states.len());
    let known: Vec<&str> = out.profile.state_properties().map(|p| p.name).collect();
    for s in &m.states {
        if let Some(first) = index.get(s.name.as_str()) {
            diags.push(duplicate_name(
                Code::DuplicateState,
                "state",
                &s.name,
                out.state(first).name.span,
            ));
            continue;
        }
        let mut st = State {
            name: s.name.clone(),
            docs: s.docs.iter().cloned().collect(),
            system: StateData::new(out.profile),
            ..State::default()
        };
        for modifier in &s.modifiers {
            match modifier.as_str() {
                "start" => st.start = true,
                // `default` implies `start`: a default start state is a start state.
                "default" => {
                    st.start = true;
                    st.default_start = true;
                }
                _ => st.is_final = true,
            }
        }
        if let Some(kind) = &s.kind {
            st.kind_span = Some(kind.span);
            kind_of(out.profile, kind, &mut st, diags);
        }
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        for p in &s.properties {
            // A repeated property is an error, but its value still counts (lists are merged): dropping it would
            // add follow-on errors about the keys or agents it lists.
            if let Some(first) = seen.insert(p.name.as_str(), p.name.span) {
                diags.push(duplicate_property(p, first));
            }
            parties::no_groups(p, diags);
            state_property(out, &known, p, &mut st, diags);
        }
        index.insert_new(s.name.as_str(), StateId(out.states.len() as u32));
        out.states.push(st);
    }
    index
}

/// "a plain machine", "an `abci` machine": how messages name the kind of machine a state belongs to.
fn machine_of(profile: Profile) -> String {
    match profile {
        Profile::Plain => "a plain machine".to_string(),
        Profile::Abci => "an `abci` machine".to_string(),
        p => format!("a `{}` machine", p.name()),
    }
}

fn kind_of(profile: Profile, kind: &Name, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let (names, found): (Vec<&str>, bool) = match &mut st.system {
        StateData::Abci(round) => {
            round.kind = RoundKind::parse(&kind.text);
            (RoundKind::NAMES.to_vec(), round.kind.is_some())
        }
        StateData::Genie(genie) => {
            genie.ty = StateType::parse(&kind.text);
            (StateType::NAMES.to_vec(), genie.ty.is_some())
        }
        _ => {
            diags.push(
                Diagnostic::new(Code::UnknownKind, format!("states of {} have no kind", machine_of(profile)))
                    .at(kind.span, "kind not expected here")
                    .help("state kinds are round kinds (`abci` machines) or `user`/`invoker` (`genie` machines)"),
            );
            return;
        }
    };
    if !found {
        let mut d = Diagnostic::new(
            Code::UnknownKind,
            format!("unknown state kind `{kind}` for {}", machine_of(profile)),
        )
        .at(kind.span, "not a known kind");
        d = match did_you_mean(&kind.text, names.iter().copied()) {
            Some(h) => d.help(h),
            None => d.help(format!(
                "known kinds: {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
        diags.push(d);
    }
}

fn state_property(
    out: &Machine,
    known: &[&str],
    p: &ast::Property,
    st: &mut State,
    diags: &mut Vec<Diagnostic>,
) {
    let name = p.name.as_str();
    if !known.contains(&name) {
        // A string-valued property that is not a near miss of a known one is a free attribute.
        if let PropValue::Text(t) = &p.value
            && did_you_mean(name, known.iter().copied()).is_none()
        {
            st.attributes
                .push((p.name.clone(), Some(t.text.to_string())));
            return;
        }
        diags.push(unknown_property(
            p,
            known,
            &format!("a state of {}", machine_of(out.profile)),
        ));
        return;
    }
    // The vocabulary says what form each property's value has; each form is read by its own function.
    let form = fsmc_vocab::properties()
        .iter()
        .find(|q| q.name == name && q.place == Where::State)
        .map(|q| q.value);
    match form {
        Some(Value::Event) => outcome_mapping(out, p, st, diags),
        Some(Value::Keys) => key_list(out, p, st, diags),
        Some(Value::Flag) => flag(p, st, diags),
        Some(Value::Text) => text_property(p, st, diags),
        Some(Value::Agents) => agent_list(out, p, st, diags),
        Some(Value::Failure) => {
            let policy = failure_policy(out, p, diags);
            if let (Some(policy), StateData::Genie(genie)) = (policy, &mut st.system) {
                genie.work_mut().on_failure = Some((policy, p.span));
            }
        }
        Some(Value::Number) => number(p, st, diags),
        Some(Value::Names) => work(p, st, diags),
        None => {}
    }
}

/// The machine's `on_failure …;`: the policy of its invoker states that give none. A property of `genie`
/// machines only.
fn genie_machine(m: &ast::Machine, out: &mut Machine, diags: &mut Vec<Diagnostic>) {
    for p in m
        .properties
        .iter()
        .filter(|p| p.name.as_str() == "on_failure")
    {
        if out.profile != Profile::Genie {
            diags.push(
                Diagnostic::new(
                    Code::UnknownProperty,
                    "`on_failure` applies only to `genie` machines",
                )
                .at(p.name.span, "not expected here"),
            );
            continue;
        }
        if let Some(policy) = failure_policy(out, p, diags) {
            out.genie.on_failure = Some((policy, p.span));
        }
    }
}

/// `on_failure retry;`, `on_failure continue;` or `on_failure = EVENT;`.
fn failure_policy(
    out: &Machine,
    p: &ast::Property,
    diags: &mut Vec<Diagnostic>,
) -> Option<FailurePolicy> {
    match &p.value {
        PropValue::Assign(ev) => match out.find_event(&ev.text) {
            Some(e) => Some(FailurePolicy::Event(e)),
            None => {
                diags.push(unknown_event(out, ev));
                None
            }
        },
        PropValue::List(words) if words.len() == 1 => {
            let word = &words[0];
            if let Some(policy) = OnFailure::parse(&word.text) {
                return Some(FailurePolicy::Word(policy));
            }
            let mut d = Diagnostic::new(
                Code::BadPropertyValue,
                format!("unknown failure policy `{word}`"),
            )
            .at(word.span, "expected `retry`, `continue` or `= EVENT`");
            if let Some(h) = did_you_mean(&word.text, OnFailure::NAMES.iter().copied()) {
                d = d.help(h);
            }
            diags.push(d);
            None
        }
        _ => {
            diags.push(bad_value(
                p,
                "`on_failure retry;`, `on_failure continue;` or `on_failure = EVENT;`",
            ));
            None
        }
    }
}

/// `runs retrieval;`: the one name of the work an invoker state runs.
fn work(p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    match (&p.value, &mut st.system) {
        (PropValue::List(names), StateData::Genie(genie)) if names.len() == 1 => {
            genie.work_mut().runs = Some(names[0].clone());
        }
        (_, system) => {
            diags.push(bad_value(p, "the name of one work: `runs retrieval;`"));
            // The work was named, in the wrong shape: that is the error, not a missing work (E0705).
            if let StateData::Genie(genie) = system {
                genie.work_mut().runs = Some(Name::new(String::new(), p.span));
            }
        }
    }
}

/// `done = SUCCESS;`: the event an outcome maps to.
fn outcome_mapping(out: &Machine, p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let name = p.name.as_str();
    let Some(outcome) = OutcomeKind::parse(name) else {
        return;
    };
    match &p.value {
        PropValue::Assign(ev) => match out.find_event(&ev.text) {
            // The span covers `fail = EVENT`: a diagnostic may be about the outcome or about the event.
            Some(e) => {
                if let Some(round) = round(st) {
                    round.outcomes.push((outcome, e, p.name.span.to(ev.span)));
                }
            }
            None => diags.push(unknown_event(out, ev)),
        },
        _ => diags.push(bad_value(p, &format!("an event: `{name} = EVENT;`"))),
    }
}

/// `reads a, b;` and the other lists of keys.
fn key_list(out: &Machine, p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let name = p.name.as_str();
    let PropValue::List(list) = &p.value else {
        diags.push(bad_value(p, &format!("a list of keys: `{name} a, b;`")));
        return;
    };
    let mut ids = Vec::new();
    for k in list {
        match out.keys.iter().position(|x| x.name.text == k.text) {
            Some(i) => ids.push((KeyId(i as u32), k.span)),
            None => {
                let mut d = Diagnostic::new(Code::UnknownKey, format!("unknown key `{k}`"))
                    .at(k.span, "not declared in this machine");
                d = match did_you_mean(&k.text, out.keys.iter().map(|x| x.name.as_str())) {
                    Some(h) => d.help(h),
                    None => d.help(format!("declare it with `key {k}: Type;`")),
                };
                diags.push(d);
            }
        }
    }
    match name {
        "reads" => st.reads.extend(ids),
        "writes" => st.writes.extend(ids),
        "requires" => st.requires.extend(ids),
        _ => st.ensures.extend(ids),
    }
}

/// `reset;`, `registration;`, `elects_keeper;`, `handler;`: the property's presence is its meaning.
fn flag(p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let name = p.name.as_str();
    if !matches!(p.value, PropValue::Flag) {
        diags.push(bad_value(p, &format!("nothing: `{name};`")));
        return;
    }
    match (name, &mut st.system) {
        ("reset", StateData::Abci(round)) => round.reset = true,
        ("registration", StateData::Abci(round)) => round.registration = Some(p.name.span),
        ("elects_keeper", StateData::Abci(round)) => round.elects_keeper = Some(p.name.span),
        ("handler", StateData::Staged(stage)) => stage.handler = Some(p.name.span),
        _ => {}
    }
}

/// `confirmations 10;`: how many blocks a threshold round keeps collecting after its threshold.
fn number(p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let PropValue::Number(n) = &p.value else {
        diags.push(bad_value(
            p,
            "a whole number of blocks: `confirmations 10;`",
        ));
        return;
    };
    let Ok(count) = n.text.parse::<u32>() else {
        diags.push(bad_value(p, "a whole number of blocks under 4,294,967,296"));
        return;
    };
    if let StateData::Abci(round) = &mut st.system {
        round.confirmations = Some((count, p.name.span.to(n.span)));
    }
}

/// `payload "T";` and `template "path";`.
fn text_property(p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    match p.name.as_str() {
        // The payload type of the round; kept as an attribute, which the code generator reads.
        "payload" => match &p.value {
            PropValue::Text(t) => match super::types::check(&t.text, t.span, &[]) {
                None => st
                    .attributes
                    .push((p.name.clone(), Some(t.text.to_string()))),
                Some(d) => diags.push(d),
            },
            _ => diags.push(bad_value(p, "a Rust type as a string: `payload \"u64\";`")),
        },
        _ => {
            let template = match &p.value {
                PropValue::Text(t) => t.clone(),
                _ => {
                    diags.push(bad_value(p, "a string: `template \"path.jinja\";`"));
                    // A template was given, in the wrong shape: that is the error, not a missing template (E0702).
                    Name::new(String::new(), p.span)
                }
            };
            if let StateData::Genie(genie) = &mut st.system {
                genie.template = Some(template);
            }
        }
    }
}

/// `acting a, b;` and `rewarded a, b;` (or `none`): agents of a staged machine.
fn agent_list(out: &Machine, p: &ast::Property, st: &mut State, diags: &mut Vec<Diagnostic>) {
    let name = p.name.as_str();
    let PropValue::List(list) = &p.value else {
        diags.push(bad_value(
            p,
            &format!("a list of agents: `{name} a, b;`, or `{name} {NOBODY};`"),
        ));
        return;
    };
    // `none` is the whole list or not in it: `rewarded none, shop;` says two contrary things.
    if list.len() > 1 && list.iter().any(|a| a.text == NOBODY) {
        diags.push(bad_value(
            p,
            &format!("a list of agents, or `{NOBODY}` alone: `{name} {NOBODY};`"),
        ));
        return;
    }
    let mut ids = Vec::new();
    for a in list.iter().filter(|a| a.text != NOBODY) {
        match out.agents.iter().position(|x| x.text == a.text) {
            Some(i) => ids.push((i, a.span)),
            None => diags.push(parties::unknown_agent(out, &a.text, a.span)),
        }
    }
    if let StateData::Staged(stage) = &mut st.system {
        if name == "acting" {
            stage.acting.extend(ids);
        } else {
            stage.rewarded.get_or_insert_with(ThinVec::new).extend(ids);
        }
    }
}

/// The state's round. Outcome mappings are properties of `abci` machines, whose states are rounds.
fn round(st: &mut State) -> Option<&mut Round> {
    match &mut st.system {
        StateData::Abci(round) => Some(round),
        _ => None,
    }
}

fn unknown_event(out: &Machine, ev: &Name) -> Diagnostic {
    let mut d = Diagnostic::new(Code::UnknownEvent, format!("unknown event `{ev}`"))
        .at(ev.span, format!("not declared in machine `{}`", out.name));
    match did_you_mean(&ev.text, out.events.iter().map(|e| e.name.as_str())) {
        Some(h) => d = d.help(h),
        None => d = d.help(format!("declare it with `event {ev};`")),
    }
    d
}

fn unknown_state(out: &Machine, st: &Name) -> Diagnostic {
    let mut d = Diagnostic::new(Code::UnknownState, format!("unknown state `{st}`"))
        .at(st.span, format!("not declared in machine `{}`", out.name));
    match did_you_mean(&st.text, out.states.iter().map(|s| s.name.as_str())) {
        Some(h) => d = d.help(h),
        None => d = d.help(format!("declare it with `state {st};`")),
    }
    d
}

fn transitions(
    m: &ast::Machine,
    out: &mut Machine,
    index: &NameMap<StateId>,
    diags: &mut Vec<Diagnostic>,
) {
    // Looked up once per transition: a map keeps resolution linear in the spec's size. It is never iterated.
    let mut events: NameMap<EventId> = NameMap::with_capacity(out.events.len());
    for (i, e) in out.events.iter().enumerate() {
        events.insert_new(e.name.as_str(), EventId(i as u32));
    }
    out.transitions.reserve_exact(m.transitions.len());
    // The names are looked up first, on several threads for a large machine (the lookups are most of resolving
    // one); what they found is then made into the model in order, with the diagnostics, on this thread.
    let found = fsmc_base::par::map_slices(&m.transitions, |slice, out| {
        // A state's transitions are usually written together: a source state that is the previous one's is not
        // looked up again.
        let mut previous: Option<(&str, Option<StateId>)> = None;
        out.extend(slice.iter().map(|t| {
            let from = match previous {
                Some((name, id)) if name == t.from.as_str() => id,
                _ => {
                    let id = index.get(t.from.as_str());
                    previous = Some((t.from.as_str(), id));
                    id
                }
            };
            (
                from,
                index.get(t.to.as_str()),
                t.event.as_ref().map(|e| events.get(e.as_str())),
            )
        }))
    });
    for (t, (from, to, event)) in m.transitions.iter().zip(found) {
        if from.is_none() {
            diags.push(unknown_state(out, &t.from));
        }
        if to.is_none() {
            diags.push(unknown_state(out, &t.to));
        }
        let event = match (event, &t.event) {
            (Some(Some(id)), _) => Some(Some(id)),
            (Some(None), Some(e)) => {
                diags.push(unknown_event(out, e));
                None
            }
            _ => Some(None),
        };
        let persist = t
            .persist
            .as_ref()
            .and_then(|p| match Persistence::parse(&p.text) {
                Some(v) => Some((v, p.span)),
                None => {
                    let mut d = Diagnostic::new(
                        Code::BadPropertyValue,
                        format!("unknown persistence `{p}`"),
                    )
                    .at(p.span, "expected `none`, `raw` or `rendered`");
                    if let Some(h) = did_you_mean(&p.text, ["none", "raw", "rendered"]) {
                        d = d.help(h);
                    }
                    diags.push(d);
                    None
                }
            });
        if t.persist.is_some() && out.profile != Profile::Genie {
            diags.push(
                Diagnostic::new(
                    Code::UnknownProperty,
                    "`persist` applies only to transitions of `genie` machines",
                )
                .at(
                    t.persist.as_ref().map_or(t.span, |p| p.span),
                    "not expected here",
                ),
            );
        }
        let (Some(from), Some(to), Some(event)) = (from, to, event) else {
            out.incomplete = true;
            continue;
        };
        out.transitions.push(Transition {
            from,
            event,
            to,
            guards: t
                .guards
                .iter()
                .map(|g| Guard {
                    negated: g.negated,
                    name: g.name.clone(),
                })
                .collect(),
            actions: parties::actions(t, out.profile, diags),
            persist,
            docs: t.docs.clone(),
            span: t.span,
            event_span: t.event.as_ref().map_or(t.span, |e| e.span),
            to_span: t.to.span,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5m"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("99999999999h"), None);
    }
}
