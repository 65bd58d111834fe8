//! What other tools and people read: the item's name and Open Autonomy label (interop, unless the generated
//! module's name changes, which is code-breaking), its docs and the order things are declared in (cosmetic).
//! Formatting, comments and the order of transitions leave the model as it was: no finding at all.

use crate::{Class, Cx, Entry, Pair, Rule, pairs};
use fsmc_base::source::{Name, SmolStr, Span};
use fsmc_model::ident;
use fsmc_model::spec::Machine;

/// The item's name and label.
pub(crate) fn names(old: &Entry<'_>, new: &Entry<'_>, cx: &mut Cx<'_>) {
    let what = if new.app.is_some() { "app" } else { "machine" };
    if old.name.text != new.name.text {
        let (a, b) = (ident::snake(&old.name.text), ident::snake(&new.name.text));
        if a == b {
            cx.push(
                Class::Interop,
                Rule::Name,
                format!("{what} `{}` is now called `{}`", old.name, new.name),
                Some((old.name.span, "before".into())),
                Some((new.name.span, "now".into())),
            )
            .notes
            .push(format!("its generated module keeps its name, `{b}`"));
        } else {
            cx.push(
                Class::Code,
                Rule::ItemRenamed,
                format!("{what} `{}` was renamed to `{}`", old.name, new.name),
                Some((old.name.span, "before".into())),
                Some((new.name.span, "now".into())),
            )
            .notes
            .push(format!("its generated module `{a}` is now `{b}`"));
        }
    }
    // The label an export writes is the label as written, else the name: an Open Autonomy spec always writes
    // one, a `.fsm` machine seldom does. Without one on either side, a renamed item's label follows its name,
    // which the rename already says.
    let (la, lb) = (label(old), label(new));
    if la.is_some() || lb.is_some() {
        let (ea, eb) = (la.unwrap_or(old.name), lb.unwrap_or(new.name));
        if ea.text != eb.text {
            cx.push(
                Class::Interop,
                Rule::Label,
                format!("the Open Autonomy label is now `{eb}` (was `{ea}`)"),
                Some((ea.span, "before".into())),
                Some((eb.span, "now".into())),
            )
            .notes
            .push(
                "the label names the app in Open Autonomy's `fsm_specification.yaml`; generated code does not use it"
                    .into(),
            );
        }
    }
}

/// The label written on the item, if any.
fn label<'a>(e: &Entry<'a>) -> Option<&'a Name> {
    match e.app {
        Some(app) => app.label.as_ref(),
        None => e.machine.label.as_ref(),
    }
}

/// Docs and declaration order.
pub(crate) fn compare(old: &Entry<'_>, new: &Entry<'_>, cx: &mut Cx<'_>) {
    let (mo, mn) = (old.machine, new.machine);
    let item_docs = |e: &Entry<'_>| e.app.map_or(&e.machine.docs, |a| &a.docs).clone();
    if item_docs(old) != item_docs(new) {
        let what = format!("the docs of {} `{}`", new.what(), new.name);
        docs(cx, &what, old.name.span, new.name.span);
    }
    let doc_owners = [
        (
            "state",
            owners(mo.states.iter().map(|s| (&s.name, s.docs.to_vec()))),
        ),
        (
            "event",
            owners(mo.events.iter().map(|e| (&e.name, e.docs.clone()))),
        ),
        (
            "key",
            owners(mo.keys.iter().map(|k| (&k.name, k.docs.clone()))),
        ),
    ];
    let new_owners = [
        owners(mn.states.iter().map(|s| (&s.name, s.docs.to_vec()))),
        owners(mn.events.iter().map(|e| (&e.name, e.docs.clone()))),
        owners(mn.keys.iter().map(|k| (&k.name, k.docs.clone()))),
    ];
    for ((what, o), n) in doc_owners.iter().zip(&new_owners) {
        for pair in pairs(o, n, |x| x.0.clone()) {
            if let Pair::Both(a, b) = pair
                && a.2 != b.2
            {
                docs(cx, &format!("the docs of {what} `{}`", b.0), a.1, b.1);
            }
        }
    }
    transition_docs(mo, mn, cx);
    order(old, new, cx);
}

/// Named things with their docs, sorted by name.
fn owners<'a>(
    items: impl Iterator<Item = (&'a Name, Vec<String>)>,
) -> Vec<(SmolStr, Span, Vec<String>)> {
    let mut v: Vec<(SmolStr, Span, Vec<String>)> =
        items.map(|(n, d)| (n.text.clone(), n.span, d)).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn docs(cx: &mut Cx<'_>, what: &str, old: Span, new: Span) {
    cx.push(
        Class::Cosmetic,
        Rule::Docs,
        format!("{what} changed"),
        Some((old, "before".into())),
        Some((new, "now".into())),
    );
}

/// A transition by its source, event and target names.
type TransitionName = (SmolStr, Option<SmolStr>, SmolStr);

/// The docs of the transitions both machines have, by (from, event, to).
fn transition_docs(mo: &Machine, mn: &Machine, cx: &mut Cx<'_>) {
    let keyed = |m: &Machine| {
        let mut v: Vec<(TransitionName, Span, Vec<String>)> = m
            .transitions
            .iter()
            .map(|t| {
                (
                    (
                        m.state(t.from).name.text.clone(),
                        t.event.map(|e| m.event(e).name.text.clone()),
                        m.state(t.to).name.text.clone(),
                    ),
                    t.span,
                    t.docs.to_vec(),
                )
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let (o, n) = (keyed(mo), keyed(mn));
    for pair in pairs(&o, &n, |x| x.0.clone()) {
        if let Pair::Both(a, b) = pair
            && a.2 != b.2
        {
            let (from, event, to) = &b.0;
            let on = event.as_ref().map_or(String::new(), |e| format!(", `{e}`"));
            docs(
                cx,
                &format!("the docs of the transition (`{from}`{on}) -> `{to}`"),
                a.1,
                b.1,
            );
        }
    }
}

/// The order states, events and keys are declared in, for those both machines have. The order of a running
/// app's rounds and keys is under its app hash, and the facts report it; what is left is the generated enums'
/// and struct's order.
fn order(old: &Entry<'_>, new: &Entry<'_>, cx: &mut Cx<'_>) {
    let (mo, mn) = (old.machine, new.machine);
    let common = |a: Vec<&Name>, b: Vec<&Name>| -> (Vec<SmolStr>, Option<Span>) {
        let names: Vec<SmolStr> = a
            .iter()
            .filter(|n| b.iter().any(|m| m.text == n.text))
            .map(|n| n.text.clone())
            .collect();
        (names, a.first().map(|n| n.span))
    };
    let keys_hashed = new.replicated()
        && fsmc_model::fingerprint::facts(mo).runs.value
        && fsmc_model::fingerprint::facts(mn).runs.value;
    let mut lists = vec![
        (
            "states",
            common(states(mo), states(mn)),
            common(states(mn), states(mo)),
        ),
        (
            "events",
            common(events(mo), events(mn)),
            common(events(mn), events(mo)),
        ),
    ];
    if !keys_hashed {
        lists.push((
            "keys",
            common(keys(mo), keys(mn)),
            common(keys(mn), keys(mo)),
        ));
    }
    for (what, (a, at_old), (b, at_new)) in lists {
        if a != b
            && let (Some(at_old), Some(at_new)) = (at_old, at_new)
        {
            cx.push(
                Class::Cosmetic,
                Rule::Order,
                format!("the order the {what} are declared in changed"),
                Some((at_old, "the old order starts here".into())),
                Some((at_new, "the new order starts here".into())),
            );
        }
    }
}

fn states(m: &Machine) -> Vec<&Name> {
    m.states.iter().map(|s| &s.name).collect()
}

fn events(m: &Machine) -> Vec<&Name> {
    m.events.iter().map(|e| &e.name).collect()
}

fn keys(m: &Machine) -> Vec<&Name> {
    m.keys.iter().map(|k| &k.name).collect()
}
