//! Name checks beyond resolution: names that collide once turned into Rust identifiers, and reserved names. The
//! names a system's generated code adds (Genie's `poll`, a staged machine's `Environment`) are checked by the
//! system; Open Autonomy's naming conventions are a lint of `abci`.

use crate::hash::{FastMap, map_with_capacity};
use crate::ident;
use crate::spec::Machine;
use fsmc_base::diag::{Code, Diagnostic};
use fsmc_base::source::Name;
use std::borrow::Cow;
use std::collections::BTreeMap;

pub(super) fn check(m: &Machine, out: &mut Vec<Diagnostic>) {
    // Every identifier codegen derives from a spec name: enum variants (camel case), methods and fields (snake
    // case). Two names that meet in one Rust namespace, or a name Rust cannot take, are reported here, so a
    // spec that checks clean always generates code that compiles.
    collisions(
        || "state",
        m.states.iter().map(|s| &s.name),
        Convert::Camel,
        out,
    );
    // States also name methods (behaviours, handlers): `ABCRound` and `AbcRound` are both `abc_round`.
    collisions(
        || "state",
        m.states.iter().map(|s| &s.name),
        Convert::Snake,
        out,
    );
    collisions(
        || "event",
        m.events.iter().map(|e| &e.name),
        Convert::Camel,
        out,
    );
    collisions(
        || "key",
        m.keys.iter().map(|k| &k.name),
        Convert::Snake,
        out,
    );
    collisions(|| "role", m.roles.iter(), Convert::Camel, out);
    collisions(|| "agent", m.agents.iter(), Convert::Camel, out);
    for e in &m.events {
        collisions(
            || format!("field of `{}`", e.name),
            e.fields.iter().map(|f| &f.name),
            Convert::Snake,
            out,
        );
        let mut fields: BTreeMap<&str, &Name> = BTreeMap::new();
        for f in &e.fields {
            underscore(|| format!("a field of `{}`", e.name), &f.name, out);
            // Two fields of one name would be one struct field twice (spellings that differ are the
            // collision above).
            if let Some(first) = fields.insert(f.name.as_str(), &f.name) {
                out.push(
                    Diagnostic::new(
                        Code::NameCollision,
                        format!("`{}` has two fields named `{}`", e.name, f.name),
                    )
                    .at(f.name.span, "named again here")
                    .with(first.span, "first named here")
                    .help("rename one of the fields"),
                );
            }
        }
    }
    hooks(m, out);
    data_methods(m, out);
    for (what, names) in [
        (
            "state",
            m.states.iter().map(|s| &s.name).collect::<Vec<_>>(),
        ),
        ("event", m.events.iter().map(|e| &e.name).collect()),
        ("role", m.roles.iter().collect()),
        ("agent", m.agents.iter().collect()),
    ] {
        for n in names {
            // `self` and `Self` become the variant `Self`, which Rust reserves. `camel` keeps every ASCII letter
            // and digit and adds none (a leading `X` never makes `Self`), so only a name with exactly four of them
            // can become `Self`: the count spares an allocation per name on large specs.
            if n.text.bytes().filter(u8::is_ascii_alphanumeric).count() == 4
                && ident::camel(&n.text) == "Self"
            {
                out.push(
                    Diagnostic::new(
                        Code::ReservedName,
                        format!("`{n}` cannot name {}", article(what)),
                    )
                    .at(
                        n.span,
                        "becomes `Self` in generated Rust, which is reserved",
                    )
                    .help(format!("rename the {what}")),
                );
            }
            underscore(|| article(what), n, out);
        }
    }
    for k in &m.keys {
        underscore(|| "a key".to_string(), &k.name, out);
    }
    underscore(|| "a machine".to_string(), &m.name, out);
    for s in &m.states {
        if matches!(s.name.as_str(), "crate" | "super") {
            out.push(
                Diagnostic::new(
                    Code::ReservedName,
                    format!("`{}` cannot name a state", s.name),
                )
                .at(s.name.span, "reserved in Rust")
                .help("rename the state"),
            );
        }
    }
}

fn article(what: &str) -> String {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {what}")
    } else {
        format!("a {what}")
    }
}

/// A name of underscores only (`_`) becomes no identifier Rust accepts for a method, field or variant. `what` is
/// built only for a name reported: this runs once per name of the spec.
fn underscore(what: impl FnOnce() -> String, n: &Name, out: &mut Vec<Diagnostic>) {
    if !n.text.is_empty() && n.text.bytes().all(|c| c == b'_') {
        let what = what();
        out.push(
            Diagnostic::new(Code::ReservedName, format!("`{n}` cannot name {what}"))
                .at(n.span, "a name of underscores only")
                .help("give it a name with a letter in it"),
        );
    }
}

/// Guards and actions become methods of one `Hooks` trait: a name used as both, or two names with one snake
/// case, would be two methods with one name.
fn hooks(m: &Machine, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<String, (&Name, &'static str)> = BTreeMap::new();
    let guards = m
        .transitions
        .iter()
        .flat_map(|t| t.guards.iter().map(|g| (&g.name, "guard")));
    let actions = m
        .transitions
        .iter()
        .flat_map(|t| t.actions.iter().map(|a| (&a.name, "action")));
    for (n, kind) in guards.chain(actions) {
        underscore(|| article(kind), n, out);
        let rust = ident::snake(&n.text);
        match seen.get(&rust) {
            Some((prev, prev_kind)) if *prev_kind != kind => out.push(
                Diagnostic::new(
                    Code::NameCollision,
                    format!("`{n}` is used as both a guard and an action"),
                )
                .at(n.span, format!("{} here", article(kind)))
                .with(prev.span, format!("{} here", article(prev_kind)))
                .help("a guard answers a question and an action does something: give them different names"),
            ),
            Some((prev, _)) if prev.text != n.text => out.push(
                Diagnostic::new(
                    Code::NameCollision,
                    format!("{kind}s `{prev}` and `{n}` both become `{rust}` in generated Rust"),
                )
                .at(n.span, format!("becomes `{rust}`"))
                .with(prev.span, format!("also becomes `{rust}`"))
                .help(format!("spell the {kind} the same way everywhere")),
            ),
            Some(_) => {}
            None => {
                seen.insert(rust, (n, kind));
            }
        }
    }
    hook_methods(m, &seen, out);
}

/// The `Hooks` trait also has a method per event (`before_…`, `on_…`, `after_…`), per state a transition leaves
/// or enters (`on_exit_…`, `on_enter_…`) and its fixed hooks (`validate`, `on_transition`, …): none of them may
/// take another's name, nor a guard's or an action's (`seen`, by method name).
fn hook_methods<'m>(
    m: &'m Machine,
    seen: &BTreeMap<String, (&'m Name, &'static str)>,
    out: &mut Vec<Diagnostic>,
) {
    use crate::hooks;
    if !hooks::has_hooks(m) {
        return;
    }
    // Each method with the name it comes from (none for a fixed hook) and the kind of that name. What a method
    // is gets described only for a collision reported: there are a few methods per state and event. `methods` is
    // only looked up, so an `IndexMap` keeps the diagnostics in the order below.
    let mut methods: FastMap<String, (Option<&'m Name>, HookOf)> =
        map_with_capacity(hooks::FIXED.len() + 3 * m.events.len());
    for fixed in hooks::FIXED {
        methods.insert(fixed.to_string(), (None, HookOf::Fixed));
    }
    let event_methods: Vec<[String; 3]> = m
        .events
        .iter()
        .map(|e| hooks::event_hooks(&e.name.text))
        .collect();
    // A state's hook can only meet another state's (reported as a snake-case collision, not here) or a method of
    // another kind that starts the same way: a fixed hook (`on_exit_state`), an event's (`on_exit_x` of an event
    // `EXIT_X`), a guard or an action. Building the two hook names of every state is most of this check's time
    // on large specs, so only the states that may be such a method are given theirs.
    let others = || {
        hooks::FIXED
            .iter()
            .copied()
            .chain(event_methods.iter().flatten().map(String::as_str))
            .chain(seen.keys().map(String::as_str))
    };
    let exits = HookSuspects::new("on_exit_", others());
    let enters = HookSuspects::new("on_enter_", others());
    let mut add = |method: String, n: &'m Name, of: HookOf| match methods.get(&method) {
        // Two states (or events) with one snake-case name were reported by the collision checks above.
        Some((_, prev_of)) if prev_of.kind() == of.kind() => {}
        Some((prev, prev_of)) => {
            let what = of.describe(&method, n);
            let prev_what = match prev {
                Some(prev) => prev_of.describe(&method, prev),
                None => HookOf::fixed(&method),
            };
            let mut d = Diagnostic::new(
                Code::NameCollision,
                format!("{what} and {prev_what} are both `{method}` in generated Rust"),
            )
            .at(n.span, format!("becomes `{method}`"));
            if let Some(prev) = prev {
                d = d.with(prev.span, format!("also becomes `{method}`"));
            }
            out.push(d.help("rename one of them"));
        }
        None => {
            methods.insert(method, (Some(n), of));
        }
    };
    for (e, event_methods) in m.events.iter().zip(event_methods) {
        for method in event_methods {
            add(method, &e.name, HookOf::Event);
        }
    }
    for s in hooks::exited(m) {
        let st = m.state(s);
        if exits.may_be(&st.name.text) {
            add(hooks::exit_hook(&st.name.text), &st.name, HookOf::Exit);
        }
    }
    for s in hooks::entered(m) {
        let st = m.state(s);
        if enters.may_be(&st.name.text) {
            add(hooks::enter_hook(&st.name.text), &st.name, HookOf::Enter);
        }
    }
    for (method, (n, kind)) in seen {
        add(method.clone(), n, HookOf::Named(kind));
    }
}

/// The methods of kinds other than states' that a state's hook (`on_exit_…` or `on_enter_…`) could be, by the
/// ASCII letters and digits after the prefix, lowercased. A hook is the prefix and the state's snake-case name,
/// whose letters and digits are the name's, lowercased, after an `x` when the name starts with a digit: a state
/// whose letters and digits match no suspect cannot have one of their names.
struct HookSuspects {
    suspects: Vec<Vec<u8>>,
}

impl HookSuspects {
    /// Past this many suspects, every state is checked by its hook's name.
    const MAX: usize = 64;

    fn new<'a>(prefix: &str, methods: impl Iterator<Item = &'a str>) -> HookSuspects {
        let suspects = methods
            .filter_map(|m| m.strip_prefix(prefix))
            .map(|rest| alnum_lower(rest).collect())
            .collect();
        HookSuspects { suspects }
    }

    fn may_be(&self, state: &str) -> bool {
        self.suspects.len() > Self::MAX
            || self.suspects.iter().any(|s| {
                alnum_lower(state).eq(s.iter().copied())
                    || s.first() == Some(&b'x') && alnum_lower(state).eq(s[1..].iter().copied())
            })
    }
}

/// The ASCII letters and digits of `s`, lowercased.
fn alnum_lower(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
}

/// Where a method of `Hooks` comes from, to describe it in a diagnostic.
#[derive(Clone, Copy)]
enum HookOf {
    Fixed,
    Event,
    Exit,
    Enter,
    /// A guard or an action.
    Named(&'static str),
}

impl HookOf {
    /// The kind of name the method comes from: two methods of one kind that meet are reported elsewhere.
    fn kind(self) -> &'static str {
        match self {
            HookOf::Fixed => "fixed",
            HookOf::Event => "event",
            HookOf::Exit | HookOf::Enter => "state",
            HookOf::Named(kind) => kind,
        }
    }

    fn fixed(method: &str) -> String {
        format!("the hook `{method}` every `Hooks` trait has")
    }

    fn describe(self, method: &str, n: &Name) -> String {
        match self {
            HookOf::Fixed => HookOf::fixed(method),
            HookOf::Event => format!("the hook `{method}` of event `{n}`"),
            HookOf::Exit => format!("the exit hook `{method}` of state `{n}`"),
            HookOf::Enter => format!("the enter hook `{method}` of state `{n}`"),
            HookOf::Named(kind) => format!("the {kind} `{n}`"),
        }
    }
}

/// Each key gives `Data` an accessor named after it and a setter `set_…`; `Data` also has `has`, `carry` and
/// `check`. A key must not take one of those names.
fn data_methods(m: &Machine, out: &mut Vec<Diagnostic>) {
    // Each method name, with the key it comes from (`None` for `Data`'s own methods).
    let mut methods: BTreeMap<String, (Option<&Name>, String)> = BTreeMap::new();
    for fixed in ["has", "carry", "check"] {
        methods.insert(
            fixed.to_string(),
            (None, format!("the method `{fixed}` of `Data`")),
        );
    }
    for k in &m.keys {
        let field = ident::snake(&k.name.text);
        let setter = format!("set_{}", field.trim_end_matches('_'));
        for (name, what) in [
            (field, format!("the accessor of key `{}`", k.name)),
            (setter, format!("the setter of key `{}`", k.name)),
        ] {
            match methods.get(&name) {
                Some((prev, prev_what)) if prev.is_none_or(|p| p.text != k.name.text) => {
                    let mut d = Diagnostic::new(
                        Code::NameCollision,
                        format!(
                            "key `{}` gives `Data` a method `{name}`, which is already {prev_what}",
                            k.name
                        ),
                    )
                    .at(k.name.span, format!("{what} is `{name}`"))
                    .help("rename the key");
                    if let Some(prev) = prev {
                        d = d.with(prev.span, prev_what.clone());
                    }
                    out.push(d);
                }
                Some(_) => {}
                None => {
                    methods.insert(name, (Some(&k.name), what));
                }
            }
        }
    }
}

/// How names become Rust identifiers for a collision check.
#[derive(Clone, Copy)]
enum Convert {
    Camel,
    Snake,
}

/// Whether [`ident::camel`] returns `name` itself: ASCII letters and digits only, starting with a capital and
/// holding a lowercase letter (so not all capitals, which `camel` would lower). Most state names are such, and
/// are then not copied.
fn ident_unchanged_by_camel(name: &str) -> bool {
    let b = name.as_bytes();
    b.first().is_some_and(u8::is_ascii_uppercase)
        && b.iter().all(u8::is_ascii_alphanumeric)
        && b.iter().any(u8::is_ascii_lowercase)
}

/// Whether [`ident::snake`] returns `name` itself: lowercase ASCII letters, digits and underscores only, not
/// starting with a digit, and not a keyword.
fn ident_unchanged_by_snake(name: &str) -> bool {
    let b = name.as_bytes();
    b.first().is_some_and(|c| !c.is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
        && !ident::is_keyword(name)
}

/// `what` is built only when there is a collision to report. `seen` is only looked up, never iterated, so a hash
/// map keeps the diagnostics in the order of `names`.
fn collisions<'a, S: AsRef<str>>(
    what: impl Fn() -> S,
    names: impl Iterator<Item = &'a Name>,
    convert: Convert,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: FastMap<Cow<'a, str>, &Name> = map_with_capacity(names.size_hint().0);
    for n in names {
        let rust = match convert {
            Convert::Camel if ident_unchanged_by_camel(&n.text) => Cow::Borrowed(n.text.as_str()),
            Convert::Camel => Cow::Owned(ident::camel(&n.text)),
            Convert::Snake if ident_unchanged_by_snake(&n.text) => Cow::Borrowed(n.text.as_str()),
            Convert::Snake => Cow::Owned(ident::snake(&n.text)),
        };
        match seen.entry(rust) {
            indexmap::map::Entry::Occupied(prev) => {
                let (rust, prev) = (prev.key(), *prev.get());
                if prev.text != n.text {
                    let what = what();
                    let what = what.as_ref();
                    out.push(
                        Diagnostic::new(
                            Code::NameCollision,
                            format!(
                                "{what}s `{prev}` and `{n}` both become `{rust}` in generated Rust"
                            ),
                        )
                        .at(n.span, format!("becomes `{rust}`"))
                        .with(prev.span, format!("also becomes `{rust}`"))
                        .help(format!("rename one of the {what}s")),
                    );
                }
            }
            indexmap::map::Entry::Vacant(slot) => {
                slot.insert(n);
            }
        }
    }
}

/// The machines and apps of one file become sibling modules: two whose names meet in snake case (`FooBar`,
/// `foo_bar`) would be one module twice.
pub(super) fn modules(spec: &crate::spec::Spec, out: &mut Vec<Diagnostic>) {
    let names = spec.entry_items.iter().map(|item| match item {
        crate::spec::Item::Machine(id) => &spec.machine(*id).name,
        crate::spec::Item::App(a) => &spec.apps[*a].name,
    });
    collisions(|| "machine or app", names, Convert::Snake, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks;

    /// Every name of up to three characters over letters of both cases, a digit, `_`, `-` and a non-ASCII
    /// letter, and some longer ones.
    fn names() -> Vec<String> {
        let alphabet = ["a", "B", "1", "_", "-", "é", "x"];
        let mut out = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..3 {
            last = last
                .iter()
                .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                .collect();
            out.extend(last.iter().cloned());
        }
        out.extend(
            [
                "State0042Round",
                "ABC_DEF",
                "type",
                "self",
                "Self",
                "State",
                "STATE",
                "state_",
                "exit_foo",
                "Exit_Foo",
                "r#type",
                "round_count",
            ]
            .map(String::from),
        );
        out
    }

    #[test]
    fn names_taken_as_they_are_are_what_ident_makes_of_them() {
        for n in names() {
            if ident_unchanged_by_camel(&n) {
                assert_eq!(ident::camel(&n), n);
            }
            if ident_unchanged_by_snake(&n) {
                assert_eq!(ident::snake(&n), n);
            }
        }
        // The shortcuts apply to the usual spellings.
        assert!(ident_unchanged_by_camel("State0042Round"));
        assert!(ident_unchanged_by_snake("round_count"));
        assert!(!ident_unchanged_by_snake("type"));
    }

    #[test]
    fn a_state_whose_hook_is_a_method_is_always_a_suspect() {
        for n in names() {
            let exit = hooks::exit_hook(&n);
            let enter = hooks::enter_hook(&n);
            assert!(
                HookSuspects::new("on_exit_", [exit.as_str()].into_iter()).may_be(&n),
                "{n:?}: {exit}"
            );
            assert!(
                HookSuspects::new("on_enter_", [enter.as_str()].into_iter()).may_be(&n),
                "{n:?}: {enter}"
            );
        }
        // And the usual state is no suspect of the fixed hooks.
        let fixed = HookSuspects::new("on_exit_", hooks::FIXED.iter().copied());
        assert!(!fixed.may_be("State0042Round"));
        assert!(fixed.may_be("State"));
    }
}
