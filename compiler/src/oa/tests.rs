//! Tests for the Open Autonomy reader and writer.

#[test]
fn tmp_differential() {
    use super::*;
    use crate::source::{Name, Span};
    let Ok(text) = std::fs::read_to_string("/tmp/oa_cases.json") else { return };
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let n = |v: &serde_json::Value| Name::new(v.as_str().unwrap(), Span::default());
    let l = |v: &serde_json::Value| v.as_array().unwrap().iter().map(n).collect::<Vec<_>>();
    let mut outs = Vec::new();
    for c in &cases {
        let spec = OaSpec {
            label: n(&c["label"]),
            default_start_state: n(&c["default_start_state"]),
            alphabet_in: l(&c["alphabet_in"]),
            final_states: l(&c["final_states"]),
            start_states: l(&c["start_states"]),
            states: l(&c["states"]),
            transitions: c["transitions"].as_array().unwrap().iter().map(|t| OaTransition { from: n(&t[0]), event: n(&t[1]), to: n(&t[2]), key_span: Span::default() }).collect(),
            ..OaSpec::default()
        };
        outs.push(serde_json::Value::String(write(&spec)));
    }
    std::fs::write("/tmp/oa_out.json", serde_json::to_string(&outs).unwrap()).unwrap();
}
