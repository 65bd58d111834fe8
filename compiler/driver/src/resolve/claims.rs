//! Lowers the `invariant` and `eventually` claims of a machine or an app, checking that every state, key and event
//! they name exists (E1105, with a did-you-mean), that no two claims share a name (the verifier reports by name),
//! that the transitions they speak of can happen (E1109), and that a period is compared only where there are
//! periods to count (E1110).

use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_base::source::Name;
use fsmc_model::spec::{Claim, ClaimKind, Formula, Machine, Named};
use fsmc_syntax::ast;
use fsmc_vocab::Profile;
use std::collections::BTreeMap;

/// The largest constant a formula may compare the period number with. The verifier counts periods up to one
/// past the largest constant a claim names, so the constant multiplies the states it explores.
const MAX_PERIOD: u64 = 1000;

/// What a claim may name: the states, keys and events of a machine (or of an app's chained machines) and its
/// transitions.
#[derive(Default)]
pub(super) struct Scope<'a> {
    states: Vec<&'a str>,
    /// `None` where the verifier tracks no keys (machines that are not `abci`).
    keys: Option<Vec<&'a str>>,
    events: Vec<&'a str>,
    /// Each transition's state left and event.
    transitions: Vec<(&'a str, Option<&'a str>)>,
    /// Whether the machine counts periods (an `abci` machine or app).
    periods: bool,
}

impl<'a> Scope<'a> {
    /// The scope of the machines `ms`: one machine, or an app's chain.
    pub(super) fn of(ms: &[&'a Machine]) -> Scope<'a> {
        let mut s = Scope::default();
        let abci = ms.iter().all(|m| m.profile == Profile::Abci);
        s.periods = abci && !ms.is_empty();
        if abci {
            s.keys = Some(Vec::new());
        }
        for m in ms {
            s.states.extend(m.states.iter().map(|st| st.name.as_str()));
            if let Some(keys) = &mut s.keys {
                keys.extend(m.keys.iter().map(|k| k.name.as_str()));
            }
            s.events.extend(m.events.iter().map(|e| e.name.as_str()));
            s.transitions.extend(m.transitions.iter().map(|t| {
                (
                    m.state(t.from).name.as_str(),
                    t.event.map(|e| m.event(e).name.as_str()),
                )
            }));
        }
        s
    }

    fn leaves(&self, state: &str, event: Option<&str>) -> bool {
        self.transitions
            .iter()
            .any(|(from, e)| *from == state && event.is_none_or(|x| *e == Some(x)))
    }
}

/// The claims, each bound against `scope`. A claim naming something unknown or impossible is reported and
/// dropped: the verifier could only misread it.
pub(super) fn lower(
    claims: &[ast::Claim],
    scope: &Scope<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Claim> {
    let mut seen = BTreeMap::new();
    let mut out = Vec::new();
    for c in claims {
        if let Some(first) = seen.insert(c.name.as_str(), c.name.span) {
            diags.push(
                Diagnostic::new(
                    Code::ClaimUnknownName,
                    format!("two properties are named \"{}\"", c.name),
                )
                .at(c.name.span, "named again here")
                .with(first, "first named here")
                .help("give each property its own name: a violation is reported by it"),
            );
        }
        let before = diags.len();
        let Some(formula) = formula(&c.formula, &c.name, scope, diags) else {
            continue;
        };
        for (name, named) in formula.names() {
            known(&c.name, name, named, scope, diags);
        }
        if diags.len() == before {
            possible(&c.name, &formula, scope, diags);
        }
        if diags.len() == before {
            out.push(Claim {
                kind: if c.kind.as_str() == "invariant" {
                    ClaimKind::Invariant
                } else {
                    ClaimKind::Eventually
                },
                name: c.name.clone(),
                formula,
                docs: c.docs.clone(),
                span: c.span,
            });
        }
    }
    out
}

/// Reports `name` when the scope has no such state, key or event (E1105).
fn known(claim: &Name, name: &Name, named: Named, scope: &Scope<'_>, diags: &mut Vec<Diagnostic>) {
    let (pool, what) = match named {
        Named::State => (Some(&scope.states), "state"),
        Named::Key => (scope.keys.as_ref(), "key"),
        Named::Event => (Some(&scope.events), "event"),
    };
    let Some(pool) = pool else {
        diags.push(
            Diagnostic::new(
                Code::ClaimUnknownName,
                format!(
                    "property \"{claim}\" tests the key `{name}`, but only an `abci` machine's keys are tracked"
                ),
            )
            .at(name.span, "not tracked here")
            .help("state the property by the states the machine is in"),
        );
        return;
    };
    if pool.contains(&name.as_str()) {
        return;
    }
    let mut d = Diagnostic::new(
        Code::ClaimUnknownName,
        format!("property \"{claim}\" names the {what} `{name}`, which is not declared"),
    )
    .at(name.span, format!("no {what} of this name"));
    if let Some(h) = did_you_mean(&name.text, pool.iter().copied()) {
        d = d.help(h);
    }
    diags.push(d);
}

/// Reports the transitions a formula speaks of that cannot happen (E1109): `after` a state no transition
/// leaves, an `outcome` no transition is taken on, and, where one conjunction says both, a state that never
/// leaves on that outcome (its round cannot decide it).
fn possible(claim: &Name, f: &Formula, scope: &Scope<'_>, diags: &mut Vec<Diagnostic>) {
    let mut d = |name: &Name, message: String, label: &str, help: Option<String>| {
        let mut d = Diagnostic::new(Code::ClaimImpossibleTransition, message).at(name.span, label);
        if let Some(h) = help {
            d = d.help(h);
        }
        diags.push(d);
    };
    match f {
        Formula::After(states) => {
            for s in states.iter().filter(|s| !scope.leaves(s.as_str(), None)) {
                d(
                    s,
                    format!("property \"{claim}\" speaks of leaving `{s}`, which no transition leaves"),
                    "never left",
                    Some("a final state or one without transitions is never `after`: name the state before it".into()),
                );
            }
        }
        Formula::Outcome(events) => {
            for e in events {
                if !scope
                    .transitions
                    .iter()
                    .any(|(_, x)| *x == Some(e.as_str()))
                {
                    d(
                        e,
                        format!(
                            "property \"{claim}\" speaks of the outcome `{e}`, which no transition is taken on"
                        ),
                        "no transition on this event",
                        None,
                    );
                }
            }
        }
        Formula::And(fs) => {
            let froms = fs.iter().filter_map(|f| match f {
                Formula::After(s) => Some(s),
                _ => None,
            });
            for from in froms {
                let outs = fs.iter().filter_map(|f| match f {
                    Formula::Outcome(e) => Some(e),
                    _ => None,
                });
                for events in outs {
                    let pairs = from.iter().flat_map(|s| events.iter().map(move |e| (s, e)));
                    if pairs
                        .clone()
                        .any(|(s, e)| scope.leaves(s.as_str(), Some(e.as_str())))
                    {
                        continue;
                    }
                    let taken: Vec<&str> = scope
                        .transitions
                        .iter()
                        .filter(|(s, _)| from.iter().any(|f| f.as_str() == *s))
                        .filter_map(|(_, e)| *e)
                        .collect();
                    let help = did_you_mean(&events[0].text, taken.iter().copied());
                    d(
                        &events[0],
                        format!(
                            "property \"{claim}\" speaks of `{}` deciding `{}`, which its round never does",
                            from[0], events[0]
                        ),
                        "no transition leaves on this outcome",
                        help,
                    );
                }
            }
            fs.iter().for_each(|f| possible(claim, f, scope, diags));
        }
        Formula::Or(fs) => fs.iter().for_each(|f| possible(claim, f, scope, diags)),
        Formula::Not(f) => possible(claim, f, scope, diags),
        Formula::In(_) | Formula::Has(_) | Formula::Missing(_) | Formula::Period(..) => {}
    }
}

/// The formula lowered; `None` (reported, E1110) when it compares a period the machine does not count, or
/// with a constant past [`MAX_PERIOD`].
fn formula(
    f: &ast::Formula,
    claim: &Name,
    scope: &Scope<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Formula> {
    let all = |fs: &[ast::Formula], diags: &mut Vec<Diagnostic>| -> Option<Vec<Formula>> {
        let lowered: Vec<Option<Formula>> =
            fs.iter().map(|f| formula(f, claim, scope, diags)).collect();
        lowered.into_iter().collect()
    };
    Some(match f {
        ast::Formula::In(s) => Formula::In(s.clone()),
        ast::Formula::Has(k) => Formula::Has(k.clone()),
        ast::Formula::Missing(k) => Formula::Missing(k.clone()),
        ast::Formula::After(s) => Formula::After(s.clone()),
        ast::Formula::Outcome(e) => Formula::Outcome(e.clone()),
        ast::Formula::Period(p) => return period(p, claim, scope, diags),
        ast::Formula::Not(f) => Formula::Not(Box::new(formula(f, claim, scope, diags)?)),
        ast::Formula::And(fs) => Formula::And(all(fs, diags)?),
        ast::Formula::Or(fs) => Formula::Or(all(fs, diags)?),
    })
}

fn period(
    p: &ast::PeriodTest,
    claim: &Name,
    scope: &Scope<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Formula> {
    if !scope.periods {
        diags.push(
            Diagnostic::new(
                Code::ClaimPeriod,
                format!("property \"{claim}\" compares the period, but only `abci` machines and apps have periods"),
            )
            .at(p.span, "no periods here")
            .help("state the property by the states the machine is in"),
        );
        return None;
    }
    match p.value.text.parse::<u64>() {
        Ok(n) if n <= MAX_PERIOD => Some(Formula::Period(p.cmp, n)),
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::ClaimPeriod,
                    format!("property \"{claim}\" compares the period with {}, past the {MAX_PERIOD} the verifier counts to", p.value),
                )
                .at(p.value.span, "too large")
                .help("the verifier explores one copy of the app per period it tells apart: compare with a small number"),
            );
            None
        }
    }
}
