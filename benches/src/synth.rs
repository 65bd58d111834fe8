//! A deterministic generator of valid synthetic specs of any size, for benchmarking the checker.
//!
//! A spec of `n` states has about `4n` transitions, `max(8, n/25)` events (a tenth of them timeout events),
//! one default start state and a few final states. It is built so that it checks clean:
//!
//! * the non-final states form a spine `0 → 1 → … → m-1 → first final`, so every non-final state is reachable
//!   from the default start and can reach a final state;
//! * every other final state is the target of one transition from a non-final state, so it is reachable;
//! * every non-final state has four transitions on four distinct events: the spine edge, two (or three) edges
//!   to random states, and on every other state a timeout self-loop (at most one timeout edge per round, at
//!   least one non-timeout edge);
//! * the spine edges cycle through the non-timeout events and the timeout loops through the timeout events,
//!   so every event is used (and, every state being reachable, handled).
//!
//! The same `(states, seed)` always gives the same spec, byte for byte: randomness comes from a xorshift
//! generator seeded by the caller, and both writers iterate in index order.

use std::fmt::Write as _;

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 0x5EED_F5C0_2025_0001;

/// The fewest states a spec may have (room for the spine, two finals and the events).
pub const MIN_STATES: usize = 8;

/// How a spec is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An `.fsm` file with one `abci` machine of custom rounds.
    Fsm,
    /// Open Autonomy's `fsm_specification.yaml`, in the upstream canonical form.
    Yaml,
}

impl Format {
    /// The file name `compile_str` needs to pick the right parser.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Fsm => "synth.fsm",
            Format::Yaml => "synth_fsm_specification.yaml",
        }
    }

    /// Parses `fsm` or `yaml`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "fsm" => Some(Format::Fsm),
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }
}

/// A xorshift64* generator: small, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (a zero seed is replaced, as xorshift would stay at zero).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { DEFAULT_SEED } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// One event of a synthetic machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    /// The timeout in seconds, for timeout events.
    pub timeout_secs: Option<u32>,
}

/// A synthetic machine, before it is written in either format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synth {
    /// The machine's name (also the Open Autonomy label).
    pub name: String,
    /// State names; index 0 is the default (and only) start state.
    pub states: Vec<String>,
    pub events: Vec<Event>,
    /// Indices of the final states (the last few states).
    pub finals: Vec<usize>,
    /// `(from, event, to)`, grouped by `from`, in generation order.
    pub transitions: Vec<(u32, u32, u32)>,
}

/// Durations cycled through by the timeout events.
const TIMEOUTS: [u32; 5] = [5, 10, 30, 60, 120];

fn width(n: usize) -> usize {
    n.saturating_sub(1).max(1).to_string().len()
}

impl Synth {
    /// Generates a machine of `states` states (at least [`MIN_STATES`]) from `seed`.
    pub fn generate(states: usize, seed: u64) -> Synth {
        let n = states.max(MIN_STATES);
        let mut rng = Rng::new(seed);
        let finals = (n / 1000).clamp(2, 20);
        let m = n - finals; // non-final states: 0..m
        let total_events = (n / 25).max(8);
        let n_timeout = (total_events / 10).max(1);
        let n_plain = total_events - n_timeout; // ≥ 7, ≤ m: every plain event is on some spine edge

        let sw = width(n);
        let state_names = (0..n).map(|i| format!("State{i:0sw$}Round")).collect();
        let (pw, tw) = (width(n_plain), width(n_timeout));
        let mut events: Vec<Event> = (0..n_plain)
            .map(|j| Event {
                name: format!("EVENT_{j:0pw$}"),
                timeout_secs: None,
            })
            .collect();
        events.extend((0..n_timeout).map(|k| Event {
            name: format!("TIMEOUT_{k:0tw$}"),
            timeout_secs: Some(TIMEOUTS[k % TIMEOUTS.len()]),
        }));

        // Per non-final state: [spine event, random events…] and targets.
        let mut rows: Vec<Vec<(u32, u32)>> = Vec::with_capacity(m);
        let (mut next_plain, mut next_timeout) = (0usize, 0usize);
        for i in 0..m {
            let mut row: Vec<(u32, u32)> = Vec::with_capacity(4);
            let spine = next_plain % n_plain;
            next_plain += 1;
            row.push((spine as u32, (i + 1) as u32)); // i = m-1 leads to the first final, m
            let randoms = if i % 2 == 0 { 2 } else { 3 };
            while row.len() < 1 + randoms {
                let e = rng.below(n_plain) as u32;
                if row.iter().all(|&(x, _)| x != e) {
                    row.push((e, rng.below(n) as u32));
                }
            }
            if i % 2 == 0 {
                let t = n_plain + next_timeout % n_timeout;
                next_timeout += 1;
                row.push((t as u32, i as u32));
            }
            rows.push(row);
        }
        // Every other final gets an edge from a distinct non-final state, replacing that state's first random edge.
        let mut used = vec![false; m];
        for f in m + 1..n {
            let mut s = rng.below(m);
            while used[s] {
                s = (s + 1) % m;
            }
            used[s] = true;
            rows[s][1].1 = f as u32;
        }
        let transitions = rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| row.iter().map(move |&(e, t)| (i as u32, e, t)))
            .collect();
        Synth {
            name: "SynthAbciApp".to_string(),
            states: state_names,
            events,
            finals: (m..n).collect(),
            transitions,
        }
    }

    /// The spec written in `format`.
    pub fn write(&self, format: Format) -> String {
        match format {
            Format::Fsm => self.to_fsm(),
            Format::Yaml => self.to_yaml(),
        }
    }

    fn is_final(&self, s: usize) -> bool {
        self.finals.first().is_some_and(|&f| s >= f)
    }

    /// The `.fsm` text: one `abci` machine whose non-final states are custom rounds.
    pub fn to_fsm(&self) -> String {
        let mut out = String::with_capacity(self.transitions.len() * 48 + self.states.len() * 32);
        let _ = writeln!(
            out,
            "// A synthetic spec: {} states, {} events, {} transitions (fsmc-benches synth).\n",
            self.states.len(),
            self.events.len(),
            self.transitions.len()
        );
        let _ = writeln!(out, "/// A synthetic machine for benchmarking the checker.");
        let _ = writeln!(out, "machine {}: abci {{", self.name);
        let plain: Vec<&str> = self
            .events
            .iter()
            .filter(|e| e.timeout_secs.is_none())
            .map(|e| e.name.as_str())
            .collect();
        for chunk in plain.chunks(8) {
            let _ = writeln!(out, "    event {};", chunk.join(", "));
        }
        for e in &self.events {
            if let Some(t) = e.timeout_secs {
                let _ = writeln!(out, "    event {} timeout {t}s;", e.name);
            }
        }
        out.push('\n');
        for (i, s) in self.states.iter().enumerate() {
            let prefix = if i == 0 {
                "start default "
            } else if self.is_final(i) {
                "final "
            } else {
                ""
            };
            let _ = writeln!(out, "    {prefix}state {s};");
        }
        out.push('\n');
        for &(from, e, to) in &self.transitions {
            let _ = writeln!(
                out,
                "    ({}, {}) -> {};",
                self.states[from as usize], self.events[e as usize].name, self.states[to as usize]
            );
        }
        out.push_str("}\n");
        out
    }

    /// The Open Autonomy YAML, in upstream's canonical form: keys sorted, lists sorted, transitions keyed
    /// `(State, EVENT)` and sorted, the transition mapping indented by four.
    pub fn to_yaml(&self) -> String {
        fn list(out: &mut String, key: &str, mut items: Vec<&str>) {
            items.sort_unstable();
            let _ = writeln!(out, "{key}:");
            for i in items {
                let _ = writeln!(out, "- {i}");
            }
        }
        let mut out = String::with_capacity(self.transitions.len() * 48 + self.states.len() * 24);
        list(
            &mut out,
            "alphabet_in",
            self.events.iter().map(|e| e.name.as_str()).collect(),
        );
        let _ = writeln!(out, "default_start_state: {}", self.states[0]);
        list(
            &mut out,
            "final_states",
            self.finals
                .iter()
                .map(|&f| self.states[f].as_str())
                .collect(),
        );
        let _ = writeln!(out, "label: {}", self.name);
        list(&mut out, "start_states", vec![self.states[0].as_str()]);
        list(
            &mut out,
            "states",
            self.states.iter().map(String::as_str).collect(),
        );
        let mut rows: Vec<(String, &str)> = self
            .transitions
            .iter()
            .map(|&(from, e, to)| {
                (
                    format!(
                        "({}, {})",
                        self.states[from as usize], self.events[e as usize].name
                    ),
                    self.states[to as usize].as_str(),
                )
            })
            .collect();
        rows.sort_unstable();
        out.push_str("transition_func:\n");
        for (key, to) in rows {
            let _ = writeln!(out, "    {key}: {to}");
        }
        out
    }
}

/// The spec of `states` states in `format`, from the default seed.
pub fn spec(states: usize, format: Format) -> String {
    Synth::generate(states, DEFAULT_SEED).write(format)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn diagnostics(text: &str, format: Format) -> Vec<String> {
        let c = fsmc_driver::compile_str(
            format.file_name(),
            text,
            Path::new("."),
            &fsmc_driver::Options::default(),
        );
        let mut out: Vec<String> = c
            .diagnostics
            .iter()
            .map(|d| format!("{:?}: {}", d.code, d.message))
            .collect();
        if c.checked.is_none() {
            out.push("no checked model".to_string());
        }
        out
    }

    #[test]
    fn generated_specs_check_clean() {
        for n in [MIN_STATES, 9, 10, 50, 100, 1000, 2500] {
            let s = Synth::generate(n, DEFAULT_SEED);
            for format in [Format::Fsm, Format::Yaml] {
                let d = diagnostics(&s.write(format), format);
                assert!(d.is_empty(), "{n} states, {format:?}: {d:#?}");
            }
        }
    }

    #[test]
    fn other_seeds_check_clean() {
        for seed in 1..20 {
            let s = Synth::generate(200, seed);
            let d = diagnostics(&s.to_fsm(), Format::Fsm);
            assert!(d.is_empty(), "seed {seed}: {d:#?}");
        }
    }

    #[test]
    fn sizes_are_as_promised() {
        let s = Synth::generate(10_000, DEFAULT_SEED);
        assert_eq!(s.states.len(), 10_000);
        assert_eq!(s.events.len(), 400);
        assert_eq!(s.finals.len(), 10);
        // Four per non-final state: the spine edge, random edges, and (every other state) a timeout loop.
        assert_eq!(s.transitions.len(), 4 * (10_000 - 10));
        assert!(Synth::generate(3, DEFAULT_SEED).states.len() >= MIN_STATES);
    }

    #[test]
    fn generation_is_deterministic() {
        for format in [Format::Fsm, Format::Yaml] {
            assert_eq!(spec(3000, format), spec(3000, format));
        }
        assert_ne!(Synth::generate(500, 1), Synth::generate(500, 2));
    }

    #[test]
    fn yaml_is_in_canonical_form() {
        // fsmc's own canonical writer, applied to what it read, must give the same bytes back.
        let text = spec(300, Format::Yaml);
        let c = fsmc_driver::compile_str(
            Format::Yaml.file_name(),
            &text,
            Path::new("."),
            &fsmc_driver::Options::default(),
        );
        assert!(c.diagnostics.is_empty());
        let (parsed, diags) = fsmc_driver::yaml::parse(fsmc_base::source::FileId(0), &text);
        assert!(diags.is_empty());
        let parsed = parsed.expect("parses");
        assert_eq!(fsmc::export::yaml::write(&parsed), text);
    }

    #[test]
    fn fsm_and_yaml_describe_the_same_machine() {
        let s = Synth::generate(400, 7);
        let opts = fsmc_driver::Options::default();
        let a = fsmc_driver::compile_str("a.fsm", &s.to_fsm(), Path::new("."), &opts);
        let b = fsmc_driver::compile_str(
            "b_fsm_specification.yaml",
            &s.to_yaml(),
            Path::new("."),
            &opts,
        );
        let (a, b) = (
            a.checked.expect("fsm checks"),
            b.checked.expect("yaml checks"),
        );
        let ma = &a.spec().machines[0];
        let mb = &b.spec().machines[0];
        assert_eq!(ma.states.len(), mb.states.len());
        assert_eq!(ma.events.len(), mb.events.len());
        assert_eq!(ma.transitions.len(), mb.transitions.len());
    }
}
