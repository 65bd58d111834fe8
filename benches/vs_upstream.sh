#!/usr/bin/env bash
# Whole-process comparison: `fsmc check` against Open Autonomy's own spec checker on the same synthetic specs.
#
# Upstream's checker is `autonomy.analyse.abci.app_spec.DFA.load` (what `autonomy analyse fsm-specs` runs on each
# spec: PyYAML loading, then the DFA's checks), installed from PyPI into a virtual environment under `target/`.
# Both run as a fresh process per check; each is timed best-of-RUNS (and median), with its peak resident memory.
# Upstream reads YAML only; fsmc is timed on the same YAML and on the same machine written as `.fsm`.
#
# usage: benches/vs_upstream.sh [RUNS] [STATES...]   (RUNS defaults to 5; STATES to 10000 100000)
#        UPSTREAM=0 benches/vs_upstream.sh …          times fsmc only (no Python environment needed)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
runs="${1:-5}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000)

# The version the numbers in benches/README.md were measured with.
upstream_version="0.21.29"
venv="$repo/target/vs-upstream-venv"

cargo build -q --release -p fsmc --bin fsmc --manifest-path "$repo/Cargo.toml"
cargo build -q --release -p fsmc-benches --bin synth --manifest-path "$repo/Cargo.toml"
target="$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"

python=""
if [ "${UPSTREAM:-1}" != 0 ]; then
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "open-autonomy==$upstream_version"
    fi
    python="$venv/bin/python"
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fsmc-vs-upstream.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

for n in "${sizes[@]}"; do
    "$target/release/synth" --states "$n" --format yaml -o "$tmp/s$n.yaml" >/dev/null 2>&1
    "$target/release/synth" --states "$n" --format fsm -o "$tmp/s$n.fsm" >/dev/null 2>&1
done

python3 - "$runs" "$target/release/fsmc" "$python" "$tmp" "${sizes[@]}" <<'EOF'
import os, statistics, subprocess, sys, time

runs, fsmc, python, tmp, sizes = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
upstream = (
    "import sys; from pathlib import Path\n"
    "from autonomy.analyse.abci.app_spec import DFA\n"
    "DFA.load(Path(sys.argv[1]), 'yaml')\n"
)

def measure(cmd):
    """Best and median wall time (s) and the largest peak RSS (MiB) of `runs` fresh processes."""
    times, peak = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        times.append(time.perf_counter() - start)
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err}")
        peak = max(peak, usage.ru_maxrss / 1024)
    return min(times), statistics.median(times), peak

print(f"{'spec':<22} {'checker':<10} {'best':>10} {'median':>10} {'peak RSS':>10}")
for n in sizes:
    rows = []
    if python:
        rows.append(("upstream", measure([python, "-c", upstream, f"{tmp}/s{n}.yaml"]), "yaml"))
    rows.append(("fsmc", measure([fsmc, "check", f"{tmp}/s{n}.yaml"]), "yaml"))
    rows.append(("fsmc", measure([fsmc, "check", f"{tmp}/s{n}.fsm"]), "fsm"))
    base = rows[0][1][0] if python else None
    for who, (best, median, peak), fmt in rows:
        ratio = f"  1/{base / best:.0f} of upstream" if base and who == "fsmc" else ""
        print(f"{f'{n} states, {fmt}':<22} {who:<10} {best * 1000:8.1f} ms {median * 1000:7.1f} ms "
              f"{peak:7.1f} MiB{ratio}")
EOF
