//! Specs drawn at random with adversarial names and text: Rust keywords and their case variants, names that
//! collide once converted to Rust identifiers, names of generated items, underscores, free text with unicode,
//! control characters and bidirectional overrides (in Open Autonomy YAML, whose names are free text), and doc
//! comments full of the same. The build script checks each: every spec that checks clean has its generated code
//! compiled into this crate, so a spec the checker accepts but whose code does not build fails the build.
//!
//! Shared by `build.rs` (which generates) and the library's tests (which count); no dependencies.

/// A small deterministic generator (SplitMix64): the same seed draws the same specs on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Identifiers the `.fsm` grammar accepts that are hard on a code generator.
pub const NAMES: &[&str] = &[
    "self",
    "Self",
    "SELF",
    "crate",
    "super",
    "type",
    "Type",
    "TYPE",
    "fn",
    "match",
    "async",
    "await",
    "dyn",
    "gen",
    "try",
    "yield",
    "union",
    "static",
    "Static",
    "state",
    "State",
    "STATE",
    "Event",
    "event",
    "Data",
    "data",
    "Round",
    "round",
    "Spec",
    "App",
    "Node",
    "Context",
    "Behaviour",
    "Hooks",
    "Environment",
    "Role",
    "Agent",
    "ALL",
    "DEFAULT_START",
    "START",
    "FINAL",
    "name",
    "Name",
    "next",
    "fire",
    "step",
    "has",
    "carry",
    "check",
    "set_has",
    "_x",
    "__",
    "_",
    "x_",
    "X",
    "a1",
    "A1",
    "ReadyNow",
    "ready_now",
    "READY_NOW",
    "readyNow",
    "FooBar",
    "foo_bar",
    "FOO_BAR",
    "Foo_Bar",
    "ABCRound",
    "AbcRound",
    "poll",
    "Poll",
    "main",
    "std",
    "core",
    "fsmc_runtime",
    "Option",
    "Some",
    "None",
    "Ok",
    "Err",
    "Result",
    "String",
    "Vec",
    "Box",
    "Clone",
    "Default",
    "Debug",
    "Drop",
    "Sized",
    "r",
    "b",
    "z9",
    "Z_9",
    "DONE",
    "Done",
    "done",
];

/// Free text for Open Autonomy YAML names (quoted), which become identifiers only after sanitising.
pub const FREE: &[&str] = &[
    "Foo-Bar Round",
    "漢字Round",
    "éRound",
    "a\u{202e}b",
    "tab\there",
    "esc\u{1b}[31mRound",
    "0Round",
    "-",
    "Round Round",
    "self",
    "Self",
    "__Round__",
    "x.y.z",
    "quote\\\"d",
];

/// Doc comment text.
pub const DOCS: &[&str] = &[
    "plain words",
    "unicode é 漢字",
    "override \u{202e}desrever",
    "escape \u{1b}[31m red \u{7}",
    "quote \" and \\ backslash",
    "*/ not a comment end",
    "</script> and ]]>",
    "`code` and **bold**",
];

/// Rust types as a spec writes them (some the checker must refuse).
pub const TYPES: &[&str] = &[
    "u64",
    "String",
    "Vec<u8>",
    "Option<bool>",
    "[u8; 4]",
    "(u8, String)",
    "std::collections::BTreeMap<String, u64>",
    "bool",
    "State",
    "Vec<Event>",
];

fn doc(rng: &mut Rng, out: &mut String, indent: &str) {
    if rng.chance(40) {
        out.push_str(indent);
        out.push_str("/// ");
        out.push_str(rng.pick(DOCS));
        out.push('\n');
    }
}

/// `n` names drawn from the pool, exact repeats skipped (those are E0101/E0102, not what this test is after).
fn names(rng: &mut Rng, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < 50 {
        tries += 1;
        let name = rng.pick(NAMES).to_string();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// One random `.fsm` spec (one or two machines, sometimes an app).
pub fn fsm(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => plain(rng),
        1 => abci(rng),
        2 => dialogue(rng),
        3 => staged(rng),
        _ => genie(rng),
    }
}

fn plain(rng: &mut Rng) -> String {
    let mut s = String::new();
    doc(rng, &mut s, "");
    let machine = rng.pick(NAMES);
    s.push_str(&format!("machine {machine} {{\n"));
    let n = 2 + rng.below(4);
    let states = names(rng, n);
    let n = 1 + rng.below(3);
    let events = names(rng, n);
    if states.len() < 2 || events.is_empty() {
        return String::new();
    }
    for e in &events {
        doc(rng, &mut s, "    ");
        s.push_str(&format!("    event {e};\n"));
    }
    let n = rng.below(3);
    for k in names(rng, n) {
        s.push_str(&format!("    key {k}: {};\n", rng.pick(TYPES)));
    }
    for (i, st) in states.iter().enumerate() {
        doc(rng, &mut s, "    ");
        let prefix = if i == 0 {
            "start default state"
        } else if i + 1 == states.len() {
            "final state"
        } else {
            "state"
        };
        s.push_str(&format!("    {prefix} {st};\n"));
    }
    let hooks = names(rng, 4);
    for i in 0..states.len() - 1 {
        let e = &events[i % events.len()];
        let mut t = format!("    ({}, {e}) -> {}", states[i], states[i + 1]);
        if rng.chance(40) && !hooks.is_empty() {
            t.push_str(&format!(" do {}", hooks[rng.below(hooks.len())]));
        }
        s.push_str(&t);
        s.push_str(";\n");
        if rng.chance(40) && !hooks.is_empty() {
            // A guarded alternative before the unguarded one would be after it: write it on another event.
            let other = &events[(i + 1) % events.len()];
            if other != e {
                s.push_str(&format!(
                    "    ({}, {other}) -> {} if {};\n",
                    states[i],
                    states[0],
                    hooks[rng.below(hooks.len())]
                ));
            }
        }
    }
    s.push_str("}\n");
    s
}

fn abci(rng: &mut Rng) -> String {
    let rounds = names(rng, 4);
    let keys = names(rng, 2);
    if rounds.len() < 4 || keys.len() < 2 {
        return String::new();
    }
    let machine = rng.pick(NAMES);
    let ty = rng.pick(TYPES);
    let (a, b, keeper, fin) = (&rounds[0], &rounds[1], &rounds[2], &rounds[3]);
    let mut s = String::new();
    doc(rng, &mut s, "");
    s.push_str(&format!(
        "machine {machine}: abci {{\n    event DONE, NO_MAJORITY, FAIL;\n    event {} timeout 30s;\n",
        rng.pick(&["ROUND_TIMEOUT", "TIMEOUT", "Tick", "self"])
    ));
    s.push_str(&format!(
        "    key {}: {ty};\n    cross_period key {}: u64;\n",
        keys[0], keys[1]
    ));
    doc(rng, &mut s, "    ");
    s.push_str(&format!(
        "    start default state {a}: collect_same_until_all {{ payload \"String\"; registration; }}\n"
    ));
    doc(rng, &mut s, "    ");
    s.push_str(&format!(
        "    state {b}: collect_same_until_threshold {{ payload \"{ty}\"; writes {}; elects_keeper; }}\n",
        keys[0]
    ));
    s.push_str(&format!(
        "    state {keeper}: only_keeper_sends {{ payload \"u64\"; writes {}; reads {}; }}\n",
        keys[1], keys[0]
    ));
    s.push_str(&format!("    final state {fin};\n"));
    let timeout = s
        .lines()
        .find_map(|l| {
            l.strip_prefix("    event ")
                .filter(|l| l.contains("timeout"))
        })
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("ROUND_TIMEOUT")
        .to_string();
    s.push_str(&format!(
        "    ({a}, DONE) -> {b};\n    ({b}, DONE) -> {keeper};\n    ({b}, NO_MAJORITY) -> {b};\n    \
         ({b}, {timeout}) -> {b};\n    ({keeper}, DONE) -> {fin};\n    ({keeper}, FAIL) -> {b};\n}}\n"
    ));
    s
}

fn dialogue(rng: &mut Rng) -> String {
    let roles = names(rng, 2);
    let perfs = names(rng, 3);
    let states = names(rng, 3);
    if roles.len() < 2 || perfs.len() < 3 || states.len() < 3 {
        return String::new();
    }
    let machine = rng.pick(NAMES);
    let mut s = format!(
        "machine {machine}: dialogue {{\n    roles {}, {};\n",
        roles[0], roles[1]
    );
    for (i, p) in perfs.iter().enumerate() {
        doc(rng, &mut s, "    ");
        let n = rng.below(3);
        let fields = names(rng, n);
        let fields: Vec<String> = fields
            .iter()
            .map(|f| format!("{f}: {}", rng.pick(TYPES)))
            .collect();
        let contents = if fields.is_empty() {
            String::new()
        } else {
            format!("({})", fields.join(", "))
        };
        // The first performative opens, so a role sends it; the others answer it, sent by the other role or
        // named by turn.
        let sender = match i {
            0 => roles[0].as_str(),
            _ if rng.chance(50) => "responder",
            _ => roles[1].as_str(),
        };
        s.push_str(&format!("    event {p}{contents} by {sender};\n"));
    }
    s.push_str(&format!(
        "    start default state {};\n    state {};\n    final state {};\n",
        states[0], states[1], states[2]
    ));
    let moves = [(0, 0, 1), (1, 1, 0), (1, 2, 2)];
    for (from, perf, to) in moves {
        let actions = sided_actions(rng);
        s.push_str(&format!(
            "    ({}, {}) -> {}{actions};\n",
            states[from], perfs[perf], states[to]
        ));
    }
    s.push_str("}\n");
    s
}

/// A dialogue transition's actions, if any: on both copies, on the sender's, on the receiver's, or on each.
fn sided_actions(rng: &mut Rng) -> String {
    let actions = names(rng, 2);
    let [a, b] = [0, 1].map(|i| {
        actions
            .get(i)
            .cloned()
            .unwrap_or_else(|| "noted".to_string())
    });
    match rng.below(5) {
        0 => String::new(),
        1 => format!(" do {a}"),
        2 => format!(" sender do {a}"),
        3 => format!(" receiver do {a}"),
        _ => format!(" sender do {a} receiver do {b}"),
    }
}

fn staged(rng: &mut Rng) -> String {
    let agents = names(rng, 2);
    let stages = names(rng, 3);
    if agents.len() < 2 || stages.len() < 3 {
        return String::new();
    }
    let machine = rng.pick(NAMES);
    // The first agent may be a group, sized when the environment is built, and the second scripted.
    let group = if rng.chance(50) { "[]" } else { "" };
    let mut s = format!(
        "machine {machine}: staged {{\n    agents {}{group}, {};\n",
        agents[0], agents[1]
    );
    if rng.chance(40) {
        s.push_str(&format!("    scripted {};\n", agents[1]));
    }
    s.push_str(&format!(
        "    start default state {} {{ acting {}; handler; }}\n",
        stages[0], agents[0]
    ));
    s.push_str(&format!(
        "    state {} {{ acting {}; rewarded {}; }}\n",
        stages[1], agents[1], agents[0]
    ));
    s.push_str(&format!(
        "    state {} {{ acting {}; }}\n",
        stages[2], agents[0]
    ));
    s.push_str(&format!(
        "    {} -> {}, {};\n    {} -> {};\n    {} -> {};\n}}\n",
        stages[0], stages[1], stages[2], stages[1], stages[0], stages[2], stages[0]
    ));
    s
}

/// The template files the Genie cases name; the build script writes them beside the specs.
pub const GENIE_TEMPLATES: [&str; 3] = ["a.jinja2", "b.jinja2", "c.jinja2"];

fn genie(rng: &mut Rng) -> String {
    let states = names(rng, 3);
    let events = names(rng, 2);
    if states.len() < 3 || events.len() < 2 {
        return String::new();
    }
    let machine = rng.pick(NAMES);
    let mut s = format!("machine {machine}: genie {{\n");
    for e in &events {
        s.push_str(&format!("    event {e};\n"));
    }
    s.push_str(&format!(
        "    start default state {}: user {{ template \"a.jinja2\"; }}\n    state {}: invoker {{ template \"b.jinja2\"; }}\n    \
         final state {}: user {{ template \"c.jinja2\"; }}\n",
        states[0], states[1], states[2]
    ));
    s.push_str(&format!(
        "    ({}, {}) -> {};\n    ({}, {}) -> {};\n}}\n",
        states[0], events[0], states[1], states[1], events[1], states[2]
    ));
    s
}

/// One random Open Autonomy YAML spec whose names are free text.
pub fn yaml(rng: &mut Rng) -> String {
    let mut states: Vec<String> = Vec::new();
    while states.len() < 3 {
        let n = format!("{}{}", rng.pick(FREE), states.len());
        states.push(n);
    }
    let quote = |s: &str| format!("\"{s}\"");
    let (a, b, f) = (&states[0], &states[1], &states[2]);
    format!(
        "alphabet_in:\n- DONE\n- {ev}\ndefault_start_state: {qa}\nfinal_states:\n- {qf}\nlabel: {label}\nstart_states:\n- {qa}\n\
         states:\n- {qa}\n- {qb}\n- {qf}\ntransition_func:\n    ({a}, DONE): {qb}\n    ({b}, DONE): {qf}\n    ({b}, {ev}): {qa}\n",
        ev = quote(rng.pick(FREE)),
        qa = quote(a),
        qb = quote(b),
        qf = quote(f),
        label = quote(rng.pick(FREE)),
    )
}
