//! Lowers the `invariant` and `eventually` claims of a machine or an app, checking that every state and key they
//! name exists (E1105, with a did-you-mean) and that no two claims share a name (the verifier reports by name).

use fsmc_base::diag::{Code, Diagnostic, did_you_mean};
use fsmc_model::spec::{Claim, ClaimKind, Formula};
use fsmc_syntax::ast;
use std::collections::BTreeMap;

/// The claims, each bound against `states` and `keys` (the names the machine, or the app's chain, has); `keys` is
/// `None` where the verifier tracks no keys (machines that are not `abci`). A claim naming something unknown is
/// reported and dropped: the verifier could only misread it.
pub(super) fn lower(
    claims: &[ast::Claim],
    states: &[&str],
    keys: Option<&[&str]>,
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
        let formula = formula(&c.formula);
        let mut known = true;
        for (name, is_state) in formula.names() {
            let what = if is_state { "state" } else { "key" };
            let Some(pool) = (if is_state { Some(states) } else { keys }) else {
                known = false;
                diags.push(
                    Diagnostic::new(
                        Code::ClaimUnknownName,
                        format!(
                            "property \"{}\" tests the key `{name}`, but only an `abci` machine's keys are tracked",
                            c.name
                        ),
                    )
                    .at(name.span, "not tracked here")
                    .help("state the property by the states the machine is in"),
                );
                continue;
            };
            if !pool.contains(&name.as_str()) {
                known = false;
                let mut d = Diagnostic::new(
                    Code::ClaimUnknownName,
                    format!(
                        "property \"{}\" names the {what} `{name}`, which is not declared",
                        c.name
                    ),
                )
                .at(name.span, format!("no {what} of this name"));
                if let Some(h) = did_you_mean(&name.text, pool.iter().copied()) {
                    d = d.help(h);
                }
                diags.push(d);
            }
        }
        if known {
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

fn formula(f: &ast::Formula) -> Formula {
    match f {
        ast::Formula::In(s) => Formula::In(s.clone()),
        ast::Formula::Has(k) => Formula::Has(k.clone()),
        ast::Formula::Missing(k) => Formula::Missing(k.clone()),
        ast::Formula::Not(f) => Formula::Not(Box::new(formula(f))),
        ast::Formula::And(fs) => Formula::And(fs.iter().map(formula).collect()),
        ast::Formula::Or(fs) => Formula::Or(fs.iter().map(formula).collect()),
    }
}
