#!/usr/bin/env bash
# Build-time cost of `include_fsm!` against the same code written out by hand.
#
# Builds two throwaway crates in a temporary workspace, both depending on this checkout's fsmc-runtime:
#   macro/        `fsmc_runtime::include_fsm!("spec/…_fsm_specification.yaml");`
#   pregenerated/ `include!("generated.rs");`, the file `fsmc gen` writes for the same spec
# After one warm-up build (dependencies, the proc macro; timed too: it is the same for both crates, as
# fsmc-runtime re-exports the macros), each crate is rebuilt RUNS times after touching its
# source, timed; the difference is what the macro costs per build of a crate that uses it. Three configurations:
# dev (incremental, cargo's default), dev without incremental compilation, and release. The spec is copied into the temporary directory only (corpus data stays out of the repository).
#
# usage: benches/build_cost.sh [SPEC] [RUNS]
#   SPEC defaults to the trader spec of the shared corpus (58 states, 77 events, 283 transitions); RUNS to 5.
#   KEEP=1 keeps the temporary directory.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
if [ -z "${1:-}" ] && [ -z "${FSMC_CORPUS:-}" ]; then
    echo "usage: benches/build_cost.sh SPEC [RUNS], or set FSMC_CORPUS to the directory holding open-autonomy/" >&2
    exit 2
fi
corpus="${FSMC_CORPUS:-}"
case "$corpus" in /*) ;; *) corpus="$repo/$corpus" ;; esac
spec="${1:-$corpus/open-autonomy/trader__packages__valory__skills__trader_abci__fsm_specification.yaml}"
runs="${2:-5}"
[ -f "$spec" ] || { echo "build_cost: no spec at $spec" >&2; exit 2; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fsmc-build-cost.XXXXXX")"
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "keeping $tmp"; fi
export CARGO_TARGET_DIR="$tmp/target"
export CARGO_TERM_COLOR=never

case "$spec" in
    *.yaml | *.yml) name="spec_fsm_specification.yaml" ;;
    *) name="spec.fsm" ;;
esac

mkdir -p "$tmp/macro/src/spec" "$tmp/pregenerated/src"
cp "$spec" "$tmp/macro/src/spec/$name"
cat >"$tmp/Cargo.toml" <<EOF
[workspace]
resolver = "3"
members = ["macro", "pregenerated"]
EOF
for krate in macro pregenerated; do
    cat >"$tmp/$krate/Cargo.toml" <<EOF
[package]
name = "cost-$krate"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
# app: the trader is an abci machine; yaml: the macro reads the spec from YAML.
fsmc-runtime = { path = "$repo/runtime", features = ["app", "yaml"] }
EOF
done
echo "fsmc_runtime::include_fsm!(\"src/spec/$name\");" >"$tmp/macro/src/lib.rs"
echo 'include!("generated.rs");' >"$tmp/pregenerated/src/lib.rs"

echo "spec: $spec"
echo "generating the pre-generated file with fsmc gen"
(cd "$repo" && cargo run -q --release -p fsmc -- gen "$spec" -o "$tmp/pregenerated/src/generated.rs")
echo "generated.rs: $(wc -l <"$tmp/pregenerated/src/generated.rs") lines, $(wc -c <"$tmp/pregenerated/src/generated.rs") bytes"

now() { date +%s.%N; }

measure() { # label profile-flag crate
    local label="$1" flag="$2" krate="$3" times=() t0 t1 log
    # One untimed rebuild first: the first build of one package after a workspace build can differ.
    touch "$tmp/$krate/src/lib.rs"
    (cd "$tmp" && cargo build -q $flag -p "cost-$krate")
    for _ in $(seq "$runs"); do
        touch "$tmp/$krate/src/lib.rs"
        t0="$(now)"
        log="$(cd "$tmp" && cargo build $flag -p "cost-$krate" 2>&1)"
        t1="$(now)"
        # The touch must have made cargo run rustc on the crate again.
        grep -q "Compiling cost-$krate" <<<"$log" || { echo "build_cost: cost-$krate was not rebuilt" >&2; exit 1; }
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v k="$krate" -v p="$label" '
        { t[NR] = $1; s += $1 }
        END { printf "  %-22s %-13s min %.3f s  median %.3f s  mean %.3f s  (%d runs)\n", p, k, t[1], t[int((NR + 1) / 2)], s / NR, NR }'
}

# dev with incremental compilation (cargo's default), dev without it, and release.
for config in "dev:" "dev-non-incremental:" "release:--release"; do
    label="${config%%:*}" flag="${config#*:}"
    if [ "$label" = dev-non-incremental ]; then export CARGO_INCREMENTAL=0; else unset CARGO_INCREMENTAL; fi
    t0="$(now)"
    (cd "$tmp" && cargo build -q $flag --workspace)
    t1="$(now)"
    echo "warm-up build ($label): dependencies and the proc macro, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    measure "$label" "$flag" macro
    measure "$label" "$flag" pregenerated
done
unset CARGO_INCREMENTAL

for krate in macro pregenerated; do
    echo "clippy on cost-$krate (what a user of $([ $krate = macro ] && echo 'include_fsm!' || echo 'fsmc gen') sees):"
    touch "$tmp/$krate/src/lib.rs"
    (cd "$tmp" && cargo clippy -q -p "cost-$krate" 2>&1 | grep -E '^(warning|error)' | sort | uniq -c) || echo "  none"
done
