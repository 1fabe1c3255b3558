#!/usr/bin/env bash
# bench_fetch.sh BUILD [--runs N] [--mb N] [--mcp-peer] — fetch + HTML-to-Markdown
# throughput on a large page, rig against a Node MCP fetch server.
#
# The page: tests/integration/http_fixture.mjs's /big-html (N MiB of
# article-like HTML: sections with headings, paragraphs, links, lists and
# tables; default 4), served from memory on 127.0.0.1. Every fetch downloads
# it whole and converts all of it; the answer asks for 2000 characters so
# that the size of the reply is not what is measured.
#
#   1. One process a fetch, as an agent's shell would run it: `rig call
#      fetch` (median wall and CPU time of --runs calls, default 7) on the
#      big page, on 1 MiB and on the small /article (where process start is
#      most of the time); and the peer, started, initialized and asked once
#      over stdio, on 1 MiB (3 runs: it takes seconds a call).
#   2. `rig serve` over stdio under bench/bench_mcp (cold start, latency,
#      throughput with 2 calls in flight, memory) on the big page and on a
#      256 KiB one. --mcp-peer adds the peer there on the 256 KiB page
#      (bench_mcp gives a call 10 s, the peer needs about 20 s of CPU for
#      1 MiB, and in the recorded run it did not finish the harness's calls
#      at all: see RESULTS.md).
#
# The peer: @kazuph/mcp-fetch (Readability + Turndown on jsdom, the usual
# Node way; bench/fetch_peer pins it, and this script installs it there when
# missing), run with its SSRF guard off (it refuses 127.0.0.1, as rig does
# without --allow-host), its 2 MB HTML cap raised, robots.txt ignored.
#
# The fixture runs on the same (2-core) machine and serves both; its CPU is
# part of every figure alike. Markdown goes to stdout.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -x "$1/rig" ]; then
  echo "usage: bench/bench_fetch.sh BUILD_DIR [--runs N] [--mb N]  (BUILD_DIR has rig and bench/bench_mcp)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
runs=7
mb=4
mcp_peer=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:?--runs takes a number}; shift 2 ;;
    --mb) mb=${2:?--mb takes a number}; shift 2 ;;
    --mcp-peer) mcp_peer=1; shift ;;
    *) echo "bench_fetch.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
rig=$build/rig
node=$(command -v node || true)
if [ -z "$node" ]; then
  echo "_node not found: the fetch benchmark needs it for its HTTP fixture; skipped._"
  exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rig-bench-fetch.XXXXXX")
"$node" "$here/../tests/integration/http_fixture.mjs" >"$tmp/port" &
fixture=$!
trap 'kill $fixture 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(head -1 "$tmp/port")
page="http://127.0.0.1:$port/big-html?mb=$mb"
small="http://127.0.0.1:$port/article"
bytes=$(curl -s "$page" | wc -c) # also builds the page once in the fixture

echo "# rig fetch benchmark"
echo
echo "Page: $bytes bytes of HTML ($mb MiB, /big-html of the fixture); each fetch converts all of it."
echo

# ---- 1. one process a fetch ---------------------------------------------------
peer_dir=$here/fetch_peer
peer=$peer_dir/node_modules/@kazuph/mcp-fetch/dist/index.js
note=""
if [ ! -f "$peer" ]; then
  if command -v npm >/dev/null; then
    (cd "$peer_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || true
  fi
  [ -f "$peer" ] || note="_@kazuph/mcp-fetch could not be installed (bench/fetch_peer): it is skipped._"
fi
export MCP_FETCH_DISABLE_SSRF_GUARD=1 MCP_FETCH_MAX_HTML_BYTES=$((64 * 1024 * 1024)) MCP_FETCH_TIMEOUT_MS=120000

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
rig_once() { "$rig" call fetch "url=$1" max_length:=2000 --allow-host 127.0.0.1 >"$tmp/out"; }
# The peer started, initialized, asked once, and stopped: what one
# `rig call` does, over its MCP stdio.
peer_once() {
  local line=
  coproc PEER { exec "$node" "$peer" --ignore-robots-txt 2>/dev/null; }
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"imageFetch\",\"arguments\":{\"url\":\"$1\",\"maxLength\":2000}}}" >&"${PEER[1]}"
  while IFS= read -r line <&"${PEER[0]}"; do [[ $line == *'"id":2'* ]] && break; done
  local pid=$PEER_PID
  exec {PEER[1]}>&-
  wait "$pid" 2>/dev/null || true
  printf '%s\n' "$line" >"$tmp/out"
}
time_calls() { # FUNCTION URL N -> "wall_ms cpu_ms" medians
  local fn=$1 url=$2 n=$3 walls=() cpus=() t0 t1 c0 c1 me=$BASHPID
  $fn "$url" # warm
  for ((i = 0; i < n; i++)); do
    c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$me/stat)
    t0=${EPOCHREALTIME/./}
    $fn "$url"
    t1=${EPOCHREALTIME/./}
    c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$me/stat)
    walls+=($(((t1 - t0) / 1000)))
    cpus+=($(((c1 - c0) * 1000 / $(getconf CLK_TCK))))
  done
  grep -q "Section 0\|Rivers Run Uphill" "$tmp/out" || { echo "$fn answered: $(head -c 300 "$tmp/out")" >&2; exit 1; }
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${cpus[@]}" | median)"
}
mbps() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f MB/s", b / 1e6 / (t / 1e3) }'; }
one="http://127.0.0.1:$port/big-html?mb=1"
one_bytes=$(curl -s "$one" | wc -c)
read -r big_wall big_cpu < <(time_calls rig_once "$page" "$runs")
read -r one_wall one_cpu < <(time_calls rig_once "$one" "$runs")
read -r small_wall small_cpu < <(time_calls rig_once "$small" "$runs")
"$rig" call fetch "url=$page" max_length:=100 --allow-host 127.0.0.1 --json >"$tmp/big.json"
md_chars=$(grep -o '"total_length":[0-9]*' "$tmp/big.json" | cut -d: -f2)
echo "## One process a fetch (median of $runs; the peer: 3)"
echo
echo "| page | contestant | wall ms | CPU ms | throughput (wall) |"
echo "|---|---|---:|---:|---:|"
echo "| $mb MiB HTML → $md_chars characters of Markdown | rig call fetch | $big_wall | $big_cpu | $(mbps "$bytes" "$big_wall") |"
echo "| 1 MiB HTML | rig call fetch | $one_wall | $one_cpu | $(mbps "$one_bytes" "$one_wall") |"
if [ -z "$note" ]; then
  read -r p_wall p_cpu < <(time_calls peer_once "$one" 3)
  echo "| 1 MiB HTML | @kazuph/mcp-fetch (start, initialize, one call) | $p_wall | $p_cpu | $(mbps "$one_bytes" "$p_wall") |"
fi
echo "| /article (2.5 KB) | rig call fetch | $small_wall | $small_cpu | process start dominates |"
echo
if [ -z "$note" ]; then
  echo "1 MiB, peer/rig: $(awk -v a="$p_wall" -v b="$one_wall" 'BEGIN { printf "%.1fx", a / b }') wall, $(awk -v a="$p_cpu" -v b="$one_cpu" 'BEGIN { printf "%.1fx", a / (b ? b : 1) }') CPU (above 1: rig is faster). The peer is not run on the $mb MiB page: it needs minutes there."
  echo
fi

# ---- 2. rig serve against the Node peer, under bench_mcp --------------------------
# The big page and a 256 KiB one (the only size the peer could be given:
# bench_mcp allows a call 10 s).
quarter="http://127.0.0.1:$port/big-html?mb=0.25"
curl -s "$quarter" >/dev/null
args=(--stdio rig "$rig serve --allow-host 127.0.0.1" --tool fetch --task "fetch $mb MiB"
      --args "{\"url\":\"$page\",\"max_length\":2000}" --expect "Section 0"
      --stdio rig "$rig serve --allow-host 127.0.0.1" --tool fetch --task "fetch 256 KiB"
      --args "{\"url\":\"$quarter\",\"max_length\":2000}" --expect "Section 0")
[ "$mcp_peer" = 1 ] || note=${note:-"_The peer is left out of the bench_mcp part (--mcp-peer adds it)._"}
if [ -z "$note" ]; then
  args+=(--stdio mcp-fetch "$node $peer --ignore-robots-txt" --tool imageFetch --task "fetch 256 KiB"
         --args "{\"url\":\"$quarter\",\"maxLength\":2000}" --expect "Section 0")
fi
vs=()
[ -z "$note" ] && vs=(--vs mcp-fetch)
"$build/bench/bench_mcp" --cold 3 --calls 10 --runs 3 --seconds 4 --inflight 2 "${vs[@]}" \
  --title "fetch over MCP stdio: rig serve${vs:+ against @kazuph/mcp-fetch}" "${args[@]}"
echo
if [ -n "$note" ]; then
  echo "$note"
else
  version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$peer_dir/node_modules/@kazuph/mcp-fetch/package.json" | head -n 1)
  echo "@kazuph/mcp-fetch $version on node $("$node" --version) (Readability + Turndown on jsdom), MCP_FETCH_DISABLE_SSRF_GUARD=1, --ignore-robots-txt."
fi
