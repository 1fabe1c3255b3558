#!/usr/bin/env bash
# bench_env.sh BUILD [RUNS] — the environment control channel (REFERENCE 1):
# BUILD/bench/bench_env drives `BUILD/rig env serve bench/env_tasks.json`
# and the peer, bench/env_peer.py (an asyncio stand-in for HUD's SDK
# server: the SDK itself cannot be installed here), in turns, RUNS times
# each (default 3), and prints a Markdown table of the medians with rig's
# ratio to the peer: start->grade cycles per second on 1 connection and on
# 32, the server CPU per cycle, and the bytes each of 10,000 parked
# sessions costs. Runs under `nice -n -15` when permitted.
set -eu
build=$(realpath "$1")
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
bench="$build/bench/bench_env"
tasks="$here/env_tasks.json"
secs=${BENCH_ENV_SECONDS:-3}
parked=${BENCH_ENV_PARKED:-10000}

rig=("$build/rig" env serve "$tasks" --port 0)
rig_name="rig env serve"
peer=(python3 "$here/env_peer.py" "$tasks" --port 0)
nice=()
if nice -n -15 true 2>/dev/null; then nice=(nice -n -15); fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "load before: $(cat /proc/loadavg); nice: ${nice[*]:-none}" >&2
for i in $(seq "$runs"); do
  for who in rig peer; do
    if [ "$who" = rig ]; then cmd=("${rig[@]}"); else cmd=("${peer[@]}"); fi
    res=$("${nice[@]}" "$bench" --seconds "$secs" --parked "$parked" -- "${cmd[@]}")
    printf '%s\n' "$res" >&2
    echo "$who $(grep '^RESULT' <<<"$res")" >>"$out"
  done
done
echo "load after: $(cat /proc/loadavg)" >&2

python3 - "$out" "$rig_name" "$(python3 --version 2>&1)" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    who, _, *kv = line.split()
    rows.setdefault(who, []).append({k: float(v) for k, v in (x.split("=") for x in kv)})
def med(who, key):
    return statistics.median(r[key] for r in rows[who])
names = {"rig": sys.argv[2], "peer": "env_peer.py (asyncio stand-in for HUD's SDK, " + sys.argv[3] + ")"}
print("| measure | " + " | ".join(names[w] for w in ("rig", "peer")) + " | rig vs peer |")
print("|---|---:|---:|---:|")
for key, label, better in (("seq_cps", "start->grade cycles/s, 1 connection", "higher"),
                           ("conc_cps", "start->grade cycles/s, 32 connections", "higher"),
                           ("seq_cpu_us", "server CPU us a cycle, 1 connection", "lower"),
                           ("conc_cpu_us", "server CPU us a cycle, 32 connections", "lower"),
                           ("park_bytes", "bytes a parked session (RSS delta / sessions)", "lower"),
                           ("rss_start_kib", "server RSS at start, KiB", "lower")):
    r, p = med("rig", key), med("peer", key)
    ratio = (r / p) if better == "higher" else (p / r if r else float("inf"))
    print(f"| {label} | {r:,.1f} | {p:,.1f} | **{ratio:.2f}x** |")
print(f"\n(medians of {len(rows['rig'])} runs each; the ratio is how many times better rig is)")
PY
