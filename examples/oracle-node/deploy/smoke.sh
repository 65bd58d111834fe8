#!/usr/bin/env bash
# The container recipe end to end: build the image, start the four-node network, wait until every node has
# decided some heights, kill one node with SIGKILL and start it again, then require that all four report the
# same app hash at one height and that node-0 serves its metrics. Leaves nothing behind (`down -v`).
#
#   examples/oracle-node/deploy/smoke.sh                      with Docker's `docker compose`
#   COMPOSE=podman-compose examples/oracle-node/deploy/smoke.sh   with Podman
#
# Needs curl and python3 on the host, and the base images `rust:1-bookworm` and `debian:bookworm-slim`
# (pulled by the build, or present locally).
set -euo pipefail
cd "$(dirname "$0")"
compose=(${COMPOSE:-docker compose})
status_ports=(26657 26658 26659 26660)

cleanup() { "${compose[@]}" down -v >/dev/null 2>&1 || true; }
trap cleanup EXIT

# One field of a node's /status, or nothing while it does not answer.
field() {
    curl -s -m 3 "localhost:$1/status" \
        | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])" 2>/dev/null || true
}

# Waits (at most $2 seconds) until every node's height is at least $1.
wait_heights() {
    local deadline=$((SECONDS + $2))
    for port in "${status_ports[@]}"; do
        until [ "$(field "$port" height)" -ge "$1" ] 2>/dev/null; do
            [ "$SECONDS" -lt "$deadline" ] || { echo "node on port $port did not reach height $1" >&2; exit 1; }
            sleep 1
        done
    done
}

# Every service names the one image: build it once (some compose tools would build it once per service).
"${compose[@]}" build setup
"${compose[@]}" up -d
wait_heights 20 180
echo "four nodes past height 20"

"${compose[@]}" kill node-2
sleep 5
"${compose[@]}" start node-2
before="$(field 26657 height)"
wait_heights $((before + 10)) 180
echo "node-2 restarted and caught up past height $((before + 10))"

# The nodes keep deciding while they are asked: read the four at once, and try again when the reads straddle
# a decision before calling it a disagreement.
statuses() {
    local dir
    dir="$(mktemp -d)"
    for port in "${status_ports[@]}"; do
        curl -s -m 3 -o "$dir/$port" "localhost:$port/status" &
    done
    wait
    python3 - "$dir" "${status_ports[@]}" <<'PY'
import json, sys
for port in sys.argv[2:]:
    try:
        s = json.load(open(f"{sys.argv[1]}/{port}"))
        print(s["height"], s["app_hash"])
    except Exception:
        print("no answer from port", port)
PY
    rm -rf "$dir"
}
agreed=""
for attempt in $(seq 20); do
    states="$(statuses)"
    if [ "$(sort -u <<<"$states" | wc -l)" -eq 1 ]; then
        agreed="$(head -n 1 <<<"$states")"
        break
    fi
    echo "attempt $attempt: $(tr '\n' ' ' <<<"$states")"
    sleep 0.2
done
[ -n "$agreed" ] || { echo "the nodes never reported one height and app hash" >&2; exit 1; }
echo "one app hash on all four at height ${agreed% *}: ${agreed#* }"
curl -s -m 3 localhost:26670/metrics | grep -q '^fsmc_height' || { echo "no metrics from node-0" >&2; exit 1; }
echo "metrics served; the recipe works"
