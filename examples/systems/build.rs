//! Writes a spec into `OUT_DIR`, as a crate whose machine is computed at build time would: a ladder of `RUNGS`
//! states climbed one `UP` at a time. `tests/out_dir.rs` expands it with `include_fsm!("$OUT_DIR/ladder.fsm")`.

use std::fmt::Write as _;

const RUNGS: usize = 5;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut spec = String::from(
        "/// A ladder, climbed one rung at a time.\nmachine Ladder {\n    event UP;\n",
    );
    for i in 0..RUNGS {
        let kind = match i {
            0 => "start default state",
            _ if i == RUNGS - 1 => "final state",
            _ => "state",
        };
        let _ = writeln!(spec, "    {kind} Rung{i};");
    }
    for i in 1..RUNGS {
        let _ = writeln!(spec, "    (Rung{}, UP) -> Rung{i};", i - 1);
    }
    spec.push_str("}\n");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let path = out.join("ladder.fsm");
    // Rewriting identical text would rebuild what includes it for nothing.
    if std::fs::read_to_string(&path).ok().as_deref() != Some(spec.as_str()) {
        std::fs::write(&path, spec).expect("OUT_DIR is writable");
    }
}
