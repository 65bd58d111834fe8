#!/usr/bin/env bash
# Cold build of a minimal crate that uses fsmc's `fsm!`, against the same crate using smlang's `statemachine!`.
#
# Two throwaway crates, each with the same two-state door machine and a `main` that fires one event:
#   fsmc/    depends on this checkout's fsmc-runtime (default features: the macros)
#   smlang/  depends on smlang 0.8 from crates.io
# Dependencies are fetched first, so no download is timed. Each crate is then built RUNS times from an empty
# target directory, alternating, in dev (cargo's default). Incremental compilation is off: a dependency from a
# registry or git is never compiled incrementally, but a path dependency (this checkout) would be, and would pay
# for it. Prints each build's wall and CPU time (CPU shows when something else competed for the cores) and the
# medians' ratio.
#
# usage: benches/cold_build.sh [RUNS]      (RUNS defaults to 3; KEEP=1 keeps the temporary directory)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
runs="${1:-3}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fsmc-cold-build.XXXXXX")"
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "keeping $tmp"; fi
export CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0
unset CARGO_TARGET_DIR RUSTFLAGS

mkdir -p "$tmp/fsmc/src" "$tmp/smlang/src"
cat >"$tmp/fsmc/Cargo.toml" <<EOF
[package]
name = "cold-fsmc"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
fsmc-runtime = { path = "$repo/runtime" }

[workspace]
EOF
cat >"$tmp/fsmc/src/main.rs" <<'EOF'
fsmc_runtime::fsm!(r#"
    machine Door {
        event OPEN, CLOSE;
        start default state Closed;
        state Opened;
        (Closed, OPEN) -> Opened;
        (Opened, CLOSE) -> Closed;
    }
"#);

fn main() {
    println!("{:?}", door::State::Closed.next(door::Event::Open));
}
EOF
cat >"$tmp/smlang/Cargo.toml" <<'EOF'
[package]
name = "cold-smlang"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
smlang = "0.8"

[workspace]
EOF
cat >"$tmp/smlang/src/main.rs" <<'EOF'
use smlang::statemachine;

statemachine! {
    transitions: {
        *Closed + Open = Opened,
        Opened + Close = Closed,
    }
}

struct Context;
impl StateMachineContext for Context {}

fn main() {
    let mut sm = StateMachine::new(Context);
    println!("{:?}", sm.process_event(Events::Open).is_ok());
}
EOF

for krate in fsmc smlang; do
    (cd "$tmp/$krate" && cargo fetch -q)
done

TIMEFORMAT='%R %U %S'
declare -A walls
for run in $(seq "$runs"); do
    for krate in fsmc smlang; do
        rm -rf "$tmp/$krate/target"
        t="$( { time (cd "$tmp/$krate" && cargo build -q --offline >"$tmp/$krate.log" 2>&1); } 2>&1 )" || {
            echo "cold_build: the $krate crate did not build:" >&2
            tail -n 30 "$tmp/$krate.log" >&2
            exit 1
        }
        read -r wall user sys <<<"$t"
        printf '  run %d  %-7s wall %6.2f s   cpu %6.2f s\n' "$run" "$krate" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
        walls[$krate]+="$wall "
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
f="$(median <<<"${walls[fsmc]}")"
s="$(median <<<"${walls[smlang]}")"
awk -v f="$f" -v s="$s" 'BEGIN { printf "median wall: fsmc %.2f s, smlang %.2f s: %.2f× smlang\n", f, s, f / s }'
