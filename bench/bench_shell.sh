#!/usr/bin/env bash
# bench_shell.sh RIG [RUNS] — the shell tool's cost per command: 100
# sequential `true` commands
#   - spawned by a shell script (`for ...; do /bin/sh -c true; done`): the peer,
#     what any tool runner pays at least (rig too runs /bin/sh -c);
#   - through `rig call shell` (a process per command, as a script would use it);
#   - through one `rig serve` over stdio (MCP tools/call, one after another);
# the rig rows with the Landlock sandbox on (the default) and off. Prints a
# Markdown table of the median of RUNS runs (default 5) in ms per command.
set -eu
rig=$(realpath "$1")
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s%N; }

script_run() {
  local t0 t1
  t0=$(now)
  for _ in $(seq 100); do /bin/sh -c true; done
  t1=$(now)
  echo $(((t1 - t0) / 1000000)) # hundredths of a ms per command
}

call_run() { # $1: on|off
  local t0 t1
  t0=$(now)
  for _ in $(seq 100); do "$rig" call --sandbox "$1" shell command=true >/dev/null 2>&1; done
  t1=$(now)
  echo $(((t1 - t0) / 1000000))
}

serve_run() { # $1: on|off
  python3 - "$rig" "$1" <<'EOF'
import json, subprocess, sys, time
rig, sandbox = sys.argv[1], sys.argv[2]
p = subprocess.Popen([rig, "serve", "--sandbox", sandbox], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode())
def recv():
    return json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "shell", "arguments": {"command": "true"}}}
send(call); recv()  # warm up
t0 = time.perf_counter()
for i in range(100):
    call["id"] = i + 2
    send(call)
    r = recv()
    assert not r["result"].get("isError"), r
t1 = time.perf_counter()
p.stdin.close(); p.wait()
print(int((t1 - t0) * 1e3))  # hundredths of a ms per command
EOF
}

declare -A res
for _ in $(seq "$runs"); do
  res[script]+="$(script_run) "
  res[call_on]+="$(call_run on) "
  res[call_off]+="$(call_run off) "
  res[serve_on]+="$(serve_run on) "
  res[serve_off]+="$(serve_run off) "
done
fmt() { awk '{printf "%.2f", $1 / 100}'; }
m() { tr ' ' '\n' <<<"${res[$1]}" | grep . | median; }
s=$(m script)
echo "| 100 sequential \`true\` | ms per command | vs the shell script |"
echo "|---|---:|---:|"
echo "| shell script (\`/bin/sh -c true\` in a loop) | $(fmt <<<"$s") | 1.00x |"
for k in serve_on serve_off call_on call_off; do
  v=$(m $k)
  case $k in
    serve_on) name="rig serve (stdio MCP), sandbox on" ;;
    serve_off) name="rig serve (stdio MCP), sandbox off" ;;
    call_on) name="rig call, sandbox on" ;;
    call_off) name="rig call, sandbox off" ;;
  esac
  echo "| $name | $(fmt <<<"$v") | $(awk -v a="$s" -v b="$v" 'BEGIN {printf "%.2fx", a / b}') |"
done
